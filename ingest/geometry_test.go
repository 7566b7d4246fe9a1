package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/pagegeom"
	"github.com/citelens/citelens/docstore/pagegeom/bboxref"
)

// addTestPDF adds a PDF of testdata/pdf to l.
func addTestPDF(t *testing.T, l testLibrary, name string) *docstore.Document {
	t.Helper()
	return addDocument(t, l, filepath.Join("..", "testdata", "pdf", name))
}

func TestSpanRectsAcrossPages(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addTestPDF(t, l, "r-intro-p8-9.pdf")
	// the sentence running across the page break
	s := -1
	for i, x := range d.Sentences {
		if x.Page == 1 && d.PageOf(int(x.End)-1) == 2 {
			s = i
		}
	}
	if s < 0 {
		t.Fatal("no sentence runs from page 1 onto page 2")
	}
	x := d.Sentences[s]
	rects, err := l.Geometry().SpanRects(d.ID, int(x.Start), int(x.End))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]int{}
	for i, r := range rects {
		pages[r.Page]++
		if !(0 <= r.X0 && r.X0 < r.X1 && r.X1 <= 1 && 0 <= r.Y0 && r.Y0 < r.Y1 && r.Y1 <= 1) {
			t.Errorf("rect %d %+v is not inside the page", i, r)
		}
		if i > 0 && r.Page < rects[i-1].Page {
			t.Errorf("rects out of page order: %+v", rects)
		}
	}
	if pages[1] == 0 || pages[2] == 0 {
		t.Errorf("sentence %q: rects %+v, want some on pages 1 and 2", d.SentenceText(s), rects)
	}
	// its first rect starts at its first word, which is not the start of
	// the line it is on: the rect is narrower than the line
	lines, err := l.Geometry().PageLines(d.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range lines {
		if ln.Start < int(x.Start) && ln.End > int(x.Start) {
			if r := rects[0]; !(r.X0 > ln.X0+0.05 && r.Y0 == ln.Y0 && r.X1 == ln.X1) {
				t.Errorf("first rect %+v, line %+v: want the line from the sentence's first word", r, ln)
			}
		}
	}
	w, h, err := l.Geometry().PageSize(d.ID, 2)
	if err != nil || w != 612 || h != 792 {
		t.Errorf("page 2: %g × %g, %v; want 612 × 792 (US Letter)", w, h, err)
	}
	if _, _, err := l.Geometry().PageSize(d.ID, 3); !errors.Is(err, docstore.ErrNotFound) {
		t.Errorf("page 3 of 2: %v", err)
	}
	if _, err := l.Geometry().SpanRects(d.ID, 0, len(d.Text)+1); err == nil {
		t.Error("a span past the text: no error")
	}
}

// TestGeometryAgainstPdftotext measures the stored geometry against
// pdftotext -bbox-layout on PDFs of several makers: every sentence of at
// least 20 letters and digits whose text pdftotext also has must have its
// rectangles cover where pdftotext puts that text, IoU ≥ 0.5, for at
// least 95% of them.
func TestGeometryAgainstPdftotext(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (poppler-utils)")
	}
	l := openTestLibrary(t)
	for _, name := range []string{"two-column.pdf", "tables.pdf", "browser-print.pdf", "r-intro-p8-9.pdf"} {
		t.Run(name, func(t *testing.T) {
			d := addTestPDF(t, l, name)
			ref, err := bboxref.Run(t.Context(), filepath.Join("..", "testdata", "pdf", name))
			if err != nil {
				t.Fatal(err)
			}
			sampled, found, good := 0, 0, 0
			for i, s := range d.Sentences {
				if len(bboxref.Folded(d.SentenceText(i))) < 20 {
					continue
				}
				sampled++
				iou, ok := scoreSpan(t, l, d, ref, int(s.Start), int(s.End))
				if !ok {
					continue
				}
				found++
				if iou >= 0.5 {
					good++
				} else {
					t.Logf("IoU %.2f: %q", iou, d.SentenceText(i))
				}
			}
			t.Logf("%d sentences, %d found by pdftotext, %d with IoU ≥ 0.5", sampled, found, good)
			if sampled < 5 || found < sampled*8/10 || good < found*95/100 {
				t.Errorf("%d sentences, %d found by pdftotext, %d with IoU ≥ 0.5: want 95%% of those found", sampled, found, good)
			}
		})
	}
}

// scoreSpan is bench/cmd/geomiou's measure of one span.
func scoreSpan(t *testing.T, l testLibrary, d *docstore.Document, ref *bboxref.Doc, start, end int) (float64, bool) {
	t.Helper()
	lines, err := l.Geometry().SpanLines(d.ID, start, end)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]bboxref.Part, len(lines))
	for i, ln := range lines {
		parts[i] = bboxref.Part{Text: d.Text[ln.Start:ln.End], Box: bboxref.Box{Page: ln.Page, X0: ln.X0, Y0: ln.Y0, X1: ln.X1, Y1: ln.Y1}}
	}
	first := d.PageOf(start)
	nth := bboxref.Occurrences(d.Text[d.PageStarts[first-1]:start], d.Text[start:end])
	return ref.Score(first, d.PageOf(end-1), nth, parts)
}

// TestRotatedCroppedPage: tables-rotated.pdf is tables.pdf on an A4
// MediaBox with a CropBox [50 80 560 740] and /Rotate 90. Its shown
// page is 660 × 510 points, and every line box, drawn on the page as
// poppler renders it (pdftoppm -cropbox, which applies both), covers
// ink, while the page's ink lies in the line boxes (but for the tables'
// rules).
func TestRotatedCroppedPage(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm is not installed (poppler-utils)")
	}
	l := openTestLibrary(t)
	d := addTestPDF(t, l, "tables-rotated.pdf")
	w, h, err := l.Geometry().PageSize(d.ID, 1)
	if err != nil || w != 660 || h != 510 {
		t.Fatalf("shown size %g × %g, %v; want 660 × 510", w, h, err)
	}
	lines, err := l.Geometry().PageLines(d.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), "pdftoppm", "-r", "72", "-gray", "-cropbox", "-f", "1", "-l", "1",
		filepath.Join("..", "testdata", "pdf", "tables-rotated.pdf")).Output()
	if err != nil {
		t.Fatal(err)
	}
	img, err := readPGM(out)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() < 655 || b.Dx() > 665 || b.Dy() < 505 || b.Dy() > 515 {
		t.Fatalf("pdftoppm drew %v, want about 660 × 510", b)
	}
	inked := 0
	inBoxes := make([]bool, b.Dx()*b.Dy())
	for _, ln := range lines {
		// (a pixel more on each side for antialiasing)
		x0, y0 := int(ln.X0*float32(b.Dx()))-1, int(ln.Y0*float32(b.Dy()))-1
		x1, y1 := int(ln.X1*float32(b.Dx()))+2, int(ln.Y1*float32(b.Dy()))+2
		ink := 0
		for y := max(y0, 0); y < min(y1, b.Dy()); y++ {
			for x := max(x0, 0); x < min(x1, b.Dx()); x++ {
				inBoxes[y*b.Dx()+x] = true
				if img.GrayAt(x, y).Y < 128 {
					ink++
				}
			}
		}
		if ink > 0 {
			inked++
		} else {
			t.Logf("no ink in line %+v %q", ln, d.Text[ln.Start:ln.End])
		}
	}
	total, covered := 0, 0
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			if img.GrayAt(x, y).Y < 128 {
				total++
				if inBoxes[y*b.Dx()+x] {
					covered++
				}
			}
		}
	}
	t.Logf("%d of %d line boxes on ink; %d of %d ink pixels in line boxes", inked, len(lines), covered, total)
	if len(lines) < 30 || inked < len(lines)*95/100 || covered < total*85/100 {
		t.Errorf("%d of %d line boxes on ink, %d of %d ink pixels in line boxes: want 95%% and 85%%", inked, len(lines), covered, total)
	}
}

// readPGM decodes a binary PGM (P5, 8 bits), as pdftoppm -gray writes.
func readPGM(b []byte) (*image.Gray, error) {
	var magic string
	var w, h, maxv int
	r := bytes.NewReader(b)
	if _, err := fmt.Fscan(r, &magic, &w, &h, &maxv); err != nil || magic != "P5" || maxv != 255 {
		return nil, fmt.Errorf("not an 8-bit PGM: %v", err)
	}
	if _, err := r.ReadByte(); err != nil { // the whitespace after the header
		return nil, err
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	if n, _ := r.Read(img.Pix); n != len(img.Pix) {
		return nil, fmt.Errorf("PGM cut short: %d of %d bytes", n, len(img.Pix))
	}
	return img, nil
}

// TestLoaderGeometryChecked: a loader's geometry out of the text is an
// error, not a wrong highlight later.
func TestLoaderGeometryChecked(t *testing.T) {
	t.Parallel()
	bad := pagegeom.Append(nil, &pagegeom.Page{Width: 612, Height: 792, Lines: []pagegeom.Line{{Start: 0, End: 99, Words: []pagegeom.Word{{Start: 0, End: 99}}}}})
	ld := &Loaded{Text: "short", PageStarts: []int32{0}, Geometry: [][]byte{bad}}
	if err := ld.check(); err == nil {
		t.Error("geometry past the text passed the check")
	}
	ld.Geometry = [][]byte{bad[:5]}
	if err := ld.check(); err == nil {
		t.Error("undecodable geometry passed the check")
	}
	ld.Geometry = [][]byte{bad, bad}
	if err := ld.check(); err == nil {
		t.Error("geometry for two pages of one passed the check")
	}
}

// TestReindexAddsGeometry: a PDF added before geometry was kept (written
// here through the library's write path without it) gets it from
// reindex; one rebuilt from its stored text, its file gone, keeps what it
// has. (That removing a document removes its geometry is docstore's
// TestRebuildKeepsOrReplacesGeometry.)
func TestReindexAddsGeometry(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	path := filepath.Join("..", "testdata", "pdf", "two-column.pdf")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(t.Context(), path, data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old, err := docstore.Prepare(d.Document, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write(old); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Geometry().SpanRects(d.ID, 0, 10); !errors.Is(err, docstore.ErrNoGeometry) {
		t.Fatalf("before reindex: %v", err)
	}
	if _, err := l.Reindex(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if rects, err := l.Geometry().SpanRects(d.ID, 0, 10); err != nil || len(rects) == 0 {
		t.Fatalf("after reindex: %v, %v", rects, err)
	}
	// rebuilt from its stored text (the file is gone), its geometry stays
	dir := t.TempDir()
	moved := filepath.Join(dir, "moved.pdf")
	if err := os.WriteFile(moved, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l2 := openTestLibrary(t)
	info, _, err := l2.Add(t.Context(), moved, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(moved)
	if rep, err := l2.Reindex(t.Context(), nil); err != nil || rep.FromFile != 0 {
		t.Fatalf("reindex %+v, %v", rep, err)
	}
	if _, err := l2.Geometry().SpanRects(info.ID, 0, 10); err != nil {
		t.Errorf("reindexed from stored text: %v", err)
	}
}
