package tui

import (
	"context"
	"os"
	"path/filepath"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/addfiles"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/internal/pane"
	"github.com/citelens/citelens/tui/library"
	"github.com/citelens/citelens/tui/pageview"
	"github.com/citelens/citelens/tui/source"
	"github.com/citelens/citelens/tui/termimage"
	"github.com/citelens/citelens/tui/threads"
)

// pane names a pane; the order is the tab order.
type paneID int

const (
	paneLibrary paneID = iota
	paneConversation
	paneSource
	numPanes
)

func (p paneID) title() string {
	return [...]string{"Library", "Conversation", "Source"}[p]
}

// Model is the root model: the three panes, the layout, the help, a
// picker or the add dialog when one is open, and the work in progress.
//
// Its Update only routes: the window and the keys to the root's own
// handling (keys.go), the messages of the work it started to the feature
// that started it (rootMsg: one file per feature — library.go,
// answers.go, ask.go, adding.go, citation.go, export.go, strategy.go,
// prepare.go — holds its messages, commands and handlers), and anything
// else to the panes. What a pane asks for comes back as an action, which
// act carries out.
type Model struct {
	keys KeyMap
	opts Options

	sel    themes.Selector
	styles *themes.Styles

	width, height int
	focus         paneID
	// toAnswers says esc from the source pane returns to the
	// conversation's answers, which had the keyboard when it went there;
	// otherwise it returns to the question input.
	toAnswers bool
	// pageSeen is the screen the page's picture was last written for
	// (pages.go: syncPage).
	pageSeen pageScreen

	lib  library.Model
	conv conversation.Model
	src  source.Model
	// page is the source pane's page view, shown in its place while
	// pageMode is set (v); detect reads the terminal's answers on what
	// it draws. pages draws them; renderer is the program's own, closed
	// by Shutdown (nil when the options brought pages).
	page     pageview.Model
	pageMode bool
	detect   termimage.Detector
	pages    *pageimage.Source
	renderer *pagerender.Renderer

	help     help.Model
	showHelp bool
	helpTop  int

	picker  *choice         // an open picker, and what choosing does
	add     *addfiles.Model // the open add dialog
	threads *threads.Model  // the open threads dialog (threads.go)

	notice    string // a one-off message for the status line
	noticeErr bool
	// addFailures are the files the last add run could not add, each
	// with why in full: the status line shows one line, cut, and the
	// next notice replaces it; the help screen lists them all until the
	// next run that fails.
	addFailures []string

	strategy string
	// docs holds the documents loaded for the source pane, shared by the
	// model's copies; Update only reads and fills it.
	docs    map[docstore.DocID]*docstore.Document
	pending *conversation.CitationMsg // a citation waiting for its document
	// evidence is what newer versions of documents made of the saved
	// answers' citations, and cmp the citation so compared in the
	// source pane (stale.go).
	evidence evidence
	cmp      *comparison
	shown    *conversation.CitationMsg // the citation shown last

	bg      *background
	run     *askRun
	runs    int // asks so far, to tell a stale run's messages
	adding  *addRun
	queued  []string // paths to add once the adding in progress is done
	waiting *waitingAsk
	prep    *prepareRun
	// newest is the ID of the newest saved answer known (shown, or
	// written here), from about which answers saved elsewhere are looked
	// for, and seen every answer known, not to be loaded again (shared by
	// the model's copies, as docs); loaded says the first page of answers
	// has come. history is the oldest answer read while older ones
	// remain: those were there before, and come as the reader scrolls
	// back, never as new (see lookForNewAnswers).
	newest  string
	seen    map[string]bool
	loaded  bool
	history string
}

// rootMsg is a message of the root model's own work — a list loaded, an
// answer's events, a file added — which the feature that started the
// work handles, in the file beside the command that sends it.
type rootMsg interface {
	update(m *Model) tea.Cmd
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
	if opts.Adder == nil {
		opts.Adder = ingest.New(opts.Library, nil)
	}
	// Made absolute here, so opening the add dialog asks nothing of the
	// system in Update.
	if abs, err := filepath.Abs(opts.AddDir); err == nil {
		opts.AddDir = abs
	}
	styles := opts.Theme.Initial()
	pages, renderer := newPageSource(opts)
	m := Model{
		keys:     DefaultKeyMap(),
		opts:     opts,
		sel:      opts.Theme,
		styles:   styles,
		focus:    paneConversation,
		lib:      library.New(styles),
		conv:     conversation.New(styles),
		src:      source.New(styles),
		page:     pageview.New(styles, pages),
		detect:   termimage.Detector{Getenv: os.Getenv},
		pages:    pages,
		renderer: renderer,
		help:     help.New(),
		strategy: opts.Strategy,
		docs:     map[docstore.DocID]*docstore.Document{},
		evidence: evidence{aligned: reanchor.NewAligner(64)},
		seen:     map[string]bool{},
		bg:       newBackground(context.Background()),
	}
	if opts.Now != nil {
		m.conv.Now = opts.Now
	}
	m.help.Styles = styles.Help
	m.conv.SetStrategy(m.strategy)
	m.conv.Focus(true)
	m.syncScope()
	if opts.Graphics != termimage.Auto {
		m.applyGraphics()
	}
	return m
}

// Init loads the library and the latest saved answers, starts adding the
// files given and watching the library for what other processes add, and
// asks the terminal for its background colour when the theme depends on
// it.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{loadLibrary(m.opts.Library), loadAnswers(m.opts.Library, ""), watchLibrary(m.bg.ctx, m.opts.Library)}
	if len(m.opts.Paths) > 0 {
		// Started here rather than in a command so that Shutdown, which
		// may come at any time, always knows of it.
		run := startAdd(m.bg, m.opts.Adder, m.opts.Paths)
		cmds = append(cmds, func() tea.Msg { return addStartedMsg{run: run, paths: m.opts.Paths, only: true} })
	}
	if m.sel.Auto() {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	cmds = append(cmds, m.graphicsQueries())
	return tea.Batch(cmds...)
}

// Update routes a message to whoever owns it.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if m.detect.Update(msg) {
		// The terminal's answers on what it draws; DA1 comes last.
		if m.detect.Done() {
			cmd = m.applyGraphics()
		}
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		cmd = tea.Batch(m.applyGraphicsSize(), m.pixelSize())
	case tea.BackgroundColorMsg:
		m.setStyles(m.sel.ForBackground(msg.IsDark()))
	case tea.KeyPressMsg:
		cmd = m.updateKey(msg)
	case tea.PasteMsg, tea.MouseWheelMsg:
		cmd = m.updateFront(msg)
	case rootMsg:
		cmd = msg.update(&m)
	default:
		// The panes' own messages (the source's search results, an
		// input's cursor, the spinner): each takes what is its own.
		cmd = m.updatePanes(msg)
	}
	return m, tea.Batch(cmd, m.syncPage())
}

// updateFront gives msg to what is in front: an open dialog, else the
// focused pane.
func (m *Model) updateFront(msg tea.Msg) tea.Cmd {
	switch {
	case m.add != nil:
		return m.updateAdd(msg)
	case m.picker != nil:
		return m.updatePicker(msg)
	case m.threads != nil:
		return m.updateThreads(msg)
	}
	return m.updateFocused(msg)
}

// updateFocused gives msg to the focused pane.
func (m *Model) updateFocused(msg tea.Msg) tea.Cmd {
	switch m.focus {
	case paneLibrary:
		return m.updateLibrary(msg)
	case paneSource:
		return m.updateSource(msg)
	}
	return m.updateConversation(msg)
}

// updatePanes gives msg to every pane and the add dialog.
func (m *Model) updatePanes(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if m.add != nil {
		cmd = m.updateAdd(msg) // its directory listings
	}
	return tea.Batch(cmd, updatePane(m, &m.src, msg), updatePane(m, &m.page, msg), m.updateConversation(msg), m.updateLibrary(msg))
}

func (m *Model) updateConversation(msg tea.Msg) tea.Cmd { return updatePane(m, &m.conv, msg) }

func (m *Model) updateSource(msg tea.Msg) tea.Cmd {
	if m.pageMode {
		switch msg.(type) {
		case tea.KeyPressMsg, tea.MouseWheelMsg:
			return updatePane(m, &m.page, msg)
		}
	}
	return updatePane(m, &m.src, msg)
}

func (m *Model) updateLibrary(msg tea.Msg) tea.Cmd {
	before := m.lib.Scope()
	cmd := updatePane(m, &m.lib, msg)
	if !sameScope(before, m.lib.Scope()) {
		m.syncScope()
	}
	return cmd
}

// updatePane gives msg to the pane p and carries out what it asks.
func updatePane[P pane.Model[P]](m *Model, p *P, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	var a pane.Action
	*p, cmd, a = (*p).Update(msg)
	return tea.Batch(cmd, m.act(a))
}

// act carries out what a pane asked for, at once: in order with the keys
// that follow, as a command's message would not be. Each is handled by
// its feature's file.
func (m *Model) act(a pane.Action) tea.Cmd {
	if cmd, ok := m.actThreads(a); ok {
		return cmd
	}
	switch a := a.(type) {
	case pane.Notice:
		m.setNotice(a.Text, a.Error)
	case pane.Close: // a pane gives the keyboard back
		// The source pane gives it back where it came from: the answers
		// or the input (KEYS.md, rule 2).
		return m.setFocus(paneConversation, m.focus != paneSource || !m.toAnswers)
	case pane.Type: // a question started where nothing is typed
		return tea.Batch(m.setFocus(paneConversation, true), m.updateConversation(a.Key))
	case library.OpenMsg:
		return m.openDocument(a.Doc)
	case library.AddMsg:
		return m.openAddDialog()
	case library.RemoveMsg:
		return removeDocument(m.opts.Library, a.Doc)
	case addfiles.AddMsg:
		return m.addPaths(a.Paths)
	case conversation.AskMsg:
		return m.ask(a.Question, a.FollowUp)
	case conversation.CancelMsg:
		m.cancelAsk()
	case conversation.CitationMsg:
		return m.showCitation(a)
	case source.StepMsg:
		return m.act(m.conv.StepCitation(a.Delta))
	case source.PageViewMsg:
		return m.setPageMode(true)
	case pageview.TextMsg:
		return m.setPageMode(false)
	case source.VersionMsg, pageview.VersionMsg:
		return m.switchVersion()
	case pageview.StepMsg:
		return m.act(m.conv.StepCitation(a.Delta))
	case pageview.OpenMsg:
		return openInViewer(a)
	case conversation.OlderMsg:
		return loadAnswers(m.opts.Library, a.Before)
	case conversation.DeleteMsg:
		return deleteAnswer(m.opts.Library, a.ID)
	case conversation.ExportMsg:
		return m.export(a)
	case conversation.CopyMsg:
		return m.copyCitation(a)
	case conversation.StrategyMsg:
		return m.openStrategyPicker()
	case conversation.PrepareMsg:
		return m.prepare(a)
	}
	return nil
}

// quit cancels an answer being written (saved as partial before the
// library closes) and ends the program.
func (m *Model) quit() tea.Cmd {
	if m.run != nil {
		m.run.cancel()
	}
	if clean := m.page.Cleanup(); clean != "" {
		// The terminal's copy of the page picture, freed before leaving.
		return tea.Sequence(tea.Raw(clean), tea.Quit)
	}
	return tea.Quit
}

// setFocus moves the keyboard to p; typing says whether the conversation
// takes it in the input.
func (m *Model) setFocus(p paneID, typing bool) tea.Cmd {
	if p == paneSource && m.focus != paneSource {
		m.toAnswers = m.focus == paneConversation && !m.conv.Typing()
	}
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
	m.page.SetStyles(s)
	m.help.Styles = s.Help
	if m.picker != nil {
		m.picker.SetStyles(s)
	}
	if m.add != nil {
		m.add.SetStyles(s)
	}
	if m.threads != nil {
		m.threads.SetStyles(s)
	}
}

func (m *Model) setNotice(text string, isErr bool) {
	m.notice, m.noticeErr = text, isErr
}
