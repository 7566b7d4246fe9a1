// Package conversation is the TUI's conversation pane: the questions asked
// of the library and their answers, each statement with its citation
// markers and a support badge, and the question input at the bottom.
//
// While an answer is written the pane shows a spinner and the strategy's
// current stage, any raw text the model streams (a draft), and each
// statement as soon as it is finished. Nothing here knows which strategy
// is answering: stages, drafts, plans, usage and errors are shown as they
// come.
//
// The pane does no I/O and starts no work. What the user asks for is
// returned by Update to the root model as an action (AskMsg, CancelMsg,
// CitationMsg, ExportMsg, CopyMsg, StrategyMsg, NoticeMsg); the root feeds
// the answer back in with Begin, Apply and Finish.
package conversation

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/themes"
)

// AskMsg asks the question typed in the input.
type AskMsg struct{ Question string }

// CancelMsg cancels the answer being written.
type CancelMsg struct{}

// CitationMsg shows a citation in the source pane: Span highlighted,
// Others (the statement's other citations) marked more faintly. Focus
// moves the keyboard to the source pane.
type CitationMsg struct {
	Span   citations.Span
	Others []citations.Span
	Focus  bool
	// Label names the citation for messages: "[3]".
	Label string
}

// ExportMsg exports an answer. An empty Format asks the root to let the
// user choose one.
type ExportMsg struct {
	Answer *engine.Answer
	Format string
}

// CopyMsg copies a citation's quoted text to the clipboard.
type CopyMsg struct {
	Text  string
	Label string
}

// StrategyMsg opens the strategy picker.
type StrategyMsg struct{}

// NoticeMsg is a short message for the status line.
type NoticeMsg struct {
	Text  string
	Error bool
}

// entry is one question and its answer.
type entry struct {
	question string
	strategy string
	stmts    []citations.Statement
	// first[i] is the number of statement i's first citation marker:
	// markers are numbered through the answer, from 1.
	first []int
	ans   *engine.Answer // the finished answer; nil while streaming or after a failure

	streaming  bool
	cancelling bool
	stage      string
	draft      []byte // the model's raw text so far (Event.Delta)
	// thought is the tail of the model's reasoning (Event.Reasoning),
	// shown dimmed on one line while it streams; thoughtWords counts it.
	thought      []byte
	thoughtWords int
	usage        citations.Usage
	planText     string // the strategy's plan in one line (citations.PlanLines)
	err          string // why there is no answer, or why it is partial
	fix          string // what to do about err, when something can be done
	// markdown: the statements were written by a model, in Markdown, and
	// are rendered as such; otherwise (quotes) they are shown verbatim.
	markdown bool
}

// setPlan keeps a plan's one-line account: its Line, or for a saved plan
// (read back as JSON) its summary, or its details joined when it has none.
// Rendering it once here keeps JSON work out of every frame.
func (e *entry) setPlan(plan any) {
	if p, ok := plan.(engine.Plan); ok {
		e.planText = textproc.OneLine(p.Line())
		return
	}
	summary, details := citations.PlanLines(plan)
	if summary == "" {
		summary = strings.Join(details, " · ")
	}
	e.planText = summary
}

// writesMarkdown reports whether a strategy's statements are a model's
// writing (rendered as Markdown) rather than quotes of the documents.
func writesMarkdown(strategy string) bool {
	info, ok := engine.Lookup(strategy)
	return ok && info.NeedsLLM
}

// addStatement appends s with its marker numbers.
func (e *entry) addStatement(s citations.Statement) {
	n := 1
	if k := len(e.stmts); k > 0 {
		n = e.first[k-1] + len(e.stmts[k-1].Citations)
	}
	e.stmts = append(e.stmts, s)
	e.first = append(e.first, n)
}

// sel is a selected statement and, within it, a citation.
type sel struct{ e, s, c int }

var noSel = sel{-1, -1, 0}

// Model is the conversation pane.
type Model struct {
	// KeyMap is the pane's keys; replace bindings to rebind.
	KeyMap KeyMap

	styles        *themes.Styles
	width, height int
	focused       bool // the pane has the keyboard
	typing        bool // … and it is in the input

	entries []*entry
	sel     sel
	// follow keeps the newest answer in view as it streams, until the user
	// moves.
	follow bool
	top    pos
	cache  *lineCache

	input    textinput.Model
	spin     spinner.Model
	strategy string // the strategy the next question goes to
	scope    string // what the next question is asked of, for the status line
}

// New returns an empty conversation pane drawn in styles, with the input
// ready for a question.
func New(styles *themes.Styles) Model {
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "Ask a question about the documents in scope"
	in.CharLimit = 2000
	m := Model{
		KeyMap: DefaultKeyMap(),
		sel:    noSel,
		follow: true,
		input:  in,
		spin:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		cache:  newLineCache(),
		typing: true,
	}
	m.SetStyles(styles)
	return m
}

// SetStyles switches the pane to another theme.
func (m *Model) SetStyles(s *themes.Styles) {
	m.styles = s
	m.input.SetStyles(s.TextInput)
	m.spin.Style = s.Stage
	m.cache.reset(m.answerWidth())
}

// SetSize sets the pane's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.input.SetWidth(max(w-3, 1))
	if m.cache.width != m.answerWidth() {
		m.cache.reset(m.answerWidth())
	}
	m.top = m.clampPos(m.top)
	m.settle()
}

// SetStrategy names the strategy the next question goes to.
func (m *Model) SetStrategy(name string) { m.strategy = name }

// SetScope describes what the next question is asked of ("all 3
// documents"), for the status line.
func (m *Model) SetScope(s string) { m.scope = s }

// Focus gives the pane the keyboard, in the input when typing is set;
// Blur takes it away. Focus returns the input's command.
func (m *Model) Focus(typing bool) tea.Cmd {
	m.focused = true
	m.typing = typing
	if typing {
		return m.input.Focus()
	}
	m.input.Blur()
	return nil
}

// Blur takes the keyboard away from the pane.
func (m *Model) Blur() {
	m.focused = false
	m.input.Blur()
}

// Typing reports whether the question input has the keyboard (or would
// have it, once the pane is focused): keys are text then.
func (m Model) Typing() bool { return m.typing }

// Streaming reports whether an answer is being written.
func (m Model) Streaming() bool {
	e := m.last()
	return e != nil && e.streaming
}

func (m Model) last() *entry {
	if len(m.entries) == 0 {
		return nil
	}
	return m.entries[len(m.entries)-1]
}

// Load puts saved answers (oldest first) before the conversation so far,
// selects the newest one's first statement and scrolls to the end.
func (m *Model) Load(answers []*engine.Answer) {
	if len(answers) == 0 {
		return
	}
	old := make([]*entry, 0, len(answers))
	for _, a := range answers {
		e := &entry{question: a.Question, strategy: a.Strategy, ans: a, usage: a.Usage, markdown: writesMarkdown(a.Strategy)}
		e.setPlan(a.Plan)
		if a.Partial {
			e.err = a.Error
		}
		for _, s := range a.Statements {
			e.addStatement(s)
		}
		old = append(old, e)
	}
	shift := len(old)
	m.entries = append(old, m.entries...)
	m.cache.clear()
	if m.sel.e >= 0 {
		m.sel.e += shift
	}
	if m.top.e >= 0 && len(m.entries) > shift {
		m.top.e += shift
	}
	if m.sel.e < 0 {
		m.selectNewest()
	}
	m.follow = true
	m.settle()
}

// selectNewest selects the first statement of the newest answer that has
// statements.
func (m *Model) selectNewest() {
	for e := len(m.entries) - 1; e >= 0; e-- {
		if len(m.entries[e].stmts) > 0 {
			m.sel = sel{e, 0, 0}
			return
		}
	}
}

// Begin starts showing the answer to question from strategy.
func (m *Model) Begin(question, strategy string) tea.Cmd {
	m.entries = append(m.entries, &entry{question: question, strategy: strategy, streaming: true, markdown: writesMarkdown(strategy)})
	m.follow = true
	m.settle()
	return m.spin.Tick
}

// Apply shows events of the answer being written.
func (m *Model) Apply(evs ...engine.Event) {
	e := m.last()
	if e == nil || !e.streaming {
		return
	}
	ei := len(m.entries) - 1
	for _, ev := range evs {
		switch ev := ev.(type) {
		case engine.Stage:
			e.stage = string(ev)
		case engine.Warning:
			e.stage = string(ev)
		case engine.Delta:
			e.draft = append(e.draft, ev...)
			if len(e.draft) > maxDraft {
				e.draft = e.draft[len(e.draft)-maxDraft/2:]
			}
		case engine.Reasoning:
			e.thoughtWords += len(strings.Fields(string(ev)))
			e.thought = append(e.thought, ev...)
			if len(e.thought) > maxThought {
				e.thought = e.thought[len(e.thought)-maxThought/2:]
			}
		case engine.Statement:
			e.addStatement(ev.Statement)
			if m.follow && m.sel.e != ei {
				m.sel = sel{ei, 0, 0}
			}
		case engine.Usage:
			e.usage.Add(ev.Usage)
		case engine.PlanEvent:
			e.setPlan(ev.Plan)
		}
	}
	m.cache.dropEntry(ei)
	m.settle()
}

// maxDraft bounds the draft kept for display: only its tail is shown.
const maxDraft = 16 << 10

// maxThought bounds the reasoning kept for display: one line of its tail.
const maxThought = 1 << 10

// Cancelling marks the answer being written as cancelled, until Finish.
func (m *Model) Cancelling() {
	if e := m.last(); e != nil && e.streaming {
		e.cancelling = true
		m.cache.dropEntry(len(m.entries) - 1)
	}
}

// Finish ends the answer being written with what the strategy returned:
// ans (nil when it failed before answering) and err. The answer's own
// statements replace those streamed, as they are what was saved.
func (m *Model) Finish(ans *engine.Answer, err error) {
	e := m.last()
	if e == nil || !e.streaming {
		return
	}
	ei := len(m.entries) - 1
	e.streaming, e.cancelling = false, false
	e.draft, e.thought = nil, nil
	if ans != nil {
		e.ans = ans
		e.strategy = ans.Strategy
		e.stmts, e.first = nil, nil
		for _, s := range ans.Statements {
			e.addStatement(s)
		}
		e.usage = ans.Usage
		e.setPlan(ans.Plan)
		if ans.Partial {
			e.err = ans.Error
		}
	} else if err != nil {
		e.err = err.Error()
	}
	if err != nil {
		_, e.fix = fix.Message(err)
	}
	if m.sel.e == ei && m.sel.s >= len(e.stmts) {
		m.sel = noSel
	}
	if m.sel.e < 0 || m.follow {
		if len(e.stmts) > 0 {
			m.sel = sel{ei, 0, 0}
		}
	}
	m.cache.dropEntry(ei)
	m.settle()
}

// Selected returns the selected answer's record (nil while it is written
// or when it failed) and whether there is a selection.
func (m Model) Selected() (*engine.Answer, bool) {
	if m.sel.e < 0 {
		return nil, false
	}
	return m.entries[m.sel.e].ans, true
}

// Citation returns the selected citation with the statement's others.
func (m Model) Citation() (CitationMsg, bool) {
	if m.sel.e < 0 {
		return CitationMsg{}, false
	}
	e := m.entries[m.sel.e]
	st := &e.stmts[m.sel.s]
	if m.sel.c >= len(st.Citations) {
		return CitationMsg{}, false
	}
	others := make([]citations.Span, 0, len(st.Citations)-1)
	for i, c := range st.Citations {
		if i != m.sel.c {
			others = append(others, c)
		}
	}
	return CitationMsg{Span: st.Citations[m.sel.c], Others: others, Label: markerLabel(e.first[m.sel.s] + m.sel.c)}, true
}

// ShortHelp returns the keys that apply now, for bubbles/help.
func (m Model) ShortHelp() []key.Binding { return m.helpKeys().ShortHelp() }

// FullHelp returns all the keys that apply now, for bubbles/help.
func (m Model) FullHelp() [][]key.Binding { return m.helpKeys().FullHelp() }

func (m Model) helpKeys() help.KeyMap {
	if m.typing {
		return inputHelp{k: m.KeyMap, streaming: m.Streaming()}
	}
	return listHelp{k: m.KeyMap, streaming: m.Streaming()}
}

// Update handles keys, the spinner and the input's own messages. What the
// user asks of the rest of the program comes back as an action (AskMsg,
// CitationMsg…; nil for none) for the parent to carry out at once, not as
// a command: commands run concurrently, and two quick n presses must show
// their citations in order.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, tea.Msg) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		if !m.Streaming() {
			return m, nil, nil // let the ticks stop
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd, nil
	case tea.KeyPressMsg:
		if m.typing {
			return m.updateInput(msg)
		}
		return m.updateList(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			m.scroll(3)
		case tea.MouseWheelUp:
			m.scroll(-3)
		}
		return m, nil, nil
	}
	if m.typing {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg) // paste, cursor
		return m, cmd, nil
	}
	return m, nil, nil
}

func (m Model) updateInput(msg tea.KeyPressMsg) (Model, tea.Cmd, tea.Msg) {
	k := m.KeyMap.Input
	switch {
	case key.Matches(msg, k.Ask):
		q := strings.TrimSpace(m.input.Value())
		if q == "" {
			return m, nil, nil
		}
		if m.Streaming() {
			return m, nil, NoticeMsg{Text: "An answer is still being written: wait, or cancel it with " + k.Cancel.Help().Key + "."}
		}
		m.input.Reset()
		return m, nil, AskMsg{Question: q}
	case key.Matches(msg, k.Cancel):
		if m.Streaming() {
			return m, nil, CancelMsg{}
		}
		return m, nil, nil
	case key.Matches(msg, k.Leave):
		if m.Streaming() {
			return m, nil, CancelMsg{}
		}
		m.typing = false
		m.input.Blur()
		return m, nil, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd, nil
}

func (m Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd, tea.Msg) {
	k := m.KeyMap.List
	switch {
	case key.Matches(msg, k.Down):
		m.moveStatement(1)
	case key.Matches(msg, k.Up):
		m.moveStatement(-1)
	case key.Matches(msg, k.First):
		m.moveStatement(-1 << 30)
	case key.Matches(msg, k.Last):
		m.moveStatement(1 << 30)
	case key.Matches(msg, k.PageDown):
		m.scroll(max(m.answerHeight()-1, 1))
	case key.Matches(msg, k.PageUp):
		m.scroll(-max(m.answerHeight()-1, 1))
	case key.Matches(msg, k.Show):
		if m.sel.e < 0 {
			return m, nil, nil
		}
		m.sel.c = 0
		c, ok := m.Citation()
		if !ok {
			return m, nil, NoticeMsg{Text: "This statement cites nothing."}
		}
		c.Focus = true
		return m, nil, c
	case key.Matches(msg, k.NextCitation):
		return m, nil, m.stepCitation(1)
	case key.Matches(msg, k.PrevCitation):
		return m, nil, m.stepCitation(-1)
	case key.Matches(msg, k.Export), key.Matches(msg, k.ExportAs):
		format := "md"
		if key.Matches(msg, k.ExportAs) {
			format = ""
		}
		if m.sel.e < 0 {
			return m, nil, NoticeMsg{Text: "No answer to export yet."}
		}
		e := m.entries[m.sel.e]
		switch {
		case e.streaming:
			return m, nil, NoticeMsg{Text: "The answer is still being written; export it when it is done."}
		case e.ans == nil:
			return m, nil, NoticeMsg{Text: "This question has no answer to export."}
		}
		return m, nil, ExportMsg{Answer: e.ans, Format: format}
	case key.Matches(msg, k.Copy):
		c, ok := m.Citation()
		if !ok {
			return m, nil, NoticeMsg{Text: "No citation selected to copy."}
		}
		return m, nil, CopyMsg{Text: c.Span.Text, Label: c.Label}
	case key.Matches(msg, k.Strategy):
		return m, nil, StrategyMsg{}
	case key.Matches(msg, k.Input):
		m.typing = true
		return m, m.input.Focus(), nil
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.CancelEsc):
		if m.Streaming() {
			return m, nil, CancelMsg{}
		}
	}
	return m, nil, nil
}

// moveStatement selects the statement d places on, through every answer.
func (m *Model) moveStatement(d int) {
	m.follow = false
	all := m.statementCount()
	if all == 0 {
		return
	}
	i := m.statementIndex(m.sel)
	if i < 0 {
		i = all // nothing selected: k takes the last, j too
		if d > 0 {
			d = -1
		}
	}
	m.sel = m.statementAt(min(max(i+d, 0), all-1))
	m.reveal()
}

func (m Model) statementCount() int {
	n := 0
	for _, e := range m.entries {
		n += len(e.stmts)
	}
	return n
}

// statementIndex is s's statement's index through every answer, -1 for
// no selection.
func (m Model) statementIndex(s sel) int {
	if s.e < 0 {
		return -1
	}
	n := 0
	for _, e := range m.entries[:s.e] {
		n += len(e.stmts)
	}
	return n + s.s
}

func (m Model) statementAt(i int) sel {
	for e, en := range m.entries {
		if i < len(en.stmts) {
			return sel{e, i, 0}
		}
		i -= len(en.stmts)
	}
	return noSel
}

// stepCitation selects the next (d = 1) or previous (d = -1) citation,
// across statements and answers, and shows it. With nothing selected it
// goes to the newest answer's first citation.
func (m *Model) stepCitation(d int) tea.Msg {
	m.follow = false
	s := m.sel
	if s.e < 0 {
		m.selectNewest()
		if m.sel.e < 0 {
			return NoticeMsg{Text: "No citations yet."}
		}
		s, d = m.sel, 1
		s.c = -1
	}
	s.c += d
	for s.c < 0 || s.c >= len(m.entries[s.e].stmts[s.s].Citations) {
		next, ok := m.neighbour(s, d)
		if !ok {
			what := "last"
			if d < 0 {
				what = "first"
			}
			return NoticeMsg{Text: "That was the " + what + " citation."}
		}
		s = next
	}
	m.sel = s
	m.reveal()
	c, _ := m.Citation()
	return c
}

// neighbour is the statement after (d > 0) or before s, with its citation
// index at the first or last citation.
func (m Model) neighbour(s sel, d int) (sel, bool) {
	i := m.statementIndex(s) + d
	if i < 0 || i >= m.statementCount() {
		return s, false
	}
	n := m.statementAt(i)
	if d < 0 {
		n.c = len(m.entries[n.e].stmts[n.s].Citations) - 1
	}
	return n, true
}

func markerLabel(n int) string { return "[" + strconv.Itoa(n) + "]" }
