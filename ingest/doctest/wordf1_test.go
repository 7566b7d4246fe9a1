package doctest

import (
	"math"
	"testing"
)

func TestWordF1(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cand, ref string
		p, r, f   float64
	}{
		{"An Introduction to R", "An Introduction to R", 1, 1, 1},
		{"AnIntroductiontoR", "An Introduction to R", 0, 0, 0},
		{"An Intro duction to R", "An Introduction to R", 0.6, 0.75, 2 * 0.6 * 0.75 / 1.35},
		{"hyphen-\nated words", "hyphenated words", 1, 1, 1},
		{"ﬁne Ｒ", "fine r", 1, 1, 1}, // NFKC: the ligature and the full-width letter
		{"snake_case", "snake case", 1, 1, 1},
		{"", "words", 0, 0, 0},
	}
	for _, c := range cases {
		p, r, f := WordF1(c.cand, c.ref)
		if math.Abs(p-c.p) > 1e-9 || math.Abs(r-c.r) > 1e-9 || math.Abs(f-c.f) > 1e-9 {
			t.Errorf("WordF1(%q, %q) = %.3f %.3f %.3f, want %.3f %.3f %.3f", c.cand, c.ref, p, r, f, c.p, c.r, c.f)
		}
	}
}
