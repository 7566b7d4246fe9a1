// Package enginetest is the setup the engine's tests share: a library in a
// temporary folder with documents added, checked for consistency when the
// test ends, and a model client or strategy environment pointed at an
// llmtest server. It is imported by tests only.
package enginetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// Library opens a library in a temporary folder and adds the files at
// paths (librarytest.Library).
func Library(t testing.TB, paths ...string) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	return librarytest.Library(t, paths...)
}

// TextLibrary is Library over texts written to files first
// (librarytest.TextLibrary).
func TextLibrary(t testing.TB, nameText ...string) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	return librarytest.TextLibrary(t, nameText...)
}

// WriteFile writes text to a file called name in a new temporary folder
// and returns its path (librarytest.WriteFile).
func WriteFile(t testing.TB, name, text string) string {
	t.Helper()
	return librarytest.WriteFile(t, name, text)
}

// WriteTree writes files under dir and returns dir (librarytest.WriteTree).
func WriteTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	return librarytest.WriteTree(t, dir, files)
}

// Config is a model configuration for srv: its URL, llmtest.DefaultModel,
// and timeouts short enough that a hung test fails rather than stalls.
// Tests change its fields (model, embedding model, budgets) before
// passing it to Env or Client.
func Config(srv *llmtest.Server) config.Config {
	cfg := config.Default()
	cfg.BaseURL, cfg.Model = srv.URL, llmtest.DefaultModel
	cfg.Timeout, cfg.ConnectTimeout = 20*time.Second, 2*time.Second
	return cfg
}

// Client is a model client for cfg whose retries do not wait, so a test
// of retrying takes no time; opts come after and may override that
// (RealWaits).
func Client(t testing.TB, cfg config.Config, opts ...llm.Option) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg, append([]llm.Option{noWaits}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Env is a strategy environment over lib with a Client for cfg.
func Env(t testing.TB, lib *docstore.Library, cfg config.Config, opts ...llm.Option) *engine.Env {
	t.Helper()
	return &engine.Env{Library: lib, Config: cfg, LLM: Client(t, cfg, opts...)}
}

// noWaits makes retries immediate.
var noWaits = llm.WithSleep(func(context.Context, time.Duration) error { return nil })

// RealWaits makes a Client wait between retries for as long as it is
// told, or until the context ends, as a client outside tests does: for a
// test of the wait itself.
var RealWaits = llm.WithSleep(func(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
})

// Answer answers question with run as the strategy, over every document
// of env's library, passing the events to emit (which may be nil).
func Answer(ctx context.Context, env *engine.Env, question string, run func(context.Context, *engine.Runtime) error, emit func(engine.Event)) (*engine.Answer, error) {
	return engine.Run(ctx, env, engine.Define("test", nil, run), engine.Request{Question: question}, emit)
}

// Events gathers an answer's events by kind, for a test to check. A
// warning is among the stages too, as the answer keeps it.
type Events struct {
	Stages     []string
	Warnings   []string
	Deltas     []string
	Reasoning  []string
	Statements []citations.Statement
	Plans      []engine.Plan
	Usage      []citations.Usage
}

// Emit records ev; pass it as an answer's emit.
func (e *Events) Emit(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.Stage:
		e.Stages = append(e.Stages, string(ev))
	case engine.Warning:
		e.Stages = append(e.Stages, string(ev))
		e.Warnings = append(e.Warnings, string(ev))
	case engine.Delta:
		e.Deltas = append(e.Deltas, string(ev))
	case engine.Reasoning:
		e.Reasoning = append(e.Reasoning, string(ev))
	case engine.Statement:
		e.Statements = append(e.Statements, ev.Statement)
	case engine.PlanEvent:
		e.Plans = append(e.Plans, ev.Plan)
	case engine.Usage:
		e.Usage = append(e.Usage, ev.Usage)
	}
}

// HasStage reports whether a stage (or a warning) contains substr.
func (e *Events) HasStage(substr string) bool {
	for _, s := range e.Stages {
		if strings.Contains(s, substr) {
			return true
		}
	}
	return false
}

// Plan is the last plan reported, nil if none was.
func (e *Events) Plan() engine.Plan {
	if len(e.Plans) == 0 {
		return nil
	}
	return e.Plans[len(e.Plans)-1]
}

// Calls sums the usage events' model calls.
func (e *Events) Calls() int {
	n := 0
	for _, u := range e.Usage {
		n += u.LLMCalls
	}
	return n
}
