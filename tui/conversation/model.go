// Package conversation is the TUI's conversation pane: the questions asked
// of the library and their answers, each statement with its citation
// markers and its mark (citations.StatementMark: for quotes the question
// words they hold, for a model's statements their check), what the
// answer rests on under it (warnings, plan, cost), and the question input
// at the bottom.
//
// While an answer is written the pane shows a spinner, the strategy's
// current stage and how long it has been waiting, each statement as soon
// as it is finished, and the statement in progress as plain text. Nothing
// here knows which strategy is answering: stages, drafts, plans, usage
// and errors are shown as they come.
//
// The pane shows the most recent saved answers and asks for older ones
// (OlderMsg) when the reader scrolls back to the top.
//
// The pane does no I/O and starts no work. What the user asks for is
// returned by Update to the root model as an action (AskMsg, CancelMsg,
// CitationMsg, ExportMsg, CopyMsg, StrategyMsg, DeleteMsg, PrepareMsg,
// OlderMsg, CopyAnswerMsg, SearchMsg, pane.Notice), as the panes' contract has it
// (tui/internal/pane); the root feeds the answer back in with Begin,
// Apply and Finish. Its keys are in two modes, the input's and the
// answers' (see KeyMap and tui/KEYS.md).
package conversation

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/pane"
)

// AskMsg asks the question typed in the input. FollowUp says it follows
// up on the conversation (Turns); otherwise it starts a new topic.
type AskMsg struct {
	Question string
	FollowUp bool
}

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
	// Answer is the saved answer's ID ("" while it is written), and
	// Statement and Citation index the citation in it: what a newer
	// version of the document made of it is looked up by them.
	Answer              string
	Statement, Citation int
}

// ExportMsg exports an answer. An empty Format asks the root to let the
// user choose one.
type ExportMsg struct {
	Answer *engine.Answer
	Format string
}

// CopyMsg copies a citation to the clipboard: its quoted text, with the
// document and page it is from.
type CopyMsg struct {
	Span  citations.Span
	Label string
}

// StrategyMsg opens the strategy picker.
type StrategyMsg struct{}

// DeleteMsg deletes a saved answer from the library (the user has
// confirmed it); the root calls Remove once it is gone.
type DeleteMsg struct{ ID string }

// PrepareMsg asks for the documents of a failed answer to be prepared
// for its strategy (engine.Preparer), then the question asked again, as
// a follow-up when it was one.
type PrepareMsg struct {
	Strategy string
	Question string
	FollowUp bool
}

// OlderMsg asks for the saved answers older than the one whose ID is
// Before; the root feeds them in with Load.
type OlderMsg struct{ Before string }

// entry is one question and its answer.
type entry struct {
	question string
	strategy string
	stmts    []citations.Statement
	// first[i] is the number of statement i's first citation marker:
	// markers are numbered through the answer, from 1.
	first []int
	ans   *engine.Answer // the finished answer; nil while streaming or after a failure

	docs    int      // documents in scope: with several, statements name theirs
	after   []string // the questions it follows up on
	foreign bool     // saved by another process: no part of this conversation

	streaming  bool
	cancelling bool
	started    time.Time
	stage      string
	draft      []byte // the model's raw text so far (Event.Delta)
	// thought is the tail of the model's reasoning (Event.Reasoning),
	// shown dimmed on one line while it streams; thoughtWords counts it.
	thought      []byte
	thoughtWords int
	// inProgress is the statement being written, as plain text (from
	// the draft); tagged says it is a statement rather than prose.
	inProgress string
	tagged     bool
	usage      citations.Usage
	planText   string // the strategy's plan in one line (citations.PlanLines)
	err        string // why there is no answer, or why it is partial
	// cancelled: the user stopped the answer, which is no failure.
	cancelled bool
	fix       string // what to do about err, when something can be done
	// prepare is set when the strategy needs its documents prepared
	// (engine.ErrNotPrepared); prepareCost says what that costs, once
	// the root has found out.
	prepare     bool
	prepareCost string
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

// setAnswer shows ans as the entry's answer: its statements replace any
// streamed, as they are what was saved.
func (e *entry) setAnswer(ans *engine.Answer) {
	e.ans = ans
	if ans.Question != "" {
		e.question = ans.Question
	}
	if ans.Strategy != "" {
		e.strategy = ans.Strategy
	}
	e.stmts, e.first = nil, nil
	for _, s := range ans.Statements {
		e.addStatement(s)
	}
	e.usage = ans.Usage
	e.setPlan(ans.Plan)
	e.docs = max(len(ans.Docs), ans.Library)
	if f := ans.FollowUp; f != nil {
		e.after = f.After
	}
	if ans.Partial {
		e.err = ans.Error
		// The runtime records a cancel so (engine.Run).
		e.cancelled = ans.Error == "cancelled"
	}
}

func entryOf(ans *engine.Answer) *entry {
	e := &entry{markdown: writesMarkdown(ans.Strategy)}
	e.setAnswer(ans)
	return e
}

// id is the saved answer's ID, "" for none.
func (e *entry) id() string {
	if e.ans == nil {
		return ""
	}
	return e.ans.ID
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
	// Now is the clock an answer's waiting time is counted by.
	Now func() time.Time

	styles        *themes.Styles
	width, height int
	focused       bool // the pane has the keyboard
	typing        bool // … and it is in the input

	entries []*entry
	// topic is the first entry of the current topic: the questions from
	// there on are the conversation a new question follows up on.
	topic int
	// choice is what the user chose, with KeyMap.Input.FollowUp, for the
	// question being typed: a follow-up, a new topic, or (0) what
	// refersBack decides.
	choice topicChoice
	sel    sel
	// follow keeps the newest answer in view as it streams, until the user
	// moves.
	follow bool
	top    pos
	cache  *lineCache

	// older says whether saved answers older than those shown remain,
	// where they start, and that they have been asked for.
	older struct {
		more    bool
		before  string
		loading bool
	}
	cleared bool // the view was cleared

	// stale holds the saved answers whose evidence changed in a newer
	// version of a document they cite (SetStale): each carries a mark.
	stale map[string]bool

	asking   *pane.Question // before deleting an answer
	activity string         // work the pane is waiting on, for the status line

	input    questionInput
	spin     spinner.Model
	strategy string // the strategy the next question goes to
	scope    string // what the next question is asked of, for the status line
}

// The conversation pane keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns an empty conversation pane drawn in styles, with the input
// ready for a question.
func New(styles *themes.Styles) Model {
	keys := DefaultKeyMap()
	m := Model{
		KeyMap: keys,
		Now:    time.Now,
		sel:    noSel,
		follow: true,
		input:  newQuestionInput(keys.Input.NewLine),
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
	m.input.SetStyles(s)
	m.spin.Style = s.Stage
	m.cache.reset(m.answerWidth())
}

// SetSize sets the pane's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.input.SetWidth(max(w, 1))
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

// SetActivity names work the pane waits on ("preparing for raidd-s:
// 120/395 chunks"), shown on the status line; "" for none.
func (m *Model) SetActivity(s string) { m.activity = s }

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
	m.asking = nil
	m.input.Blur()
}

// Typing reports whether the question input has the keyboard (or would
// have it, once the pane is focused): keys are text then.
func (m Model) Typing() bool { return m.typing }

// Confirming reports whether the pane is asking a yes-or-no question:
// its next key is the answer.
func (m Model) Confirming() bool { return m.asking != nil }

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

// Has reports whether the saved answer id is shown.
func (m Model) Has(id string) bool {
	for _, e := range m.entries {
		if e.id() == id {
			return true
		}
	}
	return false
}

// Newest is the ID of the newest saved answer shown, "" for none.
func (m Model) Newest() string {
	newest := ""
	for _, e := range m.entries {
		if id := e.id(); id > newest {
			newest = id
		}
	}
	return newest
}

// Load puts a page of saved answers (newest first, as engine.Recent reads
// them) before the conversation so far, and remembers whether older ones
// remain. The first page selects the newest answer's first statement and
// scrolls to the end.
func (m *Model) Load(p engine.Page) {
	m.older.loading = false
	if m.cleared {
		return // the reader cleared the view: no history comes back
	}
	m.older.more = p.More
	if p.Oldest != "" {
		m.older.before = p.Oldest
	}
	old := make([]*entry, 0, len(p.Answers))
	for i := len(p.Answers) - 1; i >= 0; i-- {
		if a := p.Answers[i]; !m.Has(a.ID) {
			old = append(old, entryOf(a))
		}
	}
	first := len(m.entries) == 0 || m.sel.e < 0
	m.insert(0, old)
	m.topic += len(old)
	if first {
		m.selectNewest()
		m.follow = true
	}
	m.settle()
}

// Add shows answers saved meanwhile by another process, each in its
// place among those shown: after the last whose ID sorts before its
// (IDs sort by when they were asked), so that what was asked here and
// not saved (a failure) stays below, and before an answer being
// written. One older than every answer shown while older ones remain
// to be loaded is left to come with them.
func (m *Model) Add(answers []*engine.Answer) {
	for _, a := range answers {
		if m.Has(a.ID) {
			continue
		}
		at := 0
		for i, e := range m.entries {
			if id := e.id(); id != "" && id < a.ID {
				at = i + 1
			}
		}
		if at == 0 && m.older.more {
			continue
		}
		if m.Streaming() {
			at = min(at, len(m.entries)-1)
		}
		e := entryOf(a)
		e.foreign = true
		m.insert(at, []*entry{e})
		if at < m.topic {
			m.topic++
		}
	}
	m.settle()
}

// insert puts es before entry at, keeping the selection and the scroll
// position on what they were on.
func (m *Model) insert(at int, es []*entry) {
	if len(es) == 0 {
		return
	}
	m.entries = append(m.entries[:at:at], append(es, m.entries[at:]...)...)
	m.cache.clear()
	if m.sel.e >= at {
		m.sel.e += len(es)
	}
	if m.top.e >= at && len(m.entries) > len(es) {
		m.top.e += len(es)
	}
}

// Remove drops the saved answer id from the view (it was deleted).
func (m *Model) Remove(id string) {
	for i, e := range m.entries {
		if e.id() != id {
			continue
		}
		m.entries = append(m.entries[:i:i], m.entries[i+1:]...)
		m.cache.clear()
		if i < m.topic {
			m.topic--
		}
		switch {
		case m.sel.e == i:
			m.sel = noSel
			if i < len(m.entries) && len(m.entries[i].stmts) > 0 {
				m.sel = sel{i, 0, 0}
			} else {
				m.selectNewest()
			}
		case m.sel.e > i:
			m.sel.e--
		}
		if m.top.e > i || m.top.e >= len(m.entries) {
			m.top = pos{max(m.top.e-1, 0), 0, 0}
		}
		m.top = m.clampPos(m.top)
		m.settle()
		return
	}
}

// Turns are the current topic's questions and answers, oldest first:
// what a new question follows up on (engine.Request.History). Failed
// questions and answers saved by other processes are not part of it.
func (m Model) Turns() []engine.Turn {
	var out []engine.Turn
	for _, e := range m.entries[min(m.topic, len(m.entries)):] {
		if e.foreign || e.streaming || e.ans == nil || len(e.stmts) == 0 {
			continue
		}
		out = append(out, engine.TurnOf(e.ans))
	}
	return out
}

// topicChoice is a choice between following up and a new topic.
type topicChoice int8

const (
	chooseAuto topicChoice = iota // as refersBack decides
	chooseFollowUp
	chooseNewTopic
)

// topicQuestions are the questions of the current topic a new question
// can follow up on (those of Turns), the last engine.MaxTurns, oldest
// first: none when there is nothing to follow up on.
func (m Model) topicQuestions() []string {
	var out []string
	for _, e := range m.entries[min(m.topic, len(m.entries)):] {
		if !e.foreign && !e.streaming && e.ans != nil && len(e.stmts) > 0 {
			out = append(out, e.question)
		}
	}
	return out[max(len(out)-engine.MaxTurns, 0):]
}

// followsUp reports whether question, asked next, follows up on the
// conversation: when there is one to follow, as the user chose, or else
// when it refers back to it.
func (m Model) followsUp(question string) bool {
	earlier := m.topicQuestions()
	switch {
	case len(earlier) == 0:
		return false
	case m.choice == chooseFollowUp:
		return true
	case m.choice == chooseNewTopic:
		return false
	}
	return refersBack(question, earlier)
}

// deciding returns the question being typed when whether it follows up
// is to be said: there is a conversation to follow, and a question typed
// or a choice made.
func (m Model) deciding() (string, bool) {
	q := strings.TrimSpace(m.input.Value())
	if q == "" && m.choice == chooseAuto || len(m.topicQuestions()) == 0 {
		return q, false
	}
	return q, true
}

// NewTopic makes the next question start a fresh topic.
func (m *Model) NewTopic() {
	m.topic = len(m.entries)
	m.choice = chooseAuto
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
	m.sel = noSel
}

// Begin starts showing the answer to question from strategy, asked of
// docs documents, following up on the questions after (none for a fresh
// topic).
func (m *Model) Begin(question, strategy string, docs int, after []string) tea.Cmd {
	m.entries = append(m.entries, &entry{question: question, strategy: strategy, streaming: true, started: m.Now(),
		docs: docs, after: after, markdown: writesMarkdown(strategy)})
	m.cleared = false
	m.follow = true
	m.settle()
	return m.spin.Tick
}

// Waiting shows why the answer being written has not started: "waiting
// for 2 documents being added…".
func (m *Model) Waiting(why string) {
	if e := m.last(); e != nil && e.streaming {
		e.stage = why
	}
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
	// The statement in progress, read once per batch rather than per
	// frame.
	e.inProgress, e.tagged, _ = citations.InProgress(string(e.draft))
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
	e.draft, e.thought, e.inProgress = nil, nil, ""
	if ans != nil {
		e.setAnswer(ans)
	} else if err != nil {
		e.err = err.Error()
	}
	if engine.Canceled(err) {
		e.cancelled, e.fix = true, ""
	} else if err != nil {
		_, e.fix = fix.Message(err)
		if errors.Is(err, engine.ErrNotPrepared) {
			// The error's own advice is the command line's; here a key
			// does the work.
			e.prepare, e.fix = true, ""
			e.err = e.strategy + " needs work done on the documents before it can answer, which costs model tokens"
		}
		if engine.EndpointFailed(err) {
			e.fix = strings.TrimSpace(e.fix + "\nRun 'citelens doctor' to check the endpoint, or press " +
				m.KeyMap.Input.Strategy.Help().Key + " for another strategy (extractive needs no model).")
		}
	}
	if m.sel.e == ei && m.sel.s >= len(e.stmts) {
		m.sel = noSel
	}
	if m.sel.e < 0 || m.follow {
		if len(e.stmts) > 0 {
			m.sel = sel{ei, 0, 0}
		} else if m.follow {
			m.sel = noSel // the failure in view, not the last statement
		}
	}
	m.cache.dropEntry(ei)
	m.settle()
}

// SetPrepareCost says what preparing the documents of the last answer
// would cost ("about 395 model calls and 260k tokens"), shown with the
// offer to do it.
func (m *Model) SetPrepareCost(s string) {
	if e := m.last(); e != nil && e.prepare {
		e.prepareCost = s
		m.cache.dropEntry(len(m.entries) - 1)
		m.settle()
	}
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
	return CitationMsg{Span: st.Citations[m.sel.c], Others: others, Label: markerLabel(e.first[m.sel.s] + m.sel.c),
		Answer: e.id(), Statement: m.sel.s, Citation: m.sel.c}, true
}

// ShortHelp returns the keys that apply now, for bubbles/help.
func (m Model) ShortHelp() []key.Binding { return m.helpKeys().ShortHelp() }

// FullHelp returns all the keys that apply now, for bubbles/help.
func (m Model) FullHelp() [][]key.Binding { return m.helpKeys().FullHelp() }

func (m Model) helpKeys() help.KeyMap {
	if m.asking != nil {
		return m.asking
	}
	if m.typing {
		_, deciding := m.deciding()
		return inputHelp{k: m.KeyMap, streaming: m.Streaming(), answers: m.statementCount() > 0, deciding: deciding}
	}
	return listHelp{k: m.KeyMap, streaming: m.Streaming()}
}

// Update handles keys, the spinner and the input's own messages. What the
// user asks of the rest of the program comes back as an action (AskMsg,
// CitationMsg…; nil for none) for the parent to carry out at once, not as
// a command: commands run concurrently, and two quick n presses must show
// their citations in order.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		if !m.Streaming() {
			return m, nil, nil // let the ticks stop
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd, nil
	case tea.KeyPressMsg:
		if q := m.asking; q != nil {
			m.asking = nil
			return m, nil, q.Answer(msg)
		}
		var cmd tea.Cmd
		var action pane.Action
		if m.typing {
			m, cmd, action = m.updateInput(msg)
		} else {
			m, cmd, action = m.updateList(msg)
		}
		if action == nil {
			action = m.olderWanted()
		}
		return m, cmd, action
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			m.scroll(3)
		case tea.MouseWheelUp:
			m.scroll(-3)
		}
		return m, nil, m.olderWanted()
	}
	if m.typing {
		return m, m.typeIn(msg), nil // paste, cursor
	}
	return m, nil, nil
}

// olderWanted asks for older answers when the view has reached the top
// of those shown and more remain.
func (m *Model) olderWanted() pane.Action {
	if !m.older.more || m.older.loading || m.cleared {
		return nil
	}
	if len(m.entries) > 0 && m.top != (pos{}) {
		return nil
	}
	m.older.loading = true
	m.cache.dropEntry(0)
	return OlderMsg{Before: m.older.before}
}

func (m Model) updateInput(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	k := m.KeyMap.Input
	switch {
	case key.Matches(msg, k.Ask):
		q := strings.TrimSpace(m.input.Value())
		if q == "" {
			return m, nil, m.show()
		}
		if m.Streaming() {
			return m, nil, pane.Notice{Text: "An answer is still being written: wait, or cancel it with " + k.Cancel.Help().Key + "."}
		}
		follow := m.followsUp(q)
		m.input.Reset()
		m.choice = chooseAuto
		return m, nil, AskMsg{Question: q, FollowUp: follow}
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
	case key.Matches(msg, k.Down):
		m.moveStatement(1)
		return m, nil, nil
	case key.Matches(msg, k.Up):
		m.moveStatement(-1)
		return m, nil, nil
	case key.Matches(msg, k.PageDown):
		m.scroll(max(m.answerHeight()-1, 1))
		return m, nil, nil
	case key.Matches(msg, k.PageUp):
		m.scroll(-max(m.answerHeight()-1, 1))
		return m, nil, nil
	}
	if act, ok := m.shared(msg, k.Strategy, k.Prepare, k.NewTopic, k.FollowUp, k.Clear); ok {
		return m, nil, act
	}
	return m, m.typeIn(msg), nil
}

// typeIn gives msg to the question input; the answers get the rows it
// leaves as it grows or shrinks.
func (m *Model) typeIn(msg tea.Msg) tea.Cmd {
	rows := m.input.Rows()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Rows() != rows {
		m.settle()
	}
	return cmd
}

func (m Model) updateList(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	k := m.KeyMap.List
	if act, ok := m.shared(msg, k.Strategy, k.Prepare, k.NewTopic, k.FollowUp, k.Clear); ok {
		return m, nil, act
	}
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
		return m, nil, m.show()
	case key.Matches(msg, k.NextCitation):
		return m, nil, m.StepCitation(1)
	case key.Matches(msg, k.PrevCitation):
		return m, nil, m.StepCitation(-1)
	case key.Matches(msg, k.Export), key.Matches(msg, k.ExportAs):
		format := "md"
		if key.Matches(msg, k.ExportAs) {
			format = ""
		}
		e, note := m.selectedAnswer("export")
		if e == nil {
			return m, nil, note
		}
		return m, nil, ExportMsg{Answer: e.ans, Format: format}
	case key.Matches(msg, k.CopyAnswer):
		return m, nil, m.copyAnswer()
	case key.Matches(msg, k.Search):
		return m, nil, SearchMsg{}
	case key.Matches(msg, k.Copy):
		c, ok := m.Citation()
		if !ok {
			return m, nil, pane.Notice{Text: "No citation selected to copy."}
		}
		return m, nil, CopyMsg{Span: c.Span, Label: c.Label}
	case key.Matches(msg, k.Delete):
		e, note := m.selectedAnswer("delete")
		if e == nil {
			return m, nil, note
		}
		yes := m.KeyMap.Confirm
		yes.SetHelp(yes.Help().Key, "deletes it")
		m.asking = &pane.Question{Ask: "Delete the saved answer to “%s”?", Subject: e.question,
			Yes: yes, Keep: "keeps it", Action: DeleteMsg{ID: e.id()}, Kept: "Nothing was deleted."}
	case key.Matches(msg, k.Input):
		m.typing = true
		return m, m.input.Focus(), nil
	case key.Matches(msg, k.Cancel):
		if m.Streaming() {
			return m, nil, CancelMsg{}
		}
	case key.Matches(msg, k.Back):
		if m.Streaming() {
			return m, nil, CancelMsg{}
		}
		m.typing = true
		return m, m.input.Focus(), nil
	case pane.Printable(msg):
		// A printable key that is no command: the start of a question.
		m.typing = true
		focus := m.input.Focus()
		return m, tea.Batch(focus, m.typeIn(msg)), nil
	}
	return m, nil, nil
}

// shared carries out the keys both modes have, bound differently in
// each: the strategy picker, preparing, a new topic, following up or not,
// clearing.
func (m *Model) shared(msg tea.KeyPressMsg, strategy, prepare, newTopic, followUp, clear key.Binding) (pane.Action, bool) {
	switch {
	case key.Matches(msg, strategy):
		return StrategyMsg{}, true
	case key.Matches(msg, prepare):
		return m.prepare(), true
	case key.Matches(msg, newTopic):
		return m.newTopic(), true
	case key.Matches(msg, followUp):
		return m.switchFollowUp(), true
	case key.Matches(msg, clear):
		return m.clear(), true
	}
	return nil, false
}

// show shows the selected statement's first citation, in the source
// pane with the keyboard.
func (m *Model) show() pane.Action {
	if m.sel.e < 0 {
		if m.statementCount() == 0 {
			return nil
		}
		m.selectNewest()
	}
	m.sel.c = 0
	c, ok := m.Citation()
	if !ok {
		return pane.Notice{Text: "This statement cites nothing."}
	}
	c.Focus = true
	return c
}

// selectedAnswer is the selected saved answer, or a notice saying why
// there is none to do what with.
func (m Model) selectedAnswer(what string) (*entry, pane.Action) {
	if m.sel.e < 0 {
		if e := m.last(); e != nil && e.ans != nil {
			return e, nil
		}
		return nil, pane.Notice{Text: "No answer to " + what + " yet."}
	}
	e := m.entries[m.sel.e]
	switch {
	case e.streaming:
		return nil, pane.Notice{Text: "The answer is still being written; " + what + " it when it is done."}
	case e.ans == nil:
		return nil, pane.Notice{Text: "This question has no saved answer to " + what + "."}
	}
	return e, nil
}

// prepare offers to prepare the documents of the last answer, when it
// failed for want of that.
func (m *Model) prepare() pane.Action {
	e := m.last()
	if e == nil || !e.prepare || e.streaming {
		return pane.Notice{Text: "Nothing to prepare: the strategies that need it (raidd-*) say so when asked."}
	}
	e.prepare = false
	m.cache.dropEntry(len(m.entries) - 1)
	return PrepareMsg{Strategy: e.strategy, Question: e.question, FollowUp: len(e.after) > 0}
}

func (m *Model) newTopic() pane.Action {
	m.NewTopic()
	return pane.Notice{Text: "The next question starts a new topic."}
}

// switchFollowUp makes the question being typed start a new topic when it
// would follow up on the conversation, and the other way round.
func (m *Model) switchFollowUp() pane.Action {
	earlier := m.topicQuestions()
	if len(earlier) == 0 {
		return pane.Notice{Text: "Nothing to follow up on yet: the next question starts a new topic."}
	}
	if m.followsUp(m.input.Value()) {
		m.choice = chooseNewTopic
		return pane.Notice{Text: "This question starts a new topic."}
	}
	m.choice = chooseFollowUp
	return pane.Notice{Text: "This question follows up on “" + textproc.OneLine(earlier[len(earlier)-1]) + "”."}
}

// clear empties the view; the answers stay saved.
func (m *Model) clear() pane.Action {
	if m.Streaming() {
		return pane.Notice{Text: "An answer is being written: wait, or cancel it first."}
	}
	m.entries, m.sel, m.top, m.topic, m.choice = nil, noSel, pos{}, 0, chooseAuto
	m.older.more, m.cleared = false, true
	m.cache.clear()
	return pane.Notice{Text: "Cleared; the next question starts a new topic. Saved answers stay in the library (citelens answers)."}
}

// moveStatement selects the statement d places on, through every answer.
func (m *Model) moveStatement(d int) {
	m.follow = false
	all := m.statementCount()
	if all == 0 {
		if d < 0 {
			m.scroll(-1)
		}
		return
	}
	i := m.statementIndex(m.sel)
	if i < 0 {
		i = all // nothing selected: k takes the last, j too
		if d > 0 {
			d = -1
		}
	}
	if i+d < 0 {
		m.scroll(-1 << 30) // before the first: to the top, where older answers are
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

// StepCitation selects the next (d = 1) or previous (d = -1) citation,
// across statements and answers, and returns what shows it (a
// CitationMsg, or a pane.Notice at either end). With nothing selected it
// goes to the newest answer's first citation.
func (m *Model) StepCitation(d int) pane.Action {
	m.follow = false
	s := m.sel
	if s.e < 0 {
		m.selectNewest()
		if m.sel.e < 0 {
			return pane.Notice{Text: "No citations yet."}
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
			return pane.Notice{Text: "That was the " + what + " citation."}
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
