package generate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
)

func TestParseSpans(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in      string
		want    string
		garbled int
	}{
		{"[6-7]", "[[6-7]]", 0},
		{"[6-8]\n[10-10]\n", "[[6-8] [10]]", 0},
		{"'''\n[4-5][7-7]\n'''", "[[4-5] [7]]", 0},
		{"[3]", "[[3]]", 0},
		{"[C3-C5]", "[[3-5]]", 0},
		{"[ 2 – 4 ]", "[[2-4]]", 0},
		{"[1, 4-5]", "[[1] [4-5]]", 0},
		{NoRelevant, "[]", 0},
		{"No relevant information.", "[]", 0},
		{"The support is in <C3>-<C5> and <C9>.", "[[3-5] [9]]", 0},
		{"[3-5] and also <C9>", "[[3-5]]", 0},
		{"[see above] [2-2]", "[[2]]", 1},
		{"[5-]", "[]", 1},
		{"[]", "[]", 0},
		{"[12345678901-2]", "[]", 1},
		{"[7-3]", "[[7-3]]", 0}, // Resolve drops it, saying why
		{"unterminated [3-4", "[]", 0},
	} {
		refs, garbled := ParseSpans(c.in)
		if got := fmt.Sprint(refsOrEmpty(refs)); got != c.want || len(garbled) != c.garbled {
			t.Errorf("ParseSpans(%q) = %s %q, want %s and %d garbled", c.in, got, garbled, c.want, c.garbled)
		}
	}
}

func refsOrEmpty(r []citations.Ref) []citations.Ref {
	if r == nil {
		return []citations.Ref{}
	}
	return r
}

// FuzzParseSpans: any text parses without panicking; every ref has
// non-negative numbers; garbled items are short.
func FuzzParseSpans(f *testing.F) {
	for _, s := range []string{"[6-7]", "[C1-C2]\n[4]", NoRelevant, "<C3>-<C5>", "[ 2 – 4 ]", "[1, 4-5]", "<C", "[-]", "<C9>–<C", "[é]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		refs, garbled := ParseSpans(s)
		for _, r := range refs {
			if r.First < 0 || r.Last < 0 {
				t.Fatalf("negative ref %v from %q", r, s)
			}
		}
		for _, g := range garbled {
			if len(g) > 40+len("…") || !strings.Contains(s, strings.TrimSuffix(g, "…")) {
				t.Fatalf("garbled %q from %q", g, s)
			}
		}
	})
}
