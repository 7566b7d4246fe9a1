package engine_test

import (
	"testing"

	"github.com/citelens/citelens/engine"
)

func TestCounts(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9870: "9,870", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := engine.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{850: "850", 1000: "1k", 12_400: "12k", 12_500: "13k", 999_000: "999k", 1_400_000: "1.4M"} {
		if got := engine.ApproxTokens(n); got != want {
			t.Errorf("ApproxTokens(%d) = %q, want %q", n, got, want)
		}
	}
}
