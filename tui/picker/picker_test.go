package picker

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/pane"
)

func TestPicker(t *testing.T) {
	items := []Item{
		{Name: "extractive", Description: "offline"},
		{Name: "longcite", Description: "the model reads everything", Unavailable: "no endpoint configured", Tag: "needs a model"},
		{Name: "rag", Description: "retrieval"},
	}
	m := New("strategy", "Strategy", items, "rag", themes.NoColor())
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	j := tea.KeyPressMsg{Code: 'j', Text: "j"}

	_, _, out := m.Update(enter)
	if c, ok := out.(ChosenMsg); !ok || c.Item.Name != "rag" || c.Kind != "strategy" {
		t.Fatalf("enter on the current item = %#v", out)
	}
	m, _, _ = m.Update(j) // wraps to extractive
	m, _, _ = m.Update(j) // longcite
	lines := m.View(60, 20)
	v := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(v, "(needs a model)") || !strings.Contains(v, "Unavailable: no endpoint configured") {
		t.Errorf("the unavailable item's reason is not shown:\n%s", v)
	}
	m, _, out = m.Update(enter)
	if out != nil {
		t.Fatalf("an unavailable item was chosen: %#v", out)
	}
	if v := ansi.Strip(strings.Join(m.View(60, 20), "\n")); !strings.Contains(v, "longcite is unavailable") {
		t.Errorf("refusal not explained:\n%s", v)
	}
	_, _, out = m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if _, ok := out.(pane.Close); !ok {
		t.Errorf("esc = %#v", out)
	}
	// Any size: a box of equal-width lines no taller than allowed.
	for _, sz := range [][2]int{{20, 5}, {40, 8}, {200, 50}} {
		lines := m.View(sz[0], sz[1])
		if len(lines) > sz[1] {
			t.Errorf("%v: %d lines", sz, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) != ansi.StringWidth(lines[0]) || ansi.StringWidth(l) > sz[0] {
				t.Errorf("%v: ragged or too wide line %q", sz, ansi.Strip(l))
			}
		}
	}
}
