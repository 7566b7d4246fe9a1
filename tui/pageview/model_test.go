package pageview

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/termimage"
)

// run runs cmd and what it batches, and returns the messages that come
// back (a tick's after its wait).
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// TestSixelPaint follows a sixel picture from the drawing to the screen:
// the view keeps the picture's cells blank, the picture is written after
// a frame at the view's place, and one on its way when the view is left
// is dropped.
func TestSixelPaint(t *testing.T) {
	lib, docs := enginetest.Library(t, "../../testdata/pdf/r-intro-p8-9.pdf")
	sel, err := themes.NewSelector("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(sel.Initial(), pageimage.New(lib.Geometry(), pagerendertest.Renderer(t)))
	m.SetGraphics(termimage.Sixel, 9, 18, false)
	m.SetSize(40, 20)
	m.SetOrigin(50, 3)
	m.SetActive(true)
	s := docs[0].Sentences[2]
	var rendered renderedMsg
	for _, msg := range run(m.Show(docs[0], Span{int(s.Start), int(s.End)}, nil)) {
		if r, ok := msg.(renderedMsg); ok {
			rendered = r
		}
	}
	if rendered.err != nil || rendered.pic == nil {
		t.Fatalf("drawing the page: %v", rendered.err)
	}
	m, cmd, _ := m.Update(rendered)
	view := m.View(40, 20)
	for i, l := range view[1 : len(view)-1] {
		if strings.TrimSpace(ansi.Strip(l)) != "" || ansi.StringWidth(l) != 40 {
			t.Fatalf("body line %d is not 40 blank cells for the picture: %q", i, l)
		}
	}
	// After the frame: the window encoded and written at the view's body.
	var painted []paintedMsg
	for _, msg := range run(cmd) {
		if due, ok := msg.(paintDueMsg); ok {
			m2, enc, _ := m.Update(due)
			m = m2
			for _, p := range run(enc) {
				switch p := p.(type) {
				case paintedMsg:
					painted = append(painted, p)
				case tea.RawMsg: // the window encoded with the drawing
					painted = append(painted, paintedMsg{gen: m.paintGen, raw: p.Msg.(string)})
				default:
					t.Fatalf("painting gave %T", p)
				}
			}
		}
	}
	if len(painted) != 1 {
		t.Fatalf("%d pictures painted", len(painted))
	}
	if raw := painted[0].raw; !strings.HasPrefix(raw, "\x1b7\x1b[5;51H\x1bP0;1q\"1;1;360;324") || !strings.HasSuffix(raw, "\x1b\\\x1b8") {
		t.Errorf("the sixel picture is not 360×324 at row 5, column 51: %.60q", raw)
	}
	if _, cmd, _ := m.Update(painted[0]); cmd == nil {
		t.Error("a current picture is not written")
	}
	// Left before it is written: dropped.
	m.SetActive(false)
	if _, cmd, _ := m.Update(painted[0]); cmd != nil {
		t.Error("a picture is written after the view was left")
	}
	// The wheel scrolls, as j does.
	m.SetActive(true)
	m, _, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.top != 3 {
		t.Errorf("the wheel scrolled to row %d, want 3", m.top)
	}
}
