package source

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/pane"
)

// labelled is a document of pages whose printed labels start at "i",
// then "1" on page 3; page 3 begins in the middle of a line, as a PDF's
// text runs on across a page.
func labelled() *docstore.Document {
	text := "Preface line one.\nPreface line two.\n\nContents.\nChapter one begins and runs on, page three starts here.\nMore of chapter one.\n"
	p3 := strings.Index(text, "page three")
	return &docstore.Document{
		DocInfo: docstore.DocInfo{ID: "lab", Name: "book.pdf", Kind: "pdf", Pages: 3,
			PageLabels: []docstore.PageLabelRange{{First: 1, Style: "r", Start: 1}, {First: 3, Style: "D", Start: 1}}},
		Text:       text,
		PageStarts: []int32{0, int32(strings.Index(text, "Contents.")), int32(p3)},
	}
}

// TestPageBreaks: each page after the first begins on a row of its own
// under a rule naming it as printed, with the file's page beside; the
// header names the page at the top the same way.
func TestPageBreaks(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(60, 14)
	doc := labelled()
	m.Show(doc, Range{}, nil)
	lines := plainLines(view(m))
	want := []string{
		"book.pdf                                   p. i (1/3) · 100%",
		"Preface line one.",
		"Preface line two.",
		"",
		"╌╌ p. ii (PDF p. 2) ╌╌╌╌",
		"Contents.",
		"Chapter one begins and runs on,",
		"╌╌ p. 1 (PDF p. 3) ╌╌╌╌",
		"page three starts here.",
		"More of chapter one.",
	}
	for i, w := range want {
		got := strings.TrimRight(lines[i], " ")
		if strings.HasSuffix(w, "╌╌╌╌") {
			got = got[:min(len(got), len(w))]
		}
		if got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	for i, l := range lines {
		if ansi.StringWidth(l) != 60 {
			t.Errorf("line %d is %d cells", i, ansi.StringWidth(l))
		}
	}
	// A citation on page 3 scrolls there; the header says so.
	off := strings.Index(doc.Text, "More of")
	m.SetSize(60, 4)
	m.Show(doc, Range{off, off + 7}, nil)
	if h := plainLines(view(m))[0]; !strings.Contains(h, "p. 1 (3/3)") {
		t.Errorf("header %q", h)
	}
}

// TestPageBreaksScroll: scrolling row by row passes each rule once, and
// the byte offsets of the rows stay in order.
func TestPageBreaksScroll(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(30, 5)
	doc := labelled()
	m.Show(doc, Range{}, nil)
	rules, last, prev := 0, -1, ""
	for range 40 {
		v := plainLines(view(m))
		if strings.HasPrefix(v[1], "╌╌ ") && v[1] != prev {
			rules++
		}
		prev = v[1]
		if off := m.Offset(); off < last {
			t.Fatalf("offset went back from %d to %d", last, off)
		} else {
			last = off
		}
		m, _ = press(t, m, "j")
	}
	if rules != 2 {
		t.Errorf("saw %d page rules at the top while scrolling, want 2", rules)
	}
}

// TestSearchKeys: n and N belong to a search only while one is in force;
// esc clears it before it leaves the pane; / opens a prompt even with no
// document, and says why nothing was searched.
func TestSearchKeys(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(60, 14)
	m, emitted := press(t, m, "/", "q", "u", "i", "t", "enter")
	if m.Searching() || len(emitted) != 1 || !strings.Contains(fmt.Sprint(emitted[0]), "No document is shown") {
		t.Errorf("/ without a document: searching %v, emitted %v", m.Searching(), emitted)
	}
	m.Show(sampleDoc(), sampleRange("Chapter 2"), nil)
	if m.HasSearch() {
		t.Fatal("a search in force before any")
	}
	// Without a search, n and N ask for the answers' citations.
	if _, emitted = press(t, m, "n", "N"); len(emitted) != 2 || emitted[0] != (StepMsg{Delta: 1}) || emitted[1] != (StepMsg{Delta: -1}) {
		t.Errorf("n, N without a search emitted %v, want steps through the citations", emitted)
	}
	m, _ = press(t, m, "/", "t", "h", "e", "enter")
	if !m.HasSearch() {
		t.Fatal("no search in force after one ran")
	}
	m, emitted = press(t, m, "esc")
	if m.HasSearch() || len(emitted) != 0 {
		t.Errorf("esc with a search: in force %v, emitted %v; want it cleared, the pane kept", m.HasSearch(), emitted)
	}
	_, emitted = press(t, m, "esc")
	if len(emitted) != 1 {
		t.Errorf("esc without a search emitted %v, want pane.Close", emitted)
	} else if _, ok := emitted[0].(pane.Close); !ok {
		t.Errorf("esc without a search emitted %T", emitted[0])
	}
}
