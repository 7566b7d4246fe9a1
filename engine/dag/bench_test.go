package dag

import (
	"context"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm/llmtest"
)

// BenchmarkAnswer is a whole two-step answer against the scripted server
// on localhost: everything dag does besides waiting for a model (three
// planning prompts, two retrievals and fact prompts, the final prompt, the
// parsing and verification), plus six local HTTP round trips.
func BenchmarkAnswer(b *testing.B) {
	lib, _ := filmLibrary(b)
	srv := llmtest.New(b)
	srv.Respond(filmModel(b, true).respond)
	env := enginetest.Env(b, lib, enginetest.Config(srv))
	s, err := engine.New(Name, env)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := engine.Run(context.Background(), env, s, engine.Request{Question: question}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStep is one step's work on the citelens side: retrieving the
// chunks for a sub-question and building the fact prompt.
func BenchmarkStep(b *testing.B) {
	lib, _ := filmLibrary(b)
	srv := llmtest.New(b)
	env := enginetest.Env(b, lib, enginetest.Config(srv))
	sub := "What is the nationality of Scott Derrickson?"
	_, err := enginetest.Answer(b.Context(), env, question, func(ctx context.Context, rt *engine.Runtime) error {
		for b.Loop() {
			r := newRun(rt)
			ps, _, err := r.retrieve(ctx, sub)
			if err != nil || len(ps) == 0 {
				b.Fatal(err)
			}
			var ranked []generate.SentenceRef
			for _, p := range ps {
				d, _ := rt.Place(p.Doc)
				for i := p.First; i <= p.Last; i++ {
					ranked = append(ranked, generate.SentenceRef{Doc: d, Sentence: i})
				}
			}
			num, err := r.numbering(sub, generate.OneShot, ranked)
			if err != nil {
				b.Fatal(err)
			}
			factMessages(sub, num)
		}
		return nil
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParsePlan reads planner replies, ordinary and hostile (a long
// line, endless list markers).
func BenchmarkParsePlan(b *testing.B) {
	replies := []string{
		"Subquestion: Who directed Doctor Strange?",
		strings.Repeat("the director… ", 500) + "\n**Final answer:** Scott Derrickson",
		strings.Repeat("- * 1. ", 5000) + "Who?",
	}
	for b.Loop() {
		for _, r := range replies {
			parsePlan(r)
		}
	}
}
