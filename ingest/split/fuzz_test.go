package split

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkInvariants verifies what Sentences promises, independently of how
// it works: spans in order, not overlapping, no longer than
// MaxSentenceBytes, on rune boundaries, trimmed, and covering every byte
// that is not part of a whitespace rune. Runes are decoded forwards from
// the start of the text, as any reader of the text would.
func checkInvariants(t testing.TB, text string, sents []Span) {
	t.Helper()
	// runeStart[i]: a rune (or a stray byte) begins at i; space[i]: byte i
	// is part of a whitespace rune.
	runeStart := make([]bool, len(text)+1)
	space := make([]bool, len(text))
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		runeStart[i] = true
		if unicode.IsSpace(r) {
			for k := i; k < i+n; k++ {
				space[k] = true
			}
		}
		i += n
	}
	runeStart[len(text)] = true
	covered := make([]bool, len(text))
	prev := 0
	for i, s := range sents {
		switch {
		case s.Start < prev || s.End <= s.Start || s.End > len(text):
			t.Fatalf("sentence %d %v: out of order, empty or out of range (previous end %d, text %d bytes)", i, s, prev, len(text))
		case !runeStart[s.Start] || !runeStart[s.End]:
			t.Fatalf("sentence %d %v splits a UTF-8 sequence", i, s)
		case space[s.Start] || space[s.End-1]:
			t.Fatalf("sentence %d %v %q is not trimmed", i, s, text[s.Start:s.End])
		case s.End-s.Start > MaxSentenceBytes:
			t.Fatalf("sentence %d %v is %d bytes, over MaxSentenceBytes", i, s, s.End-s.Start)
		}
		for k := s.Start; k < s.End; k++ {
			covered[k] = true
		}
		prev = s.End
	}
	for i := range text {
		if !space[i] && !covered[i] {
			t.Fatalf("byte %d (%q) belongs to no sentence; context %q", i, text[i], text[max(0, i-20):min(len(text), i+20)])
		}
	}
}

var fuzzSeeds = []string{
	"",
	"   \n\t ",
	"Dr. Smith et al. (2019) found 3.5% of U.S. cases, e.g. in Fig. 2, see https://example.com/a.b?c=d. Next sentence.",
	"J. R. R. Tolkien wrote it.",
	"It costs $1.50. Then...",
	"Use x.foo() and os.path.join. Then",
	"He said \"Stop.\" Then he left.",
	"Really?! Yes... Maybe… No.",
	"1. First item\n2. Second item\n- third\n* fourth",
	"我爱北京。天安门很大！真的吗？是的；好",
	"# Heading\nText here.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	"```go\nfunc main() {\n\n\tx := 1.5\n}\n```\nAfter.",
	"```\nunclosed fence. Still prose.",
	"Ed Wood (film)\nEd Wood is a 1994 American film directed by Tim Burton. It stars Johnny Depp as Ed Wood.\n\nNext\nPara.",
	"Title\n=====\n\nSub\n---\ntext",
	"\u00a0\u3000Nbsp\u00a0and ideographic space.\u3000Next.\u2028",
	"bad \xff\xfe utf8 \xe3\x80 cut. Next \xc2",
	"word " + string(make([]byte, 0)) + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"A line of hard-wrapped prose that goes on until the wrap\ncolumn and continues. Here.",
	"「好。」然后他说：“走吧！”我们走了。",
}

func FuzzSentences(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkInvariants(t, text, Sentences(text))
	})
}
