package textbuild

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
)

func TestClean(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain words":                      "plain words",
		"  runs \t of\n\nspace\u00a0here ": "runs of space here",
		"soft\u00adhy\u200bphen\ufeff":     "softhyphen",
		"esc\x1b[31m bell\x07 del\x7f":     "esc[31m bell del",
		"bidi \u202eevil\u202c":            "bidi evil",
		"bad \xff byte":                    "bad \ufffd byte",
		"zwj\u200dkept":                    "zwj\u200dkept",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuilder(t *testing.T) {
	t.Parallel()
	var b Builder
	b.PageBreak() // before any text: no empty page
	b.Heading(1, structure.SourceMarkup, " Title ")
	b.Paragraph("First  paragraph.")
	b.Line("• one")
	b.Line("• two")
	b.EndGroup()
	b.BeginTable("Caption")
	b.Row([]string{"A", "B"}, true)
	b.Row([]string{"", ""}, false) // empty: not written
	b.Row([]string{"1", "x\ny"}, false)
	b.EndTable()
	b.PageBreak()
	b.PageBreak() // twice: still one break
	b.Preformatted("code\n\n\tindented\r\n")
	b.Paragraph("   ")
	res := b.Result()
	want := "Title\n\nFirst paragraph.\n\n• one\n• two\n\nCaption\n\nA  B\n1  x y\n\ncode\n    indented"
	if res.Text != want {
		t.Fatalf("text %q, want %q", res.Text, want)
	}
	if !slices.Equal(res.PageStarts, []int32{0, int32(len(want) - len("code\n    indented"))}) {
		t.Errorf("page starts %v", res.PageStarts)
	}
	if len(res.Headings) != 1 || res.Text[res.Headings[0].Span.Start:res.Headings[0].Span.End] != "Title" {
		t.Errorf("headings %+v", res.Headings)
	}
	tb := res.Tables[0]
	if len(res.Tables) != 1 || res.Text[tb.Caption.Start:tb.Caption.End] != "Caption" || len(tb.Header) != 1 || len(tb.Rows) != 1 ||
		res.Text[tb.Rows[0].Start:tb.Rows[0].End] != "1  x y" {
		t.Errorf("table %+v", res.Tables)
	}
}
