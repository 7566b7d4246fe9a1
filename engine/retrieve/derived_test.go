package retrieve

import (
	"testing"

	"github.com/citelens/citelens/docstore"
)

// TestFuseDerivedScores: min-max normalised BM25 and cosine, added 1:1
// (each half of the score); a unit in one list only gets nothing from the
// other.
func TestFuseDerivedScores(t *testing.T) {
	t.Parallel()
	hit := func(unit int, score float64) docstore.DerivedHit {
		return docstore.DerivedHit{Doc: "d", Kind: docstore.DerivedQuestion, Unit: unit, Score: score}
	}
	lex := []docstore.DerivedHit{hit(1, 9), hit(2, 5), hit(3, 1)}
	near := []docstore.DerivedHit{hit(3, 0.9), hit(4, 0.8), hit(1, 0.5)}
	got := fuseDerivedScores(lex, near, 1, 1)
	want := map[int]float64{1: (1 + 0) / 2.0, 2: 0.5 / 2, 3: (0 + 1) / 2.0, 4: 0.75 / 2}
	if len(got) != 4 {
		t.Fatalf("%+v", got)
	}
	for i, h := range got {
		if d := h.Score - want[h.Unit]; d > 1e-9 || d < -1e-9 {
			t.Errorf("unit %d scores %v, want %v", h.Unit, h.Score, want[h.Unit])
		}
		if i > 0 && h.Score > got[i-1].Score {
			t.Errorf("out of order: %+v", got)
		}
	}
	if got[0].Unit != 1 || got[1].Unit != 3 {
		t.Errorf("ties keep the lexical order: %+v", got)
	}
}
