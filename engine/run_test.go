package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// The engine's bookkeeping is what is under test here, not any real
// strategy: each test's strategy is a function (engine.Define).

func testEnv(t *testing.T) *engine.Env {
	t.Helper()
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	return &engine.Env{Library: lib}
}

func run(t *testing.T, env *engine.Env, req engine.Request, fn func(context.Context, *engine.Runtime) error, emit func(engine.Event)) (*engine.Answer, error) {
	t.Helper()
	return engine.Run(t.Context(), env, engine.Define("scripted", nil, fn), req, emit)
}

func TestRunBookkeeping(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	st := citations.Statement{Text: "A fact."}
	var ev enginetest.Events
	ans, err := run(t, env, engine.Request{Question: "Why?"}, func(_ context.Context, rt *engine.Runtime) error {
		if rt.Question() != "Why?" || len(rt.Docs()) != 1 || rt.Docs()[0].Name != "declaration.txt" {
			t.Errorf("runtime: %q over %d documents", rt.Question(), len(rt.Docs()))
		}
		rt.Stage("retrieving…")
		rt.Usage(llm.Usage{PromptTokens: 10, CompletionTokens: 2, LLMCalls: 1})
		rt.Usage(llm.Usage{PromptTokens: 5, LLMCalls: 1})
		rt.Warn("something to know")
		rt.Statement(st)
		return nil
	}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	if ans.ID == "" || ans.Question != "Why?" || ans.Strategy != "scripted" || len(ans.Docs) != 1 || ans.Docs[0].Name != "declaration.txt" || ans.Model != "" {
		t.Errorf("bookkeeping: %+v", ans)
	}
	if ans.Usage != (citations.Usage{PromptTokens: 15, CompletionTokens: 2, LLMCalls: 2}) || len(ans.Stages) != 2 || ans.Partial {
		t.Errorf("gathered usage %+v stages %v", ans.Usage, ans.Stages)
	}
	if len(ans.Warnings) != 1 || len(ans.Statements) != 1 || ans.Statements[0].Citations == nil {
		t.Errorf("warnings %q, statements %+v", ans.Warnings, ans.Statements)
	}
	if len(ev.Stages) != 2 || len(ev.Warnings) != 1 || len(ev.Statements) != 1 || len(ev.Usage) != 2 {
		t.Errorf("events %+v", ev)
	}
	if err := engine.Save(env.Library, ans); err != nil {
		t.Fatal(err)
	}
	back, err := engine.Load(env.Library, ans.ID[:10])
	if err != nil || back.Question != "Why?" || len(back.Statements) != 1 {
		t.Fatalf("load: %+v %v", back, err)
	}
}

func TestRunPartialAndNothing(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	boom := errors.New("boom")
	ans, err := run(t, env, engine.Request{Question: "q"}, func(_ context.Context, rt *engine.Runtime) error {
		rt.Statement(citations.Statement{Text: "Kept."})
		return boom
	}, nil)
	if !errors.Is(err, boom) || ans == nil || !ans.Partial || len(ans.Statements) != 1 || ans.Error != "boom" {
		t.Fatalf("partial: %+v %v", ans, err)
	}
	ans, err = run(t, env, engine.Request{Question: "q"}, func(context.Context, *engine.Runtime) error { return boom }, nil)
	if ans != nil || !errors.Is(err, boom) {
		t.Fatalf("a strategy that did nothing left an answer: %+v", ans)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ans, err = engine.Run(ctx, env, engine.Define("test", nil, func(ctx context.Context, rt *engine.Runtime) error {
		rt.Stage("working…")
		cancel()
		return ctx.Err()
	}), engine.Request{Question: "q"}, nil)
	if !errors.Is(err, context.Canceled) || ans == nil || ans.Error != "cancelled" {
		t.Fatalf("cancelled: %+v %v", ans, err)
	}
}

// TestRunOptionsFirst: a bad option is an error before the strategy runs
// or the scope is read.
func TestRunOptionsFirst(t *testing.T) {
	t.Parallel()
	env := &engine.Env{} // no library: reading the scope would fail
	ran := false
	s := engine.Define("test", engine.Options{{Name: "k", Kind: engine.Int, Min: 1, Default: "3"}}, func(context.Context, *engine.Runtime) error {
		ran = true
		return nil
	})
	_, err := engine.Run(t.Context(), env, s, engine.Request{Question: "q", Options: engine.Settings("k", "0")}, nil)
	if !errors.Is(err, engine.ErrOption) || ran {
		t.Fatalf("err %v, ran %v", err, ran)
	}
	if f := fix.Of(err); !strings.Contains(f, "citelens strategies test") {
		t.Errorf("fix %q", f)
	}
}

// TestCaller: a model call through the runtime's caller reports its
// retries as stages and its usage, warns when a shown reply reached the
// output limit, passes streamed text on as deltas, and names the model
// that answered.
func TestCaller(t *testing.T) {
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Status(503), llmtest.Reply{Deltas: []string{"Hel", "lo."}})
	srv.Enqueue(llmtest.Reply{Text: "cut sh", FinishReason: "length"})
	srv.Enqueue(llmtest.Reply{Text: "a plan, cut", FinishReason: "length"})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev enginetest.Events
	var streamed strings.Builder
	ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		req := llm.ChatRequest{Messages: []llm.Message{llm.User("hi")}}
		reply, err := rt.Model().Stream(ctx, "the answer", req, func(s string) { streamed.WriteString(s) })
		if err != nil || reply.Text != "Hello." {
			t.Errorf("stream: %q %v", reply.Text, err)
		}
		if _, err := rt.Model().Chat(ctx, "the draft", llm.ChatRequest{Messages: req.Messages, MaxTokens: 20}); err != nil {
			return err
		}
		_, err = rt.Model().Chat(ctx, engine.Working, req)
		return err
	}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	if streamed.String() != "Hello." || strings.Join(ev.Deltas, "") != "Hello." {
		t.Errorf("streamed %q, deltas %q", streamed.String(), ev.Deltas)
	}
	if len(ev.Stages) != 2 || !strings.Contains(ev.Stages[0], "HTTP 503") || len(ev.Warnings) != 1 || len(ans.Stages) != 2 {
		t.Errorf("stages %q, warnings %q: want the retry, then the warning", ev.Stages, ev.Warnings)
	}
	if len(ans.Warnings) != 1 || ans.Warnings[0] != "the draft reached the output limit of 20 tokens and may be cut short; raise max_output in the config file" {
		t.Errorf("warnings %q: only the shown reply cut short is warned about", ans.Warnings)
	}
	if ans.Usage.LLMCalls != 3 || len(ev.Usage) != 3 || ans.Model != llmtest.DefaultModel {
		t.Errorf("usage %+v from %d events, model %q", ans.Usage, len(ev.Usage), ans.Model)
	}
}

// TestNewSaysWhatToDo: an unknown or unavailable strategy is an error
// with a fix.
func TestNewSaysWhatToDo(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	_, err := engine.New("no-such-strategy", env)
	if !errors.Is(err, engine.ErrUnknownStrategy) || fix.Of(err) != "See 'citelens strategies'." {
		t.Errorf("unknown: %v (fix %q)", err, fix.Of(err))
	}
}

// TestFailedAnswerWithNothingNotSaved: an answer that failed before it
// stated anything (a 401, a 5xx after retrieval) stays out of the
// history; a partial answer with statements is kept.
func TestFailedAnswerWithNothingNotSaved(t *testing.T) {
	env := testEnv(t)
	rejected := errors.New("API key rejected")
	for _, stated := range []bool{false, true} {
		ans, err := run(t, env, engine.Request{Question: "q"}, func(_ context.Context, rt *engine.Runtime) error {
			rt.Stage("retrieving…")
			if stated {
				rt.Statement(citations.Statement{Text: "Kept."})
			}
			return rejected
		}, nil)
		if ans == nil || !ans.Partial || !errors.Is(err, rejected) {
			t.Fatalf("Run = %+v, %v", ans, err)
		}
		if err := engine.Save(env.Library, ans); err != nil {
			t.Fatal(err)
		}
		_, err = engine.Load(env.Library, ans.ID)
		if saved := err == nil; saved != stated {
			t.Errorf("%d statements: saved %v, want %v", len(ans.Statements), saved, stated)
		}
	}
}
