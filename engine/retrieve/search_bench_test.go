package retrieve

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

// The manual the search benchmark ranks over: R's 2,415-page reference
// (Debian package r-doc-pdf), about a million tokens.
const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

var (
	benchOnce sync.Once
	benchLib  *docstore.Library
	benchErr  error
)

// fullrefmanLibrary ingests the manual once per benchmark process, into
// $CITELENS_BENCH_DB if set (kept between runs) or a temporary folder.
func fullrefmanLibrary(b *testing.B) *docstore.Library {
	b.Helper()
	if _, err := os.Stat(fullrefman); err != nil {
		b.Skip("fullrefman.pdf not installed (apt-get install r-doc-pdf)")
	}
	benchOnce.Do(func() {
		path := os.Getenv("CITELENS_BENCH_DB")
		if path == "" {
			dir, err := os.MkdirTemp("", "citelens-bench")
			if err != nil {
				benchErr = err
				return
			}
			path = filepath.Join(dir, "library.db")
		}
		if benchLib, benchErr = docstore.Open(path, nil); benchErr == nil {
			_, _, benchErr = ingest.New(benchLib, nil).Add(b.Context(), fullrefman, nil)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchLib
}

// benchQueries are questions an analyst asks of the manual: common and rare
// terms, short and long.
var benchQueries = []string{
	"How does lm handle missing values?",
	"regression",
	"read a CSV file into a data frame",
	"What is the default method of p.adjust?",
	"sort a vector in decreasing order",
	"environment variables that control the number of threads",
	"difference between apply sapply and lapply",
	"plot a histogram with custom breaks and colours",
}

// BenchmarkSearchFullrefman is BM25 top-10 over the manual's sentence
// index, the query analysed each time. Compare medians with
// `go test -bench SearchFullrefman -count 10 | benchstat -`.
func BenchmarkSearchFullrefman(b *testing.B) {
	lib := fullrefmanLibrary(b)
	qs := make([]Query, len(benchQueries))
	for i, q := range benchQueries {
		qs[i] = ParseQuery(q)
	}
	if _, err := Search(lib, qs[0], SearchOptions{K: 10}); err != nil { // loads the lengths once, as a warm process has
		b.Fatal(err)
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := Search(lib, ParseQuery(benchQueries[i%len(benchQueries)]), SearchOptions{K: 10}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSearchFullrefmanChunks is the same over the chunk index.
func BenchmarkSearchFullrefmanChunks(b *testing.B) {
	lib := fullrefmanLibrary(b)
	Search(lib, ParseQuery(benchQueries[0]), SearchOptions{K: 10, Field: docstore.FieldChunks})
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := Search(lib, ParseQuery(benchQueries[i%len(benchQueries)]), SearchOptions{K: 10, Field: docstore.FieldChunks}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
