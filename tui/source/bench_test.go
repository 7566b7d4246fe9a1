package source

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/themes"
)

// The benchmarks run on the text of R's reference manual (2415 pages,
// ~4.4 MB, about a million tokens), extracted with pdftotext. Set
// CITELENS_BENCH_TEXT to an extracted copy to skip the extraction; without
// either the benchmarks skip.
const refmanPDF = "/usr/share/R/doc/manual/fullrefman.pdf"

var (
	bigOnce sync.Once
	bigDoc  *docstore.Document
	bigErr  string
)

func loadBig(b *testing.B) *docstore.Document {
	b.Helper()
	bigOnce.Do(func() {
		path := os.Getenv("CITELENS_BENCH_TEXT")
		if path == "" {
			if _, err := os.Stat(refmanPDF); err != nil {
				bigErr = "no " + refmanPDF
				return
			}
			if _, err := exec.LookPath("pdftotext"); err != nil {
				bigErr = "no pdftotext (poppler-utils)"
				return
			}
			dir, err := os.MkdirTemp("", "citelens-bench")
			if err != nil {
				bigErr = err.Error()
				return
			}
			defer os.RemoveAll(dir)
			path = filepath.Join(dir, "fullrefman.txt")
			if out, err := exec.Command("pdftotext", refmanPDF, path).CombinedOutput(); err != nil {
				bigErr = "pdftotext: " + err.Error() + ": " + string(out)
				return
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			bigErr = err.Error()
			return
		}
		text := string(data)
		// pdftotext ends every page with a form feed.
		starts := []int32{0}
		for i := strings.IndexByte(text, '\f'); i >= 0 && i+1 < len(text); {
			starts = append(starts, int32(i+1))
			j := strings.IndexByte(text[i+1:], '\f')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		bigDoc = &docstore.Document{
			DocInfo:    docstore.DocInfo{ID: "fullrefman", Name: "fullrefman.pdf", Kind: "pdf", Pages: len(starts), Bytes: len(text)},
			Text:       text,
			PageStarts: starts,
		}
	})
	if bigDoc == nil {
		b.Skip(bigErr)
	}
	return bigDoc
}

// citations returns n sentence-sized ranges spread at random over doc.
func citations(doc *docstore.Document, n int) []Range {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]Range, n)
	for i := range out {
		s := r.IntN(len(doc.Text) - 400)
		out[i] = Range{s, s + 150 + r.IntN(250)}
	}
	return out
}

// percentiles reports the median and 99th percentile of the samples.
func percentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(samples[len(samples)*99/100].Nanoseconds()), "p99-ns")
}

func benchModel(b *testing.B, doc *docstore.Document) Model {
	m := New(themes.Dark())
	m.SetSize(100, 45)
	m.Show(doc, Range{0, 10}, nil)
	_ = view(m)
	return m
}

// citeRoot stands in for the root model: "]" shows the next citation.
type citeRoot struct {
	src   Model
	doc   *docstore.Document
	cites []Range
	i     int
}

func (r *citeRoot) Update(msg tea.Msg) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "]" {
		c := r.cites[r.i%len(r.cites)]
		r.i++
		r.src.Show(r.doc, c, []Range{{c.End + 10, c.End + 200}})
		return
	}
	r.src, _, _ = r.src.Update(msg)
}

// BenchmarkShowFarCitation is the "next citation" keypress: Update shows a
// citation somewhere else in the 4.4 MB document, then View draws the
// frame. Each op jumps to a fresh random place, so the blocks it draws
// are rarely wrapped already.
func BenchmarkShowFarCitation(b *testing.B) {
	doc := loadBig(b)
	root := &citeRoot{src: benchModel(b, doc), doc: doc, cites: citations(doc, 4096)}
	next := tea.KeyPressMsg{Code: ']', Text: "]"}
	var samples []time.Duration
	for b.Loop() {
		t0 := time.Now()
		root.Update(next)
		_ = view(root.src)
		samples = append(samples, time.Since(t0))
	}
	percentiles(b, samples)
}

// BenchmarkPageDown is a pgdn keypress: Update and the frame after it.
func BenchmarkPageDown(b *testing.B) {
	doc := loadBig(b)
	m := benchModel(b, doc)
	m.Show(doc, Range{len(doc.Text) / 2, len(doc.Text)/2 + 100}, nil)
	pgdn := tea.KeyPressMsg{Code: tea.KeyPgDown}
	var samples []time.Duration
	for b.Loop() {
		t0 := time.Now()
		m, _, _ = m.Update(pgdn)
		_ = view(m)
		samples = append(samples, time.Since(t0))
	}
	percentiles(b, samples)
}

// BenchmarkLineDown is a j keypress: Update and frame.
func BenchmarkLineDown(b *testing.B) {
	doc := loadBig(b)
	m := benchModel(b, doc)
	j := tea.KeyPressMsg{Code: 'j', Text: "j"}
	for b.Loop() {
		m, _, _ = m.Update(j)
		_ = view(m)
	}
}

// BenchmarkViewWithMatches draws a frame full of search matches.
func BenchmarkViewWithMatches(b *testing.B) {
	doc := loadBig(b)
	m := benchModel(b, doc)
	m.Show(doc, Range{len(doc.Text) / 3, len(doc.Text)/3 + 300}, nil)
	m.query = "e"
	msg := searchCmd(m.ds, "e", m.seq)().(searchDoneMsg)
	m, _, _ = m.Update(msg)
	for b.Loop() {
		_ = view(m)
	}
}

// BenchmarkLineIndex is the per-document cost of opening it in the pane.
func BenchmarkLineIndex(b *testing.B) {
	doc := loadBig(b)
	b.SetBytes(int64(len(doc.Text)))
	for b.Loop() {
		newLineIndex(doc.Text, doc.PageStarts)
	}
}

// BenchmarkFold is the one-off cost of a document's first search.
func BenchmarkFold(b *testing.B) {
	doc := loadBig(b)
	b.SetBytes(int64(len(doc.Text)))
	for b.Loop() {
		fold(doc.Text)
	}
}

// BenchmarkFindAll is every later search: a word and a common letter.
func BenchmarkFindAll(b *testing.B) {
	doc := loadBig(b)
	folded := fold(doc.Text)
	for _, q := range []string{"regression", "e"} {
		b.Run(q, func(b *testing.B) {
			b.SetBytes(int64(len(folded)))
			n := 0
			for b.Loop() {
				n = len(findAll(folded, q))
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}
