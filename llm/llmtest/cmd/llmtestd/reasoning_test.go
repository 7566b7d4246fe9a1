package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// Every strategy that calls a model, against a reasoning model in each of
// the shapes reasoning arrives in: the answer holds exactly the statements
// it holds without the reasoning — none from inside it, none of it shown
// as a draft — and the reasoning is kept apart. When the model spends its
// output thinking (unclosed), nothing of the thinking becomes an answer
// and the answer says to raise max_output.
func TestReasoningNeverAnswers(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "films.txt", films)
	var (
		mu    sync.Mutex
		shape string
	)
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		mu.Lock()
		sh := shape
		mu.Unlock()
		reply := respondTo(r, 2)
		if sh == "unclosed" && deriveRE.MatchString(r.Last()) {
			return reply // RAIDD's derivation, done before the answer, has its own tests
		}
		return think(reply, sh)
	}))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	const q = "Were Scott Derrickson and Ed Wood of the same nationality?"
	run := func(t *testing.T, name, sh string) (*engine.Answer, []engine.Event) {
		t.Helper()
		mu.Lock()
		shape = sh
		mu.Unlock()
		s, err := engine.New(name, env)
		if err != nil {
			t.Fatal(err)
		}
		var opts []engine.Setting
		if strings.HasPrefix(name, "raidd") {
			opts = engine.Settings("derive", "yes")
		}
		var evs []engine.Event
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		ans, err := engine.Run(ctx, env, s, engine.Request{Question: q, Options: opts}, func(ev engine.Event) { evs = append(evs, ev) })
		if ans == nil {
			t.Fatalf("no answer: %v", err)
		}
		return ans, evs
	}
	for _, info := range engine.Strategies() {
		if !info.NeedsLLM {
			continue
		}
		t.Run(info.Name(), func(t *testing.T) {
			base, _ := run(t, info.Name(), "")
			if len(base.Statements) == 0 || base.Reasoning != "" {
				t.Fatalf("baseline: %d statements, reasoning %q", len(base.Statements), base.Reasoning)
			}
			for _, sh := range thinkShapes {
				t.Run(sh, func(t *testing.T) {
					ans, evs := run(t, info.Name(), sh)
					for _, ev := range evs {
						if d, ok := ev.(engine.Delta); ok && strings.Contains(string(d), "Okay") {
							t.Errorf("reasoning streamed as answer text: %q", d)
						}
					}
					for _, st := range ans.Statements {
						if strings.Contains(st.Text, "reasoning") || strings.Contains(st.Text, "Okay") || strings.Contains(st.Text, "think>") {
							t.Errorf("a statement from the reasoning: %q", st.Text)
						}
					}
					if sh == "unclosed" {
						if !hasWarning(ans, "spent its output on reasoning; raise max_output") {
							t.Errorf("no warning about the output spent on reasoning: %q", ans.Warnings)
						}
						return
					}
					if got, want := statementsOf(ans), statementsOf(base); got != want {
						t.Errorf("statements\n%s\nwant, as without reasoning,\n%s", got, want)
					}
					if !strings.Contains(ans.Reasoning, "Let me look for the sentences") {
						t.Errorf("the reasoning is not kept apart: %q", ans.Reasoning)
					}
					if strings.Contains(ans.Reasoning, "<think>") || strings.Contains(ans.Reasoning, "</think>") {
						t.Errorf("the reasoning keeps its tags: %q", ans.Reasoning)
					}
				})
			}
		})
	}
}

// statementsOf writes an answer's statements and their citations, one a
// line, to compare answers.
func statementsOf(ans *engine.Answer) string {
	var b strings.Builder
	for _, st := range ans.Statements {
		fmt.Fprintf(&b, "%s", st.Text)
		for _, c := range st.Citations {
			fmt.Fprintf(&b, " [%s %d-%d]", c.DocName, c.First, c.Last)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func hasWarning(ans *citations.Answer, part string) bool {
	for _, w := range ans.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// Against a server that never answers, no strategy waits out the request
// timeout more than once: after the first call times out, the answer's
// other calls fail at once (okra used to ask its analyzer, then answer
// without it, and take twice the timeout).
func TestSilentServerCostsOneTimeout(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "films.txt", films)
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{HeaderDelay: time.Minute}
	}))
	cfg := enginetest.Config(srv)
	cfg.Timeout = 200 * time.Millisecond
	env := enginetest.Env(t, lib, cfg)
	for _, info := range engine.Strategies() {
		if !info.NeedsLLM || strings.HasPrefix(info.Name(), "raidd") { // raidd answers only once derived
			continue
		}
		t.Run(info.Name(), func(t *testing.T) {
			before := len(srv.ChatRequests())
			s, _ := engine.New(info.Name(), env)
			_, err := engine.Run(t.Context(), env, s, engine.Request{Question: "Were Scott Derrickson and Ed Wood of the same nationality?"}, nil)
			if !errors.Is(err, llm.ErrTimeout) {
				t.Errorf("err %v", err)
			}
			if n := len(srv.ChatRequests()) - before; n != 1 {
				t.Errorf("%d chat requests to a silent server", n)
			}
		})
	}
}
