package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// Threads: the conversations kept in the library (docstore's threads of
// saved answers), listed, renamed, searched and exported whole. The TUI
// resumes them.

func init() {
	register(&command{
		name:    "threads",
		args:    "[--json [--raw]] | rename THREAD_ID NAME",
		summary: "list the conversations kept (threads of answers that follow up on one another), newest first; rename one (export one with 'export --thread')",
		run:     runThreads,
	})
}

// threadJSON is a thread as 'threads --json' prints it.
type threadJSON struct {
	docstore.ThreadMeta
	Count int `json:"answers_count"`
}

func runThreads(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["threads"])
	asJSON := fs.Bool("json", false, "print the threads as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	words, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(words) > 0 {
		if words[0] != "rename" {
			return threadsUsage(a, fs, fmt.Sprintf("no threads command %q: list them with 'citelens threads', rename one with 'citelens threads rename THREAD_ID NAME'", textproc.OneLine(words[0])))
		}
		if len(words) < 3 {
			return threadsUsage(a, fs, "threads rename takes a THREAD_ID and the NAME to give it")
		}
		return renameThread(a, words[1], strings.Join(words[2:], " "))
	}
	l, err := a.openLibrary(true)
	if errors.Is(err, errNoLibrary) {
		return a.listNothing(*asJSON, *raw, []threadJSON{}, "No threads.")
	}
	if err != nil {
		return err
	}
	defer l.Close()
	list, err := l.Answers().Threads()
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]threadJSON, len(list))
		for i, t := range list {
			out[i] = threadJSON{t, len(t.Answers)}
		}
		return writeJSON(a.stdout, out, *raw)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No threads. Ask with 'citelens ask QUESTION' or in 'citelens tui', where follow-up questions make a thread.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tANSWERS\tLAST ASKED\tNAME")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", t.ID, len(t.Answers), t.Last.Local().Format("2006-01-02 15:04"), truncate(textproc.OneLine(t.Name), 70))
	}
	return tw.Flush()
}

func threadsUsage(a *app, fs *flag.FlagSet, why string) error {
	fmt.Fprintln(a.stderr, "citelens threads: "+why)
	fs.Usage()
	return errUsage
}

// renameThread gives the thread ref names the name name ("" gives back
// its first question's).
func renameThread(a *app, ref, name string) error {
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	t, err := l.Answers().RenameThread(ref, name)
	if err != nil {
		return threadError(err)
	}
	fmt.Fprintf(a.stdout, "thread %s is now named %s\n", t.ID, textproc.OneLine(t.Name))
	return nil
}

// threadError adds what to do to a thread not found.
func threadError(err error) error {
	if errors.Is(err, docstore.ErrNotFound) || errors.Is(err, docstore.ErrAmbiguous) {
		return fix.With(err, "List the threads and their IDs with 'citelens threads'.")
	}
	return err
}

// loadThread reads the thread ref names with all its answers, oldest
// first.
func loadThread(l *docstore.Library, ref string) (*citations.Thread, error) {
	meta, err := l.Answers().Thread(ref)
	if err != nil {
		return nil, threadError(err)
	}
	t := &citations.Thread{ID: meta.ID, Name: meta.Name}
	for _, id := range meta.Answers {
		ans, err := engine.Load(l, id)
		if err != nil {
			return nil, err
		}
		t.Answers = append(t.Answers, ans)
	}
	return t, nil
}

// grepAnswers keeps the answers of list whose question or statements
// hold every word of query (citations.MatchWords), in list's order. Each
// answer's record is read whole: the statements are in it.
func grepAnswers(l *docstore.Library, list []docstore.AnswerMeta, query string) ([]docstore.AnswerMeta, error) {
	match := citations.MatchWords(query)
	var out []docstore.AnswerMeta
	for _, m := range list {
		ans, err := engine.Load(l, m.ID)
		if err != nil {
			return nil, err
		}
		if match(ans) {
			out = append(out, m)
		}
	}
	return out, nil
}

// exportThread writes the thread ref names in format, with e's pictures,
// to outPath (standard output when ""): each answer with its evidence,
// by the exporters of one answer (citations.WriteThread).
func (e *exporter) exportThread(ref, outPath string) error {
	t, err := loadThread(e.l, ref)
	if err != nil {
		return err
	}
	if isFolder(outPath) && outPath != "" {
		return fix.With(fmt.Errorf("a thread is exported to one file, not to the folder %s", textproc.OneLine(outPath)),
			"Name a file (-o thread.html), or export each answer to a folder with 'citelens export ANSWER_ID -o DIR/'.")
	}
	var opts citations.ThreadOptions
	f, _ := citations.LookupFormat(e.format) // checked by the caller
	if f.Name == "html" && e.images && threadCites(t, e.l) {
		if err := e.start(); err != nil {
			return err
		}
		// Drawn ahead, each PNG encoded while the next is drawn.
		opts.HTMLPictures = e.src.AnswerPictures(e.ctx, t.Statements(), e.l.Document)
	}
	if opts.Provenance, err = threadProvenance(e.l, f.Name, t); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := citations.WriteThread(&buf, e.format, t, opts); err != nil {
		return err
	}
	if outPath == "" {
		out := buf.String()
		if isTerminal(e.a.stdout) {
			out = textproc.Printable(out)
		}
		_, err := io.WriteString(e.a.stdout, out)
		return err
	}
	_, statErr := os.Stat(outPath)
	if err := writeFile(outPath, buf.Bytes()); err != nil {
		return err
	}
	verb := "wrote"
	if statErr == nil {
		verb = "replaced"
	}
	fmt.Fprintf(e.a.stderr, "%s %s (%s)\n", verb, textproc.OneLine(outPath), humanize.Plural(len(t.Answers), "answer", "answers"))
	return nil
}

// threadCites reports whether an answer of t cites a PDF page that can
// be pictured.
func threadCites(t *citations.Thread, l *docstore.Library) bool {
	for _, a := range t.Answers {
		if pageimage.Cites(a, l.Document) {
			return true
		}
	}
	return false
}

// exportThreadCommand is 'export --thread THREAD_ID'.
func exportThreadCommand(ctx context.Context, a *app, fs *flag.FlagSet, refs []string, ref, format, outPath string, images bool) error {
	if len(refs) != 0 {
		fmt.Fprintln(a.stderr, "citelens export: give an ANSWER_ID or --thread THREAD_ID, not both")
		fs.Usage()
		return errUsage
	}
	if _, err := citations.LookupFormat(format); err != nil {
		return err
	}
	l, err := a.openLibrary(true)
	if err != nil {
		return err
	}
	defer l.Close()
	ex := exporter{a: a, ctx: ctx, l: l, format: format, images: images}
	defer ex.close()
	return ex.exportThread(ref, outPath)
}

// threadProvenance is what an export of t in format says of the versions
// its answers cite (reanchor.ThreadProvenance), nil for formats that say
// nothing of them.
func threadProvenance(l *docstore.Library, format string, t *citations.Thread) (*citations.Provenance, error) {
	if format != "md" && format != "html" && format != "json" {
		return nil, nil
	}
	return reanchor.ThreadProvenanceIn(l, reanchor.NewAligner(64), t.Answers)
}
