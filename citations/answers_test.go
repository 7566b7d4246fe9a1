package citations

import (
	"math"
	"testing"
)

// The expected values are those of LongBench's own metrics.py
// (normalize_answer, qa_f1_score) run by Python on the same inputs.
func TestAnswerMetricsMatchLongBench(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prediction string
		golds      []string
		normalized string
		f1, em     float64
	}{
		{"The answer is: Scott Derrickson.", []string{"Scott Derrickson"}, "answer is scott derrickson", 0.6666666666666666, 0.0},
		{"yes", []string{"yes"}, "yes", 1.0, 1.0},
		{"Yes, both were American.", []string{"yes"}, "yes both were american", 0.4, 0.0},
		{"An apple a day; the end—theatre, Anne, a_b, a1", []string{"apple day end theatre"}, "apple day end—theatre anne ab a1", 0.4, 0.0},
		{"Chief of Protocol", []string{"Chief of Protocol"}, "chief of protocol", 1.0, 1.0},
		{"  Hello,   World!!  ", []string{"hello world", "goodbye"}, "hello world", 1.0, 1.0},
		{"théâtre à la carte, the café", []string{"théâtre à la carte café"}, "théâtre à la carte café", 1.0, 1.0},
		{"the the the", []string{"the"}, "", 0, 1.0},
		{"", []string{"anything"}, "", 0, 0.0},
		{"1,000 people (approx.) in 1984", []string{"1000 people in 1984"}, "1000 people approx in 1984", 0.888888888888889, 0.0},
		{"«Le Monde» — a newspaper", []string{"le monde newspaper"}, "«le monde» — newspaper", 0.28571428571428575, 0.0},
		{"He was the 3rd-born, an A-list actor", []string{"3rdborn alist actor"}, "he was 3rdborn alist actor", 0.7499999999999999, 0.0},
	} {
		if got := NormalizeAnswer(tc.prediction); got != tc.normalized {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", tc.prediction, got, tc.normalized)
		}
		if got := AnswerF1(tc.prediction, tc.golds); math.Abs(got-tc.f1) > 1e-9 {
			t.Errorf("AnswerF1(%q, %q) = %v, want %v", tc.prediction, tc.golds, got, tc.f1)
		}
		if got := AnswerEM(tc.prediction, tc.golds); got != tc.em {
			t.Errorf("AnswerEM(%q, %q) = %v, want %v", tc.prediction, tc.golds, got, tc.em)
		}
	}
}

func TestAnswerText(t *testing.T) {
	t.Parallel()
	a := &Answer{Statements: []Statement{{Text: " Yes. "}, {Text: ""}, {Text: "Both were American.", Citations: []Span{{Text: "cited words"}}}}}
	if got := AnswerText(a); got != "Yes. Both were American." {
		t.Errorf("AnswerText = %q", got)
	}
}
