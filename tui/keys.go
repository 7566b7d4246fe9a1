package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is the keys the root model handles itself: moving between panes,
// help and quitting. Each pane has its own KeyMap for the rest
// (library.KeyMap, conversation.KeyMap, source.KeyMap), the way
// charmbracelet/crush groups its keys by area.
type KeyMap struct {
	NextPane  key.Binding
	PrevPane  key.Binding
	Help      key.Binding // the full help screen, when not typing
	HelpKey   key.Binding // the full help screen, anywhere (typing too)
	Quit      key.Binding // when not typing
	ForceQuit key.Binding // anywhere
	// Help screen scrolling.
	HelpDown, HelpUp, HelpClose key.Binding
}

// DefaultKeyMap returns the root model's default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		NextPane:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "all keys")),
		HelpKey:   key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "all keys")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		HelpDown:  key.NewBinding(key.WithKeys("j", "down", "pgdown", "space"), key.WithHelp("j/↓", "scroll")),
		HelpUp:    key.NewBinding(key.WithKeys("k", "up", "pgup"), key.WithHelp("k/↑", "scroll")),
		HelpClose: key.NewBinding(key.WithKeys("esc", "?", "f1"), key.WithHelp("esc/?", "close help")),
	}
}

// ShortHelp returns the global keys for the help line.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.NextPane, k.Help, k.Quit} }

// TypingHelp returns the global keys for the help line while keys are
// text: none of them printable.
func (k KeyMap) TypingHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.HelpKey, k.ForceQuit}
}

// FullHelp returns the global keys for the help screen.
func (k KeyMap) FullHelp() [][]key.Binding {
	anywhere := k.HelpKey
	anywhere.SetHelp(k.HelpKey.Help().Key, "all keys, even while typing")
	return [][]key.Binding{{k.NextPane, k.PrevPane}, {k.Help, anywhere, k.Quit, k.ForceQuit}}
}

// updateKey handles a key: quitting and help first, then an open dialog,
// then moving between panes, then the focused pane.
func (m *Model) updateKey(msg tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	k := m.keys
	switch {
	case key.Matches(msg, k.ForceQuit):
		return m.quit()
	case m.showHelp:
		return m.updateHelp(msg)
	case key.Matches(msg, k.HelpKey) && !m.confirming():
		// No text needs f1: it opens the help even while typing (a
		// yes-or-no question takes it as its answer, as any key).
		m.showHelp, m.helpTop = true, 0
		return nil
	case key.Matches(msg, threadsKey) && m.add == nil && m.picker == nil && m.threads == nil && !m.confirming():
		return m.openThreads()
	case (m.picker != nil || m.threads != nil && !m.threads.Typing()) && key.Matches(msg, k.Quit):
		return m.quit()
	case m.add != nil || m.picker != nil || m.threads != nil:
		return m.updateFront(msg)
	}
	if !m.typing() {
		switch {
		case key.Matches(msg, k.Quit):
			return m.quit()
		case key.Matches(msg, k.Help):
			m.showHelp, m.helpTop = true, 0
			return nil
		}
	}
	// A prompt that owns every key (the source's search, the library's
	// filter, a yes-or-no question) keeps tab; elsewhere tab moves on,
	// even from the question input (where it would insert nothing), and
	// lands in the conversation's input, ready for a question.
	if !m.promptOwnsKeys() {
		switch {
		case key.Matches(msg, k.NextPane):
			return m.setFocus((m.focus+1)%numPanes, true)
		case key.Matches(msg, k.PrevPane):
			return m.setFocus((m.focus+numPanes-1)%numPanes, true)
		}
	}
	return m.updateFocused(msg)
}

// typing reports whether keys are text now, or the answer to a question
// on screen: the question input, the library's filter, the source's
// search prompt, the add dialog's paths line, or a yes-or-no question.
func (m Model) typing() bool {
	if m.add != nil {
		return m.add.Typing()
	}
	if m.threads != nil {
		return m.threads.Typing()
	}
	return m.focus == paneConversation && m.conv.Typing() || m.promptOwnsKeys()
}

// confirming reports whether the focused pane asks a yes-or-no
// question, which takes the next key as its answer.
func (m Model) confirming() bool {
	switch m.focus {
	case paneConversation:
		return m.conv.Confirming()
	case paneLibrary:
		return m.lib.Confirming()
	}
	return false
}

// promptOwnsKeys reports whether the focused pane has a prompt open that
// takes every key, tab included: the source's search, the library's
// filter, a yes-or-no question.
func (m Model) promptOwnsKeys() bool {
	return m.focus == paneSource && !m.pageMode && m.src.Searching() || m.focus == paneLibrary && m.lib.Filtering() || m.confirming()
}
