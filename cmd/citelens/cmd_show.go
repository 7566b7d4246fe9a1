package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "show",
		args:    "[--text [--raw] | --sentences | --outline | --page N [--raw] | --json [--raw]] ID",
		summary: "show a document's metadata, text, sentences, headings or one page",
		run:     runShow,
	})
}

func runShow(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["show"])
	text := fs.Bool("text", false, "print the stored text, control characters made visible")
	raw := fs.Bool("raw", false, "with --text or --page: print the stored bytes exactly, control characters and all (for a file, not a terminal); "+rawJSONUsage)
	sents := fs.Bool("sentences", false, "print index<TAB>page<TAB>start<TAB>end<TAB>text per sentence")
	outline := fs.Bool("outline", false, "print the section headings found, indented by level, with their sentence and page")
	page := fs.Int("page", 0, "print the text of page `N`")
	asJSON := fs.Bool("json", false, "print the metadata as JSON")
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	pageGiven := false
	fs.Visit(func(f *flag.Flag) { pageGiven = pageGiven || f.Name == "page" })
	if pageGiven && *page < 1 {
		return fix.With(fmt.Errorf("--page %d: pages are numbered from 1", *page), "Give a page of the document: 'citelens show ID' says how many it has.")
	}
	if len(refs) != 1 {
		fmt.Fprintln(a.stderr, "citelens show: give one document (an ID prefix or file name)")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(true)
	if err != nil {
		return err
	}
	defer l.Close()
	ids, err := resolveDocs(l, refs)
	if err != nil {
		return err
	}
	d, err := l.Document(ids[0])
	if err != nil {
		return err
	}
	// Control characters are neutralised on every output, pipes too: a
	// pipe often ends on a terminal (show --text | head), where an escape
	// sequence in a document would set the title or the clipboard. --raw
	// asks for the exact bytes, to a file.
	out := textproc.Printable
	if *raw {
		out = func(s string) string { return s }
	}
	switch {
	case *text:
		_, err := io.WriteString(a.stdout, out(d.Text))
		return err
	case *sents:
		for i, s := range d.Sentences {
			fmt.Fprintf(a.stdout, "%d\t%d\t%d\t%d\t%s\n", i, s.Page, s.Start, s.End, textproc.OneLine(d.SentenceText(i)))
		}
		return nil
	case *outline:
		if len(d.Sections) == 0 {
			fmt.Fprintln(a.stdout, "no headings found")
			return nil
		}
		for _, sec := range d.Sections {
			at, pg := "", 0
			if i := int(sec.Sentence); i >= 0 && i < len(d.Sentences) {
				at, pg = fmt.Sprintf("s%d", i), int(d.Sentences[i].Page)
			} else {
				pg = d.PageOf(int(sec.Heading.Start))
			}
			title := ""
			if sec.Heading.Valid(len(d.Text)) {
				title = textproc.OneLine(d.Text[sec.Heading.Start:sec.Heading.End])
			}
			fmt.Fprintf(a.stdout, "%s%s  (%s p.%d)\n", indent(sec.Level), title, at, pg)
		}
		return nil
	case *page > 0:
		start, end, err := pageSpan(d, *page)
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, out(d.Text[start:end]))
		return err
	case *asJSON:
		return writeJSON(a.stdout, d.DocInfo, *raw)
	}
	i := d.DocInfo
	fmt.Fprintf(a.stdout, "id         %s\nname       %s\npath       %s\nkind       %s\n", i.ID, textproc.OneLine(i.Name), textproc.OneLine(i.Path), i.Kind)
	if i.Title != "" {
		fmt.Fprintf(a.stdout, "title      %s\n", textproc.OneLine(i.Title))
	}
	fmt.Fprintf(a.stdout, "pages      %d\nsentences  %d\nchunks     %d\nbytes      %d\nadded      %s\n",
		i.Pages, i.NumSents, i.NumChunks, i.Bytes, i.Added.Local().Format("2006-01-02 15:04:05"))
	if len(i.OCRPages) > 0 {
		fmt.Fprintf(a.stdout, "ocr pages  %s (read from their image; may hold recognition errors)\n", engine.Ranges(i.OCRPages))
	}
	for _, w := range i.Warnings {
		fmt.Fprintf(a.stdout, "warning    %s\n", textproc.OneLine(w))
	}
	return nil
}

// pageSpan returns the byte range of page n (1-based) of d.
func pageSpan(d *docstore.Document, n int) (int, int, error) {
	if n < 1 || n > len(d.PageStarts) {
		return 0, 0, fmt.Errorf("%s has pages 1 to %d, not %d", d.Name, len(d.PageStarts), n)
	}
	end := len(d.Text)
	if n < len(d.PageStarts) {
		end = int(d.PageStarts[n])
	}
	return int(d.PageStarts[n-1]), end, nil
}

// indent is two spaces per level below the first.
func indent(level int) string {
	n := max(0, min(level, 12)-1)
	b := make([]byte, 2*n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
