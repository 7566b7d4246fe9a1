package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{name: "strategies", args: "[NAME...] [--json] [--markdown]", summary: "list the answering strategies and their options", run: runStrategies})
}

// strategyView is a strategy as `strategies --json` lists it.
type strategyView struct {
	Name string `json:"name"`
	// Purpose says in plain words what the strategy is for; Description
	// how it works, in its paper's terms.
	Purpose     string       `json:"purpose"`
	Description string       `json:"description"`
	NeedsLLM    bool         `json:"needs_llm"`
	Default     bool         `json:"default"`
	Options     []optionView `json:"options"`
}

// optionView is one option of a strategy, from its table.
type optionView struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default,omitempty"`
	Range   string `json:"range"`
	Help    string `json:"help,omitempty"`
}

func runStrategies(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["strategies"])
	asJSON := fs.Bool("json", false, "print the strategies as JSON")
	asMarkdown := fs.Bool("markdown", false, "print every strategy's options as a Markdown table (the README's)")
	names, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	infos := engine.Strategies()
	if len(names) > 0 {
		infos = infos[:0:0]
		for _, n := range names {
			info, ok := engine.Lookup(n)
			if !ok {
				_, err := engine.New(n, nil) // the error lists the strategies
				return err
			}
			infos = append(infos, info)
		}
	}
	var rows []strategyView
	for _, info := range infos {
		v := strategyView{Name: info.Name(), Purpose: info.Purpose, Description: info.Description, NeedsLLM: info.NeedsLLM, Default: info.Name() == engine.DefaultStrategy, Options: []optionView{}}
		for _, o := range info.Strategy.Options().Listed() {
			v.Options = append(v.Options, optionView{Name: o.Name, Type: o.Type(), Default: o.Default, Range: optionRange(o), Help: optionHelp(o)})
		}
		rows = append(rows, v)
	}
	switch {
	case *asJSON:
		return writeJSON(a.stdout, rows, false)
	case *asMarkdown:
		return writeOptionsMarkdown(a.stdout, rows)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		note := ""
		if r.Default {
			note = " (default)"
		} else if r.NeedsLLM {
			note = " (needs a model)"
		}
		fmt.Fprintf(tw, "%s\t%s%s\n", r.Name, r.Purpose, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if len(names) > 0 {
			fmt.Fprintf(a.stdout, "\nHow %s works: %s\n", r.Name, r.Description)
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(a.stdout, "\n'citelens strategies NAME' says how a strategy works and lists its options (--opt name=value).")
		return nil
	}
	for _, r := range rows {
		fmt.Fprintf(a.stdout, "\n%s options (--opt name=value):\n", r.Name)
		if len(r.Options) == 0 {
			fmt.Fprintln(a.stdout, "  none")
			continue
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, o := range r.Options {
			def := o.Default
			if def == "" {
				def = "—"
			}
			fmt.Fprintf(tw, "  %s\t%s\tdefault %s\t%s\n", o.Name, o.Range, def, o.Help)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// optionRange says what an option takes.
func optionRange(o engine.Option) string {
	if o.Kind == engine.Int && o.Max == 0 {
		return fmt.Sprintf("%d or more", o.Min)
	}
	return strings.TrimPrefix(o.Range(), "from ")
}

// optionHelp is an option's help, with its choices' meanings.
func optionHelp(o engine.Option) string {
	h := o.Help
	var meant []string
	for _, c := range o.Choices {
		if c.Help != "" {
			meant = append(meant, c.Value+": "+c.Help)
		}
	}
	if len(meant) > 0 {
		if h != "" {
			h += " — "
		}
		h += strings.Join(meant, "; ")
	}
	if len(o.Aliases) > 0 {
		h += " (also " + strings.Join(o.Aliases, ", ") + ")"
	}
	return h
}

// writeOptionsMarkdown writes the strategies' options as one Markdown
// table, the README's "Strategy options". Strategies that take the same
// options (RAIDD's variants, okra and okra-precise) share their rows.
func writeOptionsMarkdown(w io.Writer, rows []strategyView) error {
	cell := func(s string) string { return strings.ReplaceAll(textproc.OneLine(s), "|", `\|`) }
	type group struct {
		names []string
		opts  []optionView
	}
	var groups []*group
	for _, r := range rows {
		i := slices.IndexFunc(groups, func(g *group) bool { return slices.Equal(g.opts, r.Options) })
		if i < 0 {
			groups = append(groups, &group{opts: r.Options})
			i = len(groups) - 1
		}
		groups[i].names = append(groups[i].names, r.Name)
	}
	var b strings.Builder
	b.WriteString("| strategy | option | values | default | what it does |\n| --- | --- | --- | --- | --- |\n")
	for _, g := range groups {
		names := strings.Join(g.names, ", ")
		if len(g.opts) == 0 {
			fmt.Fprintf(&b, "| %s | — | | | |\n", names)
		}
		for i, o := range g.opts {
			if i > 0 {
				names = ""
			}
			def := o.Default
			if def == "" {
				def = "—"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", names, o.Name, cell(o.Range), cell(def), cell(o.Help))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
