package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	_ "github.com/citelens/citelens/engine/extractive"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
)

// The tests drive the real root model in a real bubbletea program
// (teatest) over a real library holding testdata/declaration.txt. Most
// ask the "scripted" strategy registered below: it answers from the
// library like any strategy (spans resolved from the stored sentences,
// verified offline) but says what the test scripts, and can pause
// mid-answer, so streaming can be watched frame by frame and goldens do
// not move when the extractive ranking is tuned. One test asks the
// extractive strategy itself.

const declaration = "../testdata/declaration.txt"

// script is what the scripted strategy answers. Tests run one at a time.
var script struct {
	mu sync.Mutex
	// statements: text and the phrases of the sentences each cites.
	statements []scriptedStatement
	// pauseAfter: after that many statements, wait for gate (or cancel).
	pauseAfter int
	gate       chan struct{}
	// draft is streamed before the first statement, by the model the
	// answer's environment has (the scripted strategy asks it for the
	// draft): the test's llmtest server.
	draft string
	plan  engine.Plan
	// warnings are reported before the statements.
	warnings []string
	// usage is the model work reported at the end (default 1,200 + 80
	// tokens in one call).
	usage *llm.Usage
}

// textPlan is a plan that is its line.
type textPlan string

func (p textPlan) Line() string { return string(p) }

type scriptedStatement struct {
	text  string
	cites []string // phrases; each cites the sentence holding it
}

func setScript(t *testing.T, pauseAfter int, sts ...scriptedStatement) chan struct{} {
	t.Helper()
	script.mu.Lock()
	defer script.mu.Unlock()
	script.statements, script.pauseAfter = sts, pauseAfter
	script.gate = make(chan struct{})
	script.draft, script.plan, script.warnings, script.usage = "", nil, nil, nil
	return script.gate
}

// declarationScript is the usual answer: three statements, the last with
// two citations.
func declarationScript(t *testing.T, pauseAfter int) chan struct{} {
	return setScript(t, pauseAfter,
		scriptedStatement{"The colonists objected to taxes imposed without their consent.", []string{"For imposing Taxes on us without our Consent"}},
		scriptedStatement{"Standing armies were kept among them in peacetime.", []string{"Standing Armies without the Consent of our legislatures"}},
		scriptedStatement{"Their trade was cut off and trial by jury denied.", []string{"For cutting off our Trade", "benefits of Trial by Jury"}},
	)
}

type scripted struct{ name string }

func init() {
	engine.Register(engine.Info{
		Strategy:    scripted{"scripted"},
		Description: "test strategy: answers what the test scripts",
	})
	// A model's strategy as the TUI sees one (NeedsLLM), which in the test
	// answers without calling the model.
	engine.Register(engine.Info{
		Strategy:    scripted{"model-scripted"},
		Description: "test strategy standing in for a model's",
		NeedsLLM:    true,
	})
	engine.Register(engine.Info{
		Strategy:    scripted{"needs-model"},
		Description: "test strategy that needs a model endpoint",
		NeedsLLM:    true,
	})
}

func (s scripted) Name() string { return s.name }

func (scripted) Options() engine.Options { return nil }

func (s scripted) Answer(ctx context.Context, rt *engine.Runtime) error {
	script.mu.Lock()
	sts, pause, gate, draft, plan := script.statements, script.pauseAfter, script.gate, script.draft, script.plan
	warnings, usage := script.warnings, script.usage
	script.mu.Unlock()
	if usage == nil {
		usage = &llm.Usage{PromptTokens: 1200, CompletionTokens: 80, LLMCalls: 1}
	}

	rt.Stage("retrieving…")
	for _, w := range warnings {
		rt.Warn(w)
	}
	if plan != nil {
		rt.Plan(plan)
	}
	if draft != "" {
		if _, err := rt.Model().Stream(ctx, engine.Working, llm.ChatRequest{Messages: []llm.Message{llm.User("draft")}}, nil); err != nil {
			return err
		}
	}
	for i, st := range sts {
		if i == pause {
			rt.Stage("sub-question 2/2: what else did the colonists hold against the king, and how did they say it?")
			select {
			case <-gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		out := citations.Statement{Text: st.text}
		for _, phrase := range st.cites {
			out.Citations = append(out.Citations, spanOf(rt.Docs(), phrase))
		}
		citations.Verify(&out)
		rt.Statement(out)
	}
	rt.Usage(*usage)
	return nil
}

// spanOf is the citation of the sentence holding phrase.
func spanOf(docs []*docstore.Document, phrase string) citations.Span {
	for _, d := range docs {
		off := strings.Index(d.Text, phrase)
		if off < 0 {
			continue
		}
		for i, s := range d.Sentences {
			if int(s.Start) <= off && off < int(s.End) {
				return citations.SpanOf(d, i, i)
			}
		}
	}
	panic("no sentence holds " + phrase)
}

func testOptions(t testing.TB, lib *docstore.Library, theme string) Options {
	t.Helper()
	sel, err := themes.NewSelector(theme, false)
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Library:   lib,
		Env:       engine.NewEnv(lib, config.Config{}),
		Theme:     sel,
		Strategy:  "scripted",
		ExportDir: t.TempDir(),
		// A clock that stands still: no waiting time in the goldens.
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		// No model server is looked for on this machine's ports, where
		// one may run: a test that wants one names its port.
		LocalPorts: []llm.LocalPort{},
		ConfigPath: filepath.Join(t.TempDir(), "config.toml"),
	}
}

// harness runs the root model in teatest and publishes every frame, so a
// test can wait for a state without depending on the renderer's timing.
type harness struct {
	m     Model
	probe *probe
}

type probe struct {
	mu     sync.Mutex
	model  Model
	view   string
	notice string
	keys   int // key presses handled
	focus  paneID
}

func (h harness) Init() tea.Cmd { return h.m.Init() }

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	v := h.m.render()
	h.probe.mu.Lock()
	h.probe.view, h.probe.notice, h.probe.focus, h.probe.model = v, h.m.notice, h.m.focus, h.m
	if _, ok := msg.(tea.KeyPressMsg); ok {
		h.probe.keys++
	}
	h.probe.mu.Unlock()
	return h, cmd
}

func (h harness) View() tea.View { return h.m.View() }

// session is a running program under test.
type session struct {
	t     *testing.T
	opts  Options
	tm    *teatest.TestModel
	probe *probe
	w, h  int
}

func start(t *testing.T, opts Options, w, h int) *session {
	t.Helper()
	p := &probe{}
	m := New(opts)
	t.Cleanup(m.Shutdown) // before the library closes (cleanups run last first)
	tm := teatest.NewTestModel(t, harness{m: m, probe: p},
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.TrueColor)))
	s := &session{t: t, opts: opts, tm: tm, probe: p, w: w, h: h}
	// The size reaches the program from a goroutine of its own.
	s.waitFor(func(v string) bool { return strings.Count(v, "\n") == h-1 }, "its size")
	return s
}

// startDeclaration starts the program at w×h in theme over a new library
// holding the declaration.
func startDeclaration(t *testing.T, theme string, w, h int) (*docstore.Library, *session) {
	t.Helper()
	lib, _ := enginetest.Library(t, declaration)
	return lib, start(t, testOptions(t, lib, theme), w, h)
}

// question is what most tests ask.
const question = "What did the colonists object to?"

// asking starts the program at w×h in theme over a library holding the
// declaration and, once the library shows, asks the question of the
// scripted strategy answering declarationScript(pauseAfter); the gate
// releases a paused answer.
func asking(t *testing.T, theme string, w, h, pauseAfter int) (*docstore.Library, *session, chan struct{}) {
	t.Helper()
	gate := declarationScript(t, pauseAfter)
	lib, s := startDeclaration(t, theme, w, h)
	s.waitText("declaration.txt")
	s.ask(question)
	return lib, s, gate
}

// answered is asking with no pause, once the answer's three statements
// are shown, with the keyboard in the answers (esc).
func answered(t *testing.T, theme string, w, h int) (*docstore.Library, *session) {
	t.Helper()
	lib, s, _ := asking(t, theme, w, h, -1)
	s.waitText("scripted · 3 statements")
	s.press("esc")
	return lib, s
}

func (s *session) view() string {
	s.probe.mu.Lock()
	defer s.probe.mu.Unlock()
	return s.probe.view
}

func (s *session) waitFor(ok func(string) bool, what string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := s.view()
		if ok(v) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s; last:\n%s", what, ansi.Strip(v))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle waits for the screen to stop changing (spinner aside) and
// returns it: what a key asks of another pane arrives as a message of its
// own, a moment after the key.
func (s *session) settle() string {
	s.t.Helper()
	const quiet = 40 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	last := spinnerRE.ReplaceAllString(s.view(), "*")
	since := time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			s.t.Fatal("the screen never settled")
		}
		time.Sleep(5 * time.Millisecond)
		if v := spinnerRE.ReplaceAllString(s.view(), "*"); v != last {
			last, since = v, time.Now()
		}
	}
	return s.view()
}

// waitText waits for text on the screen (SGR stripped).
func (s *session) waitText(text string) {
	s.t.Helper()
	s.waitFor(func(v string) bool { return strings.Contains(ansi.Strip(v), text) }, fmt.Sprintf("%q", text))
}

// waitFocus waits for p to have the keyboard.
func (s *session) waitFocus(p paneID) {
	s.t.Helper()
	s.waitModel(func(m Model) bool { return m.focus == p }, "the focus go to the "+p.title()+" pane")
}

// waitAdded waits for every add in progress to end: a library list that
// holds the last file can come before the message that it is added.
func (s *session) waitAdded() {
	s.t.Helper()
	s.waitModel(func(m Model) bool { return m.adding == nil && m.lib.Adding() == 0 }, "the adds end")
}

// waitModel waits for the model as last drawn to be ok.
func (s *session) waitModel(ok func(Model) bool, what string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.probe.mu.Lock()
		m := s.probe.model
		s.probe.mu.Unlock()
		if ok(m) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("never saw %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitGone waits for text to leave the screen.
func (s *session) waitGone(text string) {
	s.t.Helper()
	s.waitFor(func(v string) bool { return !strings.Contains(ansi.Strip(v), text) }, fmt.Sprintf("no %q", text))
}

// press sends keys, each once the one before has been handled.
func (s *session) press(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.probe.mu.Lock()
		n := s.probe.keys
		s.probe.mu.Unlock()
		s.tm.Send(keytest.Press(k))
		deadline := time.Now().Add(5 * time.Second)
		for {
			s.probe.mu.Lock()
			done := s.probe.keys > n
			s.probe.mu.Unlock()
			if done {
				break
			}
			if time.Now().After(deadline) {
				s.t.Fatalf("key %q was never handled", k)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// typeText types text into whatever has the keyboard.
func (s *session) typeText(text string) {
	s.t.Helper()
	for _, r := range text {
		s.press(string(r))
	}
}

// finish quits the program and returns its final model.
func (s *session) finish() Model {
	s.t.Helper()
	if err := s.tm.Quit(); err != nil {
		s.t.Fatal(err)
	}
	return s.tm.FinalModel(s.t, teatest.WithFinalTimeout(10*time.Second)).(harness).m
}

// spinnerRE matches the spinner's frames, which depend on time.
var spinnerRE = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]`)

// golden compares the screen with testdata/<test>/<name>.golden (go test
// -update rewrites it), after checking every line is exactly the window's
// width. The screen is the root model's own drawing, SGR included: the
// renderer's byte stream depends on frame timing, the drawing does not.
func (s *session) golden(name string) {
	s.t.Helper()
	v := s.settle()
	lines := strings.Split(v, "\n")
	if len(lines) != s.h {
		s.t.Errorf("%s: screen has %d lines, want %d", name, len(lines), s.h)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != s.w {
			s.t.Errorf("%s: line %d is %d cells, want %d: %q", name, i, w, s.w, ansi.Strip(l))
		}
	}
	v = spinnerRE.ReplaceAllString(v, "*")
	s.t.Run(name, func(t *testing.T) { teatest.RequireEqualOutput(t, []byte(v+"\n")) })
}

// ask types a question and asks it.
func (s *session) ask(q string) {
	s.t.Helper()
	s.typeText(q)
	s.press("enter")
}
