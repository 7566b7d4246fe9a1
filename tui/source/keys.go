package source

import "charm.land/bubbles/v2/key"

// KeyMap is the source pane's keys. Scroll and Search apply while the
// search prompt is closed, Prompt while it is open.
type KeyMap struct {
	Scroll struct {
		LineDown key.Binding
		LineUp   key.Binding
		PageDown key.Binding
		PageUp   key.Binding
		Top      key.Binding
		Bottom   key.Binding
	}
	Search struct {
		Open key.Binding // open the search prompt
		// Next and Prev step through the search's matches, wrapping,
		// while a search is in force (HasSearch); without one they ask
		// for the answers' citations (StepMsg).
		Next key.Binding
		Prev key.Binding
		// Back is esc with the prompt closed: it clears a search in
		// force, and otherwise returns pane.Close: back to the
		// conversation.
		Back key.Binding
	}
	Prompt struct {
		Run    key.Binding // run the search typed
		Cancel key.Binding // close the prompt
	}
	// Page switches to the page view: the cited page as printed
	// (PageViewMsg).
	Page key.Binding
	// Version switches the text between the cited version of the
	// document and its latest (VersionMsg), for a citation a newer
	// version changed.
	Version key.Binding
}

// DefaultKeyMap returns the source pane's default keys.
func DefaultKeyMap() KeyMap {
	var km KeyMap
	km.Scroll.LineDown = key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "line down"))
	km.Scroll.LineUp = key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "line up"))
	km.Scroll.PageDown = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down"))
	km.Scroll.PageUp = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up"))
	km.Scroll.Top = key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top"))
	km.Scroll.Bottom = key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom"))

	km.Search.Open = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search"))
	km.Search.Next = key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match / citation"))
	km.Search.Prev = key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match / citation"))
	km.Search.Back = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search / back"))

	km.Page = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "page view"))
	km.Version = key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "cited / latest version"))

	km.Prompt.Run = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search"))
	km.Prompt.Cancel = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	return km
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Search.Open, k.Search.Next, k.Search.Prev, k.Search.Back}
}

// FullHelp returns all the keys in columns, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Scroll.LineDown, k.Scroll.LineUp, k.Scroll.PageDown, k.Scroll.PageUp, k.Scroll.Top, k.Scroll.Bottom},
		{k.Search.Open, k.Search.Next, k.Search.Prev, k.Search.Back},
		{k.Version},
	}
}

// pdfHelp is the help while a PDF is shown: the page view's key too.
type pdfHelp struct{ k KeyMap }

func (p pdfHelp) ShortHelp() []key.Binding {
	return append([]key.Binding{p.k.Page}, p.k.ShortHelp()...)
}

func (p pdfHelp) FullHelp() [][]key.Binding { return append(p.k.FullHelp(), []key.Binding{p.k.Page}) }

// promptHelp is the help while the search prompt is open.
type promptHelp struct{ k KeyMap }

func (p promptHelp) ShortHelp() []key.Binding {
	return []key.Binding{p.k.Prompt.Run, p.k.Prompt.Cancel}
}

func (p promptHelp) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }
