// Package pageimage draws citations on their pages: it finds where a
// span of a document's stored text stands on its pages (the library's
// geometry), opens the document's original PDF, renders the page or the
// cited region with citations/pagerender, and burns the highlight in. The
// page view, `citelens show --image` and the exports all draw through it,
// so they show the same picture.
package pageimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/fix"
)

// The errors Source returns wrap one of these (or pagerender's).
var (
	// ErrNotPDF: the document was not added from a PDF, so it has no
	// pages to draw.
	ErrNotPDF = errors.New("not a PDF")
	// ErrFileMissing: the document's file is no longer where it was
	// added from.
	ErrFileMissing = errors.New("the document's file is missing")
	// ErrFileChanged: the file where the document was added from is no
	// longer the same file, so its pages would not match the text.
	ErrFileChanged = errors.New("the document's file has changed")
)

// Faint is the highlight of a statement's other citations: lighter than
// the cited sentence's.
var Faint = color.NRGBA{R: 0xff, G: 0xd8, B: 0x00, A: 0x50}

// Geometry is what a Source reads of the library: where a span of a
// document's stored text stands on its pages. The library's page
// geometry (lib.Geometry(), a *docstore.Geometry) is one.
type Geometry interface {
	SpanRects(id docstore.DocID, start, end int) ([]docstore.PageRect, error)
}

// Source draws the pages of one library's documents. Its methods are
// safe for concurrent use.
type Source struct {
	geom Geometry
	r    *pagerender.Renderer

	mu   sync.Mutex
	open []opened // most recently used first
}

type opened struct {
	id  docstore.DocID
	doc *pagerender.Document
}

// keepOpen is how many documents a Source keeps open in PDFium: the one
// shown and the one before, so going back and forth opens nothing.
const keepOpen = 2

// New returns a Source drawing with r the documents whose page geometry
// geom holds (a library's: lib.Geometry()).
func New(geom Geometry, r *pagerender.Renderer) *Source {
	return &Source{geom: geom, r: r}
}

// Renderer is the renderer s draws with.
func (s *Source) Renderer() *pagerender.Renderer { return s.r }

// Available says why doc has no pages to draw, or nil if it has: it is
// not a PDF. (A missing or changed file shows when it is opened.)
func Available(doc *docstore.Document) error {
	if doc.Kind != "pdf" {
		kind := doc.Kind
		if kind == "" {
			kind = "text"
		}
		return fix.With(fmt.Errorf("%w: %s is a %s document", ErrNotPDF, doc.DisplayName(), kind),
			"Pages exist for PDFs only: its text is the document.")
	}
	return nil
}

// Document opens doc's original file for rendering, after checking that
// it is the file that was added (its content hash is the document's
// ID), or, when it is not on this disk or has changed, the file's bytes
// as the library kept them (Originals). Documents stay open for the next
// call.
func (s *Source) Document(ctx context.Context, doc *docstore.Document) (*pagerender.Document, error) {
	if err := Available(doc); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for i, o := range s.open {
		if o.id == doc.ID {
			// Most recent first.
			copy(s.open[1:i+1], s.open[:i])
			s.open[0] = o
			s.mu.Unlock()
			return o.doc, nil
		}
	}
	s.mu.Unlock()
	data, err := s.original(ctx, doc)
	if err != nil {
		return nil, err
	}
	pd, err := s.r.Open(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doc.DisplayName(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.open {
		if o.id == doc.ID { // opened meanwhile by another call
			pd.Close()
			return o.doc, nil
		}
	}
	s.open = append([]opened{{doc.ID, pd}}, s.open...)
	if len(s.open) > keepOpen {
		s.open[keepOpen].doc.Close()
		s.open = s.open[:keepOpen]
	}
	return pd, nil
}

// Originals is a library that keeps its documents' original files
// (docstore's Files; its Geometry answers for them too): the bytes of the
// file a document was added from, ok false when it did not keep them.
type Originals interface {
	Original(id docstore.DocID) (content []byte, ok bool, err error)
}

// original is the bytes of doc's file: the file where it was added from
// when it is still the file that was added, else the bytes the library
// kept (what was cited), when the Source's Geometry is also Originals and
// kept them.
func (s *Source) original(ctx context.Context, doc *docstore.Document) ([]byte, error) {
	// The path was checked when the document was added; what stands
	// there now may be a FIFO or a link to /dev/zero, so it is read
	// with the same checks, bounded by the size add allows.
	data, err := ingest.ReadRegular(ctx, doc.Path, ingest.DefaultMaxFileSize)
	if err == nil && docstore.IDFor(data) == doc.ID {
		return data, nil
	}
	if o, ok := s.geom.(Originals); ok {
		stored, kept, serr := o.Original(doc.ID)
		if serr != nil {
			return nil, fmt.Errorf("%s: %w", doc.DisplayName(), serr)
		}
		if kept {
			return stored, nil
		}
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fix.With(fmt.Errorf("%w: %s", ErrFileMissing, doc.Path),
			"Put the file back, or add it again from where it is now.")
	case errors.Is(err, ingest.ErrNotRegular), errors.Is(err, ingest.ErrTooLarge):
		return nil, fix.With(fmt.Errorf("%w: %w", ErrFileChanged, err),
			"Put the PDF back at that path, or add it again from where it is now.")
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", doc.Path, err)
	}
	return nil, fix.With(fmt.Errorf("%w: %s is not the file that was added", ErrFileChanged, doc.Path),
		"Add the new file to draw its pages; the library keeps the text of the old one.")
}

// Marks returns where bytes [start, end) of document id stand, page by
// page: the pages in reading order, and each page's line rectangles.
func (s *Source) Marks(id docstore.DocID, start, end int) (pages []int, rects map[int][]pagerender.Rect, err error) {
	prs, err := s.geom.SpanRects(id, start, end)
	if errors.Is(err, docstore.ErrNoGeometry) {
		return nil, nil, fix.With(err, "Run 'citelens reindex' to read where its text stands on its pages.")
	}
	if err != nil {
		return nil, nil, err
	}
	rects = map[int][]pagerender.Rect{}
	for _, r := range prs {
		if _, seen := rects[r.Page]; !seen {
			pages = append(pages, r.Page)
		}
		rects[r.Page] = append(rects[r.Page], pagerender.Rect{X0: float64(r.X0), Y0: float64(r.Y0), X1: float64(r.X1), Y1: float64(r.Y1)})
	}
	return pages, rects, nil
}

// Page renders page n of doc whole at dpi, with marks highlighted (page
// fractions, as Marks gives them).
func (s *Source) Page(ctx context.Context, doc *docstore.Document, n int, marks []pagerender.Rect, dpi float64) (*pagerender.Picture, error) {
	pd, err := s.Document(ctx, doc)
	if err != nil {
		return nil, err
	}
	pic, err := pd.Render(ctx, n, pagerender.WholePage, dpi)
	if err != nil {
		return nil, err
	}
	Mark(pic, marks, nil)
	return pic, nil
}

// Region is the part of a page a cited region is drawn with when the
// page's other lines are not known: the marks' bounds with a margin of
// context around them. Source.Crop, which knows them, cuts no word.
func Region(marks []pagerender.Rect) pagerender.Rect {
	b := pagerender.Bounds(marks)
	if b.Empty() {
		return pagerender.WholePage
	}
	return b.Inset(0.04, 0.025).Intersect(pagerender.WholePage)
}

// Lines is a Geometry that also gives every line of a page, as the
// library's does: crops are then widened to whole lines.
type Lines interface {
	PageLines(id docstore.DocID, page int) ([]docstore.PageLine, error)
}

// The margins of a crop, in page fractions: the lines just above and
// below the cited ones are reached into (and then shown whole), and a
// little paper is left at the sides.
const (
	cropMarginX, cropMarginY = 0.01, 0.025
	cropPadX, cropPadY       = 0.02, 0.006
)

// Crop is the part of page `page` of document id that a cited region
// with marks is drawn with, in the zoom and in exports: the marks with a
// line of context above and below, widened so that every line it shows
// is whole — a margin alone cuts the neighbouring lines mid-word where
// they are longer than the cited ones ("zerc", "ited."). Without the
// page's lines (a Geometry that is not Lines) it is Region.
func (s *Source) Crop(id docstore.DocID, page int, marks []pagerender.Rect) pagerender.Rect {
	b := pagerender.Bounds(marks)
	lg, ok := s.geom.(Lines)
	if b.Empty() || !ok {
		return Region(marks)
	}
	pls, err := lg.PageLines(id, page)
	if err != nil || len(pls) == 0 {
		return Region(marks)
	}
	lines := make([]pagerender.Rect, len(pls))
	for i, l := range pls {
		lines[i] = pagerender.Rect{X0: float64(l.X0), Y0: float64(l.Y0), X1: float64(l.X1), Y1: float64(l.Y1)}
	}
	return WholeLines(b, lines)
}

// WholeLines is the crop around marks on a page with lines (page
// fractions): the marks' bounds with a margin, grown until every line it
// reaches into is inside it whole, then padded with paper up to, never
// into, the lines left out.
func WholeLines(marks pagerender.Rect, lines []pagerender.Rect) pagerender.Rect {
	r := marks.Inset(cropMarginX, cropMarginY).Intersect(pagerender.WholePage)
	in := make([]bool, len(lines))
	// Taking a line in may reach into others (a longer line beside the
	// widened region): repeat until nothing changes. Each pass takes at
	// least one line in, so it ends.
	for grew := true; grew; {
		grew = false
		for i, l := range lines {
			if !in[i] && !l.Intersect(r).Empty() {
				in[i], grew = true, true
				r = r.Union(l)
			}
		}
	}
	// Paper around, stopping short of the lines left out.
	p := r.Inset(cropPadX, cropPadY).Intersect(pagerender.WholePage)
	for i, l := range lines {
		if in[i] {
			continue
		}
		overlapY := l.Y0 < r.Y1 && l.Y1 > r.Y0
		overlapX := l.X0 < r.X1 && l.X1 > r.X0
		switch {
		case overlapY && l.X0 >= r.X1:
			p.X1 = min(p.X1, l.X0)
		case overlapY && l.X1 <= r.X0:
			p.X0 = max(p.X0, l.X1)
		case overlapX && l.Y0 >= r.Y1:
			p.Y1 = min(p.Y1, l.Y0)
		case overlapX && l.Y1 <= r.Y0:
			p.Y0 = max(p.Y0, l.Y1)
		}
	}
	return p
}

// Evidence renders the cited region of bytes [start, end) of doc on each
// page it stands on, highlighted, at dpi: the pictures an export shows
// under a statement. A span that stands on no page (blank bytes) has
// none.
func (s *Source) Evidence(ctx context.Context, doc *docstore.Document, start, end int, dpi float64) ([]*pagerender.Picture, error) {
	if err := Available(doc); err != nil {
		return nil, err
	}
	pages, rects, err := s.Marks(doc.ID, start, end)
	if err != nil {
		return nil, err
	}
	pd, err := s.Document(ctx, doc)
	if err != nil {
		return nil, err
	}
	var pics []*pagerender.Picture
	for _, p := range pages {
		pic, err := pd.Render(ctx, p, s.Crop(doc.ID, p, rects[p]), dpi)
		if err != nil {
			return nil, err
		}
		Mark(pic, rects[p], nil)
		pics = append(pics, pic)
	}
	return pics, nil
}

// Mark burns the highlight into pic: marks (page fractions) in the
// marker, faint ones (a statement's other citations) more lightly.
func Mark(pic *pagerender.Picture, marks, faint []pagerender.Rect) {
	if len(faint) > 0 {
		pic.Highlight(pad(faint), Faint)
	}
	pic.Highlight(pad(marks), pagerender.Marker)
}

// pad grows line boxes a little, so the marker covers ascenders and
// descenders as a pen stroke would.
func pad(marks []pagerender.Rect) []pagerender.Rect {
	out := make([]pagerender.Rect, len(marks))
	for i, m := range marks {
		out[i] = m.Inset(0.002, 0.0015)
	}
	return out
}

// pngEncoder compresses for speed: a page's region of text compresses
// almost as well at the fastest level, at a third of the time, which an
// export of many citations pays once per picture.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// WritePNG writes pic as a PNG file's bytes.
func WritePNG(w io.Writer, pic *pagerender.Picture) error {
	return pngEncoder.Encode(w, pic.Image)
}

// PNG returns pic as a PNG file's bytes.
func PNG(pic *pagerender.Picture) []byte {
	var b bytes.Buffer
	pngEncoder.Encode(&b, pic.Image) // writes to memory cannot fail
	return b.Bytes()
}

// Close closes the documents s keeps open (not the renderer).
func (s *Source) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.open {
		o.doc.Close()
	}
	s.open = nil
}

// ExportDPI is the resolution of a cited region in an export: sharp on a
// high-density screen at the page's own size, a few tens of KB a region.
const ExportDPI = 144

// HTMLPictures gives citations.WriteHTMLWith the pictures of each
// citation: its region on each page it stands on, highlighted, as PNG,
// at ExportDPI; none for a document that is not a PDF.
func (s *Source) HTMLPictures(ctx context.Context, docs citations.DocLookup) func(citations.Span) ([]citations.Picture, error) {
	return func(c citations.Span) ([]citations.Picture, error) {
		doc, err := docs(c.Doc)
		if err != nil {
			return nil, err
		}
		if Available(doc) != nil {
			return nil, nil
		}
		pics, err := s.Evidence(ctx, doc, c.Start, c.End, ExportDPI)
		return encodeAll(pics), err
	}
}

// AnswerPictures is HTMLPictures for the citations of answer a, drawn
// ahead: it starts drawing them all at once, in the answer's order, and
// encodes each one's PNGs while the next is rendered (PDFium renders one
// page at a time; the encoding, as long as the rendering, runs on the
// other cores), each document read once. The function it returns waits
// for the citation asked for; one not in a is drawn when asked, as
// HTMLPictures does. Cancelling ctx stops the drawing.
func (s *Source) AnswerPictures(ctx context.Context, a *citations.Answer, docs citations.DocLookup) func(citations.Span) ([]citations.Picture, error) {
	type key struct {
		doc        docstore.DocID
		start, end int
	}
	type result struct {
		done chan struct{}
		pics []citations.Picture
		err  error
	}
	var order []key
	results := map[key]*result{}
	for _, st := range a.Statements {
		for _, c := range st.Citations {
			k := key{c.Doc, c.Start, c.End}
			if results[k] == nil {
				results[k] = &result{done: make(chan struct{})}
				order = append(order, k)
			}
		}
	}
	// Documents read once: a long document's record is large.
	var mu sync.Mutex
	read := map[docstore.DocID]*docstore.Document{}
	lookup := func(id docstore.DocID) (*docstore.Document, error) {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := read[id]; ok {
			return d, nil
		}
		d, err := docs(id)
		if err == nil {
			read[id] = d
		}
		return d, err
	}
	go func() {
		encoders := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
		for _, k := range order {
			r := results[k]
			if err := ctx.Err(); err != nil {
				r.err = err
				close(r.done)
				continue
			}
			doc, err := lookup(k.doc)
			var pics []*pagerender.Picture
			if err == nil && Available(doc) == nil {
				pics, err = s.Evidence(ctx, doc, k.start, k.end, ExportDPI)
			}
			encoders <- struct{}{}
			go func() {
				defer func() { <-encoders }()
				r.pics, r.err = encodeAll(pics), err
				close(r.done)
			}()
		}
	}()
	later := s.HTMLPictures(ctx, lookup)
	return func(c citations.Span) ([]citations.Picture, error) {
		r := results[key{c.Doc, c.Start, c.End}]
		if r == nil {
			return later(c)
		}
		select {
		case <-r.done:
			return r.pics, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// encodeAll is pics as an export's PNGs.
func encodeAll(pics []*pagerender.Picture) []citations.Picture {
	out := make([]citations.Picture, 0, len(pics))
	for _, p := range pics {
		b := p.Image.Bounds()
		out = append(out, citations.Picture{PNG: PNG(p), Page: p.Page, Width: b.Dx(), Height: b.Dy()})
	}
	return out
}

// Cites reports whether the answer cites a PDF, whose pictures an
// export would draw.
func Cites(a *citations.Answer, docs citations.DocLookup) bool {
	for _, s := range a.Statements {
		for _, c := range s.Citations {
			if d, err := docs(c.Doc); err == nil && Available(d) == nil {
				return true
			}
		}
	}
	return false
}
