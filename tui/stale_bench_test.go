package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
)

// BenchmarkCheckEvidence measures what the TUI does off the Update loop
// when the library changes (checkEvidence's command): every document's
// metadata read, and the citations of the answers shown (a page of 20,
// and 200 after scrolling back, four citations each) carried to the
// latest versions. "cold" aligns the two versions first (the first check
// after a version arrives); "warm" finds the alignment cached (every
// check after). The pairs: the Shared MIME-info spec and its redline
// (testdata/reanchor, 34 KB), and gnuplot's manual (854 KB) with one
// sentence in every 50 reworded.
func BenchmarkCheckEvidence(b *testing.B) {
	mime, err := os.ReadFile("../testdata/manuals-qa/docs/shared-mime-info-spec.txt")
	if err != nil {
		b.Fatal(err)
	}
	mimeNew, err := os.ReadFile("../testdata/reanchor/mime.new.txt")
	if err != nil {
		b.Fatal(err)
	}
	gnuplot, err := os.ReadFile("../testdata/manuals-qa/docs/gnuplot.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, pair := range []struct {
		name     string
		old, new string
	}{
		{"mime", string(mime), string(mimeNew)},
		{"gnuplot", string(gnuplot), everyFiftieth(string(gnuplot))},
	} {
		lib, old := versionPair(b, pair.name+".txt", pair.old, pair.new)
		for _, shown := range []int{20, 200} {
			answers := citingAnswers(old, shown)
			for _, warm := range []bool{false, true} {
				name := fmt.Sprintf("%s/answers=%d/cold", pair.name, shown)
				if warm {
					name = fmt.Sprintf("%s/answers=%d/warm", pair.name, shown)
				}
				b.Run(name, func(b *testing.B) {
					aligned := reanchor.NewAligner(64)
					if warm {
						reanchorAnswers(lib, answers, aligned)()
					}
					for b.Loop() {
						if !warm {
							aligned = reanchor.NewAligner(64)
						}
						msg := reanchorAnswers(lib, answers, aligned)().(staleMsg)
						if msg.err != nil || len(msg.changes) != shown {
							b.Fatalf("%d answers re-anchored of %d: %v", len(msg.changes), shown, msg.err)
						}
					}
				})
			}
		}
	}
}

// versionPair adds old from a path, then new from the same path: its
// next version. It returns the library and the old version.
func versionPair(b *testing.B, name, old, new string) (*docstore.Library, *docstore.Document) {
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		b.Fatal(err)
	}
	lib, docs := enginetest.Library(b, path)
	if err := os.WriteFile(path, []byte(new), 0o600); err != nil {
		b.Fatal(err)
	}
	if info, _, err := ingest.New(lib, nil).Add(b.Context(), path, nil); err != nil || info.Previous == "" {
		b.Fatalf("the new version: %v (previous %q)", err, info.Previous)
	}
	return lib, docs[0]
}

// everyFiftieth rewords one sentence in every 50 of text: its first
// "the" becomes "this".
func everyFiftieth(text string) string {
	parts := strings.SplitAfter(text, ". ")
	for i := 0; i < len(parts); i += 50 {
		parts[i] = strings.Replace(parts[i], " the ", " this ", 1)
	}
	return strings.Join(parts, "")
}

// citingAnswers makes n answers, each of two statements citing two
// sentences of doc spread through it.
func citingAnswers(doc *docstore.Document, n int) []*engine.Answer {
	out := make([]*engine.Answer, n)
	ns := len(doc.Sentences)
	for i := range out {
		a := &engine.Answer{ID: fmt.Sprintf("%011x-bench", i), Question: "q"}
		for s := range 2 {
			st := citations.Statement{Text: "a statement"}
			for c := range 2 {
				k := (i*7919 + s*104729 + c*1299709) % ns
				st.Citations = append(st.Citations, citations.SpanOf(doc, k, k))
			}
			a.Statements = append(a.Statements, st)
		}
		out[i] = a
	}
	return out
}
