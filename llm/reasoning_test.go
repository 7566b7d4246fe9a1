package llm_test

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/llm"
)

func TestSplitReasoning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, answer, reasoning string
		unclosed                    bool
		strays                      int
	}{
		{"none", "<statement>A.<cite>[1]</cite></statement>", "<statement>A.<cite>[1]</cite></statement>", "", false, 0},
		{"closed", "<think>\nhmm <statement>no</statement>\n</think>\n\nThe answer.", "\n\nThe answer.", "\nhmm <statement>no</statement>\n", false, 0},
		{"thinking, upper case", "<THINKING>x</Thinking>y", "y", "x", false, 0},
		{"reasoning tag", "<reasoning>x</reasoning><statement>y</statement>", "<statement>y</statement>", "x", false, 0},
		{"unclosed", "<think>all of it, <statement>even this</statement>", "", "all of it, <statement>even this</statement>", true, 0},
		{"unopened", "Okay, so <statement>draft</statement>.</think>\nAnswer.", "\nAnswer.", "Okay, so <statement>draft</statement>.", false, 0},
		{"text before a block is answer", "Sure. <think>x</think> Done.", "Sure.  Done.", "x", false, 0},
		{"two blocks", "<think>a</think>B<think>c</think>D", "BD", "ac", false, 0},
		{"stray close after the answer began", "<statement>A</statement></think>B", "<statement>A</statement>B", "", false, 1},
		{"prose is held to the end, then answer", "No tags at all, x < y.", "No tags at all, x < y.", "", false, 0},
		{"tags that are not reasoning", "<thin> <thinker> </thinks>", "<thin> <thinker> </thinks>", "", false, 0},
		{"cut tag at the end", "<statement>A</statement><thi", "<statement>A</statement><thi", "", false, 0},
		{"repeated opening", "<think><think>x</think>y", "y", "x", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Every way of cutting the text in two gives the same result,
			// and so does one byte at a time.
			for cut := 0; cut <= len(tc.in); cut++ {
				check(t, []string{tc.in[:cut], tc.in[cut:]}, tc.answer, tc.reasoning, tc.unclosed, tc.strays)
			}
			check(t, strings.Split(tc.in, ""), tc.answer, tc.reasoning, tc.unclosed, tc.strays)
			a, r, u := llm.SplitReasoning(tc.in)
			if a != tc.answer || r != tc.reasoning || u != tc.unclosed {
				t.Errorf("SplitReasoning: %q %q %v", a, r, u)
			}
		})
	}
}

func check(t *testing.T, pieces []string, answer, reasoning string, unclosed bool, strays int) {
	t.Helper()
	var s llm.ReasoningSplitter
	var a, r strings.Builder
	for _, p := range pieces {
		x, y := s.Write(p)
		a.WriteString(x)
		r.WriteString(y)
	}
	x, y := s.Close()
	a.WriteString(x)
	r.WriteString(y)
	if a.String() != answer || r.String() != reasoning || s.Unclosed() != unclosed || s.Strays() != strays {
		t.Fatalf("pieces %q: answer %q reasoning %q unclosed %v strays %d", pieces, a.String(), r.String(), s.Unclosed(), s.Strays())
	}
}

// A reply that starts with a tag of its own format streams at once; one
// that starts in prose is held until it is clear it is not reasoning.
func TestReasoningHoldsOnlyProse(t *testing.T) {
	t.Parallel()
	var s llm.ReasoningSplitter
	if a, _ := s.Write("<statement>A"); a != "<statement>A" {
		t.Errorf("a tagged reply was held back: %q", a)
	}
	var p llm.ReasoningSplitter
	if a, _ := p.Write("Plain prose "); a != "" {
		t.Errorf("prose passed before it was clear: %q", a)
	}
	if a := p.Decide(); a != "Plain prose " {
		t.Errorf("Decide released %q", a)
	}
	if a, _ := p.Write("and more</think>"); a != "and more" || p.Strays() != 1 {
		t.Errorf("after Decide: %q, %d strays", a, p.Strays())
	}
}

func FuzzReasoningSplitter(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "a</think>b", "<THINK>x", "<statement>a</statement></reasoning>", "x < y <thinking>"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, cut int) {
		a, r, _ := llm.SplitReasoning(in)
		if len(a)+len(r) > len(in) {
			t.Fatalf("more out than in: %q %q from %q", a, r, in)
		}
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		var s llm.ReasoningSplitter
		x1, y1 := s.Write(in[:cut])
		x2, y2 := s.Write(in[cut:])
		x3, y3 := s.Close()
		if x1+x2+x3 != a || y1+y2+y3 != r {
			t.Fatalf("cut at %d of %q: %q %q, whole: %q %q", cut, in, x1+x2+x3, y1+y2+y3, a, r)
		}
	})
}
