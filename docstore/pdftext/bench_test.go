package pdftext

import (
	"os"
	"testing"
)

const rIntro = "/usr/share/R/doc/manual/R-intro.pdf"

// BenchmarkExtract measures the whole extraction of R-intro.pdf (Debian's
// r-doc-pdf), 113 pages.
func BenchmarkExtract(b *testing.B) {
	f, err := os.Open(rIntro)
	if err != nil {
		b.Skip("R-intro.pdf not installed (apt-get install r-doc-pdf)")
	}
	defer f.Close()
	st, _ := f.Stat()
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := Extract(b.Context(), f, st.Size(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
