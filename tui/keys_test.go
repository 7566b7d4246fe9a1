package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/engine/enginetest"
)

// TestHelpFromTheInput: at start the keyboard is in the question input,
// where ? and q are text; f1 opens the help there, the status line says
// so, and closing the help leaves what was typed.
func TestHelpFromTheInput(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("declaration.txt")
	if v := ansi.Strip(s.view()); !strings.Contains(v, "f1 all keys") || !strings.Contains(v, "ctrl+c quit") {
		t.Errorf("the status line does not say how to see the keys while typing:\n%s", v)
	}
	s.typeText("?q")
	s.waitText("› ?q")
	if v := ansi.Strip(s.view()); strings.Contains(v, "Everywhere") {
		t.Fatalf("? opened the help while typing:\n%s", v)
	}
	s.press("f1")
	s.waitText("Everywhere")
	s.waitText("all keys, even while typing")
	s.press("esc")
	s.waitGone("Everywhere")
	s.waitText("› ?q")
	if m := s.finish(); m.focus != paneConversation || !m.conv.Typing() {
		t.Errorf("the help moved the keyboard: focus %s, typing %v", m.focus.title(), m.conv.Typing())
	}
}

// TestTypingInTheLibraryAsks: a sentence typed while the library has the
// keyboard is a question, typed in the input, not library commands; the
// library's own letters still work when they start what is pressed.
func TestTypingInTheLibraryAsks(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("1/1 in scope")
	s.press("shift+tab")
	s.waitFocus(paneLibrary)
	s.typeText("which taxes were laid on them?")
	s.waitText("› which taxes were laid on them?")
	m := s.settleModel()
	if m.focus != paneConversation || !m.conv.Typing() || m.add != nil || m.picker != nil || m.notice != "" {
		t.Errorf("typing in the library fired commands: focus %s, add dialog %v, notice %q", m.focus.title(), m.add != nil, m.notice)
	}
	if n, of := m.lib.InScope(); n != of {
		t.Errorf("typing in the library changed the scope: %d of %d", n, of)
	}
	s.press("shift+tab", "a")
	s.waitText("Add documents")
	s.finish()
}

// TestNoDocumentsHint: asking of an empty library names the key that
// goes to the library, and that key does.
func TestNoDocumentsHint(t *testing.T) {
	lib, _ := enginetest.Library(t)
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("No documents yet")
	s.ask("anything?")
	s.waitText("(shift+tab goes there)")
	s.press("shift+tab")
	s.waitFocus(paneLibrary)
	s.finish()
}

// TestQuestionKeys: while a yes-or-no question is asked, the status line
// offers its keys only, f1 and tab are answers like any other key, and
// the question keeps what its keys do in view in a narrow pane.
func TestQuestionKeys(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	s.press("d")
	s.waitText("y deletes it • any other key keeps it")
	v := ansi.Strip(s.view())
	status := v[strings.LastIndex(v, "\n")+1:]
	if strings.Contains(status, "copy") || strings.Contains(status, "all keys") || strings.Contains(status, "next pane") {
		t.Errorf("the status line offers other keys during the question: %q", status)
	}
	if !strings.Contains(v, "Delete the saved answer to “What did the") {
		t.Errorf("the question is not on screen:\n%s", v)
	}
	s.press("f1")
	s.waitText("Nothing was deleted")
	if m := s.settleModel(); m.showHelp || m.conv.Confirming() {
		t.Errorf("f1 during the question: help %v, still asking %v", m.showHelp, m.conv.Confirming())
	}
	s.press("d", "tab")
	s.waitText("Nothing was deleted")
	if m := s.settleModel(); m.focus != paneConversation {
		t.Errorf("tab during the question moved to the %s", m.focus.title())
	}
	s.finish()
}

// TestOwnCancelIsNoFailure: an answer the user cancels before any
// statement says so quietly, not "Could not answer".
func TestOwnCancelIsNoFailure(t *testing.T) {
	_, s, _ := asking(t, "no-color", 100, 30, 0)
	s.waitText("sub-question 2/2")
	s.press("ctrl+x")
	s.waitText("Cancelled before any statement was written.")
	if v := ansi.Strip(s.view()); strings.Contains(v, "Could not answer") {
		t.Errorf("a cancel is reported as a failure:\n%s", v)
	}
	s.finish()
}

// TestHelpListsEachKeyOnce: in each section of the help screen a key is
// listed once.
func TestHelpListsEachKeyOnce(t *testing.T) {
	lib, _ := enginetest.Library(t)
	m := New(testOptions(t, lib, "no-color"))
	t.Cleanup(m.Shutdown)
	for _, sec := range m.helpSections() {
		seen := map[string]bool{}
		for _, g := range sec.groups {
			for _, b := range g {
				if k := b.Help().Key; seen[k] {
					t.Errorf("%s lists %s twice", sec.title, k)
				} else {
					seen[k] = true
				}
			}
		}
	}
}
