package main

import "testing"

// TestParseSizeRefusesNotANumber: --max-size NaN or Inf is not a size
// (NaN passed the range check written as two comparisons).
func TestParseSizeRefusesNotANumber(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"NaN", "nanM", "Inf", "+infG", "-1", "0", "2000000T"} {
		if n, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) = %d, want refused", s, n)
		}
	}
	if n, err := parseSize("50M"); err != nil || n != 50<<20 {
		t.Errorf("parseSize(50M) = %d %v", n, err)
	}
}
