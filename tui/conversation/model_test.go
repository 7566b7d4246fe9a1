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
	"github.com/citelens/citelens/tui/internal/pane"
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
	lines := m.View(w, h)
	v := strings.Join(lines, "\n")
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
	m.Load(page(past, false))
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
	if _, ok := act.(pane.Notice); !ok {
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
	t.Parallel()
	m := New(themes.Dark())
	m.SetSize(50, 10)
	m.SetStrategy("cof")
	m.Begin("what happened?", "cof", 1, nil)
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
	if strings.Contains(v, "second pass") || !strings.Contains(v, "1,234 tokens (1,000 prompt, 234") || !strings.Contains(v, "· partly supported") {
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
	m.Begin("hi", "x", 1, nil)
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
	m.Finish(&engine.Answer{Partial: true, Error: "cancelled", Statements: []citations.Statement{{Text: "Half."}}}, nil)
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
	// Cancelled before anything was said: no "Partial answer", and no
	// failure either: the user's own doing.
	m.Begin("nothing yet", "x", 1, nil)
	m.Finish(&engine.Answer{Partial: true, Error: "cancelled", Statements: []citations.Statement{}}, nil)
	if v := checkView(t, m, 40, 10); strings.Contains(v[strings.Index(v, "nothing yet"):], "Partial answer") || !strings.Contains(v, "Cancelled before any statement was") || strings.Contains(v, "Could not answer") {
		t.Errorf("an answer cancelled with nothing said:\n%s", v)
	}
	// A failure before any answer is shown as such; export has nothing.
	m.Begin("again", "x", 1, nil)
	m.Finish(nil, fmt.Errorf("strategy exploded"))
	if v := checkView(t, m, 40, 10); !strings.Contains(v, "Could not answer: strategy") {
		t.Errorf("failed answer:\n%s", v)
	}
	m, _ = press(m, "esc")
	m.sel = noSel
	if _, act = press(m, "e"); act != nil {
		if n, ok := act.(pane.Notice); !ok || !strings.Contains(n.Text, "No answer to export") {
			t.Errorf("export of a failed question = %#v", act)
		}
	}
}

func TestEmptyConversation(t *testing.T) {
	t.Parallel()
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
		if m.Typing() {
			t.Fatalf("%s, a command of the answers, went to the input", k)
		}
	}
	checkView(t, m, 30, 6)
}

// page is answers (oldest first) as engine.Recent reads them.
func page(oldestFirst []*engine.Answer, more bool) engine.Page {
	p := engine.Page{More: more}
	for i := len(oldestFirst) - 1; i >= 0; i-- {
		p.Answers = append(p.Answers, oldestFirst[i])
		p.Oldest = oldestFirst[i].ID
	}
	return p
}

// TestPrintableStartsQuestion: in the answers, a key that is no command
// starts a question with it; the commands stay commands, and the footer
// says which mode the pane is in.
func TestPrintableStartsQuestion(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(60, 10)
	m.Load(page([]*engine.Answer{answer("q", 3)}, false))
	m.Focus(false)
	if v := checkView(t, m, 60, 10); !strings.Contains(v, "answers: letters are commands") {
		t.Errorf("the answers' mode is not on screen:\n%s", v)
	}
	m, act := press(m, "W", "h", "y")
	if !m.Typing() || act != nil || m.input.Value() != "Why" {
		t.Errorf("typing after the answers took the keyboard: typing %v, input %q, action %#v", m.Typing(), m.input.Value(), act)
	}
}

// TestInputKeepsAnswersReachable: after asking, the input has the
// keyboard, and keys it never needs reach the answers: the arrows select
// statements, enter on an empty input shows the citation.
func TestInputKeepsAnswersReachable(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Focus(true)
	m.Begin("q", "x", 1, nil)
	a := answer("q", 3)
	m.Finish(a, nil)
	m, act := press(m, "down", "down", "enter")
	c, ok := act.(CitationMsg)
	if !ok || !c.Focus || c.Label != "[2]" {
		t.Fatalf("down, down, enter from the input = %#v", act)
	}
	if !m.Typing() {
		t.Error("the arrows left the input")
	}
}

// TestDeleteAsksFirst: d asks before deleting the selected saved
// answer, the keys that answer always in view (the question is cut
// first) and the only keys the status line offers; anything but y keeps
// it.
func TestDeleteAsksFirst(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(70, 10)
	m.Load(page([]*engine.Answer{answer("first", 2), answer("second", 2)}, false))
	m.Focus(false)
	m, act := press(m, "d")
	if act != nil || !m.Confirming() {
		t.Fatalf("d = %#v, confirming %v", act, m.Confirming())
	}
	if v := checkView(t, m, 70, 10); !strings.Contains(v, "Delete the saved answer to “second”?") || !strings.Contains(v, "y deletes it, any other key keeps it") {
		t.Errorf("no question on screen:\n%s", v)
	}
	if v := checkView(t, m, 40, 10); !strings.Contains(v, "y deletes it, any other key keeps it") {
		t.Errorf("the question's keys are cut at 40 cells:\n%s", v)
	}
	var keys []string
	for _, b := range m.ShortHelp() {
		keys = append(keys, b.Help().Key+" "+b.Help().Desc)
	}
	if got := strings.Join(keys, " · "); got != "y deletes it · any other key keeps it" {
		t.Errorf("the status line's keys while asking: %s", got)
	}
	m, act = press(m, "n")
	if _, ok := act.(pane.Notice); !ok || m.Confirming() || len(m.entries) != 2 {
		t.Fatalf("n to the question = %#v", act)
	}
	_, act = press(m, "d", "y")
	if d, ok := act.(DeleteMsg); !ok || d.ID != "second" {
		t.Fatalf("d y = %#v", act)
	}
	m.Remove("second")
	if len(m.entries) != 1 || m.Has("second") || m.sel.e != 0 {
		t.Errorf("after removing: %d entries, selection %+v", len(m.entries), m.sel)
	}
	checkView(t, m, 70, 10)
}

// TestOlderOnScroll: the view starts with the latest answers and asks
// for older ones once, when the reader reaches the top; they go before.
func TestOlderOnScroll(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(50, 12)
	var recent []*engine.Answer
	for i := 10; i < 14; i++ {
		recent = append(recent, answer(fmt.Sprintf("q%02d", i), 2))
	}
	m.Load(page(recent, true))
	m.Focus(false)
	var asked []OlderMsg
	for range 60 {
		var act tea.Msg
		m, act = press(m, "k")
		if o, ok := act.(OlderMsg); ok {
			asked = append(asked, o)
		}
	}
	if len(asked) != 1 || asked[0].Before != "q10" {
		t.Fatalf("asked for older answers %v, want once before q10", asked)
	}
	if v := checkView(t, m, 50, 12); !strings.Contains(v, "loading older answers") {
		t.Errorf("no word of loading:\n%s", v)
	}
	var older []*engine.Answer
	for i := 6; i < 10; i++ {
		older = append(older, answer(fmt.Sprintf("q%02d", i), 2))
	}
	sel := m.entries[m.sel.e].question
	m.Load(page(older, false))
	if len(m.entries) != 8 || m.entries[0].question != "q06" || m.entries[m.sel.e].question != sel {
		t.Errorf("after loading: %d entries, first %q, selected %q (was %q)", len(m.entries), m.entries[0].question, m.entries[m.sel.e].question, sel)
	}
	for range 40 {
		var act tea.Msg
		m, act = press(m, "k")
		if _, ok := act.(OlderMsg); ok {
			t.Fatal("asked for older answers when none remain")
		}
	}
	checkView(t, m, 50, 12)
}

// TestTurnsAndTopics: the questions answered in this session make the
// conversation a new question follows; loaded, failed and foreign ones
// do not; ctrl+n and ctrl+l start a fresh topic.
func TestTurnsAndTopics(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Load(page([]*engine.Answer{answer("saved before", 2)}, false))
	if len(m.Turns()) != 0 {
		t.Fatal("a saved answer from before is part of the conversation")
	}
	m.Begin("one", "x", 1, nil)
	m.Finish(answer("one", 2), nil)
	m.Begin("failed", "x", 1, nil)
	m.Finish(nil, fmt.Errorf("boom"))
	m.Add([]*engine.Answer{answer("elsewhere", 1)})
	m.Begin("two", "x", 1, []string{"one"})
	m.Finish(answer("two", 2), nil)
	if ts := m.Turns(); len(ts) != 2 || ts[0].Question != "one" || ts[1].Question != "two" {
		t.Fatalf("turns %+v", ts)
	}
	if v := checkView(t, m, 60, 12); !strings.Contains(v, "↪ follows up on “one”") {
		t.Errorf("the follow-up is not on screen:\n%s", v)
	}
	m.Focus(true)
	m, _ = press(m, "ctrl+n")
	if len(m.Turns()) != 0 {
		t.Error("ctrl+n kept the topic")
	}
	m.Begin("three", "x", 1, nil)
	m.Finish(answer("three", 1), nil)
	m, _ = press(m, "ctrl+l")
	if len(m.entries) != 0 || len(m.Turns()) != 0 {
		t.Errorf("ctrl+l left %d entries", len(m.entries))
	}
	if v := checkView(t, m, 60, 12); !strings.Contains(v, "Cleared.") {
		t.Errorf("cleared view:\n%s", v)
	}
	// Older answers do not come back after clearing.
	m.Load(page([]*engine.Answer{answer("old", 1)}, true))
	if len(m.entries) != 0 {
		t.Error("a page of old answers came back into a cleared view")
	}
}

// TestAddInPlace: answers saved elsewhere show in their place among
// those shown (IDs sort by when they were asked), a failure asked here
// staying below and an answer being written last; one older than every
// answer shown while older ones remain comes with them, not now.
func TestAddInPlace(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Load(page([]*engine.Answer{answer("a10", 1), answer("a20", 1)}, true))
	m.Begin("a30", "x", 1, nil)
	m.Finish(answer("a30", 1), nil)
	m.Begin("failed", "x", 1, nil)
	m.Finish(nil, fmt.Errorf("connection refused"))
	m.Add([]*engine.Answer{answer("a05", 1), answer("a15", 1), answer("a25", 1), answer("a40", 1)})
	m.Begin("streaming", "x", 1, nil)
	m.Add([]*engine.Answer{answer("a50", 1), answer("a15", 1)})
	var got []string
	for _, e := range m.entries {
		q := e.question
		if e.foreign {
			q += " (elsewhere)"
		}
		got = append(got, q)
	}
	want := "a10 · a15 (elsewhere) · a20 · a25 (elsewhere) · a30 · a40 (elsewhere) · a50 (elsewhere) · failed · streaming"
	if strings.Join(got, " · ") != want {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, " · "), want)
	}
	if ts := m.Turns(); len(ts) != 1 || ts[0].Question != "a30" {
		t.Errorf("turns %+v, want the one asked here", ts)
	}
	if v := checkView(t, m, 60, 12); !strings.Contains(v, "connection refused") {
		t.Errorf("the failure is out of view:\n%s", v)
	}
}

// TestFollowUpOrNewTopic is issue 32's: a question follows up on the
// conversation only when it refers back to it, the status line saying
// which as it is typed; ctrl+f switches it for that question only; with
// nothing to follow, ctrl+f says so.
func TestFollowUpOrNewTopic(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(80, 12)
	m.Focus(true)
	m, act := press(m, "ctrl+f")
	if n, ok := act.(pane.Notice); !ok || !strings.Contains(n.Text, "Nothing to follow up on") {
		t.Errorf("ctrl+f with no conversation = %#v", act)
	}
	m.Begin("How do I read a CSV file in R?", "x", 1, nil)
	m.Finish(answer("How do I read a CSV file in R?", 2), nil)
	if v := checkView(t, m, 80, 12); strings.Contains(v, "follow-up") || strings.Contains(v, "new topic") {
		t.Errorf("with nothing typed, the status line decides:\n%s", v)
	}

	ask := func(m Model, q string, keys ...string) (Model, AskMsg) {
		t.Helper()
		m, _ = press(m, strings.Split(q, "")...)
		m, _ = press(m, keys...)
		v := checkView(t, m, 80, 12)
		switch {
		case len(m.topicQuestions()) == 0:
			if strings.Contains(v, "· new topic") || strings.Contains(v, "· follow-up") {
				t.Errorf("typing %q with nothing to follow, the status line decides:\n%s", q, v)
			}
		case m.followsUp(q) && !strings.Contains(v, "· follow-up"), !m.followsUp(q) && !strings.Contains(v, "· new topic"):
			t.Errorf("typing %q after %v, the status line does not say which:\n%s", q, keys, v)
		}
		m, act := press(m, "enter")
		a, ok := act.(AskMsg)
		if !ok || a.Question != q {
			t.Fatalf("enter = %#v", act)
		}
		return m, a
	}
	for _, c := range []struct {
		q    string
		keys []string
		want bool
	}{
		{"How do I set the axis labels in gnuplot?", nil, false},
		{"and the separator?", nil, true},
		{"How do I set the axis labels in gnuplot?", []string{"ctrl+f"}, true},
		{"and the separator?", []string{"ctrl+f"}, false},
		{"and the separator?", []string{"ctrl+f", "ctrl+f"}, true},
		// The choice was for the question typed: the next decides anew.
		{"What about quoted fields?", nil, true},
	} {
		var a AskMsg
		m, a = ask(m, c.q, c.keys...)
		if a.FollowUp != c.want {
			t.Errorf("%q after %v: follow-up %v, want %v", c.q, c.keys, a.FollowUp, c.want)
		}
	}
	// ctrl+n starts a new topic: nothing to follow up on.
	m, _ = press(m, "ctrl+n")
	if _, a := ask(m, "and the separator?"); a.FollowUp {
		t.Error("after ctrl+n, a question follows up")
	}
}

// TestMarks: a quote shows the question words it holds, not "supported"
// and not a band, quietly (no reverse video, however few words it
// holds); an unfinished statement says so; in a scope of several
// documents each statement names its own.
func TestMarks(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(100, 16)
	quote := citations.Statement{Text: "text at 0", Citations: []citations.Span{span("a.pdf", 0)},
		Support:   []citations.Verdict{{Level: citations.Supported}},
		Relevance: &citations.Relevance{Matched: []string{"taxes"}, Of: 3, Coverage: 0.2, Band: citations.RelevanceWeak}}
	other := citations.Statement{Text: "A model's words.", Citations: []citations.Span{span("b.pdf", 50)}, Support: []citations.Verdict{{Level: citations.Supported}}}
	cut := citations.Statement{Text: "The king refu", Citations: []citations.Span{}, Unfinished: true}
	m.Load(page([]*engine.Answer{{ID: "a", Question: "q", Strategy: "x", Partial: true, Error: "cancelled",
		Docs:       []citations.DocRef{{ID: "a", Name: "a.pdf"}, {ID: "b", Name: "b.pdf"}},
		Statements: []citations.Statement{quote, other, cut}}}, false))
	v := checkView(t, m, 100, 16)
	for _, want := range []string{"· 1 of 3 question words: taxes — a.pdf", "· supported — b.pdf", "· unfinished", "Partial answer: cancelled"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q is not on screen:\n%s", want, v)
		}
	}
	if strings.Count(v, "supported") != 1 || strings.Contains(v, "weak") {
		t.Errorf("the quote is marked supported, or by its band:\n%s", v)
	}
	for _, l := range m.View(100, 16) {
		if _, mark, ok := strings.Cut(l, "·"); ok && strings.Contains(ansi.Strip(l), "question words") && strings.Contains(mark, "\x1b[7m") {
			t.Errorf("the quote's mark is reverse video: %q", l)
		}
	}
}

// TestInProgressStatement: while the model writes, the statement in
// progress shows as text, without its markup.
func TestInProgressStatement(t *testing.T) {
	t.Parallel()
	m := New(themes.NoColor())
	m.SetSize(60, 12)
	m.Begin("q", "model", 1, nil)
	m.Apply(engine.Delta("<statement>Done.<cite>[1-1]</cite></statement><statement>The king has refused"))
	v := checkView(t, m, 60, 12)
	if !strings.Contains(v, "The king has refused ▍") || strings.Contains(v, "<statement>") || strings.Contains(v, "<cite>") {
		t.Errorf("the statement in progress:\n%s", v)
	}
}

// TestInputGrows: the question input grows a row at a time with a long
// question, up to four, the answers giving up the rows; alt+enter starts
// a new line, which the question keeps.
func TestInputGrows(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(30, 14)
	m.Focus(true)
	if m.input.Rows() != 1 || m.answerHeight() != 12 {
		t.Fatalf("empty: %d rows, answers %d", m.input.Rows(), m.answerHeight())
	}
	m, _ = press(m, strings.Split("which grievances concern trade", "")...)
	rows := m.input.Rows()
	if rows != 2 || m.answerHeight() != 11 {
		t.Errorf("a question of two rows: %d rows, answers %d", rows, m.answerHeight())
	}
	v := checkView(t, m, 30, 14)
	if !strings.Contains(v, "› which grievances concern") || !strings.Contains(v, "  trade") {
		t.Errorf("the question is not wrapped in the input:\n%s", v)
	}
	m, _ = press(m, strings.Split(strings.Repeat(" and taxes", 20), "")...)
	if m.input.Rows() != maxInputRows {
		t.Errorf("a long question takes %d rows, want at most %d", m.input.Rows(), maxInputRows)
	}
	m.input.Reset()
	m, _ = press(m, "a", "alt+enter", "b")
	if m.input.Value() != "a\nb" {
		t.Errorf("alt+enter: %q", m.input.Value())
	}
	_, act := press(m, "enter")
	if a, ok := act.(AskMsg); !ok || a.Question != "a\nb" {
		t.Errorf("enter = %#v", act)
	}
}
