package tui

import "charm.land/bubbles/v2/key"

// KeyMap is the keys the root model handles itself: moving between panes,
// help and quitting. Each pane has its own KeyMap for the rest
// (library.KeyMap, conversation.KeyMap, source.KeyMap), the way
// charmbracelet/crush groups its keys by area.
type KeyMap struct {
	NextPane  key.Binding
	PrevPane  key.Binding
	Help      key.Binding // the full help screen
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
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		HelpDown:  key.NewBinding(key.WithKeys("j", "down", "pgdown", "space"), key.WithHelp("j/↓", "scroll")),
		HelpUp:    key.NewBinding(key.WithKeys("k", "up", "pgup"), key.WithHelp("k/↑", "scroll")),
		HelpClose: key.NewBinding(key.WithKeys("esc", "?"), key.WithHelp("esc/?", "close help")),
	}
}

// ShortHelp returns the global keys for the help line.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.NextPane, k.Help, k.Quit} }

// FullHelp returns the global keys for the help screen.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.NextPane, k.PrevPane}, {k.Help, k.Quit, k.ForceQuit}}
}
