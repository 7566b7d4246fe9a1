package eval

import (
	"math"
	"testing"
)

// TestRouge: ROUGE-1 and ROUGE-L F-measures as rouge_score computes them
// (lower case, alphanumeric tokens, no stemming).
func TestRouge(t *testing.T) {
	t.Parallel()
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// rouge_score: "the cat sat on the mat" vs "the cat was on the mat":
	// 5 of 6 unigrams shared; LCS "the cat on the mat", 5.
	if got := Rouge1("the cat sat on the mat", "The cat was on the mat."); !near(got, 5.0/6) {
		t.Errorf("rouge1 %.4f", got)
	}
	if got := RougeL("the cat sat on the mat", "the cat was on the mat"); !near(got, 5.0/6) {
		t.Errorf("rougeL %.4f", got)
	}
	// Order matters to ROUGE-L only: "mat the on" shares 3 unigrams with
	// "on the mat" but an LCS of 1.
	if r1, rl := Rouge1("mat the on", "on the mat"), RougeL("mat the on", "on the mat"); !near(r1, 1) || !near(rl, 1.0/3) {
		t.Errorf("rouge1 %.4f, rougeL %.4f", r1, rl)
	}
	if Rouge1("", "x") != 0 || RougeL("a", "") != 0 {
		t.Errorf("empty texts score 0")
	}
}
