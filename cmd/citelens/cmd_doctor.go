package main

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

func init() {
	register(&command{
		name:    "doctor",
		args:    "[--probe] [--json]",
		summary: "check the model endpoint, the model, streaming, its context window, embeddings and the reranker",
		run:     runDoctor,
	})
}

// checksFailed is doctor's error: the checks have been printed already.
type checksFailed struct{ failed, total int }

func (e checksFailed) Error() string {
	return fmt.Sprintf("%d of %d checks failed", e.failed, e.total)
}

func (e checksFailed) ExitCode() int { return 1 }

func runDoctor(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["doctor"])
	asJSON := fs.Bool("json", false, "print the checks as JSON")
	probe := fs.Bool("probe", false, "also measure the context window the server really gives the model, with one long prompt\n(up to 32,768 tokens, which a paid endpoint charges for)")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fs.Usage()
		return errUsage
	}
	cfg, cfgErr := config.Load()
	d := llm.Doctor(ctx, cfg, cfgErr)
	if *probe && cfgErr == nil {
		d = append(d, llm.ProbeContext(ctx, cfg))
	}
	if *asJSON {
		if err := writeJSON(a.stdout, struct {
			Checks llm.Diagnosis `json:"checks"`
			Failed int           `json:"failed"`
		}{d, d.Failed()}, false); err != nil {
			return err
		}
	} else {
		for _, c := range d {
			fmt.Fprintf(a.stdout, "%-4s  %-14s  %s\n", c.Status, c.Name, textproc.OneLine(c.Detail))
			if c.Fix != "" {
				fmt.Fprintf(a.stdout, "      %-14s  fix: %s\n", "", textproc.OneLine(c.Fix))
			}
		}
	}
	if n := d.Failed(); n > 0 {
		return checksFailed{n, len(d)}
	}
	return nil
}
