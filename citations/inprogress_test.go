package citations

import "testing"

func TestInProgress(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, want string
		tagged, ok bool
	}{
		{"", "", false, false},
		{"<statement>Done.<cite>[1-2]</cite></statement>", "", false, false},
		{"<statement>Done.<cite>[1]</cite></statement><statement>The king refused his As", "The king refused his As", true, true},
		{"<statement>Done.</statement>\n<statement>Cut in a cite<cite>[3-", "Cut in a cite", true, true},
		{"<statement>Cut in a tag</stat", "Cut in a tag</stat", true, true},
		{"<STATEMENT>Upper</Statement ><statement>next", "next", true, true},
		{"Plain prose the model wrote without tags", "Plain prose the model wrote without tags", false, true},
		{"<statement>Done.</statement>  \n", "", false, false},
	} {
		got, tagged, ok := InProgress(c.text)
		if got != c.want || tagged != c.tagged || ok != c.ok {
			t.Errorf("InProgress(%q) = %q, %v, %v; want %q, %v, %v", c.text, got, tagged, ok, c.want, c.tagged, c.ok)
		}
	}
	st, ok := UnfinishedStatement("<statement>A.<cite>[1]</cite></statement><statement>B was")
	if !ok || st.Text != "B was" || !st.Unfinished || len(st.Citations) != 0 || len(st.Warnings) != 1 {
		t.Errorf("UnfinishedStatement = %+v, %v", st, ok)
	}
	if _, ok := UnfinishedStatement("untagged prose"); ok {
		t.Error("prose outside the statement format made an unfinished statement")
	}
}

func TestPageLabelOfSpan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    Span
		want string
	}{
		{Span{Page: 3}, "p. 3"},
		{Span{Page: 347, Printed: "316"}, "p. 316 (PDF p. 347)"},
		{Span{Page: 2, Printed: "ii", OCR: true}, "p. ii (PDF p. 2) (OCR)"},
	} {
		if got := c.s.PageLabel(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
