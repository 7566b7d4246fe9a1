// Package threads is the TUI's history of conversations: a dialog over
// the panes listing the threads of saved answers (docstore's threads:
// answers that follow up on one another), newest first, each with its
// name, how many answers it holds and when it was last asked. The reader
// filters them by words of their questions and answers (/), resumes one
// (enter: the conversation shows it, and the next question follows up on
// its last answer), renames one (r), exports one whole (e) or copies it
// to the clipboard (y).
//
// The dialog does no I/O: the root loads the threads (SetThreads) and
// carries out what the user asks, returned by Update as an action
// (ResumeMsg, RenameMsg, ExportMsg, CopyMsg, pane.Close), as the panes'
// contract has it (tui/internal/pane).
package threads

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// Thread is one thread as the dialog lists it: what the library says of
// it, and its answers' words, which the filter looks in.
type Thread struct {
	docstore.ThreadMeta
	// Words holds the words of the thread's questions and statements, as
	// one answer, for citations.MatchWords.
	Words *citations.Answer
}

// ResumeMsg asks for the thread ID to be shown in the conversation and
// followed up on.
type ResumeMsg struct{ ID, Name string }

// RenameMsg asks for the thread ID to be named Name ("" gives it back its
// first question's).
type RenameMsg struct{ ID, Name string }

// ExportMsg asks for the whole thread ID to be exported.
type ExportMsg struct{ ID, Name string }

// CopyMsg asks for the whole thread ID to be copied to the clipboard.
type CopyMsg struct{ ID, Name string }

// KeyMap is the dialog's keys: the list's, and the filter's and the
// rename prompt's while one is open (where every printable key is text,
// KEYS.md rule 1).
type KeyMap struct {
	Down, Up, Resume, Filter, Rename, Export, Copy, Close key.Binding
	// Apply and Cancel end the filter or the rename prompt.
	Apply, Cancel key.Binding
}

// DefaultKeyMap returns the dialog's default keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Down:   key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "next")),
		Up:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "previous")),
		Resume: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "resume")),
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by words")),
		Rename: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rename")),
		Export: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "export thread")),
		Copy:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy thread")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "done")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp returns the keys that apply now, for the status line.
func (m Model) ShortHelp() []key.Binding {
	k := m.KeyMap
	if m.prompt != promptNone {
		return []key.Binding{k.Apply, k.Cancel}
	}
	return []key.Binding{k.Resume, k.Filter, k.Rename, k.Export, k.Copy, k.Close}
}

// FullHelp returns all the dialog's keys, for the help screen.
func (m Model) FullHelp() [][]key.Binding {
	k := m.KeyMap
	return [][]key.Binding{{k.Down, k.Up, k.Resume, k.Close}, {k.Filter, k.Rename, k.Export, k.Copy}}
}

type prompt int8

const (
	promptNone prompt = iota
	promptFilter
	promptRename
)

// Model is the open dialog.
type Model struct {
	KeyMap KeyMap
	// Now is the clock "last asked" is said by.
	Now func() time.Time

	styles  *themes.Styles
	all     []Thread
	visible []int // indices into all that pass the filter
	cursor  int   // index into visible
	loaded  bool
	err     string

	prompt prompt
	input  textinput.Model
	filter string // the filter in force
	notice string
}

// The dialog keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns the dialog, waiting for its threads (SetThreads).
func New(styles *themes.Styles) Model {
	in := textinput.New()
	in.CharLimit = docstore.MaxThreadName
	return Model{KeyMap: DefaultKeyMap(), Now: time.Now, styles: styles, input: in}
}

// SetStyles switches the dialog to another theme.
func (m *Model) SetStyles(s *themes.Styles) { m.styles = s }

// SetThreads shows threads (newest first), or why they could not be
// read, keeping the cursor on the thread it was on.
func (m *Model) SetThreads(threads []Thread, err error) {
	cur, _ := m.Current()
	m.all, m.loaded = threads, true
	m.err = ""
	if err != nil {
		m.err = err.Error()
	}
	m.refilter()
	for i, t := range m.visible {
		if m.all[t].ID == cur.ID {
			m.cursor = i
		}
	}
}

// Current returns the thread under the cursor.
func (m Model) Current() (Thread, bool) {
	if m.cursor < len(m.visible) {
		return m.all[m.visible[m.cursor]], true
	}
	return Thread{}, false
}

// StartFilter opens the filter prompt, as / does.
func (m *Model) StartFilter() tea.Cmd {
	m.prompt = promptFilter
	m.input.Prompt, m.input.Placeholder = "/", "words of a question or answer"
	m.input.SetValue(m.filter)
	m.input.CursorEnd()
	return m.input.Focus()
}

// Typing reports whether keys are text now: the filter or the rename
// prompt is open.
func (m Model) Typing() bool { return m.prompt != promptNone }

// Update handles the dialog's keys and its prompt's messages.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if m.prompt != promptNone {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd, nil
		}
		return m, nil, nil
	}
	m.notice = ""
	if m.prompt != promptNone {
		return m.updatePrompt(k)
	}
	km := m.KeyMap
	cur, have := m.Current()
	switch {
	case key.Matches(k, km.Close):
		if m.filter != "" {
			m.setFilter("")
			return m, nil, nil
		}
		return m, nil, pane.Close{}
	case key.Matches(k, km.Down):
		if len(m.visible) > 0 {
			m.cursor = (m.cursor + 1) % len(m.visible)
		}
	case key.Matches(k, km.Up):
		if len(m.visible) > 0 {
			m.cursor = (m.cursor - 1 + len(m.visible)) % len(m.visible)
		}
	case key.Matches(k, km.Filter):
		return m, m.StartFilter(), nil
	case key.Matches(k, km.Resume, km.Rename, km.Export, km.Copy) && !have:
		m.notice = "Nothing to " + verbOf(k, km) + ": " + m.empty()
	case key.Matches(k, km.Resume):
		return m, nil, ResumeMsg{ID: cur.ID, Name: cur.Name}
	case key.Matches(k, km.Rename):
		m.prompt = promptRename
		m.input.Prompt, m.input.Placeholder = "name: ", "empty: its first question"
		m.input.SetValue(cur.Name)
		m.input.CursorEnd()
		return m, m.input.Focus(), nil
	case key.Matches(k, km.Export):
		return m, nil, ExportMsg{ID: cur.ID, Name: cur.Name}
	case key.Matches(k, km.Copy):
		return m, nil, CopyMsg{ID: cur.ID, Name: cur.Name}
	default:
		if pane.Printable(k) {
			m.notice = fmt.Sprintf("%q does nothing here: %s", k.String(), keysLine(m.ShortHelp()))
		}
	}
	return m, nil, nil
}

// updatePrompt gives a key to the open prompt: the filter applies as it
// is typed; a name is given on enter.
func (m Model) updatePrompt(k tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	km := m.KeyMap
	switch {
	case key.Matches(k, km.Cancel):
		if m.prompt == promptFilter {
			m.setFilter("")
		}
		m.prompt = promptNone
		m.input.Blur()
		return m, nil, nil
	case key.Matches(k, km.Apply):
		p := m.prompt
		m.prompt = promptNone
		m.input.Blur()
		if p == promptRename {
			if cur, ok := m.Current(); ok {
				return m, nil, RenameMsg{ID: cur.ID, Name: strings.TrimSpace(m.input.Value())}
			}
		}
		return m, nil, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if m.prompt == promptFilter {
		m.setFilter(m.input.Value())
	}
	return m, cmd, nil
}

func (m *Model) setFilter(f string) {
	m.filter = strings.TrimSpace(f)
	m.refilter()
}

// refilter lists the threads whose answers hold every word of the
// filter, as 'citelens answers --grep' finds answers.
func (m *Model) refilter() {
	match := citations.MatchWords(m.filter)
	m.visible = m.visible[:0]
	for i, t := range m.all {
		if m.filter == "" || t.Words != nil && match(t.Words) {
			m.visible = append(m.visible, i)
		}
	}
	m.cursor = min(m.cursor, max(len(m.visible)-1, 0))
}

// empty says why no thread is listed.
func (m Model) empty() string {
	switch {
	case !m.loaded:
		return "reading the threads…"
	case m.err != "":
		return "the threads could not be read: " + m.err
	case len(m.all) == 0:
		return "no saved answers yet: ask a question, and its follow-ups make a thread."
	}
	return "no thread has all of the words “" + m.filter + "” (esc clears the filter)."
}

// View draws the dialog as a framed box at most maxW × maxH cells; its
// lines are returned for the root model to lay over the panes.
func (m Model) View(maxW, maxH int) []string {
	st := m.styles
	w := min(maxW, 96)
	inner := max(w-4, 1)
	var body []string
	cursorLine := 0
	if len(m.visible) == 0 {
		for _, l := range draw.Wrap(textproc.OneLine(m.empty()), inner) {
			body = append(body, st.Muted.Render(l))
		}
	}
	now := m.Now()
	// The names in a column as wide as the widest, what is said of each
	// after it.
	abouts := make([]string, len(m.visible))
	nameW, aboutW := 1, 0
	for i, ti := range m.visible {
		t := m.all[ti]
		abouts[i] = fmt.Sprintf("  %s · %s", humanize.Plural(len(t.Answers), "answer", "answers"), ago(now, t.Last))
		nameW = max(nameW, ansi.StringWidth(textproc.OneLine(t.Name)))
		aboutW = max(aboutW, ansi.StringWidth(abouts[i]))
	}
	nameW = max(min(nameW, inner-2-aboutW), min(inner/2, nameW))
	for i, ti := range m.visible {
		t := m.all[ti]
		mark, nameStyle := "  ", st.Text
		if i == m.cursor {
			mark, nameStyle, cursorLine = st.Accent.Render("▌")+" ", st.Selection, len(body)
		}
		name := draw.Fit(draw.Truncate(textproc.OneLine(t.Name), nameW), nameW)
		body = append(body, mark+nameStyle.Render(name)+st.Muted.Render(draw.Truncate(abouts[i], max(inner-2-nameW, 0))))
	}
	var foot []string
	switch {
	case m.prompt != promptNone:
		foot = append(foot, draw.Truncate(m.input.View(), inner))
	case m.notice != "":
		for _, l := range draw.Wrap(textproc.OneLine(m.notice), inner) {
			foot = append(foot, st.Warning.Render(l))
		}
	default:
		if m.filter != "" {
			foot = append(foot, st.Accent.Render(draw.Truncate("/"+textproc.OneLine(m.filter), inner)))
		}
		foot = append(foot, st.Muted.Render(draw.Truncate(keysLine(m.ShortHelp()), inner)))
	}
	foot = append([]string{""}, foot...)
	lines, h := draw.Dialog(body, foot, cursorLine, inner, maxH)
	title := "Threads"
	if m.loaded && m.err == "" {
		title = fmt.Sprintf("Threads (%d)", len(m.all))
		if m.filter != "" {
			title = fmt.Sprintf("Threads (%d of %d)", len(m.visible), len(m.all))
		}
	}
	return draw.NewBorder(st.PaneFocused).Frame(st.Title.Render(" "+title+" "), lines, w, h)
}

// verbOf is what a key of the list does, for a notice that it cannot.
func verbOf(k tea.KeyPressMsg, km KeyMap) string {
	switch {
	case key.Matches(k, km.Rename):
		return "rename"
	case key.Matches(k, km.Export):
		return "export"
	case key.Matches(k, km.Copy):
		return "copy"
	}
	return "resume"
}

// keysLine is the keys as the dialog's foot lists them.
func keysLine(keys []key.Binding) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Help().Key + " " + k.Help().Desc
	}
	return strings.Join(parts, " · ")
}

// ago says when t was, as a listing reads it: "5 min ago", "yesterday
// 14:05", "2026-03-01".
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "never asked"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return t.Local().Format("2006-01-02")
}
