package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{name: "answers", args: "[--stale] [--grep WORDS | search WORDS] [--json [--raw]]", summary: "list saved answers, newest first (--stale: those whose evidence changed in a document's newer version; --grep: those with these words)", run: runAnswers})
	register(&command{
		name:    "export",
		args:    "ANSWER_ID [--format md|json|longbench|html [--exact]] [--no-images] [-o FILE | -o DIR/] | --thread THREAD_ID [--format md|json|html] [-o FILE]",
		summary: "write a saved answer, or a whole thread of them, with its evidence (HTML with pictures of the cited regions; a folder gets one PNG per citation)",
		run:     runExport,
	})
}

func runAnswers(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["answers"])
	asJSON := fs.Bool("json", false, "print the answers as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	stale := fs.Bool("stale", false, "list only the answers whose evidence changed in a newer version of a document they cite, with what became of each citation")
	grep := fs.String("grep", "", "list only the answers whose question or answer has every one of these `WORDS` (case and accents aside; a word may be the start of one); 'answers search WORDS' too")
	words, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(words) > 0 {
		if words[0] != "search" || len(words) < 2 || *grep != "" {
			fmt.Fprintln(a.stderr, "citelens answers: to find answers by words, say 'citelens answers search WORDS' or 'citelens answers --grep WORDS'")
			fs.Usage()
			return errUsage
		}
		*grep = strings.Join(words[1:], " ")
	}
	l, err := a.openLibrary(true)
	if errors.Is(err, errNoLibrary) {
		return a.listNothing(*asJSON, *raw, []docstore.AnswerMeta{}, "No saved answers.")
	}
	if err != nil {
		return err
	}
	defer l.Close()
	list, err := l.Answers().List()
	if err != nil {
		return err
	}
	// Newest first (List is oldest first): the answer one looks for is
	// most often the last asked, and a long list scrolls its start out
	// of view.
	slices.Reverse(list)
	if *grep != "" {
		if list, err = grepAnswers(l, list, *grep); err != nil {
			return err
		}
	}
	if *stale {
		return answersStale(a, l, list, *asJSON, *raw)
	}
	if *asJSON {
		if list == nil {
			list = []docstore.AnswerMeta{}
		}
		return writeJSON(a.stdout, list, *raw)
	}
	if len(list) == 0 && *grep != "" {
		fmt.Fprintf(a.stdout, "No saved answer has all of the words %s.\n", textproc.OneLine(*grep))
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No saved answers. Ask with 'citelens ask QUESTION'.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tASKED\tBY\tSTRATEGY\tQUESTION")
	for _, m := range list {
		by := "-" // saved before answers recorded their author
		if m.Author != nil {
			by = textproc.OneLine(m.Author.String())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.Created.Local().Format("2006-01-02 15:04"), by, m.Strategy, truncate(textproc.OneLine(m.Question), 70))
	}
	return tw.Flush()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func runExport(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["export"])
	format := fs.String("format", "md", "the `FORMAT`: md, json, longbench or html")
	outPath := fs.String("o", "", "write to `FILE` (default: standard output); to a folder (an existing one, or a path ending in /): the answer and one PNG per cited region")
	noImages := fs.Bool("no-images", false, "leave out the pictures of the cited regions (HTML) and the PNGs (folder)")
	exact := fs.Bool("exact", false, "with --format json or longbench: strings exactly as stored, control characters as \\u escapes (lossless; 'jq -r' would decode them)")
	thread := fs.String("thread", "", "export the whole thread `THREAD_ID` (see 'citelens threads'), each answer with its evidence, instead of one answer")
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if *thread != "" {
		return exportThreadCommand(ctx, a, fs, refs, *thread, *format, *outPath, !*noImages)
	}
	l, ans, err := a.openAnswer("export", fs, refs)
	if err != nil {
		return err
	}
	defer l.Close()
	if _, err := citations.LookupFormat(*format); err != nil {
		return err
	}
	ex := exporter{a: a, ctx: ctx, l: l, format: *format, images: !*noImages, exact: *exact}
	defer ex.close()
	if *outPath == "" {
		// Exports quote document text verbatim: exact in a pipe or file, but
		// with control characters neutralised on a terminal.
		if !isTerminal(a.stdout) {
			return ex.write(a.stdout, ans)
		}
		var buf bytes.Buffer
		if err := ex.write(&buf, ans); err != nil {
			return err
		}
		_, err := io.WriteString(a.stdout, textproc.Printable(buf.String()))
		return err
	}
	if isFolder(*outPath) {
		return ex.folder(*outPath, ans)
	}
	_, statErr := os.Stat(*outPath)
	var buf bytes.Buffer
	if err := ex.write(&buf, ans); err != nil {
		return err
	}
	if err := writeFile(*outPath, buf.Bytes()); err != nil {
		return err
	}
	verb := "wrote"
	if statErr == nil {
		verb = "replaced" // -o names the file: replacing it is asked for, but said
	}
	fmt.Fprintf(a.stderr, "%s %s\n", verb, textproc.OneLine(*outPath))
	return nil
}

// isFolder reports whether -o names a folder: one that exists, or a path
// ending in a separator.
func isFolder(path string) bool {
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(os.PathSeparator)) {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// exporter writes an answer, drawing the cited regions of PDF documents
// when pictures are asked for; the page renderer starts on the first
// picture, so an answer citing no PDF starts nothing.
type exporter struct {
	a      *app
	ctx    context.Context
	l      *docstore.Library
	format string
	images bool
	exact  bool // JSON strings exactly as stored

	src  *pageimage.Source
	done func()
	err  error // the renderer's start failed: no more pictures are tried
}

func (e *exporter) close() {
	if e.done != nil {
		e.done()
	}
}

// start starts the page renderer once, with progress on stderr.
func (e *exporter) start() error {
	if e.src == nil && e.err == nil {
		e.src, e.done = pageSource(e.l)
		e.err = startRenderer(e.ctx, e.src.Renderer(), e.a.stderr)
	}
	return e.err
}

// pictures draws citation c's region on each page it stands on; nothing
// for a document that is not a PDF.
func (e *exporter) pictures(c citations.Span) ([]*pagerender.Picture, error) {
	doc, err := e.l.Document(c.Doc)
	if err != nil {
		return nil, err
	}
	if pageimage.Available(doc) != nil {
		return nil, nil
	}
	if err := e.start(); err != nil {
		return nil, err
	}
	return e.src.Evidence(e.ctx, doc, c.Start, c.End, pageimage.ExportDPI)
}

// write writes ans in e's format, HTML with pictures when asked.
func (e *exporter) write(w io.Writer, ans *engine.Answer) error {
	f, _ := citations.LookupFormat(e.format) // checked by the caller
	var buf bytes.Buffer
	if f.Name != "html" || !e.images || !pageimage.Cites(ans, e.l.Document) {
		if err := exportAnswer(&buf, e.format, ans, e.l.Document, e.exact); err != nil {
			return err
		}
	} else {
		if err := e.start(); err != nil {
			return err
		}
		if err := citations.WriteHTMLWith(&buf, ans, citations.HTMLOptions{Pictures: e.src.AnswerPictures(e.ctx, ans, e.l.Document)}); err != nil {
			return err
		}
	}
	out, err := withVersions(e.l, f.Name, ans, buf.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// folder writes ans into dir as answer.EXT and, with pictures, one PNG
// per citation (citation-N.png; citation-N-pP.png for each page of one
// that runs over pages). The pictures are drawn first, so that Markdown
// links each under its citation's quote.
func (e *exporter) folder(dir string, ans *engine.Answer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var wrote []string
	pictured := map[int][]string{} // citation number → its PNGs' names
	if e.images {
		n := 0
		for _, s := range ans.Statements {
			for _, c := range s.Citations {
				n++
				pics, err := e.pictures(c)
				if err != nil {
					fmt.Fprintf(e.a.stderr, "citation %d (%s, %s): no picture: %s\n", n, textproc.OneLine(c.DocName), c.PageLabel(), textproc.OneLine(err.Error()))
					continue
				}
				for _, p := range pics {
					name := fmt.Sprintf("citation-%d.png", n)
					if len(pics) > 1 {
						name = fmt.Sprintf("citation-%d-p%d.png", n, p.Page)
					}
					path := filepath.Join(dir, name)
					if err := writeFile(path, pageimage.PNG(p)); err != nil {
						return err
					}
					wrote = append(wrote, path)
					pictured[n] = append(pictured[n], name)
				}
			}
		}
	}
	f, _ := citations.LookupFormat(e.format)
	var buf bytes.Buffer
	var err error
	out := buf.Bytes()
	if f.Name == "md" {
		err = citations.WriteMarkdownWith(&buf, ans, citations.MarkdownOptions{
			Pictures: func(n int, _ citations.Span) []string { return pictured[n] },
		})
		if err == nil {
			out, err = withVersions(e.l, f.Name, ans, buf.Bytes())
		}
	} else {
		err = e.write(&buf, ans)
		out = buf.Bytes()
	}
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "answer."+f.Ext)
	if err := writeFile(path, out); err != nil {
		return err
	}
	fmt.Fprintf(e.a.stderr, "wrote %s\n", strings.Join(append([]string{path}, wrote...), ", "))
	return nil
}

// exportAnswer writes ans in one of the export formats (citations.Formats),
// its JSON strings exactly as stored when exact is set.
func exportAnswer(w io.Writer, format string, ans *engine.Answer, docs citations.DocLookup, exact bool) error {
	// An unknown format's error already lists the formats there are.
	if exact {
		return citations.ExportExact(w, format, ans, docs)
	}
	return citations.Export(w, format, ans, docs)
}

// openAnswer opens the library for reading and loads the one saved
// answer refs names, for a command (export, recheck) that takes one
// answer ID; the caller closes the library.
func (a *app) openAnswer(command string, fs *flag.FlagSet, refs []string) (*docstore.Library, *engine.Answer, error) {
	if len(refs) != 1 {
		fmt.Fprintf(a.stderr, "citelens %s: give one answer ID (see 'citelens answers')\n", command)
		fs.Usage()
		return nil, nil, errUsage
	}
	l, err := a.openLibrary(true)
	if err != nil {
		return nil, nil, err
	}
	ans, err := engine.Load(l, refs[0])
	if err != nil {
		l.Close()
		if errors.Is(err, docstore.ErrNotFound) {
			return nil, nil, fix.With(err, "List saved answers with 'citelens answers'.")
		}
		return nil, nil, err
	}
	return l, ans, nil
}
