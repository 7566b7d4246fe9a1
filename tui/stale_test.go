package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
)

// staleAnswer starts the program at w×h over a library holding a copy of
// the declaration, asks the usual question, and then adds a new version
// of the copy from the same path in which the clause the third statement
// cites first ("For cutting off our Trade…") is reworded: the answer's
// evidence changed.
func staleAnswer(t *testing.T, theme string, w, h int) (*docstore.Library, *session) {
	t.Helper()
	return staleAnswerAfter(t, theme, w, h, nil)
}

// staleAnswerAfter is staleAnswer, with before done before the new
// version is added.
func staleAnswerAfter(t *testing.T, theme string, w, h int, before func(*session)) (*docstore.Library, *session) {
	t.Helper()
	text, err := os.ReadFile(declaration)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "declaration.txt")
	if err := os.WriteFile(path, text, 0o600); err != nil {
		t.Fatal(err)
	}
	declarationScript(t, -1)
	lib, _ := enginetest.Library(t, path)
	s := start(t, testOptions(t, lib, theme), w, h)
	s.waitModel(func(m Model) bool { _, of := m.lib.InScope(); return of == 1 }, "the library load")
	s.ask(question)
	s.waitText("scripted · 3 statements")
	if strings.Contains(ansi.Strip(s.view()), "evidence\u00a0changed") {
		t.Fatal("an answer citing the only version is marked")
	}
	if before != nil {
		before(s)
	}
	edited := strings.Replace(string(text), "For cutting off our Trade with all parts of the world:",
		"For cutting off our Commerce with all parts of the world by sea:", 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	info, _, err := ingest.New(lib, nil).Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Previous == "" {
		t.Fatal("the edited copy was not added as a new version")
	}
	return lib, s
}

// An answer whose cited clause a new version rewords carries a quiet
// mark, as soon as the library says a version arrived; its citation opens
// on the latest version with the old and new clause compared, the words
// struck and added marked, and b switches the text to the cited version.
func TestGoldenStaleAnswer(t *testing.T) {
	_, s := staleAnswer(t, "no-color", 140, 34)
	s.waitText("⟳\u00a0evidence\u00a0changed")
	s.golden("mark")
	s.press("esc", "j", "j", "enter")
	s.waitText("changed in version 2 of 2")
	s.golden("side-by-side")
	s.press("b")
	s.waitText("below: version 1 (cited)")
	s.golden("cited-version")
	m := s.finish()
	if m.cmp == nil || m.cmp.latest {
		t.Error("b did not switch to the cited version")
	}
}

// The page view of a citation a newer version changed shows the latest
// version with the clause's counterpart highlighted, its header naming
// the version, and b switches it to the cited version and back.
func TestStalePageView(t *testing.T) {
	_, s := staleAnswer(t, "no-color", 140, 34)
	s.waitText("⟳\u00a0evidence\u00a0changed")
	s.press("esc", "j", "j", "enter")
	s.waitText("changed in version 2 of 2")
	s.press("v")
	s.waitText("declaration.txt · version 2 of 2 (latest)")
	s.waitModel(func(m Model) bool {
		doc, sp := m.page.Shown()
		return doc != nil && m.cmp != nil && doc.ID == m.cmp.change.To && strings.HasPrefix(doc.Text[sp.Start:sp.End], "For cutting off our Commerce")
	}, "the page view show the latest version at the reworded clause")
	s.press("b")
	s.waitText("declaration.txt · version 1 (cited)")
	s.waitModel(func(m Model) bool {
		doc, sp := m.page.Shown()
		return doc != nil && m.cmp != nil && doc.ID == m.cmp.c.Span.Doc && strings.HasPrefix(doc.Text[sp.Start:sp.End], "For cutting off our Trade")
	}, "b switch the page view to the cited version")
	s.press("v") // the text view follows: the cited version
	s.waitText("below: version 1 (cited)")
	s.finish()
}

// In a pane too narrow for two columns (the source beside the answers at
// 100×30) the old clause is stacked over the new one.
func TestGoldenStaleAnswerNarrow(t *testing.T) {
	_, s := staleAnswer(t, "no-color", 100, 30)
	s.waitText("⟳\u00a0evidence\u00a0changed")
	s.press("esc", "j", "j", "enter")
	s.waitText("version 1 (cited):")
	s.golden("stacked")
	s.finish()
}

// A citation open in the source pane when a new version changes it is
// shown again, compared, without a key; the keyboard stays where it was.
func TestStaleWhileOpen(t *testing.T) {
	_, s := staleAnswerAfter(t, "no-color", 140, 34, func(s *session) {
		s.press("esc", "j", "j", "enter")
		s.waitText("For cutting off our Trade")
		s.press("tab") // on to the library
		s.waitFocus(paneLibrary)
	})
	s.waitText("⟳ changed in version 2 of 2")
	s.waitText("below: version 2 of 2 (latest)")
	if m := s.finish(); m.focus != paneLibrary {
		t.Errorf("the comparison took the keyboard to the %s pane", m.focus.title())
	}
}
