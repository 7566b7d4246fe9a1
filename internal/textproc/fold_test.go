package textproc

import (
	"strings"
	"testing"
)

// naiveIndexFold is IndexFold by brute force over strings.EqualFold, at
// the boundaries of the runes of s as range decodes them.
func naiveIndexFold(s, sub string) (int, int) {
	var at []int
	for i := range s {
		at = append(at, i)
	}
	at = append(at, len(s))
	for a, i := range at {
		for _, j := range at[a:] {
			if strings.EqualFold(s[i:j], sub) {
				return i, j
			}
		}
	}
	return -1, -1
}

func TestIndexFold(t *testing.T) {
	t.Parallel()
	grow := strings.Repeat("Ⱥ", 16) // each lower-cases to three bytes from two
	for _, c := range []struct {
		s, sub     string
		start, end int
	}{
		{"Standalone Question: what?", "standalone question:", 0, 20},
		{grow + " Rating: [[Yes]]", "rating:", 33, 40},
		{"x \u212Aey", "key", 2, 7}, // the Kelvin sign folds to k
		{"ⱥⱥ", "ȺȺ", 0, 6},
		{"abc", "", 0, 0},
		{"abc", "abcd", -1, -1},
		{"", "a", -1, -1},
		{"é", "É", 0, 2},
	} {
		start, end := IndexFold(c.s, c.sub)
		if start != c.start || end != c.end {
			t.Errorf("IndexFold(%q, %q) = %d, %d, want %d, %d", c.s, c.sub, start, end, c.start, c.end)
		}
		if ns, ne := naiveIndexFold(c.s, c.sub); ns != start || ne != end {
			t.Errorf("IndexFold(%q, %q) = %d, %d; EqualFold finds %d, %d", c.s, c.sub, start, end, ns, ne)
		}
	}
	if n, ok := PrefixFold("```JSON\n{}", "```json"); !ok || n != 7 {
		t.Errorf("PrefixFold = %d, %v", n, ok)
	}
}

// FuzzIndexFold checks IndexFold against brute force over
// strings.EqualFold, and that its offsets always slice s.
func FuzzIndexFold(f *testing.F) {
	f.Add("ȺȺȺȺ rating: [[x]]", "RATING:")
	f.Add("\u212Aelvin", "kELVIN")
	f.Add("\xff\xfeab", "AB")
	f.Fuzz(func(t *testing.T, s, sub string) {
		if len(s) > 200 || len(sub) > 20 {
			return // brute force is cubic
		}
		start, end := IndexFold(s, sub)
		if ns, ne := naiveIndexFold(s, sub); ns != start || ne != end {
			t.Fatalf("IndexFold(%q, %q) = %d, %d; EqualFold finds %d, %d", s, sub, start, end, ns, ne)
		}
		if start >= 0 && !strings.EqualFold(s[start:end], sub) {
			t.Fatalf("IndexFold(%q, %q) = %q", s, sub, s[start:end])
		}
	})
}
