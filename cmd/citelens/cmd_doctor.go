package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

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
	if cfgErr == nil && errors.Is(cfg.Configured(), config.ErrNotConfigured) {
		// Many have a model running on this machine: say so, and how to
		// use it, right under the configuration's failure.
		d = slices.Insert(d, min(1, len(d)), localCheck(ctx, localPorts)...)
	}
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

// localPorts are the ports doctor looks for a model server on; tests
// point it at a scripted server's.
var localPorts = llm.LocalPorts

// localCheck looks for an OpenAI-compatible server on this machine's
// usual ports (llm.FindLocal) and says how to configure each found, or
// that none answered.
func localCheck(ctx context.Context, ports []llm.LocalPort) []llm.Check {
	found := llm.FindLocal(ctx, ports, llm.LocalTimeout)
	if len(found) == 0 {
		where := make([]string, len(ports))
		for i, p := range ports {
			where[i] = strconv.Itoa(p.Port) + " (" + p.Name + ")"
		}
		return []llm.Check{{Name: "local server", Status: llm.CheckSkip,
			Detail: "no OpenAI-compatible server answers on 127.0.0.1, ports " + strings.Join(where, ", ")}}
	}
	var out []llm.Check
	for _, s := range found {
		c := llm.Check{Name: "local server", Status: llm.CheckOK}
		if len(s.Models) == 0 {
			c.Status = llm.CheckWarn
			c.Detail = fmt.Sprintf("%s answers at %s but serves no model yet", s.Name, s.URL)
			c.Fix = "Load or pull a model in it, then run `citelens doctor` again."
		} else {
			c.Detail = fmt.Sprintf("%s answers at %s, serving %s", s.Name, s.URL, strings.Join(s.Models, ", "))
			m := shellWord(chatModel(s.Models))
			c.Fix = fmt.Sprintf("Use it: citelens config init --endpoint %s --model %s (or set %s=%s and %s=%s).",
				s.URL, m, config.EnvBaseURL, s.URL, config.EnvModel, m)
		}
		out = append(out, c)
	}
	return out
}

// shellWord quotes s for a shell when it holds more than the characters
// model names usually have.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// chatModel is the model to suggest of those a server lists: the first
// whose name does not say it embeds or reranks, which cannot answer.
func chatModel(models []string) string {
	for _, m := range models {
		l := strings.ToLower(m)
		if !strings.Contains(l, "embed") && !strings.Contains(l, "rerank") {
			return m
		}
	}
	return models[0]
}
