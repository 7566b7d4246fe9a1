package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/progress"
)

// drawnLines is what a terminal shows of a progress line's draws, one a
// redraw.
func drawnLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\r\x1b[2K") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestAddProgressFromFirstFile: adding many files shows, before the
// first is done, how that file goes; and a rate is shown only of work
// measured over a while, never "20000000 files/s" for the first file done
// before the first draw.
func TestAddProgressFromFirstFile(t *testing.T) {
	var out strings.Builder
	f := newFilesProgress(&out, 3)
	f.bar.Line = progress.NewLine(&out, true) // as on a terminal
	f.bar.start = time.Now().Add(-time.Minute)
	f.file(ingest.Progress{Path: "/manuals/big.pdf", Stage: "reading", Done: 30, Total: 200})
	lines := drawnLines(out.String())
	if len(lines) == 0 || !strings.Contains(lines[len(lines)-1], "0/3 files") || !strings.Contains(lines[len(lines)-1], "big.pdf: reading 30/200 pages") {
		t.Fatalf("before the first file is done, the bar shows %q", lines)
	}
	f.added(func() {})
	lines = drawnLines(out.String())
	last := lines[len(lines)-1]
	if !strings.Contains(last, "1/3 files") {
		t.Errorf("after one file: %q", last)
	}
	if m := regexp.MustCompile(`([0-9.]+) files/s`).FindStringSubmatch(last); m != nil {
		t.Errorf("a rate of a moment's work: %q", last)
	}

	// A stage's rate counts from its first report: 10 pages in 2 s.
	var one strings.Builder
	bar := newProgressBar(&one, "a.pdf")
	bar.Line = progress.NewLine(&one, true)
	bar.start = time.Now().Add(-time.Minute)
	bar.update("reading", 40, 100)
	bar.stageStart = time.Now().Add(-2 * time.Second)
	time.Sleep(110 * time.Millisecond) // the line redraws ten times a second
	bar.update("reading", 60, 100)
	lines = drawnLines(one.String())
	if last := lines[len(lines)-1]; !strings.Contains(last, "60/100 pages, 9.") && !strings.Contains(last, "60/100 pages, 10 ") {
		t.Errorf("20 pages in about 2 s drawn as %q", last)
	}
}
