package extractive

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/ingest"
)

// The speed target: `citelens ask --strategy extractive` over R's full
// reference manual (2,415 pages, about a million tokens) within 300 ms as a
// whole warm process, so retrieval and re-ranking must take a few tens of
// milliseconds. The manual comes from Debian's r-doc-pdf; it is ingested
// as a PDF when the extractor can read it, else as pdftotext's text, which
// is the same size.

const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

var benchQuestions = []string{
	"How do I read a CSV file into a data frame?",
	"What does the na.rm argument of mean do?",
	"Which function fits a generalized linear model?",
	"How can I change the default graphics device?",
	"When was the S language developed at Bell Laboratories?",
}

var (
	bigOnce sync.Once
	bigLib  *docstore.Library
	bigErr  error
	bigSkip string
)

// bigLibrary ingests the manual once per test binary.
func bigLibrary(b *testing.B) *docstore.Library {
	bigOnce.Do(func() {
		if _, err := os.Stat(fullrefman); err != nil {
			bigSkip = "no " + fullrefman + " (Debian package r-doc-pdf)"
			return
		}
		dir, err := os.MkdirTemp("", "citelens-bench-")
		if err != nil {
			bigErr = err
			return
		}
		lib, err := docstore.Open(filepath.Join(dir, "library.db"), nil)
		if err != nil {
			bigErr = err
			return
		}
		if _, _, err := ingest.New(lib, nil).Add(context.Background(), fullrefman, nil); err != nil {
			// The PDF extractor cannot read it (yet): use pdftotext.
			txt := filepath.Join(dir, "fullrefman.txt")
			if out, err := exec.Command("pdftotext", fullrefman, txt).CombinedOutput(); err != nil {
				bigSkip = "cannot extract the manual: " + string(out)
				return
			}
			if _, _, err := ingest.New(lib, nil).Add(context.Background(), txt, nil); err != nil {
				bigErr = err
				return
			}
		}
		bigLib = lib
	})
	if bigSkip != "" {
		b.Skip(bigSkip)
	}
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigLib
}

// BenchmarkSentences is the ranking alone, documents already decoded.
func BenchmarkSentences(b *testing.B) {
	lib := bigLibrary(b)
	r := retrieve.New(lib)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := r.Sentences(ctx, benchQuestions[i%len(benchQuestions)], retrieve.Options{K: MaxStatements}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPlainBM25 is the index's BM25 alone, for comparison.
func BenchmarkPlainBM25(b *testing.B) {
	lib := bigLibrary(b)
	r := retrieve.New(lib)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := r.Sentences(ctx, benchQuestions[i%len(benchQuestions)], retrieve.Options{K: MaxStatements, Plain: true}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAnswer is the whole strategy: ranking, statements, verification.
func BenchmarkAnswer(b *testing.B) {
	lib := bigLibrary(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		req := engine.Request{Question: benchQuestions[i%len(benchQuestions)]}
		if _, err := answer(ctx, lib, req, nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
