package citations

import (
	"bytes"
	"strings"
	"testing"
)

// TestMarks: a quote is marked by the question words it holds, never
// "supported" (it cites itself) and never by a band that its words can
// belie; a model's statement is "supported" only when a check supported
// it; only what needs attention warns.
func TestMarks(t *testing.T) {
	t.Parallel()
	quote := Statement{
		Text:      "For imposing Taxes on us without our Consent:",
		Citations: []Span{{Text: "For imposing Taxes on us without our Consent:"}},
		Support:   []Verdict{{Level: Supported, Score: 1, Judge: OfflineJudge}},
		// The band a coverage of 0.3 reads as: weak, though the quote
		// answers the question.
		Relevance: &Relevance{Matched: []string{"taxes", "consent"}, Of: 4, Coverage: 0.3, Band: RelevanceWeak},
	}
	for _, tc := range []struct {
		name        string
		s           Statement
		kind        MarkKind
		text, short string
		warns       bool
	}{
		{"quote", quote, MarkWords, "2 of 4 question words: taxes, consent", "2/4 words", false},
		{"quote of none", Statement{Text: "x", Citations: []Span{{Text: "x"}}, Relevance: &Relevance{Matched: []string{}, Of: 3}},
			MarkWords, "none of the 3 question words", "0/3 words", false},
		{"old quote", Statement{Text: "x y", Citations: []Span{{Text: "x y"}}, Support: []Verdict{{Level: Supported, Score: 1}}},
			MarkQuote, "quote", "quote", false},
		{"supported", Statement{Text: "a", Citations: []Span{{Text: "b"}, {Text: "c"}},
			Support: []Verdict{{Level: Partial, Score: 0.5}, {Level: Supported, Score: 0.9}}}, MarkSupported, "supported", "supported", false},
		{"partly", Statement{Text: "a", Citations: []Span{{Text: "b"}}, Support: []Verdict{{Level: Partial, Score: 0.5}}},
			MarkPartial, "partly supported", "partly", false},
		{"not supported", Statement{Text: "a", Citations: []Span{{Text: "b"}}, Support: []Verdict{{Level: Unsupported, Score: 0.1}}},
			MarkUnsupported, "not supported", "not supported", true},
		{"uncited", Statement{Text: "It rose 4%.", NeedsCitation: true}, MarkUncited, "no citation", "no citation", true},
		{"unfinished", Statement{Text: "It rose", Unfinished: true}, MarkUnfinished, "unfinished", "unfinished", true},
		{"nothing to say", Statement{Text: "In short:"}, NoMark, "", "", false},
	} {
		m := StatementMark(&tc.s)
		if m.Kind != tc.kind || m.String() != tc.text || m.Short() != tc.short || m.Warns() != tc.warns {
			t.Errorf("%s: %v %q %q warns %v, want %v %q %q %v", tc.name, m.Kind, m.String(), m.Short(), m.Warns(), tc.kind, tc.text, tc.short, tc.warns)
		}
	}
	if m := CitationMark(&quote, 0); m.Kind != MarkWords {
		t.Errorf("a quote's citation is marked %v", m)
	}
}

// TestExportsSayTheMarks: an extractive answer exported to Markdown and
// HTML says which question words each quote holds, never "supported" or
// a band.
func TestExportsSayTheMarks(t *testing.T) {
	t.Parallel()
	text := "For imposing Taxes on us without our Consent:"
	a := &Answer{Question: "Which taxes were imposed without consent?", Strategy: "extractive", Statements: []Statement{{
		Text:      text,
		Citations: []Span{{DocName: "declaration.txt", Page: 1, Text: text}},
		Support:   []Verdict{{Level: Supported, Score: 1, Judge: OfflineJudge}},
		Relevance: &Relevance{Matched: []string{"taxes", "consent"}, Of: 4, Coverage: 0.3, Band: RelevanceWeak},
	}}}
	for _, f := range []string{"md", "html"} {
		var buf bytes.Buffer
		if err := Export(&buf, f, a, nil); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "2 of 4 question words: taxes, consent") {
			t.Errorf("%s: the quote's words are not said:\n%s", f, out)
		}
		for _, bad := range []string{">supported", "— supported", "weak", "1.00<"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: says %q of a quote:\n%s", f, bad, out)
			}
		}
	}
}
