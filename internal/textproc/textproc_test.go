package textproc

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"Were Scott Derrickson and Ed Wood of the same nationality?", []string{"scott", "derrickson", "ed", "wood", "nation"}},
		{"Derrickson's films, running 3.14 km in 1,000 days", []string{"derrickson", "film", "run", "3.14", "km", "1,000", "day"}},
		{"The end. Next", []string{"end", "next"}},
		{"中华人民", []string{"中华", "华人", "人民"}},
		{"猫 is a cat", []string{"猫", "cat"}},
		{"ÉCOLE école", []string{"ecol", "ecol"}}, // folded to ASCII, then stemmed
	}
	for _, c := range cases {
		if got := Terms(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWordsOffsets(t *testing.T) {
	t.Parallel()
	text := "it's 3.5, ok"
	var got []string
	Words(text, func(s, e int) { got = append(got, text[s:e]) })
	want := []string{"it's", "3.5", "ok"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	if n := EstimateTokens("abcdefgh"); n != 2 {
		t.Errorf("got %d", n)
	}
	if n := EstimateTokens("中文"); n != 2 {
		t.Errorf("got %d", n)
	}
}

func BenchmarkTerms(b *testing.B) {
	s := "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. He lives in Los Angeles, California."
	b.SetBytes(int64(len(s)))
	var dst []string
	for b.Loop() {
		dst = AppendTerms(dst[:0], s)
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain text\nok\t.":     "plain text\nok\t.",
		"\x1b[31mred\x1b[0m":    "␛[31mred␛[0m",
		"bell\x07 \x9b2J":       "bell␇ \ufffd2J",
		"osc\x1b]52;c;AAAA\x07": "osc␛]52;c;AAAA␇",
		"bad \xff utf8":         "bad \ufffd utf8",
		"rtl \u202eevil\u202c":  "rtl evil",
		"carriage\rreturn":      "carriage␍return",
		"sign \u0602 x\u0600١":  "sign  x١", // prepended format marks
	}
	for in, want := range cases {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := OneLine("a \n\n b\x1b"); got != "a b␛" {
		t.Errorf("OneLine = %q", got)
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("\x1b[2J\x07text\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Printable(s), OneLine(s)} {
			for _, r := range out {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || isBidiControl(r) || prependFormat(r) {
					t.Fatalf("control %U survives in %q", r, out)
				}
			}
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out")
			}
		}
	})
}

// TestFoldAccents: a word and its unaccented, ligature-free, full-width or
// upper-case forms make one term, so a search for either finds both.
func TestFoldAccents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b string }{
		{"Zürich", "zurich"}, {"façade", "facade"}, {"naïve", "naive"}, {"ﬁle", "file"}, {"ＡＢＣ", "abc"},
		{"Straße", "strasse"}, {"Ørsted", "orsted"}, {"Ærø", "aero"}, {"CAFÉ", "cafe"}, {"cafe\u0301", "cafe"},
		{"Łódź", "lodz"}, {"Ελλάδα", "ελλαδα"},
	} {
		if got := Fold(c.a); got != c.b {
			t.Errorf("Fold(%q) = %q, want %q", c.a, got, c.b)
		}
		if Term(c.a) != Term(c.b) {
			t.Errorf("Term(%q) = %q, Term(%q) = %q: not one term", c.a, Term(c.a), c.b, Term(c.b))
		}
	}
	// CJK keeps its characters: NFKD would split a Hangul syllable into
	// jamo and a kana with its voicing mark into two.
	for _, w := range []string{"한국", "がっこう", "東京"} {
		if got := Fold(w); got != w {
			t.Errorf("Fold(%q) = %q, want it unchanged", w, got)
		}
	}
	if got := Terms("The café in Zürich"); strings.Join(got, " ") != "cafe zurich" {
		t.Errorf("Terms = %q", got)
	}
}
