package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestLongQuestionCanBeReread: the question input grows with a long
// question, wrapped at words, so all of it can be read before it is
// asked; once asked, the input is one row again.
func TestLongQuestionCanBeReread(t *testing.T) {
	declarationScript(t, -1)
	_, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("declaration.txt")
	q := "What did the colonists object to in the long list of grievances against the King, and which of them concern taxes, trade and trials by jury?"
	s.typeText(q)
	s.waitText("trials by jury?")
	var rows []string
	for _, l := range strings.Split(ansi.Strip(s.view()), "\n") {
		if i := strings.Index(l, "┃ "); i >= 0 {
			l = l[i+len("┃ "):]
			if j := strings.Index(l, "┃"); j >= 0 {
				l = l[:j]
			}
		}
		if strings.HasPrefix(l, "› What did") || len(rows) > 0 && strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
			rows = append(rows, strings.TrimSpace(strings.TrimPrefix(l, "›")))
			continue
		}
		if len(rows) > 0 {
			break
		}
	}
	if got := strings.Join(rows, " "); len(rows) < 2 || got != q {
		t.Errorf("the question in the input, %d rows: %q", len(rows), got)
	}
	s.press("enter")
	s.waitText("scripted · 3 statements")
	s.waitText("› Ask a question about the documents in scope")
	if m := s.settleModel(); m.conv.Turns()[0].Question != q {
		t.Errorf("asked %q", m.conv.Turns()[0].Question)
	}
	s.finish()
}
