package main

import (
	"context"
	"fmt"
	"io"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/textproc"
)

func init() {
	register(&command{
		name:    "show",
		args:    "[--text [--raw] | --sentences | --page N [--raw] | --json] ID",
		summary: "show a document's metadata, text, sentences or one page",
		run:     runShow,
	})
}

func runShow(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["show"])
	text := fs.Bool("text", false, "print the stored text, control characters made visible")
	raw := fs.Bool("raw", false, "with --text or --page: print the stored bytes exactly, control characters and all (for a file, not a terminal)")
	sents := fs.Bool("sentences", false, "print index<TAB>page<TAB>start<TAB>end<TAB>text per sentence")
	page := fs.Int("page", 0, "print the text of page `N`")
	asJSON := fs.Bool("json", false, "print the metadata as JSON")
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
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
	case *page > 0:
		start, end, err := pageSpan(d, *page)
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, out(d.Text[start:end]))
		return err
	case *asJSON:
		return writeJSON(a.stdout, d.DocInfo)
	}
	i := d.DocInfo
	fmt.Fprintf(a.stdout, "id         %s\nname       %s\npath       %s\nkind       %s\n", i.ID, textproc.OneLine(i.Name), textproc.OneLine(i.Path), i.Kind)
	if i.Title != "" {
		fmt.Fprintf(a.stdout, "title      %s\n", textproc.OneLine(i.Title))
	}
	fmt.Fprintf(a.stdout, "pages      %d\nsentences  %d\nchunks     %d\nbytes      %d\nadded      %s\n",
		i.Pages, i.NumSents, i.NumChunks, i.Bytes, i.Added.Local().Format("2006-01-02 15:04:05"))
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
