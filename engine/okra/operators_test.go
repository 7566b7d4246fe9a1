package okra

import (
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
)

// passages makes retrieval results for sentence ranges of d, best first.
func passages(d *docstore.Document, ranges [][2]int) []retrieve.Passage {
	out := make([]retrieve.Passage, len(ranges))
	for i, r := range ranges {
		out[i] = retrieve.Passage{Doc: d.ID, First: r[0], Last: r[1]}
	}
	return out
}

func TestParseSubQueries(t *testing.T) {
	t.Parallel()
	q := "Which university has the larger campus, University of New Haven or University of West Florida?"
	for _, c := range []struct {
		reply string
		want  []string
	}{
		{splitterDemoAssistant, []string{"What is the campus size of University of New Haven?", "What is the campus size of University of West Florida?"}},
		{"Sub-questions:\n1. What is A?\n2) What is B?\n\n- What is A?\n* \"What is C?\"", []string{"What is A?", "What is B?", "What is C?"}},
		{"Sub-question 1: What is A?\nSub-question 2: What is B?", []string{"What is A?", "What is B?"}},
		{q + "\nWhat is A?", []string{"What is A?"}},
		{"a\nb\nc\nd\ne\nf\ng", []string{"a", "b", "c", "d", "e"}},
		{"", nil},
		{"What is \x1b[31mA\x1b[0m?", []string{"What is ␛[31mA␛[0m?"}},
	} {
		got := parseSubQueries(c.reply, q)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.reply, got, c.want)
		}
	}
}

func TestParseStep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply string
		want  stepReply
	}{
		{reasonerDemoAssistant, stepReply{"The main actress in 100 Rifles is Raquel Welch.", "What is the nationality of Raquel Welch?", ""}},
		{"### Evidence: Welch was American.\n### Next-Query: None\n### Answer: The answer is: American", stepReply{"Welch was American.", "", "American"}},
		{"Evidence: a.\nNext Query: b?\nAnswer: none", stepReply{"a.", "b?", ""}},
		{"### Evidence: The answer: is unclear. ### Answer: The answer is <American>", stepReply{"The answer: is unclear.", "", "<American>"}},
		{"no fields at all", stepReply{}},
		{"### ANSWER: N/A", stepReply{}},
	} {
		if got := parseStep(c.reply); got != c.want {
			t.Errorf("%q:\n got %+v\nwant %+v", c.reply, got, c.want)
		}
	}
}

func FuzzParseStep(f *testing.F) {
	for _, s := range []string{reasonerDemoAssistant, "### Answer: The answer is: x", "Evidence:\nAnswer:", "####answer:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := parseStep(s)
		for _, v := range []string{r.Evidence, r.NextQuery, r.Answer} {
			if strings.ContainsAny(v, "\n\x1b") {
				t.Errorf("%q: field %q is not one clean line", s, v)
			}
		}
	})
}

func FuzzParseSubQueries(f *testing.F) {
	for _, s := range []string{splitterDemoAssistant, "1. a\n2. b", "Sub-question 1:", "\n\n\n"} {
		f.Add(s, "q?")
	}
	f.Fuzz(func(t *testing.T, reply, q string) {
		subs := parseSubQueries(reply, q)
		if len(subs) > MaxSubQueries {
			t.Errorf("%d sub-questions", len(subs))
		}
		for _, s := range subs {
			if s == "" || strings.ContainsAny(s, "\n\x1b") {
				t.Errorf("sub-question %q", s)
			}
		}
	})
}
