package threads

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
	"github.com/citelens/citelens/tui/internal/pane"
)

func view(m Model) string { return ansi.Strip(strings.Join(m.View(70, 20), "\n")) }

// TestDialog: the list says why it is empty, filters by folded words,
// and its prompts take every printable key as text (KEYS.md rule 1): a
// name with "q", "r" and "/" in it is given whole; esc clears the filter
// before it closes.
func TestDialog(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := New(themes.NoColor())
	m.Now = func() time.Time { return now }
	if v := view(m); !strings.Contains(v, "reading the threads") {
		t.Errorf("before the threads come:\n%s", v)
	}
	m, _, act := m.Update(keytest.Press("enter"))
	if act != nil || !strings.Contains(view(m), "Nothing to resume: reading the threads") {
		t.Errorf("enter with no thread: %#v\n%s", act, view(m))
	}
	m.SetThreads(nil, nil)
	if v := view(m); !strings.Contains(v, "no saved answers yet") {
		t.Errorf("no threads:\n%s", v)
	}
	words := func(q, said string) *citations.Answer {
		return &citations.Answer{Question: q, Statements: []citations.Statement{{Text: said}}}
	}
	m.SetThreads([]Thread{
		{ThreadMeta: docstore.ThreadMeta{ID: "b", Name: "Gnuplot", Answers: []string{"b"}, Last: now.Add(-5 * time.Minute)}, Words: words("What is gnuplot?", "A plotter.")},
		{ThreadMeta: docstore.ThreadMeta{ID: "a", Name: "R plots", Answers: []string{"a", "a2"}, Last: now.Add(-3 * time.Hour)}, Words: words("How does R plot?", "In Zürich, with plot().")},
	}, nil)
	if v := view(m); !strings.Contains(v, "Threads (2)") || !strings.Contains(v, "Gnuplot  1 answer · 5 min ago") || !strings.Contains(v, "2 answers · 3 h ago") {
		t.Errorf("the list:\n%s", v)
	}
	m, _, _ = m.Update(keytest.Press("/"))
	for _, k := range []string{"Z", "U", "R", "I", "C", "H"} {
		m, _, _ = m.Update(keytest.Press(k))
	}
	if v := view(m); !strings.Contains(v, "Threads (1 of 2)") || strings.Contains(v, "Gnuplot") {
		t.Errorf("filtered by ZURICH:\n%s", v)
	}
	m, _, _ = m.Update(keytest.Press("enter"))
	m, _, act = m.Update(keytest.Press("enter"))
	if r, ok := act.(ResumeMsg); !ok || r.ID != "a" {
		t.Errorf("enter resumes %#v, want thread a", act)
	}
	m, _, _ = m.Update(keytest.Press("r"))
	if !m.Typing() {
		t.Fatal("r opened no prompt")
	}
	m, _, _ = m.Update(keytest.Press("ctrl+u"))
	for _, k := range []string{"q", " ", "r", "/", "e", "y"} {
		m, _, act = m.Update(keytest.Press(k))
		if act != nil {
			t.Fatalf("%q typed in the name did %#v", k, act)
		}
	}
	m, _, act = m.Update(keytest.Press("enter"))
	if r, ok := act.(RenameMsg); !ok || r.ID != "a" || r.Name != "q r/ey" {
		t.Errorf("rename: %#v", act)
	}
	m, _, act = m.Update(keytest.Press("esc"))
	if act != nil || !strings.Contains(view(m), "Threads (2)") {
		t.Errorf("esc with a filter: %#v\n%s", act, view(m))
	}
	if _, _, act = m.Update(keytest.Press("esc")); act != (pane.Close{}) {
		t.Errorf("esc without a filter: %#v", act)
	}
}
