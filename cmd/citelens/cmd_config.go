package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"

	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "config",
		args:    "init [--endpoint URL --model NAME] [--force] | show [--json] | path",
		summary: "write a commented config file, or show the model configuration",
		run:     runConfig,
	})
}

func runConfig(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		printCommandUsage(a.stderr, commands["config"], newFlags(a, commands["config"]))
		return errUsage
	}
	switch args[0] {
	case "init":
		return runConfigInit(a, args[1:])
	case "show":
		return runConfigShow(a, args[1:])
	case "path":
		if len(args) > 1 {
			return errors.New("config path takes no arguments")
		}
		fmt.Fprintln(a.stdout, textproc.OneLine(config.Path()))
		return nil
	case "-h", "-help", "--help":
		printCommandUsage(a.stdout, commands["config"], newFlags(a, commands["config"]))
		return nil
	}
	fmt.Fprintf(a.stderr, "citelens config: unknown subcommand %q\n", textproc.OneLine(args[0]))
	printCommandUsage(a.stderr, commands["config"], newFlags(a, commands["config"]))
	return errUsage
}

func runConfigInit(a *app, args []string) error {
	c := &command{name: "config init", args: "[--endpoint URL --model NAME] [--force]",
		summary: "Write a commented config file (mode 0600) to " + config.Path() + ",\nwith the endpoint and model given ('citelens doctor' finds a server on this machine).\nIt holds no API key: set OPENAI_API_KEY in the environment."}
	fs := newFlags(a, c)
	force := fs.Bool("force", false, "replace an existing file")
	endpoint := fs.String("endpoint", "", "the OpenAI-compatible API root `URL`, ending in /v1 (base_url)")
	model := fs.String("model", "", "the model `NAME` that answers questions (model)")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fs.Usage()
		return errUsage
	}
	path := config.Path()
	set, err := config.Init(path, *endpoint, *model, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Wrote %s (readable only by you).\n", textproc.OneLine(path))
	if len(set) > 0 {
		fmt.Fprintf(a.stdout, "It sets %s; set %s in your environment if your server needs a key, then run `citelens doctor`.\n", strings.Join(slices.Sorted(maps.Keys(set)), " and "), config.EnvAPIKey)
		return nil
	}
	fmt.Fprintf(a.stdout, "Edit it, set %s in your environment if your server needs a key, then run `citelens doctor`.\n", config.EnvAPIKey)
	return nil
}

// configReport is `config show --json`.
type configReport struct {
	Path       string           `json:"path"`
	FileFound  bool             `json:"file_found"`
	Settings   []config.Setting `json:"settings"`
	Warnings   []string         `json:"warnings"`
	Configured bool             `json:"configured"`
	Problem    string           `json:"problem,omitempty"`
}

func runConfigShow(a *app, args []string) error {
	c := &command{name: "config show", args: "[--json]",
		summary: "Show the effective model configuration and where each setting comes from.\nThe API key is shown only as set or not set."}
	fs := newFlags(a, c)
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fs.Usage()
		return errUsage
	}
	cfg, err := config.Load()
	if err != nil {
		return fix.With(err, "Fix the setting named above; `citelens config init --force` rewrites the file from the template.")
	}
	problem := cfg.Configured()
	if *asJSON {
		r := configReport{Path: cfg.Path, FileFound: cfg.FileFound, Settings: cfg.Settings(),
			Warnings: cfg.Warnings, Configured: problem == nil}
		if r.Warnings == nil {
			r.Warnings = []string{}
		}
		if problem != nil {
			r.Problem = problem.Error()
		}
		return writeJSON(a.stdout, r, false)
	}
	found := "not found; using the environment and defaults"
	if cfg.FileFound {
		found = "found"
	}
	fmt.Fprintf(a.stdout, "config file: %s (%s)\n\n", textproc.OneLine(cfg.Path), found)
	for _, s := range cfg.Settings() {
		v := s.Value
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(a.stdout, "  %-16s %-36s %s\n", s.Name, textproc.OneLine(v), s.Source)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(a.stdout, "\nwarning: %s\n", textproc.OneLine(w))
	}
	if problem != nil {
		fmt.Fprintf(a.stdout, "\nLLM strategies are unavailable: %s\n", textproc.OneLine(problem.Error()))
	} else {
		fmt.Fprintf(a.stdout, "\nLLM strategies are available; `citelens doctor` checks the endpoint.\n")
	}
	return nil
}
