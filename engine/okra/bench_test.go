package okra

import (
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// BenchmarkAnswer times okra's own work per question — primary retrieval,
// planning, retrieval at the plan's granularity, the context processor,
// numbering and parsing — on an 80k-token document, each workflow, with a
// scripted model that answers at once.
func BenchmarkAnswer(b *testing.B) {
	lib, _ := enginetest.TextLibrary(b, "doc0.txt", almanacOf(1300))
	for _, c := range []struct {
		name, analysis, question string
	}{
		{"direct", analysisJSON("extractive", "exact", "yes"), "Where was Raquel Welch born?"},
		{"rescaled", analysisJSON("abstractive", "semantic", "no"), "Why did the harbour silt up?"},
		{"extension", analysisJSON("arithmetic", "exact", "yes"), "What was the total revenue of the harbour authority in 2019 and 2018?"},
		{"split", analysisJSON("multi-source", "exact", "no"), "Which university has the larger campus, University of New Haven or University of West Florida?"},
		{"stepwise", analysisJSON("multi-bridge", "exact", "no"), "The Lost Valley is a western film starring an actress of what nationality?"},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc := &script{analysis: c.analysis,
				subs:  []string{"What is the campus size of University of New Haven?", "What is the campus size of University of West Florida?"},
				steps: []string{"### Evidence: Raquel Welch stars. ### Next-Query: What is the nationality of Raquel Welch? ### Answer: None"},
				cite:  []string{"Raquel Welch"}}
			srv := llmtest.New(b, llmtest.WithResponder(sc.respond))
			env := enginetest.Env(b, lib, enginetest.Config(srv))
			s, err := New(env, false)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := engine.Run(b.Context(), env, s, engine.Request{Question: c.question}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
