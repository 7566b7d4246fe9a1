package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/humanize"
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
	// stage, stageStart and stageDone are the stage being counted, when
	// it was first reported and its count then: its rate is of the work
	// since, so a job first drawn late (or a folder's first file done
	// before the first draw) does not show "20000000 files/s".
	stage      string
	stageStart time.Time
	stageDone  int
	// unit is what done and total count ("pages" when empty).
	unit string
	// detail follows the bar: of many files, the one last heard of.
	detail string
	// width is the terminal's (0: unknown): a line wider would wrap, and
	// a wrapped line is not redrawn in place.
	width int
}

// rateAfter is how long a stage runs before its rate is shown: a rate of
// a few moments' work is noise.
const rateAfter = time.Second

// progressDelay is how long a job runs before its progress is shown.
const progressDelay = 300 * time.Millisecond

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{Line: newLiveLine(w), label: textproc.OneLine(label), start: time.Now(), width: terminalWidth(w)}
}

// update redraws the line, at most ten times a second.
func (p *progressBar) update(stage string, done, total int) {
	if stage != p.stage { // OCR follows extraction: its rate starts afresh
		p.stage, p.stageStart, p.stageDone = stage, time.Now(), done
	}
	if time.Since(p.start) < progressDelay || !p.Due(done == total) {
		return
	}
	line := fmt.Sprintf("%s: %s", p.label, stage)
	if total > 0 {
		unit := p.unit
		if unit == "" {
			unit = "pages"
		}
		line = fmt.Sprintf("%s: %s [%s] %d/%d %s", p.label, stage, progress.Bar(done, total, barWidth), done, total, unit)
		if secs := time.Since(p.stageStart).Seconds(); secs >= rateAfter.Seconds() && done > p.stageDone {
			rate := float64(done-p.stageDone) / secs
			digits := 0
			if rate < 10 { // OCR reads a page in seconds
				digits = 1
			}
			line += fmt.Sprintf(", %.*f %s/s", digits, rate, unit)
		}
	}
	if p.detail != "" {
		line += " · " + p.detail
	}
	if p.width > 1 {
		line = ansi.Truncate(line, p.width-1, "…")
	}
	p.Draw(line)
}

// filesProgress is add's progress over many files: how many are done,
// and how the file last heard of goes ("big.pdf: reading 30/200 pages"),
// so a first file that takes ten seconds shows from the start. ingest
// reports progress and results from different goroutines: mu orders them.
type filesProgress struct {
	mu    sync.Mutex
	bar   *progressBar
	done  int
	total int
}

func newFilesProgress(w io.Writer, total int) *filesProgress {
	bar := newProgressBar(w, fmt.Sprintf("adding %s files", humanize.Count(total)))
	bar.unit = "files"
	return &filesProgress{bar: bar, total: total}
}

// file shows how one file goes.
func (f *filesProgress) file(p ingest.Progress) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := textproc.OneLine(filepath.Base(p.Path)) + ": " + p.Stage
	if p.Total > 0 {
		unit := p.Unit
		if unit == "" {
			unit = "pages"
		}
		d += fmt.Sprintf(" %d/%d %s", p.Done, p.Total, unit)
	}
	f.bar.detail = d
	f.bar.update("added", f.done, f.total)
}

// added counts a file done; report, under the lock, prints its result
// with the bar cleared.
func (f *filesProgress) added(report func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done++
	f.bar.Finish()
	report()
	f.bar.detail = ""
	f.bar.update("added", f.done, f.total)
}

// finish clears the bar.
func (f *filesProgress) finish() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bar.Finish()
}
