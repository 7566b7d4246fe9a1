package pageimage_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
)

// library adds the R-intro sample (copied to a temp folder, so a test
// may change it) to a new library.
func library(t *testing.T) (*pageimage.Source, *docstore.Document, string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r-intro.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := docstore.Open(filepath.Join(dir, "library.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	info, _, err := lib.Add(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := lib.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := pageimage.New(lib.Geometry(), pagerendertest.Renderer(t))
	t.Cleanup(s.Close)
	return s, doc, path
}

// sentence finds the sentence holding text.
func sentence(t *testing.T, doc *docstore.Document, text string) docstore.Sentence {
	t.Helper()
	for i, s := range doc.Sentences {
		if strings.Contains(doc.SentenceText(i), text) {
			return s
		}
	}
	t.Fatalf("no sentence holds %q", text)
	return docstore.Sentence{}
}

func TestEvidenceAndPage(t *testing.T) {
	s, doc, _ := library(t)
	ctx := context.Background()
	sent := sentence(t, doc, "environment")
	pics, err := s.Evidence(ctx, doc, int(sent.Start), int(sent.End), 144)
	if err != nil {
		t.Fatal(err)
	}
	if len(pics) == 0 {
		t.Fatal("no picture for a sentence of text")
	}
	pages, rects, err := s.Marks(doc.ID, int(sent.Start), int(sent.End))
	if err != nil {
		t.Fatal(err)
	}
	for i, pic := range pics {
		p := pages[i]
		if pic.Page != p {
			t.Errorf("picture %d shows page %d, the span stands on page %d", i, pic.Page, p)
		}
		// The region holds every line of the span, with a margin: it is
		// a crop, not the page.
		if b := pagerender.Bounds(rects[p]); b.Intersect(pic.Region) != b || pic.Region == pagerender.WholePage {
			t.Errorf("region %v does not hold the lines %v, or is the whole page", pic.Region, b)
		}
		for _, r := range rects[p] {
			if px := pic.Pixels(r); pagerendertest.CountMarked(pic.Image, px)*4 < px.Dx()*px.Dy() {
				t.Errorf("line %v is not highlighted in picture %d", r, i)
			}
		}
	}
	// The whole page with the same marks, and nothing marked elsewhere.
	p := pages[0]
	page, err := s.Page(ctx, doc, p, rects[p], 72)
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for _, r := range rects[p] {
		inside += pagerendertest.CountMarked(page.Image, page.Pixels(r.Inset(0.003, 0.003)))
	}
	if all := pagerendertest.CountMarked(page.Image, page.Image.Bounds()); inside == 0 || all > inside {
		t.Errorf("%d marked pixels on the page, %d of them on the sentence's lines", all, inside)
	}
}

func TestUnavailable(t *testing.T) {
	s, doc, path := library(t)
	ctx := context.Background()
	text := *doc
	text.Kind = "text"
	if _, err := s.Evidence(ctx, &text, 0, 10, 72); !errors.Is(err, pageimage.ErrNotPDF) {
		t.Errorf("a text document: %v, want ErrNotPDF", err)
	}
	if err := os.WriteFile(path, []byte("%PDF-1.4 another file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Page(ctx, doc, 1, nil, 72); !errors.Is(err, pageimage.ErrFileChanged) {
		t.Errorf("a changed file: %v, want ErrFileChanged", err)
	}
	os.Remove(path)
	if _, err := s.Page(ctx, doc, 1, nil, 72); !errors.Is(err, pageimage.ErrFileMissing) {
		t.Errorf("a missing file: %v, want ErrFileMissing", err)
	}
}

// TestKeepsDocumentsOpen: a document drawn once is drawn again from the
// open copy, even after its file is gone.
func TestKeepsDocumentsOpen(t *testing.T) {
	s, doc, path := library(t)
	ctx := context.Background()
	if _, err := s.Page(ctx, doc, 2, nil, 36); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if _, err := s.Page(ctx, doc, 1, nil, 36); err != nil {
		t.Errorf("drawing an open document again: %v", err)
	}
}

// geometry is page geometry without a library: every span stands where
// rects says, or fails with err.
type geometry struct {
	rects []docstore.PageRect
	err   error
}

func (g geometry) SpanRects(docstore.DocID, int, int) ([]docstore.PageRect, error) {
	return g.rects, g.err
}

// Marks groups a span's rectangles by page, the pages in the order the
// span reaches them, and tells how to get geometry a document lacks.
func TestMarks(t *testing.T) {
	s := pageimage.New(geometry{rects: []docstore.PageRect{
		{Page: 4, X0: 0.125, Y0: 0.75, X1: 0.875, Y1: 0.8125},
		{Page: 4, X0: 0.125, Y0: 0.8125, X1: 0.5, Y1: 0.875},
		{Page: 2, X0: 0.25, Y0: 0.125, X1: 0.625, Y1: 0.1875}, // an earlier page after: the pages keep the span's order
	}}, nil)
	pages, rects, err := s.Marks("doc", 0, 10)
	if err != nil || !slices.Equal(pages, []int{4, 2}) || len(rects[4]) != 2 || len(rects[2]) != 1 {
		t.Fatalf("Marks = %v %v %v; want pages [4 2] with 2 and 1 rectangles", pages, rects, err)
	}
	if r := rects[4][1]; r != (pagerender.Rect{X0: 0.125, Y0: 0.8125, X1: 0.5, Y1: 0.875}) {
		t.Errorf("page 4's second rectangle = %+v", r)
	}

	s = pageimage.New(geometry{err: fmt.Errorf("%w: not kept", docstore.ErrNoGeometry)}, nil)
	if _, _, err := s.Marks("doc", 0, 10); !errors.Is(err, docstore.ErrNoGeometry) || !strings.Contains(fix.Of(err), "citelens reindex") {
		t.Errorf("Marks without geometry = %v (fix %q); want ErrNoGeometry and how to add it", err, fix.Of(err))
	}
}
