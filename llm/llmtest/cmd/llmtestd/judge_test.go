package main

import (
	"context"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/llm/llmtest"
)

// The scripted server answers `citelens eval --judge`'s prompts: an
// answer of the scripted model is judged end to end, every rating read,
// and the judge tells a cited statement from an unrelated one.
func TestScriptedJudge(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "films.txt", films)
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply { return respondTo(r, 2) }))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	s, err := engine.New("longcite", env)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ans, err := engine.Run(ctx, env, s, engine.Request{Question: "Where does Scott Derrickson live?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	j := judge.New(env.LLM, judge.Options{})
	res, err := j.Score(ctx, ans)
	if err != nil || res.Recall == 0 || res.Precision == 0 {
		t.Fatalf("judged %+v, %v", res, err)
	}
	unrelated := &citations.Answer{Question: ans.Question, Statements: []citations.Statement{{
		Text: "Shirley Temple served as Chief of Protocol.", Citations: ans.Statements[len(ans.Statements)-1].Citations,
	}}}
	bad, err := j.Score(ctx, unrelated)
	if err != nil || bad.Recall != 0 || bad.Precision != 0 {
		t.Errorf("an unrelated statement judged %+v, %v", bad, err)
	}
	c, err := j.Correctness(ctx, ans.Question, citations.AnswerText(ans), []string{"an American director"}, "", nil)
	if err != nil || c.Unrated != 0 || c.Score != 1 {
		t.Errorf("correctness %+v of %q, %v", c, citations.AnswerText(ans), err)
	}
	c, _ = j.Correctness(ctx, ans.Question, "He lives in Paris.", []string{"an American director"}, "", nil)
	if c.Unrated != 0 || c.Score != 0 {
		t.Errorf("a wrong answer: %+v", c)
	}
}
