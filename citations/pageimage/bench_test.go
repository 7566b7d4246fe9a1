package pageimage_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

// fullrefman is R's reference manual as Debian's r-doc-pdf installs it:
// 2,415 pages, the document the timings were taken on.
const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

// manual ingests fullrefman into $CITELENS_BENCH_DB if set (kept between
// runs), else a temporary folder.
func manual(b *testing.B) (*docstore.Library, *docstore.Document) {
	b.Helper()
	if _, err := os.Stat(fullrefman); err != nil {
		b.Skip("fullrefman.pdf is not installed (Debian: r-doc-pdf): no long document to export from")
	}
	path := os.Getenv("CITELENS_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "library.db")
	}
	lib, err := docstore.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lib.Close() })
	info, _, err := ingest.New(lib, nil).Add(context.Background(), fullrefman, nil)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := lib.Document(info.ID)
	if err != nil {
		b.Fatal(err)
	}
	return lib, doc
}

// tenCitations is an answer of five statements citing two sentences
// each, spread through doc.
func tenCitations(doc *docstore.Document) *citations.Answer {
	a := &citations.Answer{Question: "What does the manual say?"}
	for i := range 5 {
		st := citations.Statement{Text: "A statement."}
		for j := range 2 {
			s := doc.Sentences[(2*i+j+1)*len(doc.Sentences)/12]
			st.Citations = append(st.Citations, citations.Span{Doc: doc.ID, DocName: doc.DisplayName(), Start: int(s.Start), End: int(s.End), Page: int(s.Page)})
		}
		a.Statements = append(a.Statements, st)
	}
	return a
}

// BenchmarkExportHTML exports an answer of ten citations of R's
// reference manual to HTML with each citation's region of its page: the
// work of `citelens export --format html` once the renderer has started,
// the document's opening included. when=before draws the pictures one
// after another as they are asked for (HTMLPictures) and writes PNGs at
// the default compression; when=after draws them ahead, the PNGs encoded
// at the fastest level in parallel with the rendering (AnswerPictures).
// KiB is the HTML's size. Measured on 2 shared cores, benchstat -col
// /when, n=8: 608 → 492 ms (−19%), 626 → 515 CPU-ms, 366 → 381 KiB.
func BenchmarkExportHTML(b *testing.B) {
	lib, doc := manual(b)
	r := pagerendertest.Renderer(b)
	a := tenCitations(doc)
	ctx := context.Background()
	for _, when := range []string{"before", "after"} {
		b.Run("when="+when, func(b *testing.B) {
			if when == "before" {
				defer pageimage.SetPNGCompression(png.DefaultCompression)()
			}
			var size int
			cpu := pagerendertest.CPUTime()
			defer func() { pagerendertest.ReportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				s := pageimage.New(lib.Geometry(), r)
				pics := s.HTMLPictures(ctx, lib.Document)
				if when == "after" {
					pics = s.AnswerPictures(ctx, a, lib.Document)
				}
				var buf bytes.Buffer
				if err := citations.WriteHTMLWith(&buf, a, citations.HTMLOptions{Pictures: pics}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				size = buf.Len()
				b.StartTimer()
			}
			b.ReportMetric(float64(size)/1024, "KiB")
		})
	}
}
