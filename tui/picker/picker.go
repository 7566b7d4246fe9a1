// Package picker is a small modal list the TUI opens over its panes to
// choose one thing: the answering strategy, the export format. Items can
// be unavailable, with the reason shown instead of being chosen.
package picker

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// Item is one choice.
type Item struct {
	Name string
	// Description says what the item is for, beside its name; Detail
	// says more, below the list, while the cursor is on it.
	Description string
	Detail      string
	// Group names the items that go together: a heading is drawn above
	// the first of each group (items come grouped).
	Group string
	// Unavailable, when set, says why the item cannot be chosen.
	Unavailable string
	// Tag is a short label for an unavailable item: "needs a model".
	Tag string
}

// ChosenMsg reports the item chosen; Kind is the picker's.
type ChosenMsg struct {
	Kind string
	Item Item
}

// KeyMap is the picker's keys.
type KeyMap struct {
	Down, Up, Choose, Close key.Binding
}

// DefaultKeyMap returns the picker's default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Down:   key.NewBinding(key.WithKeys("j", "down", "tab"), key.WithHelp("j/↓", "next")),
		Up:     key.NewBinding(key.WithKeys("k", "up", "shift+tab"), key.WithHelp("k/↑", "previous")),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Choose, k.Down, k.Up, k.Close} }

// FullHelp returns all the keys, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Model is an open picker.
type Model struct {
	KeyMap KeyMap
	Kind   string // what is picked, echoed in ChosenMsg ("strategy", "format")
	Title  string

	items  []Item
	cursor int
	styles *themes.Styles
	notice string // why the last choice was refused
}

// The picker keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns a picker over items with the cursor on the one named
// current (or the first).
func New(kind, title string, items []Item, current string, styles *themes.Styles) Model {
	m := Model{KeyMap: DefaultKeyMap(), Kind: kind, Title: title, items: items, styles: styles}
	for i, it := range items {
		if it.Name == current {
			m.cursor = i
		}
	}
	return m
}

// SetStyles switches the picker to another theme.
func (m *Model) SetStyles(s *themes.Styles) { m.styles = s }

// Update handles the picker's keys. The outcome, ChosenMsg or
// pane.Close, is returned as an action for the parent to carry out at
// once (nil while the picker stays open).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.items) == 0 {
		if ok && key.Matches(k, m.KeyMap.Close) {
			return m, nil, pane.Close{}
		}
		return m, nil, nil
	}
	m.notice = ""
	switch {
	case key.Matches(k, m.KeyMap.Down):
		m.cursor = (m.cursor + 1) % len(m.items)
	case key.Matches(k, m.KeyMap.Up):
		m.cursor = (m.cursor - 1 + len(m.items)) % len(m.items)
	case key.Matches(k, m.KeyMap.Choose):
		it := m.items[m.cursor]
		if it.Unavailable != "" {
			m.notice = it.Name + " is unavailable: " + it.Unavailable
			return m, nil, nil
		}
		return m, nil, ChosenMsg{Kind: m.Kind, Item: it}
	case key.Matches(k, m.KeyMap.Close):
		return m, nil, pane.Close{}
	}
	return m, nil, nil
}

// View draws the picker as a framed box at most maxW × maxH cells; its
// lines are returned for the root model to lay over the panes. Unavailable
// items are dimmed with their tag; the reason shows below the list while
// the cursor is on one.
func (m Model) View(maxW, maxH int) []string {
	st := m.styles
	w := min(maxW, 84)
	inner := max(w-4, 1)
	nameW := 0
	for _, it := range m.items {
		nameW = max(nameW, ansi.StringWidth(textproc.OneLine(it.Name)))
	}
	nameW = min(nameW+2, max(inner/3, 1))
	descW := max(inner-2-nameW, 1)

	var body []string
	cursorLine := 0
	for i, it := range m.items {
		if it.Group != "" && (i == 0 || it.Group != m.items[i-1].Group) {
			if i > 0 {
				body = append(body, "")
			}
			for _, l := range draw.Wrap(textproc.OneLine(it.Group), inner) {
				body = append(body, st.Title.Render(l))
			}
		}
		desc := textproc.OneLine(it.Description)
		if it.Unavailable != "" && it.Tag != "" {
			desc = "(" + textproc.OneLine(it.Tag) + ") " + desc
		}
		descLines := draw.Wrap(desc, descW)
		if len(descLines) > maxDescLines {
			descLines = append(descLines[:maxDescLines-1:maxDescLines-1], draw.Truncate(strings.Join(descLines[maxDescLines-1:], " "), descW))
		}
		nameStyle, descStyle := st.Text, st.Muted
		if it.Unavailable != "" {
			nameStyle = st.Muted
		}
		mark := "  "
		if i == m.cursor {
			mark = st.Accent.Render("▌") + " "
			nameStyle = st.Selection
			cursorLine = len(body)
		}
		name := draw.Fit(draw.Truncate(textproc.OneLine(it.Name), nameW-1), nameW)
		body = append(body, mark+nameStyle.Render(name)+descStyle.Render(descLines[0]))
		for _, dl := range descLines[1:] {
			body = append(body, "  "+draw.Pad(nameW)+descStyle.Render(dl))
		}
	}

	var foot []string
	switch cur := m.current(); {
	case m.notice != "":
		for _, l := range draw.Wrap(textproc.OneLine(m.notice), inner) {
			foot = append(foot, st.Warning.Render(l))
		}
	case cur.Unavailable != "":
		for _, l := range draw.Wrap("Unavailable: "+textproc.OneLine(cur.Unavailable), inner) {
			foot = append(foot, st.Muted.Render(l))
		}
	default:
		if cur.Detail != "" {
			lines := draw.Wrap(textproc.OneLine(cur.Detail), inner)
			if len(lines) > 3 {
				lines = append(lines[:2], draw.Truncate(strings.Join(lines[2:], " "), inner))
			}
			for _, l := range lines {
				foot = append(foot, st.Muted.Render(l))
			}
		}
		foot = append(foot, st.Muted.Render(draw.Truncate("enter choose · esc close", inner)))
	}
	foot = append([]string{""}, foot...)

	// The box is as tall as it needs, at most maxH; the list scrolls to
	// keep the cursor in view.
	lines, h := draw.Dialog(body, foot, cursorLine, inner, maxH)
	return draw.NewBorder(st.PaneFocused).Frame(st.Title.Render(" "+m.Title+" "), lines, w, h)
}

// maxDescLines is the most lines an item's description takes.
const maxDescLines = 3

func (m Model) current() Item {
	if m.cursor < len(m.items) {
		return m.items[m.cursor]
	}
	return Item{}
}
