package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{name: "answers", args: "[--json [--raw]]", summary: "list saved answers", run: runAnswers})
	register(&command{
		name:    "export",
		args:    "ANSWER_ID [--format md|json|longbench|html [--exact]] [-o FILE]",
		summary: "write a saved answer with its evidence",
		run:     runExport,
	})
}

func runAnswers(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["answers"])
	asJSON := fs.Bool("json", false, "print the answers as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	l, err := a.openLibrary(true)
	if errors.Is(err, errNoLibrary) {
		if *asJSON {
			return writeJSON(a.stdout, []docstore.AnswerMeta{}, *raw)
		}
		fmt.Fprintln(a.stdout, "No saved answers.")
		return nil
	}
	if err != nil {
		return err
	}
	defer l.Close()
	list, err := l.Answers()
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []docstore.AnswerMeta{}
		}
		return writeJSON(a.stdout, list, *raw)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No saved answers. Ask with 'citelens ask QUESTION'.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tASKED\tSTRATEGY\tQUESTION")
	for _, m := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Created.Local().Format("2006-01-02 15:04"), m.Strategy, truncate(textproc.OneLine(m.Question), 70))
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
	format := fs.String("format", "md", "md, json, longbench or html")
	outPath := fs.String("o", "", "write to `FILE` (default: standard output)")
	exact := fs.Bool("exact", false, "with --format json or longbench: strings exactly as stored, control characters as \\u escapes (lossless; 'jq -r' would decode them)")
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(refs) != 1 {
		fmt.Fprintln(a.stderr, "citelens export: give one answer ID (see 'citelens answers')")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(true)
	if err != nil {
		return err
	}
	defer l.Close()
	ans, err := engine.Load(l, refs[0])
	if err != nil {
		if errors.Is(err, docstore.ErrNotFound) {
			return fix.With(err, "List saved answers with 'citelens answers'.")
		}
		return err
	}
	if *outPath == "" {
		// Exports quote document text verbatim: exact in a pipe or file, but
		// with control characters neutralised on a terminal.
		if !isTerminal(a.stdout) {
			return exportAnswer(a.stdout, *format, ans, l.Document, *exact)
		}
		var buf bytes.Buffer
		if err := exportAnswer(&buf, *format, ans, l.Document, *exact); err != nil {
			return err
		}
		_, err := io.WriteString(a.stdout, textproc.Printable(buf.String()))
		return err
	}
	f, err := os.OpenFile(*outPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := exportAnswer(f, *format, ans, l.Document, *exact); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote %s\n", *outPath)
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
