package okra

import (
	"fmt"
	"math"
	"testing"

	"github.com/citelens/citelens/engine/retrieve"
)

// TestAssembledRetrieverArithmetic reproduces Appendix B.3's assembled
// retriever on two hand-built score lists: each retriever's top 20
// min-max normalised over that list, S = w_e·S_exact + w_s·S_semantic
// with exact information's 3:2 (weights summing to 1), a segment missing
// from a list getting 0 from it, then the segments under 0.1 of the best
// dropped.
func TestAssembledRetrieverArithmetic(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	// Segments s0…s22. BM25 (exact) scores s0…s20, 21 of them, 12 down
	// to 2 by 0.5: its top 20 are s0…s19 (12 … 2.5), and s20 (2) is
	// outside the list. The dense (semantic) retriever proposes its own
	// top: s2 0.80, s21 0.70, s0 0.50, s22 0.20 — s21 and s22 are
	// segments BM25 never scored.
	exact := make([]float64, 23)
	semantic := make([]float64, 23)
	for i := range exact {
		exact[i], semantic[i] = nan, nan
		if i <= 20 {
			exact[i] = 12 - 0.5*float64(i)
		}
	}
	semantic[2], semantic[21], semantic[0], semantic[22] = 0.80, 0.70, 0.50, 0.20

	w := organize(Analysis{QuestionType: Extractive, InformationType: Exact, EvidenceContained: true}, true, "").Weights
	if w.Lexical != 3 || w.Dense != 2 {
		t.Fatalf("exact information weighs %v", w)
	}
	got := retrieve.FuseMinMax(exact, semantic, w.Lexical, w.Dense, FusionTop)

	// By hand: S_exact = (x − 2.5) / (12 − 2.5) over the top 20;
	// S_semantic = (x − 0.2) / (0.8 − 0.2); S = 0.6·S_exact + 0.4·S_semantic.
	se := func(i int) float64 { return (exact[i] - 2.5) / 9.5 }
	ss := func(x float64) float64 { return (x - 0.2) / 0.6 }
	want := map[int]float64{
		0:  0.6*1 + 0.4*ss(0.50),    // 0.8: both lists
		1:  0.6 * se(1),             // 0.5684: BM25 only
		2:  0.6*se(2) + 0.4*ss(0.8), // 0.9368: the best, both lists
		19: 0,                       // BM25's 20th: its list's bottom
		20: 0,                       // outside BM25's top 20
		21: 0.4 * ss(0.70),          // 0.3333: dense only
		22: 0,                       // dense's bottom
	}
	for i := 3; i <= 18; i++ {
		want[i] = 0.6 * se(i)
	}
	for i, w := range want {
		if math.Abs(got[i]-w) > 1e-9 {
			t.Errorf("s%d: S = %.4f, want %.4f", i, got[i], w)
		}
	}

	// The cut-off: under 0.1 of the best (0.9368) is under 0.0937.
	best := 0.0
	for _, s := range got {
		best = max(best, s)
	}
	var dropped []string
	for i, s := range got {
		if s < Cutoff*best {
			dropped = append(dropped, fmt.Sprintf("s%d", i))
		}
	}
	// s18 scores 0.6·0.5/9.5 = 0.0316 and s17 0.0632: BM25 found them, but
	// too weakly next to s2; s16 scores 0.0947 and stays.
	if fmt.Sprint(dropped) != "[s17 s18 s19 s20 s22]" {
		t.Errorf("dropped %v; want [s17 s18 s19 s20 s22]", dropped)
	}
}
