package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/tui/internal/keytest"
)

// The sizes the workspace's goldens are drawn at: the smallest two-column
// layout and a large three-column one.
var goldenSizes = [][2]int{{80, 24}, {160, 48}}

// addFolder makes a folder "docs" for the add dialog: documents of types
// citelens reads (the declaration among them), one it does not, and a
// subfolder.
func addFolder(t *testing.T) string {
	t.Helper()
	decl, err := os.ReadFile(declaration)
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.WriteTree(t, filepath.Join(t.TempDir(), "docs"), map[string]string{
		"declaration.txt":             string(decl),
		"x-minutes of the meeting.md": "# Minutes\n\nThe meeting agreed on the budget. It adjourned at noon.\n",
		"scan.png":                    strings.Repeat("x", 2048),
		"chapters/one.txt":            "Chapter one tells of the harbour. Boats sail across it.\n",
		"chapters/two.txt":            "Chapter two tells of the tower. Clocks tick in it.\n",
	})
}

func TestGoldenAddPicker(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			lib, _ := enginetest.Library(t)
			opts := testOptions(t, lib, "no-color")
			opts.AddDir = addFolder(t)
			s := start(t, opts, sz[0], sz[1])
			s.waitText("No documents yet")
			s.press("shift+tab", "a")
			s.waitText("declaration.txt")
			// Mark the folder and the Markdown file.
			s.press("space", "j", "j", "space")
			s.waitText("2 marked")
			s.golden("picker")
			s.press("enter")
			s.waitText("3/3 in scope")
			s.waitAdded()
			s.golden("added")
			s.finish()
			docs, _ := lib.List()
			if len(docs) != 3 {
				t.Errorf("%d documents added, want the folder's two and the Markdown file", len(docs))
			}
		})
	}
}

func TestGoldenTruncationWarning(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			declarationScript(t, -1)
			script.warnings = []string{"read 4,304 of 70,257 sentences (6%): the documents (412k tokens) exceed the model's 128k window; the sentences read are the most relevant to the question and those around them"}
			script.usage = &llm.Usage{PromptTokens: 110500, CompletionTokens: 307, LLMCalls: 1}
			_, s := startDeclaration(t, "no-color", sz[0], sz[1])
			s.waitText("declaration.txt")
			s.ask(question)
			s.waitText("scripted · 3 statements")
			s.waitText("read 4,304 of 70,257")
			s.golden("answer")
			s.finish()
		})
	}
}

func TestGoldenFollowUp(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			declarationScript(t, -1)
			lib, s := startDeclaration(t, "no-color", sz[0], sz[1])
			s.waitText("declaration.txt")
			s.ask(question)
			s.waitText("scripted · 3 statements")
			s.typeText("and which of them concerned trade?")
			s.waitText("scripted · follow-up")
			s.press("enter")
			s.waitText("↪ follows up on")
			s.waitFor(func(v string) bool {
				v = ansi.Strip(v)
				i := strings.Index(v, "which of them concerned trade?")
				return i >= 0 && strings.Contains(v[i:], "scripted · 3 statements")
			}, "the follow-up answered")
			s.golden("follow-up")
			s.finish()
			metas, _ := lib.Answers().List()
			if len(metas) != 2 {
				t.Fatalf("%d answers saved", len(metas))
			}
			a, err := engine.Load(lib, metas[1].ID)
			if err != nil || a.Question != "and which of them concerned trade?" || a.FollowUp == nil || a.FollowUp.After[0] != question {
				t.Errorf("the follow-up saved as %+v, %v", a, err)
			}
		})
	}
}

// TestNewTopicUnlessItRefersBack is issue 32's: a question that does
// not refer back to the last starts a new topic — no "follows up" line,
// none saved, the earlier question kept out of its search — and the next
// that does follows up on it; ctrl+f switches the question being typed,
// the status line saying which.
func TestNewTopicUnlessItRefersBack(t *testing.T) {
	lib, s, _ := asking(t, "no-color", 100, 30, -1)
	s.waitText("scripted · 3 statements")
	second := "Which king is named in the declaration?"
	s.typeText(second)
	s.waitText("scripted · new topic")
	s.press("ctrl+f")
	s.waitText("scripted · follow-up")
	if n := s.settleModel().notice; !strings.Contains(n, "follows up on “"+question+"”") {
		t.Errorf("ctrl+f said %q", n)
	}
	s.press("ctrl+f")
	s.waitText("scripted · new topic")
	s.press("enter")
	s.waitFor(func(v string) bool {
		v = ansi.Strip(v)
		i := strings.Index(v, second)
		return i >= 0 && strings.Contains(v[i:], "scripted · 3 statements")
	}, "the second question answered")
	if v := ansi.Strip(s.view()); strings.Contains(v, "↪ follows up on") {
		t.Errorf("a new topic shown as a follow-up:\n%s", v)
	}
	s.ask("and which of them concerned trade?")
	s.waitText("↪ follows up on “Which king") // the line wraps
	s.waitFor(func(v string) bool {
		v = ansi.Strip(v)
		i := strings.Index(v, "which of them concerned trade?")
		return i >= 0 && strings.Contains(v[i:], "scripted · 3 statements")
	}, "the third question answered")
	s.finish()

	metas, _ := lib.Answers().List()
	if len(metas) != 3 {
		t.Fatalf("%d answers saved", len(metas))
	}
	for i, want := range [][]string{nil, nil, {second}} {
		a, err := engine.Load(lib, metas[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		var after []string
		if a.FollowUp != nil {
			after = a.FollowUp.After
		}
		if fmt.Sprint(after) != fmt.Sprint(want) {
			t.Errorf("%q saved as following up on %q, want %q", a.Question, after, want)
		}
	}
}

// TestTabThenType: after tab or shift+tab, every printable key is text in
// the question input, whatever it would do in the answers; nothing is
// exported, chosen, copied or deleted.
func TestTabThenType(t *testing.T) {
	lib, s := answered(t, "no-color", 100, 30)
	for _, keys := range [][]string{{"shift+tab", "tab"}, {"tab", "tab", "tab"}} {
		s.press(keys...)
		s.waitFocus(paneConversation)
		q := "esy dnN export? quit q"
		s.typeText(q)
		s.waitText("› " + q)
		m := s.settleModel()
		if m.picker != nil || m.add != nil || m.notice != "" || m.conv.Confirming() {
			t.Errorf("after %v, typing fired a command: picker %v, notice %q", keys, m.picker != nil, m.notice)
		}
		for range len(q) {
			s.press("backspace")
		}
		s.press("esc") // back to the answers, as after answered
	}
	s.finish()
	if metas, _ := lib.Answers().List(); len(metas) != 1 {
		t.Errorf("%d answers saved, want the one", len(metas))
	}
	if entries, _ := os.ReadDir(s.opts.ExportDir); len(entries) != 0 {
		t.Errorf("typing exported %d files", len(entries))
	}
}

// TestSourceSteps: in the source pane, n and N step through the
// citations while no search is in force, the keyboard staying there;
// with one, they step through its matches; esc clears it.
func TestSourceSteps(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	s.press("enter")
	s.waitFocus(paneSource)
	s.waitText("n/N citation")
	s.press("n")
	s.waitText("Standing Armies without the Consent")
	s.press("n", "n", "N")
	s.waitText("For cutting off our Trade")
	if m := s.settleModel(); m.focus != paneSource {
		t.Fatalf("n moved the focus to %v", m.focus.title())
	}
	s.press("/")
	s.typeText("consent")
	s.press("enter")
	s.waitText("match 3/3")
	s.press("n")
	s.waitText("match 1/3")
	s.press("esc")
	s.waitGone("match 1/3")
	s.waitText("n/N citation")
	s.press("N")
	s.waitText("Standing Armies without the Consent")
	s.finish()
}

// TestEscReturnsWhereItCameFrom is issue 32's: esc from the source pane
// (text or page view) returns to the answers when they had the keyboard,
// where e exports, and to the input when it had it, where e is typed.
func TestEscReturnsWhereItCameFrom(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	s.waitText("answers: letters are commands")
	for _, keys := range [][]string{{"enter", "esc"}, {"enter", "v", "esc"}} {
		// the source pane first: the conversation has the focus before
		// enter too, so waiting for it alone could pass before the keys
		s.press(keys[0])
		s.waitFocus(paneSource)
		s.press(keys[1:]...)
		s.waitFocus(paneConversation)
		if m := s.settleModel(); m.conv.Typing() {
			t.Fatalf("after %v from the answers, the input has the keyboard", keys)
		}
		s.waitText("answers: letters are commands")
	}
	s.press("e")
	s.waitText("Exported to")

	s.press("i") // the input
	for _, keys := range [][]string{{"enter", "esc"}, {"enter", "v", "esc"}} {
		s.press(keys[0])
		s.waitFocus(paneSource)
		s.press(keys[1:]...)
		s.waitFocus(paneConversation)
		if m := s.settleModel(); !m.conv.Typing() {
			t.Fatalf("after %v from the input, the answers have the keyboard", keys)
		}
	}
	s.typeText("ey")
	s.waitText("› ey")
	s.finish()
	if entries, _ := os.ReadDir(s.opts.ExportDir); len(entries) != 1 {
		t.Errorf("%d files exported, want the one e in the answers made", len(entries))
	}
}

// TestEnterThenNShowsSecondCitation is the issue's: answer, enter, n.
func TestEnterThenNShowsSecondCitation(t *testing.T) {
	_, s, _ := asking(t, "no-color", 100, 30, -1)
	s.waitText("scripted · 3 statements")
	s.press("enter") // on the empty input: the selected statement's citation
	s.waitFocus(paneSource)
	s.press("n")
	s.waitText("Standing Armies without the Consent")
	m := s.finish()
	if c, ok := m.conv.Citation(); !ok || c.Label != "[2]" {
		t.Errorf("selected citation %+v", c)
	}
}

// TestRemoveAndDelete: d in the library removes a document after y; d in
// the answers deletes a saved answer after y; any other key keeps them.
func TestRemoveAndDelete(t *testing.T) {
	lib, s := answered(t, "no-color", 100, 30)
	s.press("d")
	s.waitText("Delete the saved answer")
	s.press("n")
	s.waitText("Nothing was deleted")
	s.press("d", "y")
	s.waitText("Deleted the saved answer")
	s.waitGone("scripted · 3 statements")
	s.press("shift+tab", "d")
	s.waitText("Remove declaration.txt?")
	s.press("y")
	s.waitText("Removed declaration.txt")
	s.waitText("No documents yet")
	s.finish()
	if docs, _ := lib.List(); len(docs) != 0 {
		t.Errorf("%d documents left", len(docs))
	}
	if metas, _ := lib.Answers().List(); len(metas) != 0 {
		t.Errorf("%d answers left", len(metas))
	}
}

// TestAskWhileAdding: a question asked while files are being added waits
// for them, says so, and is asked of them once they are in.
func TestAskWhileAdding(t *testing.T) {
	declarationScript(t, -1)
	lib, _ := enginetest.Library(t)
	m := New(testOptions(t, lib, "no-color"))
	t.Cleanup(m.Shutdown)
	m = step(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = step(m, libraryMsg{docs: []docstore.DocInfo{}})
	// An add run the test feeds by hand.
	run := &addRun{events: make(chan tea.Msg)}
	m = step(m, addStartedMsg{run: run, paths: []string{"/x/declaration.txt"}, only: true})
	for _, r := range question {
		m = step(m, keytest.Press(string(r)))
	}
	m = step(m, keytest.Press("enter"))
	if m.run != nil || m.waiting == nil {
		t.Fatalf("the question did not wait: run %v", m.run != nil)
	}
	if v := ansi.Strip(m.render()); !strings.Contains(v, "waiting for 1 document being added") {
		t.Errorf("the wait is not shown:\n%s", v)
	}
	// The file is added for real, then the run ends.
	info, _, err := ingest.New(lib, nil).Add(t.Context(), declaration, nil)
	if err != nil {
		t.Fatal(err)
	}
	m = step(m, addsDoneMsg{ids: []docstore.DocID{info.ID}})
	if m.run == nil || m.waiting != nil {
		t.Fatal("the waiting question was not asked once the documents were in")
	}
	ans, err := drain(m.run)
	if err != nil || len(ans.Statements) != 3 || len(ans.Docs) != 1 || ans.Docs[0].ID != info.ID {
		t.Errorf("the waiting question's answer: %+v, %v", ans, err)
	}
}

// drain waits for an answer run to end.
func drain(r *askRun) (*engine.Answer, error) {
	for range r.events {
	}
	return r.ans, r.err
}

// settleModel waits for the screen to settle and returns the model as
// the last frame drew it.
func (s *session) settleModel() Model {
	s.t.Helper()
	s.settle()
	s.probe.mu.Lock()
	defer s.probe.mu.Unlock()
	return s.probe.model
}

// TestLatestAnswersFirst: a start reads the latest answers only; scrolling
// back to the top brings the older ones.
func TestLatestAnswersFirst(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	saveAnswers(t, lib, 45)
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("question 44")
	m := s.settleModel()
	if n := len(m.conv.Turns()); n != 0 {
		t.Errorf("saved answers are part of the conversation: %d turns", n)
	}
	if !m.conv.Has(answerID(44)) || m.conv.Has(answerID(24)) {
		t.Fatalf("the start read more than the latest %d answers", answerPage)
	}
	s.press("esc")
	for range 3 * answerPage {
		s.press("k")
	}
	s.press("g")
	s.waitText("question 00")
	s.finish()
}

func answerID(i int) string { return fmt.Sprintf("%011x%04x", 1_700_000_000_000+i, 0) }

// saveAnswers saves n answers of one statement each, oldest first.
func saveAnswers(t testing.TB, lib *docstore.Library, n int) {
	t.Helper()
	docs, _ := lib.List()
	doc, err := lib.Document(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		st := citations.Statement{Text: "Quoted.", Citations: []citations.Span{citations.SpanOf(doc, i%len(doc.Sentences), i%len(doc.Sentences))}}
		citations.Verify(&st)
		a := &engine.Answer{ID: answerID(i), Question: fmt.Sprintf("question %02d", i), Strategy: "extractive",
			Statements: []citations.Statement{st}, Docs: []citations.DocRef{{ID: doc.ID, Name: doc.Name}}}
		if err := engine.Save(lib, a); err != nil {
			t.Fatal(err)
		}
	}
}

// prepared is what the needs-prep strategy has been prepared for.
var prepared struct {
	sync.Mutex
	done  bool
	calls int
}

// prepStrategy needs its documents prepared first, as RAIDD does.
type prepStrategy struct{}

func (prepStrategy) Status(*engine.Env, engine.Preparation) (*engine.Prepared, error) {
	return &engine.Prepared{Model: "test-model", Missing: engine.Cost{Calls: 42, PromptTokens: 9000, CompletionTokens: 1000}}, nil
}

func (prepStrategy) Prepare(_ context.Context, _ *engine.Env, p engine.Preparation) (*engine.Prepared, error) {
	if p.Progress != nil {
		p.Progress(engine.Progress{Step: "deriving", Done: 21, Total: 42, Unit: "chunks"})
	}
	prepared.Lock()
	defer prepared.Unlock()
	prepared.done = true
	prepared.calls++
	return &engine.Prepared{}, nil
}

func init() {
	engine.Register(engine.Info{
		Strategy: engine.Define("needs-prep", nil, func(ctx context.Context, rt *engine.Runtime) error {
			prepared.Lock()
			done := prepared.done
			prepared.Unlock()
			if !done {
				return fmt.Errorf("%w: run 'citelens derive' first (command-line advice)", engine.ErrNotPrepared)
			}
			return scripted{"needs-prep"}.Answer(ctx, rt)
		}),
		Description: "test strategy that needs its documents prepared",
		Preparer:    prepStrategy{},
	})
}

// TestPrepareFromTheTUI: a strategy that needs its documents prepared
// says what that costs and offers a key for it, not the command line's
// advice; the key prepares them and asks again.
func TestPrepareFromTheTUI(t *testing.T) {
	declarationScript(t, -1)
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "no-color")
	opts.Strategy = "needs-prep"
	s := start(t, opts, 120, 30)
	s.waitText("declaration.txt")
	s.ask(question)
	s.waitText("42 model calls")
	if v := ansi.Strip(s.view()); strings.Contains(v, "citelens derive") || !strings.Contains(v, "ctrl+p to prepare them") || !strings.Contains(v, "10k tokens with test-model") {
		t.Errorf("the offer:\n%s", v)
	}
	s.press("ctrl+p")
	s.waitText("needs-prep · 3 statements")
	s.finish()
	prepared.Lock()
	defer prepared.Unlock()
	if prepared.calls != 1 {
		t.Errorf("prepared %d times", prepared.calls)
	}
}

// TestEndpointFailure: a model strategy whose endpoint is down says so
// with what to do, under "Could not answer", not "Partial answer".
func TestEndpointFailure(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "no-color")
	cfg := config.Default()
	cfg.BaseURL, cfg.Model = "http://127.0.0.1:1/v1", "test-model"
	cfg.Timeout, cfg.ConnectTimeout = 5*time.Second, time.Second
	opts.Env = enginetest.Env(t, lib, cfg)
	opts.Strategy = "rag-test"
	s := start(t, opts, 140, 30)
	s.waitText("declaration.txt")
	s.ask(question)
	s.waitText("Could not answer")
	v := ansi.Strip(s.settle())
	for _, want := range []string{"citelens doctor", "ctrl+s for another strategy"} {
		if !strings.Contains(strings.Join(strings.Fields(v), " "), want) {
			t.Errorf("%q is not on screen:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Partial answer") {
		t.Errorf("a failure with nothing answered is called partial:\n%s", v)
	}
	s.finish()
}

func init() {
	// A model's strategy that calls the model: for the endpoint's failures.
	engine.Register(engine.Info{
		Strategy: engine.Define("rag-test", nil, func(ctx context.Context, rt *engine.Runtime) error {
			rt.Stage("asking…")
			_, err := rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: []llm.Message{llm.User("hi")}})
			if err == nil {
				err = errors.New("the endpoint answered")
			}
			return err
		}),
		Description: "test strategy that calls the model",
		NeedsLLM:    true,
	})
}

// TestOtherProcessChanges: what another citelens adds to the library —
// a document, an answer — shows within a second or two, with the TUI
// open all along; and the TUI holds no lock while idle, so the other
// can write at all.
func TestOtherProcessChanges(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	s := start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText("declaration.txt")
	// Another handle on the same file: its own lock, as another process's.
	other, err := docstore.Open(lib.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	path := enginetest.WriteFile(t, "harbour.txt", "Boats sail across the harbour. The harbour is quiet at night.\n")
	if _, _, err := ingest.New(other, nil).Add(t.Context(), path, nil); err != nil {
		t.Fatalf("another process cannot add while the TUI is open: %v", err)
	}
	began := time.Now()
	s.waitText("harbour.txt")
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("the new document showed after %v", d)
	}
	saveAnswers(t, other, 1)
	s.waitText("question 00")
	s.waitText("asked elsewhere")
	s.finish()
}
