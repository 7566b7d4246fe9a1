package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/citelens/citelens/engine"
)

func init() {
	register(&command{name: "strategies", args: "[--json]", summary: "list the answering strategies", run: runStrategies})
}

func runStrategies(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["strategies"])
	asJSON := fs.Bool("json", false, "print the strategies as JSON")
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	type row struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		NeedsLLM    bool   `json:"needs_llm"`
		Default     bool   `json:"default"`
	}
	var rows []row
	for _, s := range engine.Strategies() {
		rows = append(rows, row{s.Name, s.Description, s.NeedsLLM, s.Name == engine.DefaultStrategy})
	}
	if *asJSON {
		return writeJSON(a.stdout, rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		note := ""
		if r.Default {
			note = " (default)"
		} else if r.NeedsLLM {
			note = " (needs a model endpoint)"
		}
		fmt.Fprintf(tw, "%s\t%s%s\n", r.Name, r.Description, note)
	}
	return tw.Flush()
}
