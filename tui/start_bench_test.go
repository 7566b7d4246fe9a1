package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

// BenchmarkStart measures a start on a library holding 1,000 saved
// answers — among them one of 10 MB, the oldest, as in the issue that
// found every start reading every answer — to the first frame that shows
// them: the model made, the library's list and the answers read (the
// commands Init returns, run here in turn), the window sized, and the
// screen drawn. "latest" is the TUI's start (the latest page of
// answers); "every-answer" is the start as it was, reading every saved
// answer first, for the ratio. The budget is 100 ms to the first frame.
func BenchmarkStart(b *testing.B) {
	lib, _ := enginetest.Library(b, declaration)
	saveManyAnswers(b, lib, 1000)
	for _, mode := range []string{"latest", "every-answer"} {
		b.Run(mode, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				t0 := time.Now()
				m := New(testOptions(b, lib, "dark"))
				m = step(m, tea.WindowSizeMsg{Width: 160, Height: 48})
				m = step(m, loadLibrary(lib)())
				if mode == "latest" {
					m = step(m, loadAnswers(lib, "")())
				} else {
					m = step(m, everyAnswer(b, lib))
				}
				v := m.render()
				times = append(times, time.Since(t0))
				if !strings.Contains(v, "question 0999") {
					b.Fatal("the first frame does not show the newest answer")
				}
				m.Shutdown()
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms/start")
		})
	}
}

// everyAnswer reads every saved answer, oldest first, as the TUI's start
// did before it read only the latest.
func everyAnswer(b *testing.B, lib *docstore.Library) answersMsg {
	metas, err := lib.Answers().List()
	if err != nil {
		b.Fatal(err)
	}
	var p engine.Page
	for i := len(metas) - 1; i >= 0; i-- {
		a, err := engine.Load(lib, metas[i].ID)
		if err != nil {
			b.Fatal(err)
		}
		p.Answers = append(p.Answers, a)
	}
	return answersMsg{page: p}
}

// saveManyAnswers saves n extractive-looking answers of eight statements,
// the oldest one of about 10 MB.
func saveManyAnswers(b *testing.B, lib *docstore.Library, n int) {
	docs, _ := lib.List()
	doc, err := lib.Document(docs[0].ID)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		k := 8
		if i == 0 {
			k = 4000 // about 10 MB of JSON
		}
		a := &engine.Answer{ID: answerID(i), Question: fmt.Sprintf("question %04d", i), Strategy: "extractive",
			Docs: []citations.DocRef{{ID: doc.ID, Name: doc.Name}}}
		for j := range k {
			s := (i + j) % len(doc.Sentences)
			sp := citations.SpanOf(doc, s, s)
			if i == 0 {
				sp.Text = strings.Repeat("x", 2500) // the bulk of a big answer: its quotes
			}
			st := citations.Statement{Text: sp.Text, Citations: []citations.Span{sp}}
			citations.Verify(&st)
			a.Statements = append(a.Statements, st)
		}
		if err := engine.Save(lib, a); err != nil {
			b.Fatal(err)
		}
	}
}
