package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
