package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/tui/internal/pane"
	"github.com/citelens/citelens/tui/picker"
)

// Choosing: a picker open over the panes (the strategy, an export's
// format), and the strategy the next question goes to.

// choice is an open picker and what choosing an item does.
type choice struct {
	picker.Model
	choose func(m *Model, it picker.Item) tea.Cmd
}

// openPicker opens p over the panes; choose is called with the item
// chosen.
func (m *Model) openPicker(p picker.Model, choose func(m *Model, it picker.Item) tea.Cmd) {
	m.picker = &choice{Model: p, choose: choose}
}

// updatePicker gives msg to the open picker; its outcome, an item chosen
// or none, closes it.
func (m *Model) updatePicker(msg tea.Msg) tea.Cmd {
	c := m.picker
	p, cmd, act := c.Update(msg)
	m.picker = &choice{Model: p, choose: c.choose}
	switch act := act.(type) {
	case picker.ChosenMsg:
		m.picker = nil
		return tea.Batch(cmd, c.choose(m, act.Item))
	case pane.Close:
		m.picker = nil
	}
	return cmd
}

// openStrategyPicker lists the strategies, those that need a model marked
// unavailable when none is configured.
func (m *Model) openStrategyPicker() {
	var items []picker.Item
	for _, info := range engine.Strategies() {
		it := picker.Item{Name: info.Name(), Description: info.Description}
		if info.NeedsLLM && m.opts.Env != nil && m.opts.Env.LLM == nil {
			if _, err := m.opts.Env.RequireLLM(info.Name()); err != nil {
				it.Unavailable = strings.TrimPrefix(err.Error(), engine.ErrUnavailable.Error()+": ")
				it.Tag = "needs a model"
			}
		}
		items = append(items, it)
	}
	m.openPicker(picker.New("strategy", "Strategy", items, m.strategy, m.styles), (*Model).setStrategy)
}

// setStrategy makes the next questions go to the strategy chosen.
func (m *Model) setStrategy(it picker.Item) tea.Cmd {
	m.strategy = it.Name
	m.conv.SetStrategy(m.strategy)
	m.setNotice("Questions now go to the "+m.strategy+" strategy.", false)
	return nil
}
