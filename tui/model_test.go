package tui

import (
	"encoding/base64"
	"fmt"
	"image/color"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/llm/llmtest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
)

// TestExtractiveAnswer asks the offline extractive strategy itself, jumps
// to the citation of its first statement, and checks the cited sentence is
// on screen in reverse video (the no-colour theme's highlight).
func TestExtractiveAnswer(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "no-color")
	opts.Strategy = "extractive"
	s := start(t, opts, 120, 36)
	s.waitText("declaration.txt")
	s.ask("taxes imposed without consent")
	s.waitText("extractive · ")
	s.press("enter")
	s.waitFocus(paneSource)
	v := s.settle()
	m := s.finish()
	c, ok := m.conv.Citation()
	if !ok {
		t.Fatal("no citation selected after enter")
	}
	first := strings.Fields(c.Span.Text)
	if len(first) < 3 {
		t.Fatalf("odd citation %q", c.Span.Text)
	}
	// The cited sentence's first words, highlighted.
	want := "\x1b[7m" + strings.Join(first[:3], " ")
	if !strings.Contains(v, want) {
		t.Errorf("the cited sentence %q is not highlighted on screen:\n%s", c.Span.Text, v)
	}
	saved, err := lib.Answers().List()
	if err != nil || len(saved) != 1 || saved[0].Strategy != "extractive" {
		t.Errorf("saved answers = %v, %v; want the one extractive answer", saved, err)
	}
}

func TestCancelKeepsStatementsAndSaves(t *testing.T) {
	for _, cancelKey := range []string{"ctrl+x", "esc"} {
		t.Run(cancelKey, func(t *testing.T) {
			lib, s, _ := asking(t, "no-color", 100, 30, 1)
			s.waitText("The colonists objected")
			s.waitText("sub-question 2/2")
			s.press(cancelKey)
			s.waitText("Partial answer: cancelled")
			v := ansi.Strip(s.view())
			if !strings.Contains(v, "The colonists objected") {
				t.Errorf("the statement shown before cancelling is gone:\n%s", v)
			}
			if strings.Contains(v, "Standing armies") {
				t.Errorf("a statement written after cancelling is shown:\n%s", v)
			}
			s.finish()
			metas, err := lib.Answers().List()
			if err != nil || len(metas) != 1 {
				t.Fatalf("saved answers = %v, %v", metas, err)
			}
			a, err := engine.Load(lib, metas[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Partial || a.Error != "cancelled" || len(a.Statements) != 1 {
				t.Errorf("saved answer: partial=%v error=%q statements=%d; want a cancelled answer with 1 statement", a.Partial, a.Error, len(a.Statements))
			}
		})
	}
}

// TestQuitWhileStreamingSaves quits mid-answer: the partial answer is
// saved before the library is closed.
func TestQuitWhileStreamingSaves(t *testing.T) {
	lib, s, _ := asking(t, "no-color", 100, 30, 1)
	s.waitText("sub-question 2/2")
	s.press("ctrl+c") // q is text: the input has the keyboard
	m := s.tm.FinalModel(t, teatestTimeout()).(harness).m
	m.Shutdown()
	metas, _ := lib.Answers().List()
	if len(metas) != 1 {
		t.Fatalf("%d answers saved after quitting mid-answer, want 1", len(metas))
	}
}

func TestPastAnswersComeBack(t *testing.T) {
	lib, s := answered(t, "no-color", 100, 30)
	s.finish().Shutdown()

	s = start(t, testOptions(t, lib, "no-color"), 100, 30)
	s.waitText(question)
	s.waitText("Their trade was cut off")
	// The past answer's citations work like a new one's.
	s.press("esc", "n")
	s.waitText("Standing Armies without the Consent")
	s.finish()
}

func TestExport(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)

	s.press("e")
	s.waitText("Exported to ")
	md := exportedPath(t, s)
	if filepath.Dir(md) != s.opts.ExportDir || !strings.HasSuffix(md, ".md") {
		t.Errorf("exported to %s, want a .md file in %s", md, s.opts.ExportDir)
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# What did the colonists object to?") || !strings.Contains(string(b), "> For imposing Taxes on us without our Consent:") {
		t.Errorf("the Markdown export lacks the question or the quote:\n%s", b)
	}
	// The file is named by the question, and exporting again keeps it.
	if !strings.HasSuffix(md, "-what-did-the-colonists-object-to.md") {
		t.Errorf("exported to %s, want a name from the question", md)
	}
	s.probe.mu.Lock()
	s.probe.notice = ""
	s.probe.mu.Unlock()
	s.press("e")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.probe.mu.Lock()
		n := s.probe.notice
		s.probe.mu.Unlock()
		if n != "" || time.Now().After(deadline) {
			break
		}
	}
	if again := exportedPath(t, s); again != strings.TrimSuffix(md, ".md")+"-2.md" {
		t.Errorf("exported again to %s, want %s beside %s", again, strings.TrimSuffix(md, ".md")+"-2.md", md)
	}
	if b2, _ := os.ReadFile(md); string(b2) != string(b) {
		t.Error("exporting again changed the first export")
	}

	s.press("E")
	s.waitText("Export as")
	s.press("j", "enter") // json
	s.waitText("Exported to ")
	js := exportedPath(t, s)
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := citations.ReadJSON(f)
	if err != nil || len(a.Statements) != 3 {
		t.Errorf("the JSON export reads back as %v, %v", a, err)
	}
	s.finish()
}

var exportedRE = regexp.MustCompile(`Exported to (\S+)`)

func exportedPath(t *testing.T, s *session) string {
	t.Helper()
	s.probe.mu.Lock()
	notice := s.probe.notice
	s.probe.mu.Unlock()
	m := exportedRE.FindStringSubmatch(notice)
	if m == nil {
		t.Fatalf("notice %q names no file", notice)
	}
	return m[1]
}

// TestCopyCitation checks y sends the cited text by OSC 52 with the
// document and page it is from, without the control characters a paste
// into a terminal would act on.
func TestCopyCitation(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	s.press("y")
	s.waitText("Copied [1] with its document and page")
	// The clipboard is set by a command, a moment after the key.
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("For imposing Taxes on us without our Consent:\n— declaration.txt, p. 1"))
	var out []byte
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(out), want); {
		b, _ := io.ReadAll(s.tm.Output())
		out = append(out, b...)
		if time.Now().After(deadline) {
			t.Fatal("no OSC 52 sequence with the citation in the output")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.finish()
	if got := clipboardText("a\x1b[31mb\tc\nd\u009be \u202eevil\u202c"); got != "a[31mb\tc\nde evil" {
		t.Errorf("clipboardText kept control characters: %q", got)
	}
}

func TestStrategyPicker(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("declaration.txt")
	s.press("esc", "s")
	s.waitText("Strategy")
	v := ansi.Strip(s.view())
	if !strings.Contains(v, "needs-model") || !strings.Contains(v, "(needs a model)") {
		t.Fatalf("the picker does not show the model strategy as unavailable:\n%s", v)
	}
	// Choosing the unavailable one says why and keeps the picker open.
	s.selectStrategy("needs-model")
	s.waitText("Unavailable: needs-model needs a model")
	s.press("enter")
	s.waitText("needs-model is unavailable")
	s.press("esc")
	s.waitGone("needs-model is unavailable")
	s.press("s")
	s.waitText("Strategy")
	s.selectStrategy("extractive")
	s.press("enter")
	s.waitText("strategy extractive")
	m := s.finish()
	if m.strategy != "extractive" {
		t.Errorf("strategy = %s after choosing extractive", m.strategy)
	}
}

// selectStrategy moves the strategy picker's selection down to name,
// going at most once through the list.
func (s *session) selectStrategy(name string) {
	s.t.Helper()
	for range engine.Strategies() {
		if strings.Contains(ansi.Strip(s.view()), "▌ "+name) {
			return
		}
		s.press("j")
	}
}

// TestStartWithFiles adds a file at start: it is added with progress, and
// the question's scope is exactly the files given.
func TestStartWithFiles(t *testing.T) {
	lib, _ := enginetest.Library(t, enginetest.WriteFile(t, "other.txt", "A different text. It says nothing of taxes.\n"))
	opts := testOptions(t, lib, "no-color")
	opts.Paths = []string{declaration}
	s := start(t, opts, 100, 30)
	s.waitText("1/2 in scope")
	v := ansi.Strip(s.view())
	if !strings.Contains(v, "[x] declaration.txt") || !strings.Contains(v, "[ ] other.txt") {
		t.Errorf("the scope is not the file given:\n%s", v)
	}
	m := s.finish()
	if scope := m.lib.Scope(); len(scope) != 1 {
		t.Errorf("scope = %v", scope)
	}
}

func TestStartWithBadFile(t *testing.T) {
	bad := enginetest.WriteFile(t, "binary.txt", "\x00\x01\x02")
	lib, _ := enginetest.Library(t)
	opts := testOptions(t, lib, "no-color")
	opts.Paths = []string{bad}
	s := start(t, opts, 100, 30)
	s.waitText("Could not add")
	s.finish()
}

// TestAddFailuresKept: the files an add could not add stay listed in
// full on the help screen after the status line has moved on.
func TestAddFailuresKept(t *testing.T) {
	bad1 := enginetest.WriteFile(t, "binary-one.txt", "\x00\x01\x02")
	bad2 := enginetest.WriteFile(t, "binary-two.txt", "\x00\x01\x03")
	lib, _ := enginetest.Library(t)
	opts := testOptions(t, lib, "no-color")
	opts.Paths = []string{bad1, bad2}
	s := start(t, opts, 160, 40)
	s.waitText("f1 lists them")
	s.press("f1")
	s.waitText("Files the last add could not add")
	v := ansi.Strip(s.view())
	for _, name := range []string{"binary-one.txt", "binary-two.txt"} {
		if !strings.Contains(v, name) {
			t.Errorf("the help screen does not list %s:\n%s", name, v)
		}
	}
	s.finish()
}

func TestNothingInScope(t *testing.T) {
	declarationScript(t, -1)
	lib, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("1/1 in scope")
	s.press("shift+tab", "space")
	s.waitText("nothing in scope")
	s.press("tab")
	s.ask("anything?")
	s.waitText("Nothing is in scope")
	s.finish()
	if metas, _ := lib.Answers().List(); len(metas) != 0 {
		t.Errorf("an answer was asked with nothing in scope")
	}
}

// TestHostileText shows a document and an answer full of escape sequences
// and control characters: none may reach the screen.
func TestHostileText(t *testing.T) {
	text := "Title line.\n\nThe \x1b]0;pwned\x07 sentence with \x1b[2J escapes is here. 日本語の文も広い文字です。\n"
	lib, _ := enginetest.Library(t, enginetest.WriteFile(t, "hostile\x1b[31m.txt", text))
	setScript(t, -1, scriptedStatement{"Model says \x1b[5mblink\x1b[0m, \x1b[2J, \x1b]8;;http://x\x07link\x1b]8;;\x07, \x9b31m and 日本語.", []string{"sentence with"}})
	script.draft = "draft \x1b]52;c;ZXZpbA==\x07 text"
	script.plan = textPlan("step: \x1b[2Jclear")
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: strings.SplitAfter(script.draft, " ")})
	opts := testOptions(t, lib, "dark")
	opts.Env = enginetest.Env(t, lib, enginetest.Config(srv))
	s := start(t, opts, 100, 30)
	s.waitText("hostile")
	s.ask("what \x1b[31mis\x1b[0m here?")
	s.waitText("1 statement")
	s.press("enter")
	s.waitFocus(paneSource)
	v := s.settle()
	s.finish()
	// Only the styles' own SGR sequences may remain (never blink, SGR 5,
	// which the model asked for): any other escape came from the text.
	if strings.Contains(v, "\x1b[5m") {
		t.Error("the model's SGR sequence reached the screen")
	}
	rest := regexp.MustCompile(`\x1b\[[0-9;:]*m`).ReplaceAllString(v, "")
	for i, r := range rest {
		if r == 0x1b || r == 0x07 || r >= 0x80 && r < 0xa0 || r == utf8.RuneError && !strings.HasPrefix(rest[i:], "\uFFFD") {
			t.Errorf("a control character reached the screen: %q", rest[max(i-20, 0):min(i+20, len(rest))])
			break
		}
	}
	for i, l := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(l); w != 100 {
			t.Errorf("line %d is %d cells wide (CJK measured wrong?): %q", i, w, ansi.Strip(l))
		}
	}
	if !strings.Contains(ansi.Strip(v), "日本語") {
		t.Errorf("the CJK text is not shown:\n%s", ansi.Strip(v))
	}
}

// TestResize draws every layout at many sizes: every line exactly as
// wide as the window, and as many lines as it is high.
func TestResize(t *testing.T) {
	_, s := answered(t, "high-contrast", 100, 30)
	s.press("enter")
	s.waitFocus(paneSource)
	for _, sz := range [][2]int{{80, 24}, {200, 60}, {60, 20}, {40, 10}, {39, 10}, {130, 12}, {79, 40}, {12, 3}, {1, 1}, {100, 30}} {
		s.tm.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s.waitFor(func(v string) bool {
			return strings.Count(v, "\n") == sz[1]-1 && ansi.StringWidth(strings.SplitN(v, "\n", 2)[0]) == sz[0]
		}, "the new size")
		v := s.settle()
		for i, l := range strings.Split(v, "\n") {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Errorf("%dx%d: line %d is %d cells: %q", sz[0], sz[1], i, w, ansi.Strip(l))
			}
		}
	}
	s.finish()
}

func TestHelpScrolls(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 60, 12)
	s.waitText("Conversation")
	s.press("esc", "?")
	s.waitText("Everywhere")
	for range 60 {
		s.press("j")
	}
	s.waitText("Source")
	s.waitGone("Everywhere")
	s.press("k")
	s.finish()
}

func TestLibraryProgress(t *testing.T) {
	lib, _ := enginetest.Library(t)
	m := New(testOptions(t, lib, "no-color"))
	t.Cleanup(m.Shutdown)
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = nm.(Model)
	nm, _ = m.Update(libraryMsg{docs: []docstore.DocInfo{}})
	m = nm.(Model)
	nm, _ = m.Update(addProgressMsg(ingest.Progress{Path: "/tmp/manual.pdf", Stage: ingest.StageExtracting, Done: 120, Total: 2415}))
	m = nm.(Model)
	v := ansi.Strip(m.render())
	if !strings.Contains(v, "+ manual.pdf extracting ▕") || !strings.Contains(v, "▏ 120/2415") {
		t.Errorf("progress not shown:\n%s", v)
	}
	// Narrow, the bar gives way; the stage and the count stay.
	m = step(m, tea.WindowSizeMsg{Width: 60, Height: 20})
	m = step(m, keytest.Press("shift+tab"))
	if v := ansi.Strip(m.render()); !strings.Contains(v, "extracting") || !strings.Contains(v, "120/2415") {
		t.Errorf("progress at 60 columns:\n%s", v)
	}
}

func teatestTimeout() teatest.FinalOpt { return teatest.WithFinalTimeout(10 * time.Second) }

// TestModelStatementsAreMarkdown: a model's statements are rendered as
// Markdown; the same text quoted from a document would be shown verbatim.
func TestModelStatementsAreMarkdown(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	setScript(t, -1,
		scriptedStatement{"The colonists objected to **taxes** imposed without `consent`.", []string{"For imposing Taxes on us without our Consent"}},
		scriptedStatement{"Standing armies were kept in peacetime.", []string{"Standing Armies without the Consent of our legislatures"}})
	opts := testOptions(t, lib, "dark")
	opts.Env = enginetest.Env(t, lib, enginetest.Config(llmtest.New(t))) // a model the strategy does not call
	opts.Strategy = "model-scripted"
	s := start(t, opts, 100, 30)
	s.waitText("declaration.txt")
	s.ask(question)
	s.waitText("model-scripted · 2 statements")
	s.press("esc")
	v := s.settle()
	plain := ansi.Strip(v)
	if strings.Contains(plain, "**taxes**") || strings.Contains(plain, "`consent`") || !strings.Contains(plain, "taxes") {
		t.Errorf("the model's Markdown is not rendered:\n%s", plain)
	}
	if !strings.Contains(v, "\x1b[1mtaxes") && !regexp.MustCompile(`\x1b\[[0-9;]*;1mtaxes`).MatchString(v) {
		t.Errorf("**taxes** is not bold: %q", v)
	}
	// Selection and citations work as for any statement.
	s.press("n")
	s.waitText("Standing Armies without the Consent")
	s.finish()
}

// TestLibraryOpensDocument: enter on a document reads it in the source
// pane from its start, and esc comes back to the conversation.
func TestLibraryOpensDocument(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 100, 30)
	s.waitText("1/1 in scope")
	s.press("shift+tab", "enter")
	s.waitFocus(paneSource)
	s.waitText("In Congress, July 4, 1776.")
	s.press("G", "esc")
	s.waitFocus(paneConversation)
	// esc in the library goes back to the conversation too.
	s.press("shift+tab")
	s.waitFocus(paneLibrary)
	s.press("esc")
	s.waitFocus(paneConversation)
	s.finish()
}

// TestRandomKeys presses random keys at random sizes on a model holding
// answers (the program's commands are not run): nothing may panic, and
// every frame must fill the window exactly.
func TestRandomKeys(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	docs, _ := lib.List()
	doc, err := lib.Document(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var answers []*engine.Answer
	for i, phrases := range [][]string{
		{"For imposing Taxes on us without our Consent"},
		{},
		{"Standing Armies without the Consent of our legislatures", "For cutting off our Trade", "benefits of Trial by Jury"},
	} {
		a := &engine.Answer{ID: fmt.Sprint(i), Question: fmt.Sprintf("question %d", i), Strategy: "scripted"}
		for _, p := range phrases {
			st := citations.Statement{Text: "About " + p, Citations: []citations.Span{spanOf([]*docstore.Document{doc}, p)}}
			citations.Verify(&st)
			a.Statements = append(a.Statements, st)
		}
		answers = append(answers, a)
	}
	keys := []string{"tab", "shift+tab", "esc", "enter", "j", "k", "n", "N", "g", "G", "pgup", "pgdown",
		"/", "a", "space", "x", "?", "s", "E", "i", "backspace", "up", "down", "ctrl+x", "y", "e",
		"d", "*", "ctrl+n", "ctrl+l", "ctrl+p", "ctrl+s", "h", "."}
	sizes := [][2]int{{80, 24}, {200, 60}, {60, 20}, {40, 10}, {30, 8}, {130, 40}, {100, 12}}
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 20 {
		m := New(testOptions(t, lib, "no-color"))
		m = step(m, tea.WindowSizeMsg{Width: 100, Height: 30})
		m = step(m, libraryMsg{docs: docs})
		m = step(m, answersMsg{page: engine.Page{Answers: answers}})
		m = step(m, docMsg{id: doc.ID, doc: doc})
		w, h := 100, 30
		var trail []string
		for range 300 {
			if rng.IntN(20) == 0 {
				sz := sizes[rng.IntN(len(sizes))]
				w, h = sz[0], sz[1]
				m = step(m, tea.WindowSizeMsg{Width: w, Height: h})
				trail = append(trail, fmt.Sprintf("%dx%d", w, h))
				continue
			}
			k := keys[rng.IntN(len(keys))]
			if k == "?" && rng.IntN(2) == 0 {
				k = "esc"
			}
			trail = append(trail, k)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("run %d: panic %v after %v", run, r, trail)
					}
				}()
				if k == "ctrl+c" || k == "q" {
					return
				}
				m = step(m, keytest.Press(k))
			}()
			v := m.render()
			lines := strings.Split(v, "\n")
			if len(lines) != h {
				t.Fatalf("run %d: %d lines at %dx%d after %v", run, len(lines), w, h, trail)
			}
			for i, l := range lines {
				if lw := ansi.StringWidth(l); lw != w {
					t.Fatalf("run %d: line %d is %d cells at %dx%d after %v: %q", run, i, lw, w, h, trail, ansi.Strip(l))
				}
			}
		}
		m.Shutdown()
	}
}

// TestThemeFromBackground: with the theme left to "auto" the program asks
// the terminal for its background and draws in the theme that suits it;
// a fixed theme does not ask.
func TestThemeFromBackground(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "auto")
	m := New(opts)
	t.Cleanup(m.Shutdown)
	if m.styles.Name != themes.NameDark {
		t.Errorf("before the terminal answers: %s, want dark", m.styles.Name)
	}
	m = step(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = step(m, tea.BackgroundColorMsg{Color: color.White})
	if m.styles.Name != themes.NameLight {
		t.Errorf("on a white background: %s, want light", m.styles.Name)
	}
	// The panes draw in it too: the light palette's border colour.
	if !strings.Contains(m.render(), "38;2;200;209;218") {
		t.Error("the panes are not drawn in the light theme")
	}
	m = step(m, tea.BackgroundColorMsg{Color: color.Black})
	if m.styles.Name != themes.NameDark {
		t.Errorf("on a black background: %s, want dark", m.styles.Name)
	}

	fixed := testOptions(t, lib, "high-contrast")
	if fixed.Theme.Auto() {
		t.Error("a fixed theme asks for the background")
	}
	nc, _ := themes.NewSelector("", true)
	if nc.Auto() || nc.Initial().Name != themes.NameNoColor {
		t.Error("NO_COLOR with auto is not the no-colour theme")
	}
}
