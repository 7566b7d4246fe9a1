package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/tui/internal/draw"
)

// Window sizes: below the minimum the screen says it is too small; from
// twoColumns the source pane sits beside the library and conversation,
// from threeColumns each pane has its own column; narrower than
// twoColumns only the focused pane is shown, under a tab bar.
const (
	minWidth     = 40
	minHeight    = 10
	twoColumns   = 80
	threeColumns = 130
)

type mode int

const (
	modeSingle mode = iota
	modeTwo
	modeThree
)

// size is a pane's frame, border included.
type size struct{ w, h int }

type layoutInfo struct {
	tooSmall       bool
	mode           mode
	lib, conv, src size
}

// computeLayout divides the window among the panes; the last line is the
// status line.
func (m Model) computeLayout() layoutInfo {
	w, h := m.width, m.height
	if w < minWidth || h < minHeight {
		return layoutInfo{tooSmall: true}
	}
	ph := h - 1
	switch {
	case w >= threeColumns:
		lw := min(max(w/5, 26), 40)
		cw := (w - lw) * 9 / 20
		return layoutInfo{mode: modeThree, lib: size{lw, ph}, conv: size{cw, ph}, src: size{w - lw - cw, ph}}
	case w >= twoColumns:
		lw := w / 2
		// The library takes what its list needs, up to a third.
		rows := len(m.lib.Docs()) + m.lib.ProgressRows() + 1
		lh := min(max(rows+2, 5), max(ph/3, 4))
		return layoutInfo{mode: modeTwo, lib: size{lw, lh}, conv: size{lw, ph - lh}, src: size{w - lw, ph}}
	}
	one := size{w, ph - 1} // under the tab bar
	return layoutInfo{mode: modeSingle, lib: one, conv: one, src: one}
}

// layout gives each pane its size.
func (m *Model) layout() {
	lo := m.computeLayout()
	if lo.tooSmall {
		return
	}
	m.lib.SetSize(lo.lib.w-framePadW, lo.lib.h-2)
	m.conv.SetSize(lo.conv.w-framePadW, lo.conv.h-2)
	m.src.SetSize(lo.src.w-framePadW, lo.src.h-2)
	m.page.SetSize(lo.src.w-framePadW, lo.src.h-2)
	// Where the source pane's body lands on the screen: after its
	// border and a space, under the tab bar in a narrow window.
	x, y := m.width-lo.src.w, 0
	if lo.mode == modeSingle {
		x, y = 0, 1
	}
	m.page.SetOrigin(x+2, y+1)
}

// applyGraphicsSize redraws the page view for a new layout: its width,
// and the cell size computed from the window's.
func (m *Model) applyGraphicsSize() tea.Cmd {
	if !m.detect.Done() {
		return m.page.Refresh() // the answers, when they come, set the rest
	}
	return m.applyGraphics()
}

// framePadW is the width a pane's frame takes: a border and a space on
// each side.
const framePadW = 4

// frame draws pane p in its border of s, titled, a space either side.
func (m Model) frame(p paneID, s size) []string {
	st := m.styles
	border, title := draw.NewBorder(st.Pane), st.Muted.Render(" "+p.title()+" ")
	if p == m.focus {
		border, title = draw.NewBorder(st.PaneFocused), st.Title.Render(" "+p.title()+" ")
	}
	w, h := s.w-framePadW, s.h-2
	var body []string
	switch p {
	case paneLibrary:
		body = m.lib.View(w, h)
	case paneConversation:
		body = m.conv.View(w, h)
	default:
		if m.pageMode {
			body = m.page.View(w, h)
		} else {
			body = m.src.View(w, h)
		}
	}
	for i := range body {
		body[i] = " " + body[i] + " "
	}
	return border.Frame(title, body, s.w, s.h)
}

// panes draws the panes as laid out, height-1 lines of width cells.
func (m Model) panes(lo layoutInfo) []string {
	switch lo.mode {
	case modeThree:
		return joinColumns(m.frame(paneLibrary, lo.lib), m.frame(paneConversation, lo.conv), m.frame(paneSource, lo.src))
	case modeTwo:
		left := append(m.frame(paneLibrary, lo.lib), m.frame(paneConversation, lo.conv)...)
		return joinColumns(left, m.frame(paneSource, lo.src))
	}
	return append([]string{m.tabBar()}, m.frame(m.focus, lo.conv)...)
}

// tabBar names the panes, the focused one marked, for a narrow window.
func (m Model) tabBar() string {
	st := m.styles
	var b strings.Builder
	for p := range numPanes {
		if p > 0 {
			b.WriteString(st.Muted.Render(" │ "))
		}
		if p == m.focus {
			b.WriteString(st.Selection.Render(" " + p.title() + " "))
		} else {
			b.WriteString(st.Muted.Render(" " + p.title() + " "))
		}
	}
	return draw.Fit(b.String(), m.width)
}

// joinColumns puts columns of equal height side by side.
func joinColumns(cols ...[]string) []string {
	out := make([]string, len(cols[0]))
	for i := range out {
		var b strings.Builder
		for _, c := range cols {
			if i < len(c) {
				b.WriteString(c[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// overlay lays box over lines, centred; lines are width cells wide.
func overlay(lines, box []string, width int) []string {
	if len(box) == 0 {
		return lines
	}
	bw := ansi.StringWidth(box[0])
	x := max((width-bw)/2, 0)
	y := max((len(lines)-len(box))/2, 0)
	out := append([]string(nil), lines...)
	for i, bl := range box {
		j := y + i
		if j >= len(out) {
			break
		}
		l := out[j]
		left := ansi.Truncate(l, x, "")
		right := ansi.TruncateLeft(l, x+bw, "")
		out[j] = left + draw.Pad(x-ansi.StringWidth(left)) + bl + right
	}
	return out
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
	switch {
	case m.showHelp:
		lines = m.helpScreen(w, h-1)
	case m.add != nil:
		lines = overlay(m.panes(lo), m.add.View(w-4, h-3), w)
	case m.picker != nil:
		lines = overlay(m.panes(lo), m.picker.View(w-4, h-3), w)
	case m.threads != nil:
		lines = overlay(m.panes(lo), m.threads.View(w-4, h-3), w)
	default:
		lines = m.panes(lo)
	}
	lines = append(lines, m.statusLine(w))
	return strings.Join(lines, "\n")
}

// tooSmall is the whole screen when the window cannot hold the panes.
func (m Model) tooSmall() string {
	msg := fmt.Sprintf("window too small: citelens needs %d×%d", minWidth, minHeight)
	var lines []string
	for _, l := range draw.Wrap(msg, m.width) {
		lines = append(lines, m.styles.Warning.Render(l))
	}
	return strings.Join(draw.Block(lines, m.width, m.height), "\n")
}
