package conversation

import "charm.land/bubbles/v2/key"

// KeyMap is the conversation pane's keys: Input while the question input
// has the keyboard, List while the answers do.
type KeyMap struct {
	Input struct {
		Ask    key.Binding // ask the question typed
		Leave  key.Binding // leave the input for the answers (cancels while streaming)
		Cancel key.Binding // cancel the answer being written
	}
	List struct {
		Down, Up     key.Binding // select the next / previous statement
		First, Last  key.Binding
		PageDown     key.Binding
		PageUp       key.Binding
		Show         key.Binding // show the statement's first citation in the source pane
		NextCitation key.Binding
		PrevCitation key.Binding
		Export       key.Binding // export the selected answer to Markdown
		ExportAs     key.Binding // choose the export format
		Copy         key.Binding // copy the selected citation's text
		Strategy     key.Binding // open the strategy picker
		Input        key.Binding // back to the question input
		Cancel       key.Binding // cancel the answer being written
		CancelEsc    key.Binding // esc, which cancels only while an answer is written
	}
}

// DefaultKeyMap returns the conversation pane's default keys.
func DefaultKeyMap() KeyMap {
	var k KeyMap
	k.Input.Ask = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ask"))
	k.Input.Leave = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "to the answers"))
	k.Input.Cancel = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "cancel answer"))

	k.List.Down = key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "next statement"))
	k.List.Up = key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "previous statement"))
	k.List.First = key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first statement"))
	k.List.Last = key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last statement"))
	k.List.PageDown = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down"))
	k.List.PageUp = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up"))
	k.List.Show = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show citation"))
	k.List.NextCitation = key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next citation"))
	k.List.PrevCitation = key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous citation"))
	k.List.Export = key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export Markdown"))
	k.List.ExportAs = key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "export as…"))
	k.List.Copy = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy citation"))
	k.List.Strategy = key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "strategy"))
	k.List.Input = key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "ask another"))
	k.List.Cancel = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "cancel answer"))
	k.List.CancelEsc = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel answer"))
	return k
}

// inputHelp is the help while the input has the keyboard.
type inputHelp struct {
	k         KeyMap
	streaming bool
}

func (h inputHelp) ShortHelp() []key.Binding {
	if h.streaming {
		return []key.Binding{h.k.Input.Cancel}
	}
	return []key.Binding{h.k.Input.Ask, h.k.Input.Leave}
}

func (h inputHelp) FullHelp() [][]key.Binding {
	return [][]key.Binding{{h.k.Input.Ask, h.k.Input.Leave, h.k.Input.Cancel}}
}

// listHelp is the help while the answers have the keyboard.
type listHelp struct {
	k         KeyMap
	streaming bool
}

func (h listHelp) ShortHelp() []key.Binding {
	l := h.k.List
	b := []key.Binding{l.Show, l.NextCitation, l.PrevCitation, l.Export, l.Copy, l.Strategy, l.Input}
	if h.streaming {
		b = append([]key.Binding{l.Cancel}, b...)
	}
	return b
}

func (h listHelp) FullHelp() [][]key.Binding {
	l := h.k.List
	return [][]key.Binding{
		{l.Down, l.Up, l.First, l.Last, l.PageDown, l.PageUp},
		{l.Show, l.NextCitation, l.PrevCitation, l.Copy},
		{l.Export, l.ExportAs, l.Strategy, l.Input, l.Cancel},
	}
}

// HelpKeyMaps returns the pane's keys for a full help screen: the input's
// and the answers', whatever has the keyboard now.
func (k KeyMap) HelpKeyMaps() (input, list [][]key.Binding) {
	return inputHelp{k: k}.FullHelp(), listHelp{k: k}.FullHelp()
}
