package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// scripted is a strategy whose behaviour each test sets: the engine's
// bookkeeping is what is under test here, not any real strategy.
type scripted struct {
	run func(ctx context.Context, emit func(engine.Event)) (*engine.Answer, error)
}

func (scripted) Name() string { return "scripted" }
func (s scripted) Answer(ctx context.Context, _ engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	return s.run(ctx, emit)
}

func testEnv(t *testing.T) *engine.Env {
	t.Helper()
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	return &engine.Env{Library: lib}
}

func TestRunBookkeeping(t *testing.T) {
	env := testEnv(t)
	st := citations.Statement{Text: "A fact."}
	ans, err := engine.Run(t.Context(), env, scripted{func(ctx context.Context, emit func(engine.Event)) (*engine.Answer, error) {
		emit(engine.Event{Stage: "retrieving…"})
		emit(engine.Event{Usage: &citations.Usage{PromptTokens: 10, CompletionTokens: 2, LLMCalls: 1}})
		emit(engine.Event{Usage: &citations.Usage{PromptTokens: 5, LLMCalls: 1}})
		emit(engine.Event{Statement: &st})
		return &engine.Answer{Statements: []citations.Statement{st}}, nil
	}}, engine.Request{Question: "Why?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.ID == "" || ans.Question != "Why?" || ans.Strategy != "scripted" || len(ans.Docs) != 1 || ans.Docs[0].Name != "declaration.txt" {
		t.Errorf("bookkeeping: %+v", ans)
	}
	if ans.Usage != (citations.Usage{PromptTokens: 15, CompletionTokens: 2, LLMCalls: 2}) || len(ans.Stages) != 1 || ans.Partial {
		t.Errorf("gathered usage %+v stages %v", ans.Usage, ans.Stages)
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
	env := testEnv(t)
	boom := errors.New("boom")
	st := citations.Statement{Text: "Kept."}
	ans, err := engine.Run(t.Context(), env, scripted{func(ctx context.Context, emit func(engine.Event)) (*engine.Answer, error) {
		emit(engine.Event{Statement: &st})
		return nil, boom
	}}, engine.Request{Question: "q"}, nil)
	if !errors.Is(err, boom) || ans == nil || !ans.Partial || len(ans.Statements) != 1 || ans.Error != "boom" {
		t.Fatalf("partial: %+v %v", ans, err)
	}
	ans, err = engine.Run(t.Context(), env, scripted{func(context.Context, func(engine.Event)) (*engine.Answer, error) {
		return nil, boom
	}}, engine.Request{Question: "q"}, nil)
	if ans != nil || !errors.Is(err, boom) {
		t.Fatalf("a strategy that did nothing left an answer: %+v", ans)
	}
}

// TestFailedAnswerWithNothingNotSaved: an answer that failed before it
// stated anything (a 401, a 5xx after retrieval) stays out of the
// history; a partial answer with statements is kept.
func TestFailedAnswerWithNothingNotSaved(t *testing.T) {
	env := testEnv(t)
	rejected := errors.New("API key rejected")
	st := citations.Statement{Text: "Kept."}
	for _, c := range []struct {
		emit  []engine.Event
		saved bool
	}{
		{[]engine.Event{{Stage: "retrieving…"}}, false},
		{[]engine.Event{{Stage: "retrieving…"}, {Statement: &st}}, true},
	} {
		ans, err := engine.Run(t.Context(), env, scripted{func(ctx context.Context, emit func(engine.Event)) (*engine.Answer, error) {
			for _, ev := range c.emit {
				emit(ev)
			}
			return nil, rejected
		}}, engine.Request{Question: "q"}, nil)
		if ans == nil || !ans.Partial || !errors.Is(err, rejected) {
			t.Fatalf("Run = %+v, %v", ans, err)
		}
		if err := engine.Save(env.Library, ans); err != nil {
			t.Fatal(err)
		}
		_, err = engine.Load(env.Library, ans.ID)
		if saved := err == nil; saved != c.saved {
			t.Errorf("%d statements: saved %v, want %v", len(ans.Statements), saved, c.saved)
		}
	}
}
