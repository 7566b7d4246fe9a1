package retrieve

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

// The derived-search benchmark's corpus: three documents of 2,400
// sentences, each cut into 800 chunks of three sentences with a summary
// of 30 words and eight questions of eight, over a vocabulary of 3,000
// made-up words drawn by a Zipf law (so some words are common, most
// rare), as a model's summaries and questions are.
const (
	benchDerivedDocs      = 3
	benchDerivedSentences = 2400
)

// benchWords makes n words of text drawn from vocab by zipf.
func benchWords(vocab []string, zipf *rand.Zipf, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = vocab[zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// benchVocabulary is n made-up words of two to four syllables.
func benchVocabulary(r *rand.Rand, n int) []string {
	syl := []string{"ka", "lo", "mi", "ren", "sto", "vu", "dra", "pel", "qui", "zan", "tor", "bex", "nol", "fi", "gra", "hus"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// derivedBenchLibrary builds the corpus in a temporary folder and returns
// it with its documents and the questions to ask.
func derivedBenchLibrary(b *testing.B) (*docstore.Library, []docstore.DocID, []string) {
	b.Helper()
	r := rand.New(rand.NewPCG(29, 4))
	vocab := benchVocabulary(r, 3000)
	dir := b.TempDir()
	lib, err := docstore.Open(filepath.Join(dir, "library.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := lib.Close(); err != nil {
			b.Error(err)
		}
	})
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	var docs []docstore.DocID
	for n := range benchDerivedDocs {
		var text strings.Builder
		for range benchDerivedSentences {
			text.WriteString(strings.ToUpper(benchWords(vocab, zipf, 1)))
			text.WriteString(" " + benchWords(vocab, zipf, 11) + ".\n")
		}
		path := filepath.Join(dir, fmt.Sprintf("doc%d.txt", n))
		if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		info, _, err := ingest.New(lib, nil).Add(b.Context(), path, nil)
		if err != nil {
			b.Fatal(err)
		}
		d, err := lib.Document(info.ID)
		if err != nil {
			b.Fatal(err)
		}
		var chunks []docstore.Chunk
		for first := 0; first+2 < len(d.Sentences); first += 3 {
			chunks = append(chunks, docstore.Chunk{First: int32(first), Last: int32(first + 2)})
		}
		if _, err := lib.Derived().Begin(d.ID, benchSet, chunks); err != nil {
			b.Fatal(err)
		}
		recs := make([]docstore.DerivedChunk, len(chunks))
		for i, c := range chunks {
			recs[i] = docstore.DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last), Summary: benchWords(vocab, zipf, 30) + "."}
			for range 8 {
				recs[i].Questions = append(recs[i].Questions, benchWords(vocab, zipf, 8)+"?")
			}
		}
		if err := lib.Derived().Put(d.ID, benchSet, recs...); err != nil {
			b.Fatal(err)
		}
		if err := lib.Derived().Index(d.ID, benchSet); err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d.ID)
	}
	// Questions of three to seven words, common and rare.
	qzipf := rand.NewZipf(rand.New(rand.NewPCG(7, 7)), 1.05, 4, uint64(len(vocab)-1))
	queries := make([]string, 16)
	for i := range queries {
		queries[i] = benchWords(vocab, qzipf, 3+i%5) + "?"
	}
	return lib, docs, queries
}

var benchSet = docstore.DerivedSet{Model: "bench-model", Tokens: 256, Overlap: 50, Version: 1}

// BenchmarkSearchDerived is BM25 over the corpus's derived indexes: the
// top 320 units (raidd's pool for 10 chunks) of every kind together, and
// of the questions alone, for each of 16 questions in turn.
// go test -run XXX -bench SearchDerived -count 10 ./engine/retrieve | benchstat -
// (the corpus is built afresh for each count, in a few seconds).
func BenchmarkSearchDerived(b *testing.B) {
	lib, docs, queries := derivedBenchLibrary(b)
	for _, c := range []struct {
		name  string
		kinds []docstore.DerivedKind
	}{
		{"all", []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedQuestion, docstore.DerivedRaw}},
		{"questions", []docstore.DerivedKind{docstore.DerivedQuestion}},
	} {
		b.Run(c.name, func(b *testing.B) {
			opt := docstore.DerivedSearchOptions{Set: benchSet, Docs: docs, Kinds: c.kinds, K: 320}
			for b.Loop() {
				for _, q := range queries {
					if _, err := SearchDerived(lib, ParseQuery(q), opt, BM25{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
