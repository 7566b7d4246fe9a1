package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/tui/addfiles"
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
		rows := len(m.lib.Docs()) + m.lib.Adding() + 1
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
}

// framePadW is the width a pane's frame takes: a border and a space on
// each side.
const framePadW = 4

// frame draws a pane's view in its border, titled, a space either side.
func (m Model) frame(p pane, view string, s size) []string {
	st := m.styles
	border, title := draw.NewBorder(st.Pane), st.Muted.Render(" "+p.title()+" ")
	if p == m.focus {
		border, title = draw.NewBorder(st.PaneFocused), st.Title.Render(" "+p.title()+" ")
	}
	body := strings.Split(view, "\n")
	for i := range body {
		body[i] = " " + body[i] + " "
	}
	return border.Frame(title, body, s.w, s.h)
}

// panes draws the panes as laid out, height-1 lines of width cells.
func (m Model) panes(lo layoutInfo) []string {
	switch lo.mode {
	case modeThree:
		return joinColumns(
			m.frame(paneLibrary, m.lib.View(), lo.lib),
			m.frame(paneConversation, m.conv.View(), lo.conv),
			m.frame(paneSource, m.src.View(), lo.src))
	case modeTwo:
		left := append(m.frame(paneLibrary, m.lib.View(), lo.lib), m.frame(paneConversation, m.conv.View(), lo.conv)...)
		return joinColumns(left, m.frame(paneSource, m.src.View(), lo.src))
	}
	var view string
	switch m.focus {
	case paneLibrary:
		view = m.lib.View()
	case paneConversation:
		view = m.conv.View()
	default:
		view = m.src.View()
	}
	return append([]string{m.tabBar()}, m.frame(m.focus, view, lo.conv)...)
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

// helpScreen is the full help: every key, by where it applies, in a frame
// of w × h that scrolls.
func (m Model) helpScreen(w, h int) []string {
	inner := w - 4
	lines := m.helpLines(inner)
	body := h - 2
	top := min(m.helpTop, max(len(lines)-body, 0))
	lines = lines[top:]
	for i := range lines {
		lines[i] = " " + draw.Fit(lines[i], inner) + " "
	}
	title := m.styles.Title.Render(" Keys ")
	return draw.NewBorder(m.styles.PaneFocused).Frame(title, lines, w, h)
}

// helpMaxTop is how far the help screen scrolls in the window.
func (m Model) helpMaxTop() int {
	return max(len(m.helpLines(m.width-4))-(m.height-3), 0)
}

// helpLines is the help screen's text, inner cells wide.
func (m Model) helpLines(inner int) []string {
	st := m.styles
	hm := m.help
	hm.SetWidth(inner)
	var lines []string
	section := func(title string, groups [][]key.Binding) {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.Title.Render(title))
		block := hm.FullHelpView(groups)
		if fullWidth(block) > inner {
			// Too wide side by side: one group under the other.
			block = ""
			for i, g := range groups {
				if i > 0 {
					block += "\n"
				}
				block += hm.FullHelpView([][]key.Binding{g})
			}
		}
		lines = append(lines, strings.Split(block, "\n")...)
	}
	input, list := m.conv.KeyMap.HelpKeyMaps()
	section("Everywhere", m.keys.FullHelp())
	section("Question input", input)
	section("Conversation", list)
	section("Library", m.lib.KeyMap.FullHelp())
	section("Adding documents", addfiles.DefaultKeyMap().FullHelp())
	section("Source", m.src.KeyMap.FullHelp())
	return lines
}

// fullWidth is the widest line of a block.
func fullWidth(block string) int {
	w := 0
	for _, l := range strings.Split(block, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}
