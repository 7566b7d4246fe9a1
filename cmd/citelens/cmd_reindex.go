package main

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/progress"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "reindex",
		args:    "",
		summary: "rebuild every document's sentences, headings and index with this citelens (after an upgrade)",
		run:     runReindex,
	})
}

func runReindex(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["reindex"])
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fmt.Fprintln(a.stderr, "citelens reindex: takes no arguments")
		fs.Usage()
		return errUsage
	}
	l, err := a.openAt(a.dbPath, docstore.Options{Upgrade: true})
	if err != nil {
		return err
	}
	defer l.Close()
	line := newLiveLine(a.stderr)
	rep, err := ingest.New(l, nil).Reindex(ctx, func(p ingest.ReindexProgress) {
		if p.Name != "" && line.Due(false) {
			line.Draw(fmt.Sprintf("reindexing %s %d/%d: %s", progress.Bar(p.Done, p.Total, barWidth), p.Done+1, p.Total, textproc.OneLine(p.Name)))
		}
	})
	line.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "reindexed %d documents (%d read again from their files, %d from their stored text)\n",
		rep.Documents, rep.FromFile, rep.Documents-rep.FromFile)
	return nil
}
