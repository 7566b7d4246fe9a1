package citations

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sampleThread is a thread of two answers, each citing twice and each
// numbering its citations from 1, as saved answers do.
func sampleThread() *Thread {
	ans := func(q, id string, at time.Time) *Answer {
		return &Answer{ID: id, Question: q, Strategy: "extractive", Created: at, Statements: []Statement{{
			Text:      "R draws plots with plot().",
			Citations: []Span{{DocName: "r.pdf", Page: 1, Text: "Use plot() to draw."}},
			Support:   []Verdict{{Level: Supported, Score: 0.9, Judge: "offline"}},
		}, {
			Text:      "Zürich's manual says so.",
			Citations: []Span{{DocName: "r.pdf", Page: 2, First: 4, Last: 4, Text: "As the manual says."}},
		}}}
	}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return &Thread{ID: "a1", Name: "How does R plot?", Answers: []*Answer{
		ans("How does R plot?", "a1", t0), ans("And in colour?", "a2", t0.Add(time.Minute)),
	}}
}

// TestThreadMarkdownFootnotesAreEachAnswers renders a thread's Markdown
// and checks that every answer's citations are footnotes of their own:
// four notes, each quoting its evidence, none lost to a repeated label.
func TestThreadMarkdownFootnotesAreEachAnswers(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteThread(&buf, "md", sampleThread(), ThreadOptions{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	page := renderMarkdown(t, md)
	notes := regexp.MustCompile(`(?s)<li id="fn:([^"]+)">`).FindAllStringSubmatch(page, -1)
	if len(notes) != 4 {
		t.Fatalf("%d footnotes rendered, want 4 (2 per answer):\n%s", len(notes), md)
	}
	for _, want := range []string{"# How does R plot?\n", "## How does R plot?\n", "## And in colour?\n", "### How it was answered", "*2 answers · asked 2026-03-01 09:00 to 2026-03-01 09:01 UTC*"} {
		if !strings.Contains(md, want) {
			t.Errorf("the thread's Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestThreadHTMLIDsAreUnique checks that a thread's page holds each
// answer with its evidence, and that no two elements share an ID (a
// citation link would land on another answer's evidence).
func TestThreadHTMLIDsAreUnique(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteThread(&buf, "html", sampleThread(), ThreadOptions{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if seen[m[1]] {
			t.Errorf("id %q appears twice", m[1])
		}
		seen[m[1]] = true
	}
	for _, want := range []string{"<title>How does R plot?</title>", `<h2 class="question">And in colour?</h2>`, `href="#a2-c2"`, `<figure id="a2-c2">`, "<mark>As the manual says.</mark>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the thread's page lacks %q", want)
		}
	}
	if strings.Count(page, "<html") != 1 {
		t.Errorf("the thread is not one page")
	}
}

// TestThreadJSONAndFormats reads a thread's JSON back and checks that a
// format holding one answer is refused with what to do instead.
func TestThreadJSONAndFormats(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteThread(&buf, "json", sampleThread(), ThreadOptions{}); err != nil {
		t.Fatal(err)
	}
	var back Thread
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != "How does R plot?" || len(back.Answers) != 2 || back.Answers[1].Statements[1].Citations[0].Text != "As the manual says." {
		t.Errorf("the thread read back is %+v", back)
	}
	err := WriteThread(&buf, "longbench", sampleThread(), ThreadOptions{})
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "use md, html or json") {
		t.Errorf("longbench for a thread: %v", err)
	}
}

// TestMatchWords finds answers by words of their question or statements,
// folded as the index folds them, each word a prefix.
func TestMatchWords(t *testing.T) {
	t.Parallel()
	a := sampleThread().Answers[1]
	for q, want := range map[string]bool{
		"":                true,
		"colour":          true,
		"COLOUR plot":     true,
		"zurich":          true,
		"ZÜRICH manual":   true,
		"plo":             true,
		"gnuplot":         false,
		"colour gnuplot":  false,
		"lour":            false,
		"  , ":            true,
		"manual's zurich": false, // "manual's" is one word, no prefix of "manual"
	} {
		if got := MatchWords(q)(a); got != want {
			t.Errorf("MatchWords(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestWriteThreadFile writes a thread into a folder twice: named for its
// day and name, the second beside the first.
func TestWriteThreadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _ := LookupFormat("md")
	first, err := WriteThreadFile(dir, sampleThread(), f, ThreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := WriteThreadFile(dir, sampleThread(), f, ThreadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(first) != "thread-2026-03-01-how-does-r-plot.md" || filepath.Base(second) != "thread-2026-03-01-how-does-r-plot-2.md" {
		t.Errorf("wrote %s and %s", first, second)
	}
	if b, _ := os.ReadFile(first); !strings.Contains(string(b), "## And in colour?") {
		t.Errorf("the thread's file:\n%s", b)
	}
}

// A thread's statements are its answers', in order, as one answer.
func TestThreadStatements(t *testing.T) {
	t.Parallel()
	th := &Thread{Answers: []*Answer{
		{Statements: []Statement{{Text: "a"}, {Text: "b"}}},
		{Statements: []Statement{{Text: "c"}}},
	}}
	var got []string
	for _, s := range th.Statements().Statements {
		got = append(got, s.Text)
	}
	if strings.Join(got, "") != "abc" {
		t.Errorf("statements %q, want a, b, c", got)
	}
}
