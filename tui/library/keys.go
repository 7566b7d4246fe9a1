package library

import "charm.land/bubbles/v2/key"

// KeyMap is the library pane's keys. List applies while the filter prompt
// is closed, Filter while it is open.
type KeyMap struct {
	List struct {
		Down, Up    key.Binding
		Top, Bottom key.Binding
		Toggle      key.Binding // put the document in or out of the question's scope
		All         key.Binding // every document in scope, or (when all are) only this one
		Filter      key.Binding // open the filter prompt
		Open        key.Binding // read the document in the source pane
		ClearFilter key.Binding
	}
	Filter struct {
		Apply, Cancel key.Binding
	}
}

// DefaultKeyMap returns the library pane's default keys.
func DefaultKeyMap() KeyMap {
	var k KeyMap
	k.List.Down = key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "next document"))
	k.List.Up = key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "previous document"))
	k.List.Top = key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first"))
	k.List.Bottom = key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last"))
	k.List.Toggle = key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "in/out of scope"))
	k.List.All = key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all / only this"))
	k.List.Filter = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter"))
	k.List.Open = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read it"))
	k.List.ClearFilter = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / back"))
	k.Filter.Apply = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply filter"))
	k.Filter.Cancel = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"))
	return k
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.List.Toggle, k.List.All, k.List.Filter, k.List.Open}
}

// FullHelp returns all the keys in columns, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.List.Down, k.List.Up, k.List.Top, k.List.Bottom},
		{k.List.Toggle, k.List.All, k.List.Filter, k.List.ClearFilter, k.List.Open},
	}
}

type filterHelp struct{ k KeyMap }

func (f filterHelp) ShortHelp() []key.Binding {
	return []key.Binding{f.k.Filter.Apply, f.k.Filter.Cancel}
}
func (f filterHelp) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }
