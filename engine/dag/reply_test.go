package dag

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

func TestParsePlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		final bool
		text  string
	}{
		{"Subquestion: Who directed Doctor Strange?", false, "Who directed Doctor Strange?"},
		{"  subquestion:   Who directed Doctor Strange?  ", false, "Who directed Doctor Strange?"},
		{"**Subquestion:** Who directed Doctor Strange?", false, "Who directed Doctor Strange?"},
		{"Sub-question 2: Who directed Doctor Strange?", false, "Who directed Doctor Strange?"},
		{"1. Sub question: Who directed it?", false, "Who directed it?"},
		{"Follow up: Who directed it?", false, "Who directed it?"},
		{"Subquestion：Who directed it?", false, "Who directed it?"},
		{"Subquestion:\n\nWho directed it?", false, "Who directed it?"},
		{"Subquestion: \"Who directed it?\"", false, "Who directed it?"},
		{"Fact: Doctor Strange is a film.\nSubquestion: Who directed it?\nFact: Scott Derrickson.", false, "Who directed it?"},
		{"Who directed Doctor Strange?", false, "Who directed Doctor Strange?"},
		{"Question: Who directed Doctor Strange?", false, "Who directed Doctor Strange?"},
		{"Final answer: Yes", true, "Yes"},
		{"final answer:yes, both are American.", true, "yes, both are American."},
		{"**Final Answer**: Yes", true, "Yes"},
		{"### Final answer\n", true, "Final answer"},
		{"So the final answer is: Washington, D.C.", true, "Washington, D.C."},
		{"So the final answer is Washington, D.C.", true, "Washington, D.C."},
		{"Answer: Henry Smith", true, "Henry Smith"},
		{"Subquestion:\nFinal answer: Henry Smith", true, "Henry Smith"},
		{"Both are American.", true, "Both are American."},
		{"Answering this requires nothing more.", true, "Answering this requires nothing more."},
		{"", true, ""},
	} {
		got := parsePlan(tc.in)
		if got.Final != tc.final || got.Text != tc.text {
			t.Errorf("parsePlan(%q) = %+v, want final=%v %q", tc.in, got, tc.final, tc.text)
		}
	}
	long := "Subquestion: " + strings.Repeat("Which district ", 40) + "?"
	if got := parsePlan(long); got.Final || len(got.Text) > maxSubQuestion+len("…") || !strings.HasSuffix(got.Text, "…") {
		t.Errorf("long sub-question kept as %q", got.Text)
	}
}

func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{"Subquestion: Who?", "Final answer: yes", "**Sub-question 3:**\nWhat?", "Answer：y", "Fact: a\nQuestion: b?", "So the final answer is", "1) - * Follow up: é?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := parsePlan(s)
		if !got.Final {
			if got.Text == "" || strings.Contains(got.Text, "\n") || len(got.Text) > maxSubQuestion+len("…") {
				t.Fatalf("sub-question %q from %q", got.Text, s)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got.Text) {
			t.Fatalf("invalid UTF-8 %q from %q", got.Text, s)
		}
	})
}

func FuzzClip(f *testing.F) {
	for _, s := range []string{"Who directed Doctor Strange?", "斯科特·德瑞克森是美国导演", "a\x1b[2Jb\nc", strings.Repeat("word ", 40)} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%200 + 1
		got := clip(s, w)
		cols := 0
		for _, r := range got {
			cols++
			if textproc.IsCJK(r) {
				cols++
			}
		}
		if cols > max(w, 8) || strings.ContainsAny(got, "\n\r\x1b") || !utf8.ValidString(got) {
			t.Fatalf("clip(%q, %d) = %q", s, w, got)
		}
	})
}

func TestParseFact(t *testing.T) {
	t.Parallel()
	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: "d1", Name: "d.txt"}}
	d.Text = "Scott Derrickson is an American director. He lives in Los Angeles. Ed Wood was an American filmmaker. The end."
	for _, s := range []struct{ a, b int32 }{{0, 41}, {42, 66}, {67, 101}, {102, 110}} {
		d.Sentences = append(d.Sentences, docstore.Sentence{Start: s.a, End: s.b, Page: 1})
	}
	n, err := citations.NewSentenceNumbering(citations.Part{Doc: d, Sentences: []int{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	f := parseFact("<statement>Fact: Scott Derrickson is American.<cite>[0-0]</cite></statement><statement>He lives in Los Angeles.<cite>[1-1][0-0]</cite></statement>", n, "Who?")
	if f.Text != "Scott Derrickson is American. He lives in Los Angeles." || len(f.Citations) != 1 || f.Citations[0].First != 0 || f.Citations[0].Last != 1 {
		t.Errorf("fact %+v", f)
	}
	f = parseFact("<statement>Ed Wood was American.<cite>[2-3]</cite></statement>", n, "Who?")
	if len(f.Citations) != 1 || f.Citations[0].First != 2 || f.Citations[0].Last != 2 || len(f.Warnings) != 1 {
		t.Errorf("a citation of an unshown sentence: %+v", f)
	}
	f = parseFact("Ed Wood was an American filmmaker.", n, "Who?")
	if !f.Matched || len(f.Citations) != 1 || f.Citations[0].First != 2 {
		t.Errorf("uncited fact: %+v", f)
	}
	f = parseFact("The reference does not say where Ed Wood was born.", n, "Where?")
	if f.Matched || len(f.Citations) != 0 {
		t.Errorf("a fact that the answer is missing was cited: %+v", f)
	}
	f = parseFact("", n, "Where?")
	if f.Text != "" || len(f.Citations) != 0 {
		t.Errorf("empty reply: %+v", f)
	}
}
