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

// The strategy picker's groups: what answers offline, what needs a
// model, said with what that means when none is configured.
const (
	groupOffline      = "Offline: no model, no cost"
	groupModel        = "With the model: each question costs model calls"
	groupModelMissing = "Need a model: none is configured"
)

// openStrategyPicker lists the strategies by what they need, each said
// in plain words (engine.Info.Purpose; the papers' words below the list
// for the one under the cursor); those that need a model are unavailable
// when none is configured.
func (m *Model) openStrategyPicker() tea.Cmd {
	var offline, model []picker.Item
	for _, info := range engine.Strategies() {
		it := picker.Item{Name: info.Name(), Description: info.Purpose, Detail: info.Description}
		if it.Description == "" {
			it.Description, it.Detail = info.Description, ""
		}
		if !info.NeedsLLM {
			it.Group = groupOffline
			offline = append(offline, it)
			continue
		}
		it.Group = groupModel
		if m.opts.Env != nil && m.opts.Env.LLM == nil {
			if _, err := m.opts.Env.RequireLLM(info.Name()); err != nil {
				it.Unavailable = strings.TrimPrefix(err.Error(), engine.ErrUnavailable.Error()+": ")
				it.Tag = tagNeedsModel
				it.Group = groupModelMissing
			}
		}
		model = append(model, it)
	}
	items := append(offline, model...)
	// With none configured, a model server on this machine may be one
	// choice away (localmodel.go).
	find := m.offerLocalServers(&items)
	m.openPicker(picker.New("strategy", "Strategy", items, m.strategy, m.styles), (*Model).chooseStrategy)
	return find
}

// setStrategy makes the next questions go to the strategy chosen.
func (m *Model) setStrategy(it picker.Item) tea.Cmd {
	m.strategy = it.Name
	m.conv.SetStrategy(m.strategy)
	m.setNotice("Questions now go to the "+m.strategy+" strategy.", false)
	return nil
}
