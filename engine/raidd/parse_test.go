package raidd

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseReply(t *testing.T) {
	t.Parallel()
	wantQs := []string{"Why did the otter leave?", "Where was the heron seen?"}
	const sum = "Wildlife left the reservoir as the water fell."
	cases := []struct {
		name, reply string
		summary     string
		questions   []string
	}{
		{"asked layout", "SUMMARY:\n" + sum + "\nQUESTIONS:\n1. Why did the otter leave?\n2. Where was the heron seen?\n", sum, wantQs},
		{"markdown headings", "## Summary\n\n" + sum + "\n\n## Reading comprehension questions\n\n1) Why did the otter leave?\n2) Where was the heron seen?", sum, wantQs},
		{"bold labels, text on the heading line", "**Summary:** " + sum + "\n**Questions:**\n- Why did the otter leave?\n- Where was the heron seen?", sum, wantQs},
		{"preamble and Q labels", "Sure! Here you go.\nSummary: " + sum + "\nQuestions:\nQ1: Why did the otter leave?\nQ2: Where was the heron seen?\nLet me know if you need more.",
			sum, wantQs},
		{"json", "```json\n{\"summary\": \"" + sum + "\", \"questions\": [\"Why did the otter leave?\", \"Where was the heron seen?\"]}\n```", sum, wantQs},
		{"json with a string of questions", `{"Summary": "` + sum + `", "Questions": "1. Why did the otter leave?\n2. Where was the heron seen?"}`, sum, wantQs},
		{"json with question objects", `{"summary": "` + sum + `", "questions": [{"question": "Why did the otter leave?"}, {"question": "Where was the heron seen?"}]}`, sum, wantQs},
		{"no headings", sum + "\n\n1. Why did the otter leave?\n2. Where was the heron seen?", sum, wantQs},
		{"questions on one line", "SUMMARY: " + sum + "\nQUESTIONS: 1. Why did the otter leave? 2. Where was the heron seen?", sum, wantQs},
		{"thinking first", "<think>The user wants a summary. Questions: maybe?</think>\nSUMMARY:\n" + sum + "\nQUESTIONS:\n1. Why did the otter leave?\n2. Where was the heron seen?", sum, wantQs},
		{"unclosed thinking", "<think>Let me see. SUMMARY: nothing", "", nil},
		{"duplicates and blanks", "SUMMARY:\n" + sum + "\nQUESTIONS:\n1. Why did the otter leave?\n\n2. why did the otter  leave?\n3. ?\n4. Where was the heron seen?", sum, wantQs},
		{"summary lines joined", "SUMMARY:\nWildlife left the reservoir\nas the water fell.\nQUESTIONS:\n1. Why did the otter leave?\n2. Where was the heron seen?", sum, wantQs},
		{"questions under the summary heading", "Summary:\n" + sum + "\n1. Why did the otter leave?\n2. Where was the heron seen?", sum, wantQs},
		{"a sentence that starts with Summary is not a heading", "Summary judgments were rare then.\n\n1. Why were summary judgments rare?", "Summary judgments were rare then.", []string{"Why were summary judgments rare?"}},
		{"empty", "", "", nil},
		{"refusal", "I'm sorry, I can't help with that.", "I'm sorry, I can't help with that.", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ParseReply(c.reply, 0)
			if p.Summary != c.summary {
				t.Errorf("summary %q, want %q", p.Summary, c.summary)
			}
			if !slices.Equal(p.Questions, c.questions) {
				t.Errorf("questions %q, want %q", p.Questions, c.questions)
			}
		})
	}
	if p := ParseReply("SUMMARY: s is here.\nQUESTIONS:\n1. A one?\n2. A two?\n3. A three?", 2); len(p.Questions) != 2 || !p.Usable() {
		t.Errorf("want capped at 2: %+v", p)
	}
	if p := ParseReply("SUMMARY: only a summary.", 8); p.Usable() || p.problem() != "the reply has no questions" {
		t.Errorf("summary only: %+v %q", p, p.problem())
	}
}

func TestQuestionCount(t *testing.T) {
	t.Parallel()
	for tokens, want := range map[int]int{256: 8, 1024: 32, 200: 6, 10: 1, 0: 1, 47: 1, 48: 2} {
		if got := QuestionCount(tokens); got != want {
			t.Errorf("QuestionCount(%d) = %d, want %d", tokens, got, want)
		}
	}
}

// FuzzParseReply: any reply parses without panicking into clean text: no
// line breaks, no runs of spaces, no empty or duplicate questions, at most
// want of them.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"SUMMARY:\nA summary.\nQUESTIONS:\n1. One?\n2. Two?",
		`{"summary": "x", "questions": ["a?", "b?"]}`,
		"<think>hmm</think>Summary: s\nQuestions: 1. a? 2. b?",
		"## Summary\n**Questions:**\n- Q1: what?",
		"1. 2. 3. ???", "```\n{", "Summary:", "\x00\xff<think>",
	} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, s string, want int) {
		want = want % 64
		p := ParseReply(s, want)
		if strings.ContainsAny(p.Summary, "\n\r") || strings.Contains(p.Summary, "  ") {
			t.Errorf("summary not one clean line: %q", p.Summary)
		}
		if want > 0 && len(p.Questions) > want {
			t.Errorf("%d questions, want at most %d", len(p.Questions), want)
		}
		seen := map[string]bool{}
		for _, q := range p.Questions {
			k := strings.ToLower(q)
			if q == "" || seen[k] || strings.ContainsAny(q, "\n\r") {
				t.Errorf("bad question %q in %q", q, p.Questions)
			}
			seen[k] = true
		}
		if utf8.ValidString(s) && (!utf8.ValidString(p.Summary)) {
			t.Errorf("valid input gave invalid summary %q", p.Summary)
		}
	})
}

// TestParseTwoCalls: the replies to the authors' two calls, as models
// write them — bare, with a label or heading of their own, thinking
// first, in JSON, with chatter after the list.
func TestParseTwoCalls(t *testing.T) {
	t.Parallel()
	const sum = "Wildlife left the reservoir as the water fell."
	for _, c := range []struct{ name, reply, want string }{
		{"bare", sum, sum},
		{"label", "Here is a conceptual summary:\n\n" + sum, sum},
		{"heading", "## Summary\n" + sum, sum},
		{"thinking", "<think>Summarise it.</think>" + sum, sum},
		{"json", `{"summary": "` + sum + `"}`, sum},
		{"questions after", "SUMMARY: " + sum + "\nQUESTIONS:\n1. Why?", sum},
		{"nothing", "<think>never closed", ""},
	} {
		if got := ParseSummary(c.reply); got != c.want {
			t.Errorf("%s: summary %q, want %q", c.name, got, c.want)
		}
	}
	want := []string{"Why did the otter leave?", "Where was the heron seen?"}
	for _, c := range []struct{ name, reply string }{
		{"numbered", "1. Why did the otter leave?\n2. Where was the heron seen?"},
		{"heading and chatter", "Questions:\n1. Why did the otter leave?\n2. Where was the heron seen?\n\nLet me know if you need more."},
		{"bullets", "- Why did the otter leave?\n- Where was the heron seen?"},
		{"one line", "1. Why did the otter leave? 2. Where was the heron seen?"},
		{"json", `{"questions": ["Why did the otter leave?", "Where was the heron seen?"]}`},
		{"too many", "1. Why did the otter leave?\n2. Where was the heron seen?\n3. What else?"},
	} {
		if got := ParseQuestions(c.reply, 2); !slices.Equal(got, want) {
			t.Errorf("%s: questions %q, want %q", c.name, got, want)
		}
	}
	if got := ParseQuestions("I'm sorry, but the text seems to be about rainfall.", 2); len(got) != 0 {
		t.Errorf("a refusal read as questions %q", got)
	}
}
