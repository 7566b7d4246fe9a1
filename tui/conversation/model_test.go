package conversation

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
)

// press sends keys and returns the last action.
func press(m Model, keys ...string) (Model, tea.Msg) {
	var act tea.Msg
	for _, k := range keys {
		m, _, act = m.Update(keytest.Press(k))
	}
	return m, act
}

func span(doc string, start int) citations.Span {
	return citations.Span{Doc: "d", DocName: doc, Start: start, End: start + 10, Text: fmt.Sprintf("text at %d", start)}
}

// answer is a saved answer with n statements; statement i cites i%3
// spans (so some cite nothing).
func answer(q string, n int) *engine.Answer {
	a := &engine.Answer{ID: q, Question: q, Strategy: "extractive"}
	for i := range n {
		s := citations.Statement{Text: fmt.Sprintf("%s statement %d, long enough to wrap in a narrow pane of the conversation.", q, i)}
		for c := range i % 3 {
			s.Citations = append(s.Citations, span("doc.txt", 100*i+c))
			s.Support = append(s.Support, citations.Verdict{Level: citations.Supported})
		}
		a.Statements = append(a.Statements, s)
	}
	return a
}

func checkView(t *testing.T, m Model, w, h int) string {
	t.Helper()
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Fatalf("line %d is %d cells, want %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
	return ansi.Strip(v)
}

func TestNavigationAcrossAnswers(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(40, 12)
	var past []*engine.Answer
	for i := range 30 {
		past = append(past, answer(fmt.Sprintf("q%02d", i), 4))
	}
	m.Load(past)
	m.Focus(false)
	// The newest answer's first statement is selected and in view.
	v := checkView(t, m, 40, 12)
	if !strings.Contains(v, "q29 statement 0") {
		t.Fatalf("the newest answer is not in view:\n%s", v)
	}
	// n from q29's statement 0 (no citation) goes to statement 1's.
	m, act := press(m, "n")
	c, ok := act.(CitationMsg)
	if !ok || c.Span.Start != 100 || c.Label != "[1]" {
		t.Fatalf("n = %#v", act)
	}
	// Statement 2 has two citations: [2] and [3].
	m, act = press(m, "n", "n")
	if c := act.(CitationMsg); c.Span.Start != 201 || c.Label != "[3]" || len(c.Others) != 1 {
		t.Fatalf("second n = %#v", act)
	}
	// There is no later citation.
	m, act = press(m, "n")
	if _, ok := act.(NoticeMsg); !ok {
		t.Fatalf("n past the last citation = %#v", act)
	}
	// N goes back through the statements, and into the answer before.
	m, _ = press(m, "N", "N")
	m, act = press(m, "N")
	if c := act.(CitationMsg); c.Label != "[3]" || m.sel.e != 28 {
		t.Fatalf("N into the previous answer = %#v (entry %d)", act, m.sel.e)
	}
	v = checkView(t, m, 40, 12)
	if !strings.Contains(v, "q28 statement 2") {
		t.Errorf("the selected statement is not in view:\n%s", v)
	}
	// g and G reach the ends of the conversation, scrolling with them.
	m, _ = press(m, "g")
	if v := checkView(t, m, 40, 12); !strings.Contains(v, "q00 statement 0") {
		t.Errorf("g: the first statement is not in view:\n%s", v)
	}
	m, _ = press(m, "G")
	if v := checkView(t, m, 40, 12); !strings.Contains(v, "q29 statement 3") {
		t.Errorf("G: the last statement is not in view:\n%s", v)
	}
	// pgup scrolls without moving the selection.
	before := m.sel
	m, _ = press(m, "pgup", "pgup")
	if m.sel != before {
		t.Error("pgup moved the selection")
	}
	checkView(t, m, 40, 12)
	// Enter shows the statement's first citation, focusing the source.
	m, _ = press(m, "k")
	m, act = press(m, "enter")
	if c, ok := act.(CitationMsg); !ok || !c.Focus || c.Label != "[2]" {
		t.Errorf("enter = %#v", act)
	}
}

func TestStreamingAndResize(t *testing.T) {
	m := New(themes.Dark())
	m.SetSize(50, 10)
	m.SetStrategy("cof")
	m.Begin("what happened?", "cof")
	m.Apply(engine.Stage("drafting…"))
	for _, w := range strings.Fields("the model writes a draft answer first, then cites it afterwards in a second pass") {
		m.Apply(engine.Delta(w + " "))
	}
	v := checkView(t, m, 50, 10)
	if !strings.Contains(v, "drafting…") || !strings.Contains(v, "second pass") {
		t.Errorf("the stage or the draft's tail is not shown:\n%s", v)
	}
	st := citations.Statement{Text: "It happened.", Citations: []citations.Span{span("a.pdf", 5)}, Support: []citations.Verdict{{Level: citations.Partial}}}
	m.Apply(engine.Statement{Statement: st}, engine.Usage{Usage: citations.Usage{PromptTokens: 1000, CompletionTokens: 234, LLMCalls: 2}})
	if !m.Streaming() {
		t.Fatal("not streaming")
	}
	for _, sz := range [][2]int{{20, 5}, {120, 40}, {3, 3}, {50, 10}} {
		m.SetSize(sz[0], sz[1])
		checkView(t, m, sz[0], sz[1])
	}
	m.Finish(&engine.Answer{Strategy: "cof", Statements: []citations.Statement{st}, Usage: citations.Usage{PromptTokens: 1000, CompletionTokens: 234, LLMCalls: 2}}, nil)
	v = checkView(t, m, 50, 10)
	if strings.Contains(v, "second pass") || !strings.Contains(v, "1,234 tokens in 2 calls") || !strings.Contains(v, "◐ partial") {
		t.Errorf("finished answer:\n%s", v)
	}
}

func TestInputKeys(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(40, 10)
	m.Focus(true)
	m, act := press(m, "h", "i", "enter")
	if a, ok := act.(AskMsg); !ok || a.Question != "hi" {
		t.Fatalf("enter = %#v", act)
	}
	m.Begin("hi", "x")
	// While the answer is written esc cancels rather than leaving.
	m, act = press(m, "esc")
	if _, ok := act.(CancelMsg); !ok || !m.Typing() {
		t.Fatalf("esc while streaming = %#v, typing %v", act, m.Typing())
	}
	m, act = press(m, "ctrl+x")
	if _, ok := act.(CancelMsg); !ok {
		t.Fatalf("ctrl+x = %#v", act)
	}
	m.Cancelling()
	m.Finish(&engine.Answer{Partial: true, Error: "cancelled", Statements: []citations.Statement{}}, nil)
	if v := checkView(t, m, 40, 10); !strings.Contains(v, "Partial answer: cancelled") {
		t.Errorf("cancelled answer:\n%s", v)
	}
	m, act = press(m, "esc")
	if act != nil || m.Typing() {
		t.Fatalf("esc = %#v, typing %v", act, m.Typing())
	}
	m, _ = press(m, "i")
	if !m.Typing() {
		t.Error("i did not return to the input")
	}
	// A failure before any answer is shown as such; export has nothing.
	m.Begin("again", "x")
	m.Finish(nil, fmt.Errorf("strategy exploded"))
	if v := checkView(t, m, 40, 10); !strings.Contains(v, "Could not answer: strategy") {
		t.Errorf("failed answer:\n%s", v)
	}
	m, _ = press(m, "esc")
	m.sel = sel{len(m.entries) - 1, 0, 0}
	if _, act = press(m, "e"); act != nil {
		if n, ok := act.(NoticeMsg); !ok || !strings.Contains(n.Text, "no answer") {
			t.Errorf("export of a failed question = %#v", act)
		}
	}
}

func TestEmptyConversation(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(30, 6)
	m.Focus(false)
	checkView(t, m, 30, 6)
	for _, k := range []string{"j", "k", "n", "N", "enter", "e", "y", "g", "G", "pgdown"} {
		var act tea.Msg
		m, act = press(m, k)
		if _, ok := act.(CitationMsg); ok {
			t.Errorf("%s with no answers produced a citation", k)
		}
	}
	checkView(t, m, 30, 6)
}
