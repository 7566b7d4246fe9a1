package pane

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/internal/draw"
)

// Question is a yes-or-no question a pane asks before it acts (removing
// a document, deleting an answer): its next key answers it, the Yes key
// doing it, any other key keeping things as they were (tui/KEYS.md,
// rule 1). A pane shows it on two lines, Prompt and Keys, so that the
// keys are never cut however narrow the pane, and offers only its keys
// on the status line (it is a help.KeyMap).
type Question struct {
	// Ask is the question, with %s where Subject goes: "Remove %s?".
	Ask string
	// Subject names what the question is about; it is what gets cut to
	// fit.
	Subject string
	// Yes is the key that does it, its help saying what it does ("y",
	// "removes it"); Keep what any other key does ("keeps it").
	Yes  key.Binding
	Keep string
	// Action is what Yes asks of the root; Kept what the status line
	// says on any other key.
	Action Action
	Kept   string
}

// Answer is the action for the key k: Action for Yes, else a notice
// that nothing was done.
func (q Question) Answer(k tea.KeyPressMsg) Action {
	if key.Matches(k, q.Yes) {
		return q.Action
	}
	return Notice{Text: q.Kept}
}

// Prompt is the question in at most w cells, cut from the subject
// first: "Remove report.pdf?", "Remove a-very-long-na…?".
func (q Question) Prompt(w int) string {
	before, after, _ := strings.Cut(q.Ask, "%s")
	subject := textproc.OneLine(q.Subject)
	room := w - ansi.StringWidth(before+after)
	if ansi.StringWidth(subject) > room {
		if room < 4 {
			return draw.Truncate(before+subject+after, w)
		}
		subject = draw.Truncate(subject, room)
	}
	return before + subject + after
}

// Keys says what the keys do: "y removes it, any other key keeps it".
func (q Question) Keys() string {
	return q.Yes.Help().Key + " " + q.Yes.Help().Desc + ", any other key " + q.Keep
}

// ShortHelp is the keys that apply while the question is asked, for the
// status line (bubbles/help): the Yes key and any other.
func (q Question) ShortHelp() []key.Binding {
	other := key.NewBinding(key.WithKeys("any other key"), key.WithHelp("any other key", q.Keep))
	return []key.Binding{q.Yes, other}
}

// FullHelp is ShortHelp in one column.
func (q Question) FullHelp() [][]key.Binding { return [][]key.Binding{q.ShortHelp()} }
