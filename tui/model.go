package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/addfiles"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/library"
	"github.com/citelens/citelens/tui/picker"
	"github.com/citelens/citelens/tui/source"
)

// pane names a pane; the order is the tab order.
type pane int

const (
	paneLibrary pane = iota
	paneConversation
	paneSource
	numPanes
)

func (p pane) title() string {
	return [...]string{"Library", "Conversation", "Source"}[p]
}

// Model is the root model: the three panes, the layout, the help, a
// picker or the add dialog when one is open, and the work in progress.
type Model struct {
	keys KeyMap
	opts Options

	sel    themes.Selector
	styles *themes.Styles

	width, height int
	focus         pane

	lib  library.Model
	conv conversation.Model
	src  source.Model

	help     help.Model
	showHelp bool
	helpTop  int

	picker       *picker.Model
	exportTarget *engine.Answer // the answer the format picker exports
	add          *addfiles.Model

	notice    string // a one-off message for the status line
	noticeErr bool

	strategy string
	// docs holds the documents loaded for the source pane, shared by the
	// model's copies; Update only reads and fills it.
	docs    map[docstore.DocID]*docstore.Document
	pending *conversation.CitationMsg // a citation waiting for its document

	bg      *background
	run     *askRun
	runs    int // asks so far, to tell a stale run's messages
	adding  *addRun
	queued  []string // paths to add once the adding in progress is done
	waiting *waitingAsk
	prep    *prepareRun
	stamp   libraryStamp // the library file as last looked at
	// newest is the ID of the newest saved answer known (shown, or
	// written here), from which answers saved elsewhere are looked for;
	// loaded says the first page of answers has come.
	newest string
	loaded bool
}

// waitingAsk is a question asked while documents were being added: it is
// asked once they are in.
type waitingAsk struct {
	question string
	history  []engine.Turn
	added    []docstore.DocID // the documents added meanwhile
}

// New returns the root model for opts.
func New(opts Options) Model {
	if opts.Strategy == "" {
		opts.Strategy = engine.DefaultStrategy
	}
	if opts.ExportDir == "" {
		opts.ExportDir = "."
	}
	if opts.AddDir == "" {
		opts.AddDir = "."
	}
	styles := opts.Theme.Initial()
	m := Model{
		keys:     DefaultKeyMap(),
		opts:     opts,
		sel:      opts.Theme,
		styles:   styles,
		focus:    paneConversation,
		lib:      library.New(styles),
		conv:     conversation.New(styles),
		src:      source.New(styles),
		help:     help.New(),
		strategy: opts.Strategy,
		docs:     map[docstore.DocID]*docstore.Document{},
		bg:       newBackground(context.Background()),
	}
	if opts.Now != nil {
		m.conv.Now = opts.Now
	}
	m.help.Styles = styles.Help
	m.conv.SetStrategy(m.strategy)
	m.conv.Focus(true)
	m.syncScope()
	return m
}

// Init loads the library and the latest saved answers, starts adding the
// files given and watching the library for what other processes add, and
// asks the terminal for its background colour when the theme depends on
// it.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{loadLibrary(m.opts.Library), loadAnswers(m.opts.Library, ""), watchLibrary(m.opts.Library.Path(), m.stamp)}
	if len(m.opts.Paths) > 0 {
		// Started here rather than in a command so that Shutdown, which
		// may come at any time, always knows of it.
		run := startAdd(m.bg, m.opts.Library, m.opts.Paths)
		cmds = append(cmds, func() tea.Msg { return addStartedMsg{run: run, paths: m.opts.Paths, only: true} })
	}
	if m.sel.Auto() {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// addStartedMsg hands an add run started in Init (which cannot change
// the model) to Update; only says its documents make the scope.
type addStartedMsg struct {
	run   *addRun
	paths []string
	only  bool
}

// Update routes a message to whoever owns it.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(m.sel.ForBackground(msg.IsDark()))
		return m, nil
	case tea.KeyPressMsg:
		return m.updateKey(msg)
	case tea.PasteMsg:
		if m.add != nil {
			return m.updateAdd(msg)
		}
		return m.updateFocused(msg)
	case tea.MouseWheelMsg:
		return m.updateFocused(msg)

	case libraryMsg:
		if m.stamp == (libraryStamp{}) {
			m.stamp = msg.stamp // the first list: what it read is known
		}
		if msg.err != nil {
			m.lib.SetError(msg.err)
		} else {
			m.lib.SetError(nil)
			m.lib.SetDocs(msg.docs)
		}
		m.syncScope()
		m.layout()
		return m, nil
	case libraryChangedMsg:
		m.stamp = msg.stamp
		cmds := []tea.Cmd{loadLibrary(m.opts.Library), watchLibrary(m.opts.Library.Path(), m.stamp)}
		if m.loaded {
			cmds = append(cmds, loadNewAnswers(m.opts.Library, m.newest))
		}
		return m, tea.Batch(cmds...)
	case libraryTickMsg:
		return m, watchLibrary(m.opts.Library.Path(), m.stamp)
	case libraryWaitMsg:
		m.setNotice("Another process is writing to the library; waiting for it…", false)
		return m, nil
	case answersMsg:
		if !m.loaded && msg.err == nil {
			m.loaded = true
			if len(msg.page.Answers) > 0 {
				m.newest = max(m.newest, msg.page.Answers[0].ID)
			}
		}
		m.conv.Load(msg.page)
		switch {
		case msg.err != nil:
			m.setNotice("Could not read the saved answers: "+msg.err.Error(), true)
		case msg.page.Skipped > 0:
			m.setNotice(fmt.Sprintf("%d saved answers could not be read and are not shown.", msg.page.Skipped), true)
		}
		return m, nil
	case newAnswersMsg:
		for _, a := range msg.answers {
			m.newest = max(m.newest, a.ID)
		}
		m.conv.Add(msg.answers)
		return m, nil

	case addStartedMsg:
		return m, m.began(msg.run, msg.paths, msg.only)
	case addExpandedMsg:
		m.lib.DoneAdding(msg.dir)
		for _, f := range msg.files {
			m.lib.SetProgress(library.Progress{Path: f, Stage: "waiting"})
		}
		m.layout()
		return m, m.adding.next()
	case addProgressMsg:
		m.lib.SetProgress(library.Progress{Path: msg.Path, Stage: msg.Stage, Done: msg.Done, Total: msg.Total})
		return m, m.adding.next()
	case addedMsg:
		m.lib.DoneAdding(msg.path)
		if msg.err != nil {
			m.setNotice(fmt.Sprintf("Could not add %s: %s", msg.path, msg.err), true)
		}
		m.layout()
		m.waitingStage()
		return m, tea.Batch(m.adding.next(), loadLibrary(m.opts.Library))
	case addsDoneMsg:
		return m.addsDone(msg)

	case conversation.AskMsg:
		return m.ask(msg.Question)
	case conversation.CancelMsg:
		switch {
		case m.run != nil:
			m.run.cancel()
			m.conv.Cancelling()
		case m.waiting != nil:
			m.waiting = nil
			m.conv.Finish(nil, errors.New("cancelled while the documents were being added"))
		}
		return m, nil
	case askEventsMsg:
		if m.run == nil || msg.id != m.run.id {
			return m, nil
		}
		m.conv.Apply(msg.events...)
		return m, m.run.next()
	case askDoneMsg:
		if m.run == nil || msg.id != m.run.id {
			return m, nil
		}
		m.run = nil
		if msg.ans != nil {
			m.newest = max(m.newest, msg.ans.ID)
		}
		m.conv.Finish(msg.ans, msg.err)
		if msg.saveErr != nil {
			m.setNotice("The answer could not be saved: "+msg.saveErr.Error(), true)
		}
		if errors.Is(msg.err, engine.ErrNotPrepared) {
			return m, prepareCost(m.opts.Env, msg.strategy, msg.docs)
		}
		return m, nil
	case prepareCostMsg:
		m.conv.SetPrepareCost(msg.text)
		return m, nil
	case conversation.PrepareMsg:
		if m.prep != nil {
			m.setNotice("The documents are already being prepared.", true)
			return m, nil
		}
		m.prep = startPrepare(m.bg, m.opts.Env, msg.Strategy, msg.Question, m.lib.Scope())
		m.conv.SetActivity("preparing the documents for " + msg.Strategy + "…")
		return m, m.prep.next()
	case prepareProgressMsg:
		if m.prep != nil {
			m.conv.SetActivity(prepareLine(m.prep.strategy, engine.Progress(msg)))
			return m, m.prep.next()
		}
		return m, nil
	case preparedMsg:
		if m.prep != msg.run {
			return m, nil
		}
		m.prep = nil
		m.conv.SetActivity("")
		if msg.err != nil {
			m.setNotice("Preparing the documents stopped: "+msg.err.Error(), true)
			return m, nil
		}
		m.setNotice("The documents are prepared; asking again.", false)
		return m.ask(msg.run.question)
	case conversation.CitationMsg:
		return m, m.showCitation(msg)
	case library.OpenMsg:
		// A document read from its start: a citation of nothing at 0.
		return m, m.showCitation(conversation.CitationMsg{
			Span: citations.Span{Doc: msg.Doc.ID}, Focus: true, Label: textproc.OneLine(msg.Doc.Name)})
	case library.AddMsg:
		a, cmd := addfiles.New(m.opts.AddDir, m.styles)
		m.add = &a
		return m, cmd
	case library.RemoveMsg:
		return m, removeDocument(m.opts.Library, msg.Doc)
	case removedMsg:
		if msg.err != nil {
			m.setNotice(fmt.Sprintf("Could not remove %s: %s", msg.doc.Name, msg.err), true)
			return m, nil
		}
		delete(m.docs, msg.doc.ID)
		m.setNotice(fmt.Sprintf("Removed %s from the library; saved answers that cite it keep their quotes.", textproc.OneLine(msg.doc.Name)), false)
		return m, loadLibrary(m.opts.Library)
	case library.NoticeMsg:
		m.setNotice(msg.Text, false)
		return m, nil
	case addfiles.AddMsg:
		m.add = nil
		return m, m.addPaths(msg.Paths)
	case addfiles.ClosedMsg:
		m.add = nil
		return m, nil
	case conversation.DeleteMsg:
		return m, deleteAnswer(m.opts.Library, msg.ID)
	case answerDeletedMsg:
		if msg.err != nil {
			m.setNotice("Could not delete the answer: "+msg.err.Error(), true)
			return m, nil
		}
		m.conv.Remove(msg.id)
		m.setNotice("Deleted the saved answer.", false)
		return m, nil
	case conversation.OlderMsg:
		return m, loadAnswers(m.opts.Library, msg.Before)
	case docMsg:
		if msg.err == nil {
			m.docs[msg.id] = msg.doc
		}
		if m.pending == nil || m.pending.Span.Doc != msg.id {
			return m, nil
		}
		c := *m.pending
		m.pending = nil
		if msg.err != nil {
			m.setNotice(fmt.Sprintf("Cannot show %s: %s", c.Label, msg.err), true)
			return m, nil
		}
		return m, m.showCitation(c)
	case conversation.ExportMsg:
		if msg.Format == "" {
			m.exportTarget = msg.Answer
			m.openFormatPicker()
			return m, nil
		}
		return m, exportAnswer(m.opts.Library, m.opts.ExportDir, msg.Format, msg.Answer)
	case exportedMsg:
		if msg.err != nil {
			m.setNotice("Export failed: "+msg.err.Error(), true)
		} else {
			m.setNotice("Exported to "+msg.path, false)
		}
		return m, nil
	case conversation.CopyMsg:
		text := clipboardText(msg.Text)
		m.setNotice(fmt.Sprintf("Copied %s (%d characters) to the clipboard.", msg.Label, len([]rune(text))), false)
		return m, tea.SetClipboard(text)
	case conversation.StrategyMsg:
		m.openStrategyPicker()
		return m, nil
	case conversation.NoticeMsg:
		m.setNotice(msg.Text, msg.Error)
		return m, nil
	case source.NoticeMsg:
		m.setNotice(msg.Text, false)
		return m, nil
	case picker.ChosenMsg:
		m.picker = nil
		switch msg.Kind {
		case "strategy":
			m.strategy = msg.Item.Name
			m.conv.SetStrategy(m.strategy)
			m.setNotice("Questions now go to the "+m.strategy+" strategy.", false)
		case "format":
			if a := m.exportTarget; a != nil {
				m.exportTarget = nil
				return m, exportAnswer(m.opts.Library, m.opts.ExportDir, msg.Item.Name, a)
			}
		}
		return m, nil
	case picker.ClosedMsg:
		m.picker = nil
		m.exportTarget = nil
		return m, nil
	case source.CloseMsg, library.CloseMsg:
		return m, m.setFocus(paneConversation, true)
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.conv, cmd, _ = m.conv.Update(msg)
		return m, cmd
	}
	if m.add != nil {
		// The dialog's directory listings.
		a, cmd, outcome := m.add.Update(msg)
		m.add = &a
		if outcome != nil {
			nm, ocmd := m.Update(outcome)
			return nm, tea.Batch(cmd, ocmd)
		}
		if cmd != nil {
			return m, cmd
		}
	}
	// Anything else belongs to a pane (the source pane's search results,
	// an input's own messages): each takes what is its own.
	var c1, c2, c3 tea.Cmd
	m.src, c1 = m.src.Update(msg)
	m.conv, c2, _ = m.conv.Update(msg)
	m.lib, c3, _ = m.lib.Update(msg)
	return m, tea.Batch(c1, c2, c3)
}

// typing reports whether keys are text now, or the answer to a question
// on screen: the question input, the library's filter, the source's
// search prompt, the add dialog's paths line, or a yes-or-no question.
func (m Model) typing() bool {
	if m.add != nil {
		return m.add.Typing()
	}
	switch m.focus {
	case paneConversation:
		return m.conv.Typing() || m.conv.Confirming()
	case paneLibrary:
		return m.lib.Filtering() || m.lib.Confirming()
	case paneSource:
		return m.src.Searching()
	}
	return false
}

func (m Model) updateKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.notice = ""
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.HelpClose):
			m.showHelp = false
		case key.Matches(msg, k.Quit):
			return m.quit()
		case key.Matches(msg, k.HelpDown):
			m.helpTop = min(m.helpTop+1, m.helpMaxTop())
		case key.Matches(msg, k.HelpUp):
			m.helpTop = max(m.helpTop-1, 0)
		}
		return m, nil
	}
	if m.add != nil {
		return m.updateAdd(msg)
	}
	if m.picker != nil {
		if key.Matches(msg, k.Quit) {
			return m.quit()
		}
		p, outcome := m.picker.Update(msg)
		m.picker = &p
		if outcome != nil {
			return m.Update(outcome)
		}
		return m, nil
	}
	typing := m.typing()
	if !typing {
		switch {
		case key.Matches(msg, k.Quit):
			return m.quit()
		case key.Matches(msg, k.Help):
			m.showHelp, m.helpTop = true, 0
			return m, nil
		}
	}
	// A prompt that owns every key (the source's search, the library's
	// filter, a yes-or-no question) keeps tab; elsewhere tab moves on,
	// even from the question input (where it would insert nothing), and
	// lands in the conversation's input, ready for a question.
	owned := m.focus == paneSource && m.src.Searching() || m.focus == paneLibrary && (m.lib.Filtering() || m.lib.Confirming()) ||
		m.focus == paneConversation && m.conv.Confirming()
	if !owned {
		switch {
		case key.Matches(msg, k.NextPane):
			return m, m.setFocus((m.focus+1)%numPanes, true)
		case key.Matches(msg, k.PrevPane):
			return m, m.setFocus((m.focus+numPanes-1)%numPanes, true)
		}
	}
	return m.updateFocused(msg)
}

// updateAdd gives msg to the add dialog.
func (m Model) updateAdd(msg tea.Msg) (tea.Model, tea.Cmd) {
	a, cmd, outcome := m.add.Update(msg)
	m.add = &a
	if outcome != nil {
		nm, ocmd := m.Update(outcome)
		return nm, tea.Batch(cmd, ocmd)
	}
	return m, cmd
}

// updateFocused gives msg to the focused pane.
func (m Model) updateFocused(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.focus {
	case paneLibrary:
		before := m.lib.Scope()
		var action tea.Msg
		m.lib, cmd, action = m.lib.Update(msg)
		if !sameScope(before, m.lib.Scope()) {
			m.syncScope()
		}
		if action != nil {
			nm, acmd := m.Update(action)
			return nm, tea.Batch(cmd, acmd)
		}
	case paneConversation:
		var action tea.Msg
		m.conv, cmd, action = m.conv.Update(msg)
		if action != nil {
			// Carried out now, in order with the keys that follow.
			nm, acmd := m.Update(action)
			return nm, tea.Batch(cmd, acmd)
		}
	case paneSource:
		k, isKey := msg.(tea.KeyPressMsg)
		if isKey && !m.src.Searching() {
			sk := m.src.KeyMap.Search
			switch {
			case key.Matches(k, sk.Back) && !m.src.HasSearch():
				// The pane would say so with a CloseMsg command; acting
				// now keeps a quick "esc n" from giving the n to the
				// source.
				return m, m.setFocus(paneConversation, true)
			case !m.src.HasSearch() && (key.Matches(k, sk.Next) || key.Matches(k, sk.Prev)):
				// Without a search, n and N step through the citations
				// here too, the keyboard staying with the source.
				d := 1
				if key.Matches(k, sk.Prev) {
					d = -1
				}
				return m.Update(m.conv.StepCitation(d))
			}
		}
		m.src, cmd = m.src.Update(msg)
	}
	return m, cmd
}

func sameScope(a, b []docstore.DocID) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (m Model) quit() (tea.Model, tea.Cmd) {
	if m.run != nil {
		m.run.cancel() // saved as a partial answer before the library closes
	}
	return m, tea.Quit
}

// setFocus moves the keyboard to p; typing says whether the conversation
// takes it in the input.
func (m *Model) setFocus(p pane, typing bool) tea.Cmd {
	m.focus = p
	m.lib.SetFocused(p == paneLibrary)
	var cmd tea.Cmd
	if p == paneConversation {
		cmd = m.conv.Focus(typing)
	} else {
		m.conv.Blur()
	}
	m.layout() // a narrow window shows only the focused pane
	return cmd
}

func (m *Model) setStyles(s *themes.Styles) {
	m.styles = s
	m.lib.SetStyles(s)
	m.conv.SetStyles(s)
	m.src.SetStyles(s)
	m.help.Styles = s.Help
	if m.picker != nil {
		m.picker.SetStyles(s)
	}
	if m.add != nil {
		m.add.SetStyles(s)
	}
}

func (m *Model) setNotice(text string, isErr bool) {
	m.notice, m.noticeErr = text, isErr
}

// syncScope tells the conversation what the next question is asked of.
func (m *Model) syncScope() {
	n, of := m.lib.InScope()
	var s string
	switch {
	case of == 0:
		s = "no documents yet"
	case n == of && n == 1:
		s = "the one document"
	case n == of:
		s = fmt.Sprintf("all %d documents", n)
	default:
		s = fmt.Sprintf("%d of %d documents", n, of)
	}
	m.conv.SetScope(s)
}

// addPaths adds files and folders: now, or after the adding in
// progress.
func (m *Model) addPaths(paths []string) tea.Cmd {
	if len(paths) == 0 {
		return nil
	}
	if m.adding != nil {
		m.queued = append(m.queued, paths...)
		for _, p := range paths {
			m.lib.SetProgress(library.Progress{Path: p, Stage: "waiting"})
		}
		m.layout()
		return nil
	}
	return m.began(startAdd(m.bg, m.opts.Library, paths), paths, false)
}

// began shows an add run that has started.
func (m *Model) began(run *addRun, paths []string, only bool) tea.Cmd {
	m.adding = run
	run.only = only
	for _, p := range paths {
		m.lib.SetProgress(library.Progress{Path: p, Stage: "waiting"})
	}
	m.layout()
	m.waitingStage()
	return run.next()
}

// addsDone ends an add run: the queued paths start, or, when nothing is
// left to add, a question waiting for the documents is asked.
func (m Model) addsDone(msg addsDoneMsg) (tea.Model, tea.Cmd) {
	only := m.adding != nil && m.adding.only
	m.adding = nil
	if only && len(msg.ids) > 0 {
		m.lib.SetScopeOnly(msg.ids)
		m.syncScope()
	}
	if m.waiting != nil {
		m.waiting.added = append(m.waiting.added, msg.ids...)
	}
	if len(m.queued) > 0 {
		q := m.queued
		m.queued = nil
		return m, tea.Batch(m.began(startAdd(m.bg, m.opts.Library, q), nil, false), loadLibrary(m.opts.Library))
	}
	if w := m.waiting; w != nil {
		m.waiting = nil
		// The library's new list may not have come back yet: the scope
		// is the one chosen, with what was added meanwhile (new
		// documents are in scope), or just those for files given at
		// start.
		scope := m.lib.Scope()
		switch {
		case only:
			scope = msg.ids
		case scope != nil:
			for _, id := range w.added {
				if !slices.Contains(scope, id) {
					scope = append(scope, id)
				}
			}
		}
		return m, m.startRun(w.question, w.history, scope)
	}
	return m, nil
}

// waitingStage says on the waiting question's line what it waits for.
func (m *Model) waitingStage() {
	if m.waiting == nil {
		return
	}
	n := m.lib.Adding()
	m.conv.Waiting(fmt.Sprintf("waiting for %s being added…", humanize.Plural(max(n, 1), "document", "documents")))
}

// ask starts answering question over the library's scope, as a follow-up
// to the conversation's current topic; while documents are being added
// it waits for them.
func (m Model) ask(question string) (tea.Model, tea.Cmd) {
	if m.run != nil || m.waiting != nil {
		m.setNotice("An answer is still being written.", true)
		return m, nil
	}
	scope := m.lib.Scope()
	if scope != nil && len(scope) == 0 {
		m.setNotice("Nothing is in scope: put documents in it with space in the library pane.", true)
		return m, nil
	}
	adding := m.adding != nil || len(m.queued) > 0
	if _, of := m.lib.InScope(); of == 0 && !adding {
		m.setNotice("No documents yet: add some with "+m.lib.KeyMap.List.Add.Help().Key+" in the library pane (tab goes there).", true)
		return m, nil
	}
	history := m.conv.Turns()
	n, _ := m.lib.InScope()
	spin := m.conv.Begin(question, m.strategy, n, questions(history))
	// The input keeps the keyboard: the next question can be typed while
	// this one is answered, and the arrows, enter and esc reach the
	// answers (see KEYS.md).
	focus := m.setFocus(paneConversation, true)
	if adding {
		m.waiting = &waitingAsk{question: question, history: history}
		m.waitingStage()
		return m, tea.Batch(spin, focus)
	}
	return m, tea.Batch(spin, focus, m.startRun(question, history, scope))
}

// startRun runs the strategy on question over scope (nil: every
// document), its entry already begun.
func (m *Model) startRun(question string, history []engine.Turn, scope []docstore.DocID) tea.Cmd {
	m.runs++
	m.run = startAsk(m.bg, m.runs, m.opts.Env, m.strategy, engine.Request{Question: question, Docs: scope, History: history})
	return m.run.next()
}

// questions are the turns' questions.
func questions(ts []engine.Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Question
	}
	return out
}

// showCitation shows c in the source pane, loading its document first if
// need be.
func (m *Model) showCitation(c conversation.CitationMsg) tea.Cmd {
	doc, ok := m.docs[c.Span.Doc]
	if !ok {
		m.pending = &c
		return loadDocument(m.opts.Library, c.Span.Doc)
	}
	m.pending = nil // a citation asked for earlier must not replace this one
	primary := source.Range{Start: c.Span.Start, End: c.Span.End}
	var others []source.Range
	for _, o := range c.Others {
		if o.Doc == c.Span.Doc {
			others = append(others, source.Range{Start: o.Start, End: o.End})
		}
	}
	m.src.Show(doc, primary, others)
	if c.Focus {
		return m.setFocus(paneSource, false)
	}
	return nil
}

func (m *Model) openStrategyPicker() {
	var items []picker.Item
	for _, info := range engine.Strategies() {
		it := picker.Item{Name: info.Name(), Description: info.Description}
		if info.NeedsLLM && m.opts.Env != nil && m.opts.Env.LLM == nil {
			if _, err := m.opts.Env.RequireLLM(info.Name()); err != nil {
				it.Unavailable = strings.TrimPrefix(err.Error(), engine.ErrUnavailable.Error()+": ")
				it.Tag = "needs a model"
			}
		}
		items = append(items, it)
	}
	p := picker.New("strategy", "Strategy", items, m.strategy, m.styles)
	m.picker = &p
}

func (m *Model) openFormatPicker() {
	items := make([]picker.Item, 0, len(citations.Formats))
	for _, f := range citations.Formats {
		items = append(items, picker.Item{Name: f.Name, Description: f.Description})
	}
	p := picker.New("format", "Export as", items, "md", m.styles)
	m.picker = &p
}

// View draws the whole screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "citelens"
	return v
}

// render draws the screen as a string of exactly width × height cells.
func (m Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	lo := m.computeLayout()
	if lo.tooSmall {
		return m.tooSmall()
	}
	var lines []string
	if m.showHelp {
		lines = m.helpScreen(w, h-1)
	} else {
		lines = m.panes(lo)
	}
	if !m.showHelp {
		switch {
		case m.add != nil:
			lines = overlay(lines, m.add.View(w-4, h-3), w)
		case m.picker != nil:
			lines = overlay(lines, m.picker.View(w-4, h-3), w)
		}
	}
	lines = append(lines, m.statusLine(w))
	return strings.Join(lines, "\n")
}

// statusLine is the notice if there is one, else the keys that apply:
// the focused pane's on the left, as many as fit, and the global ones
// (help and quitting) always, on the right.
func (m Model) statusLine(w int) string {
	if m.notice != "" {
		st := m.styles.Accent
		if m.noticeErr {
			st = m.styles.Error
		}
		return draw.Fit(st.Render(draw.Truncate(textproc.OneLine(m.notice), w)), w)
	}
	m.help.SetWidth(w)
	var local, global []key.Binding
	switch {
	case m.showHelp:
		local, global = []key.Binding{m.keys.HelpClose, m.keys.HelpDown}, []key.Binding{m.keys.Quit}
	case m.add != nil:
		local, global = m.add.KeyMap.ShortHelp(), []key.Binding{m.keys.ForceQuit}
	case m.picker != nil:
		local, global = m.picker.KeyMap.ShortHelp(), []key.Binding{m.keys.Quit}
	case m.typing():
		local, global = m.focusedHelp(), []key.Binding{m.keys.NextPane, m.keys.ForceQuit}
	default:
		local, global = m.focusedHelp(), m.keys.ShortHelp()
	}
	right := m.help.ShortHelpView(global)
	rw := fullWidth(right)
	if rw+2 > w {
		return draw.Fit(right, w)
	}
	// As many of the pane's keys as fit beside the global ones.
	m.help.SetWidth(w - rw - 3)
	left := m.help.ShortHelpView(local)
	return draw.Spread(left, right, w)
}

func (m Model) focusedHelp() []key.Binding {
	switch m.focus {
	case paneLibrary:
		return m.lib.ShortHelp()
	case paneSource:
		return m.src.ShortHelp()
	}
	return m.conv.ShortHelp()
}

// tooSmall is the whole screen when the window cannot hold the panes.
func (m Model) tooSmall() string {
	msg := fmt.Sprintf("window too small: citelens needs %d×%d", minWidth, minHeight)
	lines := draw.Wrap(msg, m.width)
	out := make([]string, m.height)
	for i := range out {
		if i < len(lines) {
			out[i] = draw.Fit(m.styles.Warning.Render(lines[i]), m.width)
		} else {
			out[i] = draw.Pad(m.width)
		}
	}
	return strings.Join(out, "\n")
}
