// Package draw holds the few string helpers the TUI's panes share: fitting
// styled text to a width, padding, painting runs of text, and framing a
// pane. Every pane's View is
// exactly its width × height, so the root model can put panes side by side
// by joining lines, without measuring them again.
package draw

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

const spaces = "                                                                                                                                "

// Pad returns n spaces (none for n ≤ 0).
func Pad(n int) string {
	switch {
	case n <= 0:
		return ""
	case n <= len(spaces):
		return spaces[:n]
	}
	return strings.Repeat(" ", n)
}

// Fit pads or truncates s, which may hold SGR sequences, to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	return s + Pad(w-sw)
}

// Truncate cuts s to at most w cells, ending it with "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// Spread puts left and right on one line of w cells, right-aligned; when
// both do not fit, right is dropped, then left is truncated.
func Spread(left, right string, w int) string {
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if right == "" || lw+rw+1 > w {
		return Fit(left, w)
	}
	return left + Pad(w-lw-rw) + right
}

// Block returns lines made into exactly h lines of exactly w cells: each
// fitted, missing ones blank, extra ones dropped.
func Block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = Pad(w)
		}
	}
	return out
}

// Wrap word-wraps plain text (no SGR) to w cells and returns its lines;
// words longer than w are broken. Newlines in text start new lines.
func Wrap(text string, w int) []string {
	if w < 1 {
		w = 1
	}
	return strings.Split(ansi.Wrap(text, w, ""), "\n")
}

// Items lays out items joined by sep on lines of at most w cells,
// breaking only between items, never inside one ("2.0 MB" stays on one
// line); an item wider than w is cut.
func Items(items []string, sep string, w int) []string {
	var lines []string
	var cur string
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case ansi.StringWidth(cur+sep+it) <= w:
			cur += sep + it
		default:
			lines = append(lines, Truncate(cur, w))
			cur = it
		}
	}
	if cur != "" {
		lines = append(lines, Truncate(cur, w))
	}
	return lines
}

// Border is a pane frame drawn from a lipgloss style's border and colour.
type Border struct {
	b     lipgloss.Border
	paint func(string) string
}

// NewBorder takes the border shape and colour of a style such as
// themes.Styles.Pane.
func NewBorder(st lipgloss.Style) Border {
	b := st.GetBorderStyle()
	fg := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	return Border{b: b, paint: func(s string) string { return fg.Render(s) }}
}

// Frame draws body (h-2 lines of w-2 cells each, as Block returns) inside a
// border of w × h cells with title set into the top edge.
func (f Border) Frame(title string, body []string, w, h int) []string {
	if w < 2 || h < 2 {
		return Block(nil, max(w, 0), max(h, 0))
	}
	inner := w - 2
	out := make([]string, 0, h)
	top := f.b.TopLeft
	if title != "" && inner >= 4 {
		t := Truncate(title, inner-2)
		top += f.b.Top
		top = f.paint(top) + t + f.paint(strings.Repeat(f.b.Top, inner-1-ansi.StringWidth(t))+f.b.TopRight)
	} else {
		top = f.paint(top + strings.Repeat(f.b.Top, inner) + f.b.TopRight)
	}
	out = append(out, top)
	left, right := f.paint(f.b.Left), f.paint(f.b.Right)
	for i := 0; i < h-2; i++ {
		line := Pad(inner)
		if i < len(body) {
			line = body[i]
		}
		out = append(out, left+line+right)
	}
	out = append(out, f.paint(f.b.BottomLeft+strings.Repeat(f.b.Bottom, inner)+f.b.BottomRight))
	return out
}

// Paint applies a style by concatenation: the SGR sequences the style
// puts before and after a character, around any run of text. lipgloss
// renders some attributes (underline) one character at a time; painting
// a run whole is shorter and cheaper, and looks the same.
type Paint struct{ prefix, suffix string }

// PaintOf returns the paint of a style.
func PaintOf(st lipgloss.Style) Paint {
	r := st.Render("x")
	i := strings.IndexByte(r, 'x')
	if i < 0 {
		return Paint{}
	}
	return Paint{prefix: r[:i], suffix: r[i+1:]}
}

// NewPaint is the paint that writes prefix before a run and suffix after
// it: markers a test can read, say.
func NewPaint(prefix, suffix string) Paint { return Paint{prefix: prefix, suffix: suffix} }

// Prefix is the SGR sequence that starts a run in the paint; Suffix the
// one that ends it. A caller that writes a run in pieces (the source
// pane, drawing a row cell by cell) writes them around the pieces.
func (p Paint) Prefix() string { return p.prefix }

// Suffix is the SGR sequence that ends a run in the paint.
func (p Paint) Suffix() string { return p.suffix }

// Render paints s, which must be one line without SGR sequences.
func (p Paint) Render(s string) string {
	if p.prefix == "" && p.suffix == "" || s == "" {
		return s
	}
	return p.prefix + s + p.suffix
}

// Dialog lays out a dialog box's inside: body above foot, in a box as tall
// as it needs and at most maxH rows (its border included), the body
// scrolled to keep cursorLine in view, each line padded by a space on
// either side of inner cells. It returns the lines and the box's height,
// ready for Border.Frame.
func Dialog(body, foot []string, cursorLine, inner, maxH int) (lines []string, h int) {
	h = min(len(body)+len(foot)+2, maxH)
	listH := max(h-2-len(foot), 1)
	if listH < len(body) {
		top := min(max(cursorLine-listH/2, 0), len(body)-listH)
		body = body[top : top+listH]
	}
	lines = append(slices.Clip(body), foot...)
	if len(lines) > h-2 {
		lines = lines[:max(h-2, 0)]
	}
	for i := range lines {
		lines[i] = " " + Fit(lines[i], inner) + " "
	}
	return lines, h
}
