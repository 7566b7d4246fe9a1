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
		Add         key.Binding // add files: the file picker
		Remove      key.Binding // remove the document from the library (asks first)
		ClearFilter key.Binding
	}
	// Confirm answers a question the pane asks (removing a document).
	Confirm key.Binding
	Filter  struct {
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
	k.List.All = key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "all / only this"))
	k.List.Add = key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add files"))
	k.List.Remove = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "remove"))
	k.Confirm = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes"))
	k.List.Filter = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter"))
	k.List.Open = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read it"))
	k.List.ClearFilter = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / back"))
	k.Filter.Apply = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply filter"))
	k.Filter.Cancel = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter"))
	return k
}

// ShortHelp returns the keys worth a line of help, for bubbles/help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.List.Add, k.List.Toggle, k.List.Open, k.List.Filter, k.List.All, k.List.Remove}
}

// FullHelp returns all the keys in columns, for bubbles/help.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.List.Down, k.List.Up, k.List.Top, k.List.Bottom},
		{k.List.Toggle, k.List.All, k.List.Filter, k.List.ClearFilter, k.List.Open},
		{k.List.Add, k.List.Remove},
	}
}

type filterHelp struct{ k KeyMap }

func (f filterHelp) ShortHelp() []key.Binding {
	return []key.Binding{f.k.Filter.Apply, f.k.Filter.Cancel}
}
func (f filterHelp) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }
