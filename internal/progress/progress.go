// Package progress draws the progress of long work on a terminal: a line
// redrawn in place (Line) and the bar inside it (Bar). The command line's
// progress bars (add, embed, derive, eval, salvage) and the terminal UI's
// per-file bars draw their bars here, so they look alike.
package progress

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Line is one line redrawn in place on a terminal, never on a pipe: at
// most ten times a second, but always for the last update of a job, and
// cleared by Finish. A Line is not safe for concurrent use.
type Line struct {
	w       io.Writer
	enabled bool
	last    time.Time
	drawn   bool
}

// NewLine is a line on w, drawn only when terminal is true (w is a
// terminal): on a pipe or a file progress would be noise.
func NewLine(w io.Writer, terminal bool) *Line { return &Line{w: w, enabled: terminal} }

// interval is the least time between two redraws of a Line.
const interval = 100 * time.Millisecond

// Due reports whether to draw an update now; final marks a job's last
// update, which is always drawn.
func (l *Line) Due(final bool) bool {
	if !l.enabled || (l.drawn && time.Since(l.last) < interval && !final) {
		return false
	}
	l.last, l.drawn = time.Now(), true
	return true
}

// Draw replaces the line with s, which must be one line of plain text
// (already made safe for a terminal).
func (l *Line) Draw(s string) {
	if l.enabled {
		fmt.Fprintf(l.w, "\r\x1b[2K%s", s)
		l.drawn = true
	}
}

// Finish clears the line, if anything was drawn.
func (l *Line) Finish() {
	if l.drawn {
		fmt.Fprint(l.w, "\r\x1b[2K")
		l.drawn = false
	}
}

// Bar draws done of total as a bar of width cells, in eighths of a cell:
// Bar(5, 16, 8) is "██▌░░░░░". done outside [0, total] is drawn as empty
// or full.
func Bar(done, total, width int) string {
	if width <= 0 {
		return ""
	}
	eighths := min(max(done, 0)*width*8/max(total, 1), width*8)
	full, part := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	if full < width {
		if part > 0 {
			b.WriteRune([]rune("▏▎▍▌▋▊▉")[part-1])
			full++
		}
		b.WriteString(strings.Repeat("░", width-full))
	}
	return b.String()
}
