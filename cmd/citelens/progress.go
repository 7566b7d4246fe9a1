package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citelens/citelens/docstore/textproc"
)

// progressBar draws one self-updating line on a terminal: a bar for work
// with a known total (pages), otherwise the stage. It stays silent for the
// first moments so quick jobs print nothing, and never draws on a pipe.
type progressBar struct {
	w       io.Writer
	enabled bool
	label   string
	start   time.Time
	last    time.Time
	drawn   bool
}

// progressDelay is how long a job runs before its progress is shown.
const progressDelay = 300 * time.Millisecond

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, enabled: isTerminal(w), label: textproc.OneLine(label), start: time.Now()}
}

// update redraws the line, at most ten times a second.
func (p *progressBar) update(stage string, done, total int) {
	if !p.enabled {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < progressDelay || (p.drawn && now.Sub(p.last) < 100*time.Millisecond && done != total) {
		return
	}
	p.last, p.drawn = now, true
	line := fmt.Sprintf("%s: %s", p.label, stage)
	if total > 0 {
		const width = 24
		filled := width * done / total
		rate := float64(done) / now.Sub(p.start).Seconds()
		line = fmt.Sprintf("%s [%s%s] %d/%d pages, %.0f pages/s", p.label,
			strings.Repeat("█", filled), strings.Repeat("░", width-filled), done, total, rate)
	}
	fmt.Fprintf(p.w, "\r\x1b[2K%s", line)
}

// finish clears the line.
func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
}
