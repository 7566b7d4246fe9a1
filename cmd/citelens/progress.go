package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/textproc"
)

// liveLine is one line redrawn in place on a terminal, never on a pipe:
// at most ten times a second, but always for the last update of a job, and
// cleared by finish. The progress bars are built on it.
type liveLine struct {
	w       io.Writer
	enabled bool
	last    time.Time
	drawn   bool
}

func newLiveLine(w io.Writer) liveLine { return liveLine{w: w, enabled: isTerminal(w)} }

// due reports whether to draw an update now; final marks the job's last.
func (l *liveLine) due(final bool) bool {
	if !l.enabled || (l.drawn && time.Since(l.last) < 100*time.Millisecond && !final) {
		return false
	}
	l.last, l.drawn = time.Now(), true
	return true
}

// draw replaces the line with s.
func (l *liveLine) draw(s string) { fmt.Fprintf(l.w, "\r\x1b[2K%s", s) }

// finish clears the line.
func (l *liveLine) finish() {
	if l.drawn {
		fmt.Fprint(l.w, "\r\x1b[2K")
	}
}

// clear clears the line so that other output can be printed; the next
// update draws it again.
func (l *liveLine) clear() {
	l.finish()
	l.drawn = false
}

// barCells draws done of total as 24 cells: "██████░░░░░░…".
func barCells(done, total int) string {
	const width = 24
	filled := min(max(width*done/max(total, 1), 0), width)
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

// progressBar draws one self-updating line on a terminal: a bar for work
// with a known total (pages), otherwise the stage. It stays silent for the
// first moments so quick jobs print nothing, and never draws on a pipe.
type progressBar struct {
	liveLine
	label string
	start time.Time
	// stage and stageStart are the paged stage being drawn and when it
	// began.
	stage      string
	stageStart time.Time
	// unit is what done and total count ("pages" when empty).
	unit string
}

// progressDelay is how long a job runs before its progress is shown.
const progressDelay = 300 * time.Millisecond

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{liveLine: newLiveLine(w), label: textproc.OneLine(label), start: time.Now()}
}

// update redraws the line, at most ten times a second.
func (p *progressBar) update(stage string, done, total int) {
	if time.Since(p.start) < progressDelay || !p.due(done == total) {
		return
	}
	line := fmt.Sprintf("%s: %s", p.label, stage)
	if total > 0 {
		if stage != p.stage { // OCR follows extraction: its rate starts afresh
			p.stage, p.stageStart = stage, time.Now()
		}
		rate := float64(done) / time.Since(p.stageStart).Seconds()
		digits := 0
		if rate < 10 { // OCR reads a page in seconds
			digits = 1
		}
		unit := p.unit
		if unit == "" {
			unit = "pages"
		}
		line = fmt.Sprintf("%s: %s [%s] %d/%d %s, %.*f %s/s", p.label, stage, barCells(done, total), done, total, unit, digits, rate, unit)
	}
	p.draw(line)
}
