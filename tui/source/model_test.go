package source

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
	"github.com/citelens/citelens/tui/internal/pane"
)

// sampleText is three "pages" of prose with the awkward cases mixed in: a
// tab, CJK, a combining mark and an escape sequence.
const sampleText = "Chapter 1. Citations\n" +
	"\n" +
	"A citation is a byte range into the stored text. The viewer highlights exactly those bytes, " +
	"so the reader sees what the model relied on.\n" +
	"Tabs\tare expanded, and wide text such as 日本語のテキスト keeps its width.\n" +
	"\f" +
	"Chapter 2. Search\n" +
	"\n" +
	"Search is case-insensitive: the Search for \"the\" finds THE and The alike. " +
	"Matches are marked, the current one distinctly, and n and N step through them.\n" +
	"A cafe\u0301 menu and a \x1b[31mhostile\x1b[0m escape sequence are shown safely.\n" +
	"\f" +
	"Chapter 3. Scrolling\n" +
	"\n" +
	"Line one of the last page.\nLine two of the last page.\nLine three of the last page.\n" +
	"Line four of the last page.\nLine five of the last page.\nThe end.\n"

func sampleDoc() *docstore.Document {
	starts := []int32{0}
	for i, c := range sampleText {
		if c == '\f' {
			starts = append(starts, int32(i+1))
		}
	}
	return &docstore.Document{
		DocInfo:    docstore.DocInfo{ID: "sample", Name: "sample.pdf", Kind: "pdf", Pages: len(starts)},
		Text:       sampleText,
		PageStarts: starts,
	}
}

func sampleRange(sub string) Range {
	i := strings.Index(sampleText, sub)
	if i < 0 {
		panic("not in sample: " + sub)
	}
	return Range{i, i + len(sub)}
}

// press runs keys through Update, running any command synchronously and
// feeding its message back, as the program would; it returns the actions
// and other messages the pane emitted.
func press(t *testing.T, m Model, keys ...string) (Model, []tea.Msg) {
	t.Helper()
	var emitted []tea.Msg
	for _, k := range keys {
		var cmd tea.Cmd
		var act tea.Msg
		m, cmd, act = m.Update(keytest.Press(k))
		if act != nil {
			emitted = append(emitted, act)
		}
		for cmd != nil {
			msg := cmd()
			cmd = nil
			switch msg.(type) {
			case searchDoneMsg:
				m, cmd, _ = m.Update(msg)
			case nil:
			default:
				emitted = append(emitted, msg)
			}
		}
	}
	return m, emitted
}

// view is the pane drawn at its size, as one string.
func view(m Model) string { return strings.Join(m.View(m.width, m.height), "\n") }

// numbered is n lines "line 000" … for scrolling tests.
func numbered(n int) *docstore.Document {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %03d\n", i)
	}
	return &docstore.Document{DocInfo: docstore.DocInfo{ID: "numbered", Name: "numbered.txt", Kind: "text", Pages: 1}, Text: b.String(), PageStarts: []int32{0}}
}

func lineOffset(doc *docstore.Document, i int) int {
	return strings.Index(doc.Text, fmt.Sprintf("line %03d", i))
}

func plainLines(v string) []string {
	return strings.Split(ansi.Strip(v), "\n")
}

func TestShowScrollsWithContext(t *testing.T) {
	t.Parallel()
	doc := numbered(200)
	m := New(themes.NoColor())
	m.SetSize(40, 12) // 10 rows of text
	m.Show(doc, Range{lineOffset(doc, 100), lineOffset(doc, 101)}, nil)
	// Context is min(3, rows/4) = 2 rows above the citation.
	if got, want := m.Offset(), lineOffset(doc, 98); got != want {
		t.Errorf("top at byte %d, want %d (line 98)", got, want)
	}
	lines := plainLines(view(m))
	if len(lines) != 12 {
		t.Fatalf("view has %d lines, want 12", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 40 {
			t.Errorf("line %d is %d cells wide: %q", i, w, l)
		}
	}
	if !strings.HasPrefix(lines[3], "line 100") {
		t.Errorf("citation not on the 3rd text row: %q", lines[1:4])
	}
	if !strings.Contains(view(m), "\x1b[7mline 100") {
		t.Error("the cited line is not in reverse video")
	}

	// A citation already in view does not move the view.
	m.Show(doc, Range{lineOffset(doc, 104), lineOffset(doc, 105)}, nil)
	if got, want := m.Offset(), lineOffset(doc, 98); got != want {
		t.Errorf("showing a visible citation scrolled to %d, want to stay at %d", got, want)
	}

	// One near the end scrolls no further than the last row at the bottom.
	m.Show(doc, Range{lineOffset(doc, 199), lineOffset(doc, 199) + 3}, nil)
	if got, want := m.Offset(), lineOffset(doc, 190); got != want {
		t.Errorf("top at %d, want %d (last page)", got, want)
	}
	if !strings.Contains(view(m), "100%") {
		t.Error("position at the end is not 100%")
	}
}

func TestShowBeforeSize(t *testing.T) {
	t.Parallel()
	doc := numbered(200)
	m := New(themes.NoColor())
	m.Show(doc, Range{lineOffset(doc, 150), lineOffset(doc, 151)}, nil)
	if v := view(m); v != "" {
		t.Errorf("a pane without a size drew %q", v)
	}
	m.SetSize(40, 12)
	if got, want := m.Offset(), lineOffset(doc, 148); got != want {
		t.Errorf("after sizing, top at %d, want %d", got, want)
	}
}

func TestScrollKeys(t *testing.T) {
	doc := numbered(100)
	m := New(themes.NoColor())
	m.SetSize(40, 12)
	m.Show(doc, Range{0, 1}, nil)
	steps := []struct {
		key  string
		line int
	}{
		{"j", 1}, {"down", 2}, {"k", 1}, {"up", 0}, {"k", 0},
		{"pgdown", 9}, {"pgdown", 18}, {"pgup", 9}, {"G", 90}, {"j", 90}, {"pgdown", 90}, {"g", 0},
	}
	for _, s := range steps {
		m, _ = press(t, m, s.key)
		if got, want := m.Offset(), lineOffset(doc, s.line); got != want {
			t.Fatalf("after %q: top at %d, want line %d (%d)", s.key, got, s.line, want)
		}
	}
}

func TestResizeKeepsTopLine(t *testing.T) {
	doc := sampleDoc()
	m := New(themes.NoColor())
	m.SetSize(60, 10)
	r := sampleRange("Search is case-insensitive")
	m.Show(doc, r, nil)
	m, _ = press(t, m, "j")
	before := m.Offset()
	m.SetSize(25, 10)
	after := m.Offset()
	// The top row now starts at a row boundary of the narrower wrap within
	// the same line, at or before where it was.
	if after > before || after < before-60 {
		t.Errorf("top moved from %d to %d on resize", before, after)
	}
}

func TestResizeThroughTooSmall(t *testing.T) {
	doc := sampleDoc()
	m := New(themes.NoColor())
	m.SetSize(25, 10)
	m.Show(doc, sampleRange("hostile"), nil)
	before := m.Offset()
	for _, size := range [][2]int{{5, 30}, {4, 1}, {120, 3}, {25, 10}} {
		m.SetSize(size[0], size[1])
		_ = view(m)
	}
	if after := m.Offset(); after > before || after < before-120 {
		t.Errorf("top moved from %d to %d", before, after)
	}
}

func TestMouseWheel(t *testing.T) {
	doc := numbered(100)
	m := New(themes.NoColor())
	m.SetSize(40, 12)
	m.Show(doc, Range{0, 1}, nil)
	m, _, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if got, want := m.Offset(), lineOffset(doc, 3); got != want {
		t.Errorf("wheel down: top at %d, want %d", got, want)
	}
	m, _, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.Offset() != 0 {
		t.Errorf("wheel up: top at %d, want 0", m.Offset())
	}
}

func TestSearch(t *testing.T) {
	doc := sampleDoc()
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Show(doc, sampleRange("Chapter 1"), nil)

	m, _ = press(t, m, "/")
	if !m.Searching() {
		t.Fatal("/ did not open the search prompt")
	}
	// While the prompt is open keys are text: j does not scroll, esc
	// closes the prompt and is not passed up.
	m, _ = press(t, m, "T", "h", "e", "j", "backspace")
	if got := m.input.Value(); got != "The" {
		t.Errorf("prompt holds %q, want %q", got, "The")
	}
	if m.Offset() != 0 {
		t.Error("j in the prompt scrolled the text")
	}
	m, _ = press(t, m, "esc")
	if m.Searching() {
		t.Fatal("esc did not close the prompt")
	}
	if cur, total := m.Match(); total != 0 || cur != 0 {
		t.Fatalf("cancelled search left matches %d/%d", cur, total)
	}

	m, _ = press(t, m, "/", "t", "H", "e", " ", "enter")
	cur, total := m.Match()
	want := strings.Count(strings.ToLower(sampleText), "the ")
	if total != want || cur != 1 {
		t.Fatalf("match %d/%d, want 1/%d", cur, total, want)
	}
	if !strings.Contains(ansi.Strip(view(m)), fmt.Sprintf("match 1/%d", want)) {
		t.Error("status line does not say which match")
	}
	m, _ = press(t, m, "n", "n")
	if cur, _ := m.Match(); cur != 3 {
		t.Errorf("after n n: match %d, want 3", cur)
	}
	m, _ = press(t, m, "N", "N", "N")
	if cur, _ := m.Match(); cur != total {
		t.Errorf("N from the first match should wrap to the last: %d/%d", cur, total)
	}
	m, _ = press(t, m, "n")
	if cur, _ := m.Match(); cur != 1 {
		t.Errorf("n from the last match should wrap to the first: %d", cur)
	}

	// The current match is drawn reverse+bold+underline, others bold+underline.
	v := view(m)
	if !strings.Contains(v, "\x1b[1;4;7;4m") && !strings.Contains(v, "\x1b[1;4;7m") {
		t.Errorf("no current-match SGR in %q", v)
	}

	m, _ = press(t, m, "/", "z", "q", "x", "enter")
	if _, total := m.Match(); total != 0 {
		t.Errorf("nonsense query matched %d times", total)
	}
	if !strings.Contains(ansi.Strip(view(m)), "no match for “zqx”") {
		t.Error("status line does not say nothing matched")
	}
}

func TestStaleSearchDropped(t *testing.T) {
	doc := sampleDoc()
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Show(doc, sampleRange("Chapter 1"), nil)
	m, _, _ = m.Update(keytest.Press("/"))
	for _, r := range "the" {
		m, _, _ = m.Update(keytest.Press(string(r)))
	}
	m, cmd, _ := m.Update(keytest.Press("enter"))
	// Another document arrives before the search result.
	m.Show(numbered(50), Range{0, 4}, nil)
	m, _, _ = m.Update(cmd())
	if _, total := m.Match(); total != 0 {
		t.Errorf("a search of the old document marked %d matches in the new one", total)
	}
}

func TestEscWithoutPromptEmitsClose(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(40, 10)
	m.Show(sampleDoc(), Range{0, 5}, nil)
	_, out := press(t, m, "esc")
	if len(out) != 1 {
		t.Fatalf("esc emitted %v, want pane.Close", out)
	}
	if _, ok := out[0].(pane.Close); !ok {
		t.Errorf("esc emitted %T, want pane.Close", out[0])
	}
}

func TestBadInputNeverPanics(t *testing.T) {
	m := New(themes.Dark())
	m.SetSize(40, 10)
	m.Show(sampleDoc(), Range{-50, 1 << 30}, []Range{{900, 10}, {-1, -1}})
	_ = view(m)
	m.Show(nil, Range{}, nil)
	_ = view(m)
	m, _ = press(t, m, "j", "G", "/", "x", "enter", "n")
	m.Show(&docstore.Document{}, Range{0, 0}, nil) // empty text
	m, _ = press(t, m, "j", "k", "G", "g", "pgdown")
	if lines := plainLines(view(m)); len(lines) != 10 {
		t.Errorf("empty document: %d lines", len(lines))
	}
	for _, size := range [][2]int{{0, 0}, {1, 1}, {5, 30}, {300, 2}, {19, 3}, {20, 3}} {
		m.SetSize(size[0], size[1])
		m.Show(sampleDoc(), sampleRange("hostile"), nil)
		v := view(m)
		if size[0] == 0 {
			continue
		}
		lines := plainLines(v)
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w != size[0] {
				t.Errorf("%v: line %q is %d wide", size, l, w)
			}
		}
	}
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(30, 2)
	m.Show(sampleDoc(), Range{0, 5}, nil)
	if v := ansi.Strip(view(m)); !strings.Contains(v, "window too small") {
		t.Errorf("view = %q", v)
	}
}

func TestSetStylesSwitchesTheme(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(60, 10)
	m.Show(sampleDoc(), sampleRange("byte range"), nil)
	if strings.Contains(view(m), "48;2;") {
		t.Fatal("no-color view has a background colour")
	}
	m.SetStyles(themes.Light())
	if !strings.Contains(view(m), "48;2;") {
		t.Error("light theme's highlight has no background colour")
	}
}

// harness makes the pane a whole program for teatest, the way the root
// model will hold it. It publishes each view so a test can wait for a
// state without depending on the renderer's timing.
type harness struct {
	src   Model
	probe *probe
}

type probe struct {
	mu   sync.Mutex
	view string
}

type showMsg struct {
	doc     *docstore.Document
	primary Range
	others  []Range
}

func (h harness) Init() tea.Cmd { return nil }

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.src.SetSize(msg.Width, msg.Height)
	case showMsg:
		h.src.Show(msg.doc, msg.primary, msg.others)
	}
	var cmd tea.Cmd
	h.src, cmd, _ = h.src.Update(msg)
	h.probe.mu.Lock()
	h.probe.view = view(h.src)
	h.probe.mu.Unlock()
	return h, cmd
}

func (h harness) View() tea.View {
	v := tea.NewView(view(h.src))
	v.AltScreen = true
	return v
}

// stage is messages to send and, if until is not empty, text the view
// must show before the next stage: search results arrive from a command,
// so keys meant for them must wait for them.
type stage struct {
	msgs  []tea.Msg
	until string
}

// runGolden starts the pane at w×h in styles, runs the stages, quits, and
// compares the final view with testdata/<test name>.golden (go test
// -update rewrites it).
//
// The golden is the component's own View string, SGR included: the
// renderer's byte stream depends on frame timing, the view does not. The
// colour profile is pinned anyway (teatest v2 otherwise detects one from
// the environment of whoever runs the test) so the program's output does
// not vary with TERM or NO_COLOR.
func runGolden(t *testing.T, styles *themes.Styles, w, h int, stages ...stage) {
	t.Helper()
	p := &probe{}
	tm := teatest.NewTestModel(t, harness{src: New(styles), probe: p},
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.TrueColor)))
	wait := func(until func(string) bool, what string) {
		deadline := time.Now().Add(5 * time.Second)
		for {
			p.mu.Lock()
			v := p.view
			p.mu.Unlock()
			if until(v) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("view never showed %s; last:\n%s", what, ansi.Strip(v))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// The window size reaches the program from a goroutine of its own:
	// wait for it before anything else.
	wait(func(v string) bool { return strings.Count(v, "\n") == h-1 }, "its size")
	for _, st := range stages {
		for _, msg := range st.msgs {
			tm.Send(msg)
		}
		if st.until != "" {
			wait(func(v string) bool { return strings.Contains(ansi.Strip(v), st.until) }, fmt.Sprintf("%q", st.until))
		}
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(harness)
	view := view(final.src)
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
	teatest.RequireEqualOutput(t, []byte(view+"\n"))
}

func keys(ks ...string) []tea.Msg {
	out := make([]tea.Msg, len(ks))
	for i, k := range ks {
		out[i] = keytest.Press(k)
	}
	return out
}

func show(sub string, others ...string) tea.Msg {
	var o []Range
	for _, s := range others {
		o = append(o, sampleRange(s))
	}
	return showMsg{doc: sampleDoc(), primary: sampleRange(sub), others: o}
}

func TestGoldenShowCitation(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 60, 14, stage{
		msgs: []tea.Msg{show("Matches are marked, the current one distinctly", "Search is case-insensitive")}})
}

func TestGoldenShowCitationDark(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.Dark(), 60, 14, stage{
		msgs: []tea.Msg{show("Matches are marked, the current one distinctly", "Search is case-insensitive")}})
}

func TestGoldenScroll(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 50, 10, stage{msgs: append([]tea.Msg{show("The end.")}, keys("k", "k", "pgup", "j")...)})
}

func TestGoldenSearch(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 60, 14,
		stage{msgs: append([]tea.Msg{show("Chapter 1")}, keys("/", "t", "h", "e", "enter")...), until: "match 1/"},
		stage{msgs: keys("n", "n", "N")})
}

func TestGoldenSearchPrompt(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 40, 8, stage{msgs: append([]tea.Msg{show("Chapter 1")}, keys("/", "c", "a", "f")...)})
}

func TestGoldenNarrow(t *testing.T) {
	t.Parallel()
	// A citation that starts mid-line, wraps, and holds CJK, at 24 cells.
	runGolden(t, themes.NoColor(), 24, 12, stage{msgs: []tea.Msg{show("wide text such as 日本語のテキスト keeps")}})
}

func TestGoldenEscapeSequence(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 40, 10, stage{msgs: []tea.Msg{show("\x1b[31mhostile\x1b[0m escape")}})
}

func TestGoldenTooSmall(t *testing.T) {
	t.Parallel()
	runGolden(t, themes.NoColor(), 12, 2, stage{msgs: []tea.Msg{show("Chapter 1")}})
}
