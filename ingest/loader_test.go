package ingest

import (
	"context"
	"errors"
	"image"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/pagegeom"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/ocr"
	"github.com/citelens/citelens/ingest/pdftext"
)

// TestRegistry is not parallel: it runs before the parallel tests, some
// of which register a format of their own for their duration
// (registerForTest), which it would otherwise see.
func TestRegistry(t *testing.T) {
	var kinds []string
	for _, f := range Formats() {
		kinds = append(kinds, f.Kind)
		if f.Description == "" || f.Loader == nil || len(f.Extensions) == 0 {
			t.Errorf("format %+v is incomplete", f)
		}
	}
	if got := strings.Join(kinds, " "); got != "pdf text markdown html docx epub" {
		t.Errorf("kinds %s", got)
	}
	for _, ext := range []string{".pdf", ".txt", ".md", ".html", ".htm", ".docx", ".epub"} {
		if !strings.Contains(SupportedExtensions(), ext) {
			t.Errorf("SupportedExtensions() = %q lacks %s", SupportedExtensions(), ext)
		}
	}
	if f, ok := FormatOf("/x/Report.DOCX"); !ok || f.Kind != "docx" {
		t.Errorf("FormatOf is not case-blind: %+v %v", f, ok)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering .html twice did not panic")
		}
	}()
	Register(Format{Kind: "other", Extensions: []string{".html"}})
}

// loadFile loads content as the named file and checks what every document
// must hold: sentences inside the text and on its pages, and structure
// spans inside the text.
func loadFile(t *testing.T, name string, content []byte, opt LoadOptions) *Document {
	t.Helper()
	d, err := Load(t.Context(), name, content, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages != len(d.PageStarts) || d.Pages == 0 {
		t.Errorf("%s: %d pages, %d page starts", name, d.Pages, len(d.PageStarts))
	}
	for i, s := range d.Sentences {
		if s.Start >= s.End || int(s.End) > len(d.Text) || int(s.Page) != d.PageOf(int(s.Start)) {
			t.Fatalf("%s: sentence %d %+v", name, i, s)
		}
	}
	for _, sec := range d.Sections {
		if !sec.Heading.Valid(len(d.Text)) {
			t.Fatalf("%s: section %+v", name, sec)
		}
	}
	return d
}

// headingTexts are the document's section headings, in order.
func headingTexts(d *Document) []string {
	var out []string
	for _, sec := range d.Sections {
		out = append(out, d.Text[sec.Heading.Start:sec.Heading.End])
	}
	return out
}

func TestLoadStructuredFormats(t *testing.T) {
	t.Parallel()
	html, err := os.ReadFile("../testdata/formats/article.html")
	if err != nil {
		t.Fatal(err)
	}
	dx := doctest.NewDOCX("Report")
	dx.Heading(1, "Scope")
	dx.Para("The survey covers the north arm.")
	dx.Table([]string{"Arm", "Length (m)"}, []string{"North", "410"})
	for _, c := range []struct {
		name     string
		content  []byte
		kind     string
		pages    int
		headings []string
		tables   int
	}{
		{"story.html", html, "html", 1, []string{"Kestrel Bridge reopens after two-year repair", "What was repaired", "Tolls and traffic", "Night closures"}, 1},
		{"report.docx", dx.Bytes(), "docx", 1, []string{"Scope"}, 1},
		{"book.epub", doctest.EPUB("Book", doctest.Chapter{Title: "One", Body: "<p>First.</p>"}, doctest.Chapter{Title: "Two", Body: "<p>Second.</p>"}), "epub", 2, []string{"One", "Two"}, 0},
		{"notes.md", []byte("# Notes\n\nSome text.\n\n```\n# not a heading\n```\n\nSetext\n======\n"), "markdown", 1, []string{"Notes", "Setext"}, 0},
	} {
		d := loadFile(t, c.name, c.content, LoadOptions{})
		if d.Kind != c.kind || d.Pages != c.pages || !slices.Equal(headingTexts(d), c.headings) || len(d.Tables) != c.tables {
			t.Errorf("%s: kind %s, %d pages, headings %q, %d tables", c.name, d.Kind, d.Pages, headingTexts(d), len(d.Tables))
		}
	}
}

func TestMarkdownHeadings(t *testing.T) {
	t.Parallel()
	text := "Title\n=====\n\n## Section 2 ##\n\n    # indented code\n\n- item\n---\n\nPara line\nSub\n---\n\n#no space\n###### Six\n####### Seven\n~~~\n## fenced\n~~~\n# Last"
	var got []string
	for _, h := range markdownHeadings(text) {
		got = append(got, strings.Repeat("#", h.Level)+" "+text[h.Span.Start:h.Span.End])
		if h.Source != structure.SourceMarkup {
			t.Errorf("source %v", h.Source)
		}
	}
	want := []string{"# Title", "## Section 2", "## Sub", "###### Six", "# Last"}
	if !slices.Equal(got, want) {
		t.Errorf("headings %q, want %q", got, want)
	}
}

func TestMergeOCR(t *testing.T) {
	t.Parallel()
	// Pages 1 and 3 have text, 2 and 4 are scans; page 3 has a heading.
	text := "Page one text.\n\nPage three heading\n\nPage three text."
	ld := &Loaded{Text: text, PageStarts: []int32{0, 14, 16, 52}, Headings: []structure.Heading{{Span: structure.Span{Start: 16, End: 34}, Level: 2}}}
	line := func(start, end int32) pagegeom.Line {
		return pagegeom.Line{Start: start, End: end, Box: pagegeom.Rect{X0: 0.1, Y0: 0.1, X1: 0.5, Y1: 0.12}, Words: []pagegeom.Word{{Start: start, End: end, From: 0.1, To: 0.5}}}
	}
	ld.Geometry = [][]byte{
		pagegeom.Append(nil, &pagegeom.Page{Width: 612, Height: 792, Lines: []pagegeom.Line{line(0, 14)}}),
		pagegeom.Append(nil, &pagegeom.Page{Width: 612, Height: 792}),
		pagegeom.Append(nil, &pagegeom.Page{Width: 612, Height: 792, Lines: []pagegeom.Line{line(16, 34), line(36, 52)}}),
		pagegeom.Append(nil, &pagegeom.Page{Width: 612, Height: 792}),
	}
	mergeOCR(ld, []ocr.Page{
		{Number: 2, Text: "Scanned two.", Headings: []structure.Heading{{Span: structure.Span{Start: 0, End: 7}}}, Size: image.Pt(2550, 3300),
			Words: []ocr.Word{{Span: structure.Span{Start: 0, End: 7}, Box: image.Rect(300, 330, 900, 396)}, {Span: structure.Span{Start: 8, End: 12}, Box: image.Rect(950, 330, 1200, 396)}}},
		{Number: 4, Text: "Scanned four."},
	})
	if err := ld.check(); err != nil {
		t.Fatal(err)
	}
	// every line's geometry still names its text
	for i, want := range [][]string{{"Page one text."}, {"Scanned two."}, {"Page three heading", "Page three text."}, nil} {
		p, err := pagegeom.Decode(ld.Geometry[i])
		if err != nil || len(p.Lines) != len(want) {
			t.Fatalf("page %d geometry: %+v, %v", i+1, p, err)
		}
		for k, l := range p.Lines {
			if got := ld.Text[l.Start:l.End]; got != want[k] {
				t.Errorf("page %d line %d: %q, want %q", i+1, k, got, want[k])
			}
		}
		if i == 1 {
			if b := p.Lines[0].Box; !(math.Abs(float64(b.X0)-300.0/2550) < 1e-3 && math.Abs(float64(b.Y1)-396.0/3300) < 1e-3 && math.Abs(float64(b.X1)-1200.0/2550) < 1e-3) {
				t.Errorf("OCR'd line box %+v", b)
			}
		}
	}
	want := "Page one text.\n\nScanned two.\n\nPage three heading\n\nPage three text.\n\nScanned four."
	if ld.Text != want {
		t.Fatalf("text %q, want %q", ld.Text, want)
	}
	if !slices.Equal(ld.PageStarts, []int32{0, 16, 30, 68}) || !slices.Equal(ld.OCRPages, []int{2, 4}) {
		t.Errorf("pages %v, OCR pages %v", ld.PageStarts, ld.OCRPages)
	}
	var heads []string
	for _, h := range ld.Headings {
		heads = append(heads, ld.Text[h.Span.Start:h.Span.End])
	}
	if !slices.Equal(heads, []string{"Scanned", "Page three heading"}) {
		t.Errorf("headings %q", heads)
	}
}

// requireOCR skips a test that needs the OCR tools where they are not
// installed, except in CI, which installs them.
func requireOCR(t *testing.T) {
	t.Helper()
	if err := ocr.Check(context.Background(), ocr.Options{}); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have the OCR tools: %v", err)
		}
		t.Skip(err)
	}
}

func TestScannedAndMixedPDFs(t *testing.T) {
	t.Parallel()
	requireOCR(t)
	textPage := doctest.PDFPage{Lines: []string{"The harbour wall was surveyed in May 2023."}}
	scanned := doctest.PDF(doctest.PDFPage{Lines: []string{"Divers found the timber piles sound and dry."}})
	img, err := doctest.Render(t.Context(), scanned, 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	scanOnly := doctest.PDF(doctest.PDFPage{Image: img})
	if _, err := Load(t.Context(), "scan.pdf", scanOnly, LoadOptions{}); !errors.Is(err, pdftext.ErrNoText) || !strings.Contains(err.Error(), "--ocr") {
		t.Errorf("a scan without OCR: %v", err)
	}

	var stages []string
	opt := LoadOptions{OCR: &ocr.Options{}, Progress: func(stage string, done, total int) {
		if stage == StageOCR {
			stages = append(stages, stage)
		}
	}}
	// (Different text on pages 1 and 3: a line repeated on every page is
	// taken for a running header and dropped.)
	mixed := doctest.PDF(textPage, doctest.PDFPage{Image: img}, doctest.PDFPage{Lines: []string{"Repairs are planned for 2025."}})
	d := loadFile(t, "mixed.pdf", mixed, opt)
	if !slices.Equal(d.OCRPages, []int{2}) || d.Pages != 3 || len(stages) != 1 {
		t.Fatalf("OCR pages %v of %d, OCR progress %v", d.OCRPages, d.Pages, stages)
	}
	page2 := d.Text[d.PageStarts[1]:d.PageStarts[2]]
	if !strings.Contains(page2, "Divers found the timber piles sound and dry.") || !strings.HasPrefix(d.Text, "The harbour wall was surveyed") {
		t.Errorf("text %q", d.Text)
	}
	if !d.IsOCRPage(2) || d.IsOCRPage(1) {
		t.Error("IsOCRPage")
	}
	// Both pages set their line alike (11 pt at 72, 720): the OCR'd
	// page's box, from Tesseract's word boxes, stands where the text
	// page's does, from its glyphs.
	boxes := make([]pagegeom.Rect, 2)
	for i := range boxes {
		p, err := pagegeom.Decode(d.Geometry[i])
		if err != nil || len(p.Lines) != 1 || p.Width != 612 || p.Height != 792 {
			t.Fatalf("page %d geometry %+v, %v", i+1, p, err)
		}
		l := p.Lines[0]
		if got := d.Text[l.Start:l.End]; !strings.HasPrefix(got, []string{"The harbour", "Divers"}[i]) || len(l.Words) != 8 {
			t.Errorf("page %d: line %q with %d words", i+1, got, len(l.Words))
		}
		boxes[i] = l.Box
	}
	if t1, o := boxes[0], boxes[1]; math.Abs(float64(t1.X0-o.X0)) > 0.01 || math.Abs(float64(t1.Y0-o.Y0)) > 0.01 || math.Abs(float64(t1.Y1-o.Y1)) > 0.01 {
		t.Errorf("text line box %+v, OCR'd line box %+v: want the same place", t1, o)
	}

	d = loadFile(t, "scan.pdf", scanOnly, LoadOptions{OCR: &ocr.Options{}})
	if !slices.Equal(d.OCRPages, []int{1}) || d.NumSents != 1 || d.SentenceText(0) != "Divers found the timber piles sound and dry." {
		t.Errorf("scan: OCR pages %v, sentences %q", d.OCRPages, d.Text)
	}
}

// BenchmarkLoad1MB is ingest short of the write: a 1 MB document of each
// structured format read, split and chunked, with a 1 MB text file
// as the baseline.
func BenchmarkLoad1MB(b *testing.B) {
	article, err := os.ReadFile("../testdata/formats/article.html")
	if err != nil {
		b.Fatal(err)
	}
	decl, err := os.ReadFile("../testdata/declaration.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		content []byte
	}{
		{"large.txt", []byte(strings.Repeat(string(decl)+"\n\n", 1<<20/len(decl)+1))},
		{"large.html", doctest.LargeHTML(article, 1<<20)},
		{"large.docx", doctest.LargeDOCX(1 << 20)},
		{"large.epub", doctest.LargeEPUB(1 << 20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Load(context.Background(), c.name, c.content, LoadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
