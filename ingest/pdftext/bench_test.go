package pdftext

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
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

// BenchmarkExtractManual measures the whole extraction of the larger R
// manuals, fullrefman.pdf (2,415 pages) the one ingest is measured on,
// with its allocations: run with -benchtime=3x and -memprofile or
// -cpuprofile to see where an add's extraction goes.
func BenchmarkExtractManual(b *testing.B) {
	for _, name := range []string{"R-exts.pdf", "fullrefman.pdf"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(rIntro), name))
			if err != nil {
				b.Skip(name + " not installed (apt-get install r-doc-pdf)")
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ExtractBytes(b.Context(), data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExtractPages measures extraction by page count, on generated
// files of one line per page in one flat page tree: the time per page
// must stay flat as the pages grow (page counting was quadratic, 40,000
// pages costing 17 times what 10,000 did).
func BenchmarkExtractPages(b *testing.B) {
	for _, n := range []int{2500, 10_000, 40_000} {
		data := doctest.ManyPagesPDF(n)
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Extract(b.Context(), bytes.NewReader(data), int64(len(data)), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/page")
		})
	}
}
