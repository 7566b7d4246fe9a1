package main

import (
	"fmt"
	"io"
	"time"

	"github.com/citelens/citelens/internal/progress"
	"github.com/citelens/citelens/internal/textproc"
)

// newLiveLine is a progress line on w, drawn only when w is a terminal.
func newLiveLine(w io.Writer) *progress.Line { return progress.NewLine(w, isTerminal(w)) }

// barWidth is the cells of the command line's progress bars.
const barWidth = 24

// progressBar draws one self-updating line on a terminal: a bar for work
// with a known total (pages), otherwise the stage. It stays silent for the
// first moments so quick jobs print nothing, and never draws on a pipe.
type progressBar struct {
	*progress.Line
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
	return &progressBar{Line: newLiveLine(w), label: textproc.OneLine(label), start: time.Now()}
}

// update redraws the line, at most ten times a second.
func (p *progressBar) update(stage string, done, total int) {
	if time.Since(p.start) < progressDelay || !p.Due(done == total) {
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
		line = fmt.Sprintf("%s: %s [%s] %d/%d %s, %.*f %s/s", p.label, stage, progress.Bar(done, total, barWidth), done, total, unit, digits, rate, unit)
	}
	p.Draw(line)
}
