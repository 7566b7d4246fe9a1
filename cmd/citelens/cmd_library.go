package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{name: "ls", args: "[--json [--raw]]", summary: "list the documents in the library", run: runLs})
	register(&command{name: "rm", args: "ID...", summary: "remove documents and everything derived from them", run: runRm})
}

func runLs(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["ls"])
	asJSON := fs.Bool("json", false, "print the documents as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	l, err := a.openLibrary(true)
	if errors.Is(err, errNoLibrary) {
		if *asJSON {
			return writeJSON(a.stdout, []docstore.DocInfo{}, *raw)
		}
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil
	}
	if err != nil {
		return err
	}
	defer l.Close()
	docs, err := l.List()
	if err != nil {
		return err
	}
	if *asJSON {
		if docs == nil {
			docs = []docstore.DocInfo{}
		}
		return writeJSON(a.stdout, docs, *raw)
	}
	if len(docs) == 0 {
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPAGES\tSENTENCES\tADDED")
	for _, d := range docs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", d.ID, textproc.OneLine(d.Name), d.Pages, d.NumSents, d.Added.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func runRm(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["rm"])
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		fmt.Fprintln(a.stderr, "citelens rm: no documents given")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	ids, err := resolveDocs(l, refs)
	if err != nil {
		return err
	}
	if err := l.Remove(ids...); err != nil {
		return err
	}
	for _, id := range ids {
		fmt.Fprintf(a.stdout, "removed %s\n", id)
	}
	return nil
}
