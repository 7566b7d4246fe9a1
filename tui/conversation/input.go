package conversation

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/themes"
)

// maxInputRows is the most rows the question input grows to; a longer
// question scrolls within them.
const maxInputRows = 4

// questionInput is the question input: a text area that grows, a row at
// a time, with the question it holds, wrapped at words, so that a long
// question can be read back whole before it is asked. enter is the
// pane's (it asks); newLine (alt+enter) starts a new line.
type questionInput struct{ ta textarea.Model }

func newQuestionInput(newLine key.Binding) questionInput {
	ta := textarea.New()
	ta.Placeholder = "Ask a question about the documents in scope"
	ta.CharLimit = 2000
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputRows
	ta.MaxContentHeight = 0
	ta.SetPromptFunc(2, func(p textarea.PromptInfo) string {
		if p.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	// The keys the pane has for the answers (the arrows, pgup/pgdn,
	// ctrl+n, ctrl+p) never reach the input; enter asks.
	ta.KeyMap.InsertNewline = newLine
	ta.KeyMap.LineNext = key.NewBinding(key.WithDisabled())
	ta.KeyMap.LinePrevious = key.NewBinding(key.WithDisabled())
	ta.KeyMap.PageUp = key.NewBinding(key.WithDisabled())
	ta.KeyMap.PageDown = key.NewBinding(key.WithDisabled())
	ta.SetHeight(1)
	return questionInput{ta: ta}
}

func (in *questionInput) SetStyles(s *themes.Styles) { in.ta.SetStyles(s.TextArea) }
func (in *questionInput) SetWidth(w int)             { in.ta.SetWidth(w) }
func (in *questionInput) Focus() tea.Cmd             { return in.ta.Focus() }
func (in *questionInput) Blur()                      { in.ta.Blur() }
func (in *questionInput) Reset()                     { in.ta.Reset() }
func (in questionInput) Value() string               { return in.ta.Value() }

// Rows is how many rows the input takes now.
func (in questionInput) Rows() int { return max(in.ta.Height(), 1) }

func (in questionInput) Update(msg tea.Msg) (questionInput, tea.Cmd) {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return in, cmd
}

// View is the input's rows, as one string.
func (in questionInput) View() string { return in.ta.View() }
