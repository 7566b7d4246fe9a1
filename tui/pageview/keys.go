package pageview

import "charm.land/bubbles/v2/key"

// KeyMap is the page view's keys.
type KeyMap struct {
	LineDown, LineUp key.Binding
	PageDown, PageUp key.Binding
	Top, Bottom      key.Binding
	// Zoom switches between the page fitted to the pane's width and the
	// cited region filling it.
	Zoom key.Binding
	// NextPage and PrevPage turn to the pages around (a citation that
	// runs onto the next page).
	NextPage, PrevPage key.Binding
	// Next and Prev ask for the answers' next or previous citation, as in
	// the text view.
	Next, Prev key.Binding
	// Open opens the document's file at the page in the system's viewer.
	Open key.Binding
	// Text goes back to the text view; Back to the conversation.
	Text, Back key.Binding
	// Version switches between the cited version of the document and
	// its latest, for a citation a newer version changed.
	Version key.Binding
}

// DefaultKeyMap returns the page view's default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		LineDown: key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "scroll down")),
		LineUp:   key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom to the citation")),
		NextPage: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next page")),
		PrevPage: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous page")),
		Next:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next citation")),
		Prev:     key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous citation")),
		Open:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in viewer")),
		Text:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "text view")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Version:  key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "cited / latest version")),
	}
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Text, k.Zoom, k.Next, k.Open, k.Back}
}

// FullHelp returns all the keys in columns, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.LineDown, k.LineUp, k.PageDown, k.PageUp, k.Top, k.Bottom},
		{k.Zoom, k.NextPage, k.PrevPage, k.Next, k.Prev},
		{k.Open, k.Text, k.Back, k.Version},
	}
}
