package citations

import (
	"reflect"
	"testing"
)

func TestPlanLines(t *testing.T) {
	t.Parallel()
	type step struct {
		SubQuestion string `json:"sub_question"`
		Fact        string `json:"fact"`
		Sentences   []int  `json:"sentences"`
	}
	plan := struct {
		Summary  string            `json:"summary"`
		Workflow string            `json:"workflow"`
		Weights  map[string]any    `json:"weights"`
		Reasons  []string          `json:"reasons"`
		Steps    []step            `json:"steps"`
		Empty    []string          `json:"empty"`
		Dense    bool              `json:"dense_available"`
		Extra    map[string]string `json:"extra,omitempty"`
	}{
		Summary:  "multi-bridge → step-wise reasoner\x1b[31m",
		Workflow: "step-wise",
		Weights:  map[string]any{"lexical": 3, "dense": 2},
		Reasons:  []string{"names a relation", "no evidence found"},
		Steps:    []step{{"Who directed it?", "Scott Derrickson did.", []int{5, 6}}},
	}
	summary, details := PlanLines(plan)
	if summary != "multi-bridge → step-wise reasoner␛[31m" {
		t.Errorf("summary %q", summary)
	}
	want := []string{
		"workflow: step-wise",
		"weights: dense: 2 · lexical: 3",
		"reasons: names a relation, no evidence found",
		"steps:",
		"  1. sub question: Who directed it? · fact: Scott Derrickson did. · sentences: [5; 6]",
		"dense available: no",
	}
	if !reflect.DeepEqual(details, want) {
		t.Errorf("details:\n%q\nwant\n%q", details, want)
	}
	if s, d := PlanLines(nil); s != "" || d != nil {
		t.Error("nil plan rendered")
	}
}
