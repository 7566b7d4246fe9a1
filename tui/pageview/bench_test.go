package pageview

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/tui/termimage"
)

const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

// fullrefmanDoc ingests the R reference manual (2,415 pages) into
// $CITELENS_BENCH_DB if set (kept between runs), else a temporary folder.
func fullrefmanDoc(b *testing.B) (*docstore.Library, *docstore.Document) {
	b.Helper()
	if _, err := os.Stat(fullrefman); err != nil {
		b.Skip("fullrefman.pdf not installed (apt-get install r-doc-pdf)")
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
	info, _, err := lib.Add(context.Background(), fullrefman, nil)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := lib.Document(info.ID)
	if err != nil {
		b.Fatal(err)
	}
	return lib, doc
}

// BenchmarkCitationPage is a citation's page drawn for the page view of
// a 62×43-cell pane of 9×18-pixel cells (a 150×45 xterm), warm: the
// document open, the renderer started. It is everything between n and
// the picture on screen but the terminal's own drawing: the geometry
// read, the page rendered and highlighted, and the protocol's encoding
// (sixel: the window shown).
func BenchmarkCitationPage(b *testing.B) {
	lib, doc := fullrefmanDoc(b)
	src := pageimage.New(lib.Geometry(), pagerendertest.Renderer(b))
	b.Cleanup(src.Close)
	// Sentences spread through the manual.
	var spans []Span
	for _, f := range []float64{0.05, 0.3, 0.5, 0.7, 0.95} {
		s := doc.Sentences[int(f*float64(len(doc.Sentences)))]
		spans = append(spans, Span{int(s.Start), int(s.End)})
	}
	ctx := context.Background()
	if _, err := src.Document(ctx, doc); err != nil { // opened once, as the view keeps it
		b.Fatal(err)
	}
	for _, proto := range []termimage.Protocol{termimage.Kitty, termimage.Sixel, termimage.Blocks} {
		b.Run(proto.String(), func(b *testing.B) {
			cpu := pagerendertest.CPUTime()
			defer func() { pagerendertest.ReportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				req := request{doc: doc, span: spans[i%len(spans)], cols: 62, cellW: 9, cellH: 18, proto: proto, id: 1, colors: termimage.MapColors{}}
				pic, err := req.run(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				if proto == termimage.Sixel {
					termimage.SixelImage(pic.window(0, 41), false)
				}
			}
		})
	}
}

// BenchmarkOpenDocument opens fullrefman for drawing: read, checked
// against its hash, handed to PDFium. The page view pays it once per
// document shown.
func BenchmarkOpenDocument(b *testing.B) {
	lib, doc := fullrefmanDoc(b)
	r := pagerendertest.Renderer(b)
	ctx := context.Background()
	cpu := pagerendertest.CPUTime()
	defer func() { pagerendertest.ReportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		src := pageimage.New(lib.Geometry(), r)
		if _, err := src.Document(ctx, doc); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}
