package conversation

import "charm.land/bubbles/v2/key"

// KeyMap is the conversation pane's keys. The pane has two modes, and the
// footer always says which: the question input (Input), where every
// printable key is text and only keys the input never needs act on the
// answers; and the answers (List), entered with esc, where letters are
// commands. A printable key that is no command of the answers starts a
// new question with it. See tui/KEYS.md.
type KeyMap struct {
	Input struct {
		Ask      key.Binding // ask the question typed; on an empty input, show the selected citation
		NewLine  key.Binding // a new line in the question
		Leave    key.Binding // to the answers (cancels while streaming)
		Cancel   key.Binding // cancel the answer being written
		Down, Up key.Binding // select the next / previous statement
		PageDown key.Binding
		PageUp   key.Binding
		Strategy key.Binding // open the strategy picker
		Prepare  key.Binding // prepare the documents for the strategy (RAIDD's derivation)
		NewTopic key.Binding // the next question starts a fresh topic
		// FollowUp switches the question being typed between following
		// up on the conversation and starting a new topic.
		FollowUp key.Binding
		Clear    key.Binding // clear the conversation view (and start a fresh topic)
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
		Delete       key.Binding // delete the selected saved answer (asks first)
		Prepare      key.Binding
		Input        key.Binding // back to the question input
		Cancel       key.Binding // cancel the answer being written
		// Back is esc: it cancels an answer being written, and otherwise
		// returns to the input.
		Back     key.Binding
		NewTopic key.Binding
		FollowUp key.Binding
		Clear    key.Binding

		// CopyAnswer copies the selected answer whole, with its evidence;
		// Search finds saved answers by words, in the threads (both
		// listed on the help screen with the threads' keys).
		CopyAnswer key.Binding
		Search     key.Binding
	}
	// Confirm answers a question the pane asks (deleting an answer).
	Confirm key.Binding
}

// DefaultKeyMap returns the conversation pane's default keys.
func DefaultKeyMap() KeyMap {
	var k KeyMap
	k.Input.Ask = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ask (empty: show citation)"))
	k.Input.NewLine = key.NewBinding(key.WithKeys("alt+enter"), key.WithHelp("alt+enter", "new line"))
	k.Input.Leave = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "to the answers"))
	k.Input.Cancel = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "cancel answer"))
	k.Input.Down = key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next statement"))
	k.Input.Up = key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous statement"))
	k.Input.PageDown = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down"))
	k.Input.PageUp = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up"))
	k.Input.Strategy = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "strategy"))
	k.Input.Prepare = key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "prepare documents"))
	k.Input.NewTopic = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new topic"))
	k.Input.FollowUp = key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "follow-up ⇄ new topic"))
	k.Input.Clear = key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear view"))

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
	k.List.CopyAnswer = key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy the whole answer"))
	k.List.Search = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find saved answers by words (in the threads dialog too)"))
	k.List.Strategy = key.NewBinding(key.WithKeys("s", "ctrl+s"), key.WithHelp("s", "strategy"))
	k.List.Delete = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete answer"))
	k.List.Prepare = key.NewBinding(key.WithKeys("p", "ctrl+p"), key.WithHelp("p", "prepare documents"))
	k.List.Input = key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "type a question"))
	k.List.Cancel = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "cancel answer"))
	k.List.Back = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "to the input"))
	k.List.NewTopic = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new topic"))
	k.List.FollowUp = key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "follow-up ⇄ new topic"))
	k.List.Clear = key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "clear view"))
	k.Confirm = key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes"))
	return k
}

// inputHelp is the help while the input has the keyboard.
type inputHelp struct {
	k         KeyMap
	streaming bool
	answers   bool // there are statements to select
	deciding  bool // a question is typed that could follow up on the conversation
}

func (h inputHelp) ShortHelp() []key.Binding {
	in := h.k.Input
	if h.streaming {
		return []key.Binding{in.Cancel, in.Down, in.Up}
	}
	if h.deciding {
		return []key.Binding{in.Ask, in.FollowUp, in.Down, in.Up, in.Leave}
	}
	if h.answers {
		return []key.Binding{in.Ask, in.Down, in.Up, in.Leave}
	}
	return []key.Binding{in.Ask, in.Strategy}
}

func (h inputHelp) FullHelp() [][]key.Binding {
	in := h.k.Input
	return [][]key.Binding{
		{in.Ask, in.NewLine, in.Leave, in.Cancel, in.Down, in.Up, in.PageDown, in.PageUp},
		{in.Strategy, in.Prepare, in.FollowUp, in.NewTopic, in.Clear},
	}
}

// listHelp is the help while the answers have the keyboard.
type listHelp struct {
	k         KeyMap
	streaming bool
}

func (h listHelp) ShortHelp() []key.Binding {
	l := h.k.List
	b := []key.Binding{l.Show, l.NextCitation, l.PrevCitation, l.Export, l.Copy, l.Strategy, l.Delete, l.Back}
	if h.streaming {
		b = append([]key.Binding{l.Cancel}, b...)
	}
	return b
}

func (h listHelp) FullHelp() [][]key.Binding {
	l := h.k.List
	return [][]key.Binding{
		{l.Down, l.Up, l.First, l.Last, l.PageDown, l.PageUp},
		{l.Show, l.NextCitation, l.PrevCitation, l.Copy, l.Export, l.ExportAs},
		{l.Strategy, l.Prepare, l.Delete, l.FollowUp, l.NewTopic, l.Clear, l.Input, l.Back, l.Cancel},
	}
}

// HelpKeyMaps returns the pane's keys for a full help screen: the input's
// and the answers', whatever has the keyboard now.
func (k KeyMap) HelpKeyMaps() (input, list [][]key.Binding) {
	return inputHelp{k: k}.FullHelp(), listHelp{k: k}.FullHelp()
}
