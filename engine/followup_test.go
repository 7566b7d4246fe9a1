package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm/llmtest"
)

// seen is what the follow-up tests' strategies saw of their runtime.
type seen struct {
	question, asked, previous string
	history                   []engine.Turn
	window                    int
}

func look(rt *engine.Runtime) seen {
	return seen{rt.Question(), rt.Asked(), rt.Previous(), rt.History(), rt.Config().ContextWindow}
}

var lastSeen seen

func init() {
	// A model's strategy: it answers with engine/generate over the first
	// sentences of the scope.
	engine.Register(engine.Info{
		Strategy: engine.Define("followup-model", nil, func(ctx context.Context, rt *engine.Runtime) error {
			lastSeen = look(rt)
			num, err := citations.NewSentenceNumbering(citations.Part{Doc: rt.Docs()[0], Sentences: []int{0, 1, 2}})
			if err != nil {
				return err
			}
			_, err = generate.Run(ctx, rt, generate.Request{Question: rt.Question(), Numbering: num})
			return err
		}),
		Description: "test: a strategy that answers with a model",
		NeedsLLM:    true,
	})
	engine.Register(engine.Info{
		Strategy: engine.Define("followup-offline", nil, func(_ context.Context, rt *engine.Runtime) error {
			lastSeen = look(rt)
			rt.Statement(citations.Statement{Text: "Quoted."})
			return nil
		}),
		Description: "test: a strategy that needs no model",
	})
}

var history = []engine.Turn{
	{Question: "Who signed the declaration?", Answer: "John Hancock signed it first."},
	{Question: "What did the king refuse?", Answer: "He refused his Assent to Laws."},
}

// TestFollowUpWithModel: a model's strategy reads the follow-up rewritten
// to stand alone, its prompt comes after the conversation, the prompt
// budget leaves room for it, and the answer says how it was read while
// keeping its own question.
func TestFollowUpWithModel(t *testing.T) {
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Text("Standalone question: \"What laws did the king refuse his Assent to?\"\n"),
		llmtest.Text("<statement>Laws.<cite>[1-1]</cite></statement>"))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New("followup-model", env)
	if err != nil {
		t.Fatal(err)
	}
	long := append([]engine.Turn{{Question: "An old one", Answer: "dropped"}}, history...)
	long = append(long, engine.Turn{Question: "And the third?", Answer: strings.Repeat("word ", 2000)})
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "which ones?", History: long}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastSeen.question != "What laws did the king refuse his Assent to?" || lastSeen.asked != "which ones?" || lastSeen.previous != "" {
		t.Errorf("the strategy read %+v", lastSeen)
	}
	if len(lastSeen.history) != engine.MaxTurns || lastSeen.history[0].Question != history[0].Question {
		t.Errorf("history %+v: want the last %d turns", lastSeen.history, engine.MaxTurns)
	}
	if a := lastSeen.history[2].Answer; len(a) > 4*engine.MaxTurnTokens+8 || !strings.HasSuffix(a, "…") {
		t.Errorf("a long answer in the history is %d bytes, not cut", len(a))
	}
	if lastSeen.window >= env.Config.ContextWindow {
		t.Errorf("the context window %d leaves no room for the conversation (%d)", lastSeen.window, env.Config.ContextWindow)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the rewrite and the answer", len(reqs))
	}
	if !strings.Contains(reqs[0].Last(), "Follow-up question: which ones?") || !strings.Contains(reqs[0].Last(), "Q: What did the king refuse?") {
		t.Errorf("rewrite prompt %q", reqs[0].Last())
	}
	msgs := reqs[1].Messages
	if len(msgs) != 2*engine.MaxTurns+1 || msgs[0].Role != "user" || msgs[0].Content != history[0].Question || msgs[1].Role != "assistant" ||
		!strings.Contains(msgs[len(msgs)-1].Content, "What laws did the king refuse his Assent to?") {
		t.Errorf("answering messages %+v", msgs)
	}
	f := ans.FollowUp
	if ans.Question != "which ones?" || f == nil || f.Standalone != "What laws did the king refuse his Assent to?" || len(f.After) != 3 || f.ContextTokens == 0 {
		t.Errorf("answer question %q, follow-up %+v", ans.Question, f)
	}
	if ans.Usage.LLMCalls != 2 {
		t.Errorf("usage %+v: the rewrite is part of the cost", ans.Usage)
	}

	// A rewrite that cannot be the question: answered as asked, the
	// previous question's words for the search, and a warning.
	srv.Enqueue(llmtest.Text(""), llmtest.Text("<statement>Laws.<cite>[1-1]</cite></statement>"))
	ans, err = engine.Run(t.Context(), env, s, engine.Request{Question: "which ones?", History: history}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastSeen.question != "which ones?" || lastSeen.previous != history[1].Question || len(ans.Warnings) != 1 || ans.FollowUp.Standalone != "" {
		t.Errorf("after a bad rewrite: saw %+v, warnings %q", lastSeen, ans.Warnings)
	}
}

// TestFollowUpRewriteThatGrowsWhenLowerCased: a rewrite whose text grows
// when lower-cased ("Ⱥ", two bytes, lower-cases to three) is read, its
// label found in the reply itself rather than in a lower-cased copy, whose
// offsets once cut the reply past its end.
func TestFollowUpRewriteThatGrowsWhenLowerCased(t *testing.T) {
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	srv := llmtest.New(t)
	grow := strings.Repeat("Ⱥ", 16)
	srv.Enqueue(llmtest.Text(grow+" STANDALONE QUESTION: Ⱥ laws?"),
		llmtest.Text("<statement>Laws.<cite>[1-1]</cite></statement>"))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New("followup-model", env)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "which ones?", History: history}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.FollowUp == nil || ans.FollowUp.Standalone != "Ⱥ laws?" {
		t.Errorf("follow-up %+v, want the rewrite after its label", ans.FollowUp)
	}
}

// TestFollowUpOffline: a strategy without a model reads the question as
// asked and the previous question for the search; no model is called and
// the conversation costs nothing.
func TestFollowUpOffline(t *testing.T) {
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New("followup-offline", env)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: "which ones?", History: history, Thread: "18bcfe568000000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Thread != "18bcfe568000000" {
		t.Errorf("the answer continues thread %q, want the request's", ans.Thread)
	}
	if lastSeen.question != "which ones?" || lastSeen.previous != history[1].Question || len(lastSeen.history) != 0 || lastSeen.window != env.Config.ContextWindow {
		t.Errorf("the offline strategy saw %+v", lastSeen)
	}
	if len(srv.ChatRequests()) != 0 || ans.FollowUp == nil || len(ans.FollowUp.After) != 2 || ans.FollowUp.ContextTokens != 0 {
		t.Errorf("%d model calls, follow-up %+v", len(srv.ChatRequests()), ans.FollowUp)
	}
	// A fresh topic has no follow-up at all.
	ans, _ = engine.Run(t.Context(), env, s, engine.Request{Question: "Who signed it?"}, nil)
	if ans.FollowUp != nil || lastSeen.previous != "" || ans.Thread != "" {
		t.Errorf("a fresh question reads as a follow-up: %+v, thread %q", ans.FollowUp, ans.Thread)
	}
}

func TestTurnOf(t *testing.T) {
	a := &engine.Answer{Question: "Q?", Statements: []citations.Statement{{Text: " One. "}, {Text: "Two."}, {Text: "Thr", Unfinished: true}}}
	if got := engine.TurnOf(a); got != (engine.Turn{Question: "Q?", Answer: "One. Two."}) {
		t.Errorf("TurnOf = %+v", got)
	}
}
