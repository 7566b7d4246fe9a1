package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestSmallModelDegradesToCitedAnswer: against a model with a small
// model's habits (llmtest.SmallModel: ignoring the template, citing out
// of range, Markdown, repeating itself, stopping mid-tag, and all at
// once), every strategy that asks a model still answers with at least
// one statement citing the document, and an answer whose model ignored
// the template says what went wrong in a warning: never an empty or
// uncited success. plain answers uncited by design; extractive asks no
// model.
func TestSmallModelDegradesToCitedAnswer(t *testing.T) {
	t.Parallel()
	questions := []string{
		"Were Scott Derrickson and Ed Wood of the same nationality?",
		"What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
	}
	type run struct {
		name string
		opts []engine.Setting
	}
	var runs []run
	for _, info := range engine.Strategies() {
		if !info.NeedsLLM || info.Name() == "plain" {
			continue
		}
		var opts []engine.Setting
		if strings.HasPrefix(info.Name(), "raidd") {
			opts = engine.Settings("derive", "yes")
		}
		runs = append(runs, run{info.Name(), opts})
	}
	runs = append(runs, run{"dag", engine.Settings("algorithm", "1")})
	sets := map[string][]llmtest.Habit{"all": llmtest.Habits()}
	for _, h := range llmtest.Habits() {
		sets[string(h)] = []llmtest.Habit{h}
	}
	for name, habits := range sets {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				t.Parallel()
				lib, _ := enginetest.TextLibrary(t, "films.txt", films)
				srv := llmtest.New(t, llmtest.WithResponder(llmtest.SmallModel(seed, habits, func(r llmtest.ChatRequest) llmtest.Reply { return respondTo(r, 2) })))
				env := enginetest.Env(t, lib, enginetest.Config(srv))
				fellBack := 0
				defer func() {
					if name == string(llmtest.IgnoresTemplate) && fellBack == 0 {
						t.Errorf("no answer fell back with a warning though the model ignored the template half the time")
					}
				}()
				for _, r := range runs {
					for _, q := range questions {
						s, err := engine.New(r.name, env)
						if err != nil {
							t.Fatal(err)
						}
						ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
						ans, err := engine.Run(ctx, env, s, engine.Request{Question: q, Options: r.opts}, nil)
						cancel()
						what := r.name + fmt.Sprint(r.opts) + " on " + q[:12]
						if err != nil {
							t.Errorf("%s: %v; stages %q", what, err, stagesOf(ans))
							continue
						}
						for _, w := range ans.Warnings {
							if strings.Contains(w, "the answer is a cited answer from the sentences retrieved for the question") {
								fellBack++
							}
						}
						if !cited(ans) {
							t.Errorf("%s: an uncited success: statements %+v, warnings %q", what, ans.Statements, ans.Warnings)
						}
					}
				}
			})
		}
	}
}

// cited reports whether a statement of ans cites the documents.
func cited(ans *engine.Answer) bool {
	for _, st := range ans.Statements {
		if len(st.Citations) > 0 {
			return true
		}
	}
	return false
}

// stagesOf is ans's stages, or none without an answer.
func stagesOf(ans *engine.Answer) []string {
	if ans == nil {
		return nil
	}
	return ans.Stages
}
