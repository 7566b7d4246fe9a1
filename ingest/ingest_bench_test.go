package ingest

import (
	"os"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
)

// fullrefman is R's 2,415-page reference manual (Debian package
// r-doc-pdf), about a million tokens: the large document ingest is
// measured on.
const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

var (
	refmanOnce sync.Once
	refmanDoc  *Document
	refmanErr  error
)

// refmanText is the manual's extracted text, loaded once per process.
func refmanText(b *testing.B) *Document {
	b.Helper()
	if _, err := os.Stat(fullrefman); err != nil {
		b.Skip("fullrefman.pdf not installed (apt-get install r-doc-pdf)")
	}
	refmanOnce.Do(func() {
		content, err := os.ReadFile(fullrefman)
		if err != nil {
			refmanErr = err
			return
		}
		refmanDoc, refmanErr = Load(b.Context(), fullrefman, content, LoadOptions{})
	})
	if refmanErr != nil {
		b.Fatal(refmanErr)
	}
	return refmanDoc
}

// BenchmarkAnalyseFullrefman is ingest after extraction: sentences,
// structure, chunks and the index of every field, on the manual's text.
// Compare with pdftext's BenchmarkExtract for the share of ingest it is.
func BenchmarkAnalyseFullrefman(b *testing.B) {
	src := refmanText(b)
	b.SetBytes(int64(len(src.Text)))
	b.ResetTimer()
	for b.Loop() {
		d := &docstore.Document{DocInfo: src.DocInfo, Text: src.Text, PageStarts: src.PageStarts}
		splitDocument(d, structureInput(d))
		if _, err := docstore.Prepare(d, nil); err != nil {
			b.Fatal(err)
		}
	}
}
