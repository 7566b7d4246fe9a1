package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/keytest"
)

// The benchmarks run on R's reference manual (2415 pages, about a million
// tokens), added to a library with citelens's own PDF extractor. Set
// CITELENS_BENCH_DB to a library that holds it already to skip the adding
// (about ten seconds); without the PDF the benchmarks skip.
const refmanPDF = "/usr/share/R/doc/manual/fullrefman.pdf"

var (
	benchOnce sync.Once
	benchLib  *docstore.Library
	benchDoc  *docstore.Document
	benchAns  *engine.Answer
	benchErr  string
)

func refman(b *testing.B) (*docstore.Library, *docstore.Document, *engine.Answer) {
	b.Helper()
	benchOnce.Do(func() {
		path := os.Getenv("CITELENS_BENCH_DB")
		if path == "" {
			if _, err := os.Stat(refmanPDF); err != nil {
				benchErr = "no " + refmanPDF
				return
			}
			dir, err := os.MkdirTemp("", "citelens-bench")
			if err != nil {
				benchErr = err.Error()
				return
			}
			path = filepath.Join(dir, "library.db") // left for the OS to clean: the library stays open
		}
		lib, err := docstore.Open(path, nil)
		if err != nil {
			benchErr = err.Error()
			return
		}
		info, _, err := ingest.New(lib, nil).Add(context.Background(), refmanPDF, nil)
		if err != nil {
			benchErr = err.Error()
			return
		}
		doc, err := lib.Document(info.ID)
		if err != nil {
			benchErr = err.Error()
			return
		}
		// A real answer: the extractive strategy's, with many citations
		// spread through the manual.
		env := engine.NewEnv(lib, config.Config{})
		s, err := engine.New("extractive", env)
		if err != nil {
			benchErr = err.Error()
			return
		}
		ans, err := engine.Run(context.Background(), env, s, engine.Request{
			Question: "how are missing values (NA) handled when fitting a linear model?",
			Docs:     []docstore.DocID{info.ID},
			Options:  engine.Settings("k", "40", "merge", "false"),
		}, nil)
		if err != nil {
			benchErr = err.Error()
			return
		}
		benchLib, benchDoc, benchAns = lib, doc, ans
	})
	if benchLib == nil {
		b.Skip(benchErr)
	}
	return benchLib, benchDoc, benchAns
}

// BenchmarkNextCitation measures what a press of n costs before the frame
// is drawn: the root model's Update (the conversation selects the next
// citation, the source pane jumps to it in the million-token manual) and
// View (every pane drawn). It walks the answer's citations forward with n
// and back with N. It reports the median and 99th percentile per press;
// the budget is 16 ms at the median.
func BenchmarkNextCitation(b *testing.B) {
	lib, doc, ans := refman(b)
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"240x70", 240, 70}} {
		b.Run(size.name, func(b *testing.B) {
			sel, _ := themes.NewSelector("dark", false)
			m := New(Options{Library: lib, Env: engine.NewEnv(lib, config.Config{}), Theme: sel, ExportDir: b.TempDir()})
			b.Cleanup(m.Shutdown)
			m = step(m, tea.WindowSizeMsg{Width: size.w, Height: size.h})
			docs, err := lib.List()
			if err != nil {
				b.Fatal(err)
			}
			m = step(m, libraryMsg{docs: docs})
			m = step(m, answersMsg{page: engine.Page{Answers: []*engine.Answer{ans}}})
			m.docs[doc.ID] = doc                // loaded by the first jump, as in use
			m = step(m, keytest.Press("esc"))   // the input: to the answers
			m = step(m, keytest.Press("enter")) // the first citation, in the source
			m = step(m, keytest.Press("esc"))   // back to the input
			m = step(m, keytest.Press("esc"))   // and to the answers, where n is a command
			if m.conv.Typing() || m.focus != paneConversation {
				b.Fatal("the keys did not reach the answers")
			}
			cites := 0
			for _, s := range ans.Statements {
				cites += len(s.Citations)
			}
			if cites < 2 {
				b.Fatalf("the answer has %d citations", cites)
			}
			next, prev := keytest.Press("n"), keytest.Press("N")
			var times []time.Duration
			i := 0
			for b.Loop() {
				k := next
				if (i/(cites-1))%2 == 1 {
					k = prev
				}
				i++
				t0 := time.Now()
				nm, _ := m.Update(k)
				m = nm.(Model)
				_ = m.View()
				times = append(times, time.Since(t0))
			}
			if m.conv.Typing() {
				b.Fatal("n went to the input")
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e6, "median-ms/press")
			b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e6, "p99-ms/press")
			if c, ok := m.conv.Citation(); !ok || c.Span.Doc != doc.ID {
				b.Fatal("no citation of the manual selected")
			}
		})
	}
}

// step runs one message through Update, ignoring the commands it returns.
func step(m Model, msg tea.Msg) Model {
	nm, _ := m.Update(msg)
	return nm.(Model)
}
