package docstore

import (
	"encoding/binary"
	"fmt"

	"github.com/citelens/citelens/docstore/pagegeom"
	"github.com/citelens/citelens/storage"
)

// Geometry: where a document's stored text stands on its pages, for the
// page view. A PDF's loader keeps, for every page, its line parts' boxes
// and word extents with the bytes of the stored text they produced
// (pagegeom); OCR'd pages have theirs from Tesseract's word boxes. They
// are stored in bucketGeometry, one sub-bucket per document with one
// record per page (keyed by its number, big endian, so a span's pages
// are read without the rest), beside the text and never inside the
// document's other records.

// bucketGeometry holds page geometry: DocID/page → pagegeom encoding.
var bucketGeometry = []byte("geometry")

// PageRect is a rectangle of text on a page as a viewer shows it (the
// CropBox, after /Rotate), in fractions (0..1) of the page's shown width
// and height from its top-left corner.
type PageRect struct {
	Page           int // PDF page, 1-based, as Sentence.Page
	X0, Y0, X1, Y1 float32
}

// PageLine is a line part of a page (a line of a paragraph, a cell of a
// table row, a line of a heading) with the bytes [Start, End) of the
// stored text its words were written as.
type PageLine struct {
	PageRect
	Start, End int
}

// pageKey is the key of page n's record.
func pageKey(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// SpanRects returns the rectangles covering bytes [start, end) of a
// document's stored text: one per line part the span reaches into, the
// line's box narrowed at the span's ends to the words it reaches into, in
// reading order across pages (a sentence may run onto the next page).
// Bytes that stand on no page (the blank line between paragraphs) have
// none. It fails with ErrNoGeometry for a document without stored
// geometry.
func (l *Geometry) SpanRects(id DocID, start, end int) ([]PageRect, error) {
	lines, err := l.SpanLines(id, start, end)
	out := make([]PageRect, len(lines))
	for i, ln := range lines {
		out[i] = ln.PageRect
	}
	return out, err
}

// SpanLines is SpanRects with the bytes of the span on each line part:
// the part of [start, end) each rectangle shows.
func (l *Geometry) SpanLines(id DocID, start, end int) ([]PageLine, error) {
	d, err := l.library().Document(id)
	if err != nil {
		return nil, err
	}
	if start < 0 || end > len(d.Text) || start > end {
		return nil, fmt.Errorf("bytes %d–%d are outside document %s's text (%d bytes)", start, end, id, len(d.Text))
	}
	if start == end {
		return nil, nil
	}
	var out []PageLine
	first, last := d.PageOf(start), d.PageOf(end-1)
	err = l.readGeometry(id, first, last, func(n int, p *pagegeom.Page) {
		for i := range p.Lines {
			ln := &p.Lines[i]
			if r, ok := ln.Clip(int32(start), int32(end)); ok {
				out = append(out, PageLine{PageRect: PageRect{Page: n, X0: r.X0, Y0: r.Y0, X1: r.X1, Y1: r.Y1},
					Start: max(int(ln.Start), start), End: min(int(ln.End), end)})
			}
		}
	})
	return out, err
}

// PageLines returns every line part of a page, in text order.
func (l *Geometry) PageLines(id DocID, page int) ([]PageLine, error) {
	var out []PageLine
	err := l.readGeometry(id, page, page, func(n int, p *pagegeom.Page) {
		out = make([]PageLine, 0, len(p.Lines))
		for _, ln := range p.Lines {
			b := ln.Box
			out = append(out, PageLine{PageRect: PageRect{Page: n, X0: b.X0, Y0: b.Y0, X1: b.X1, Y1: b.Y1}, Start: int(ln.Start), End: int(ln.End)})
		}
	})
	return out, err
}

// PageSize returns a page's shown size in PDF points (1/72 inch): its
// CropBox (else MediaBox) after /Rotate.
func (l *Geometry) PageSize(id DocID, page int) (w, h float32, err error) {
	err = l.geometryView(id, func(g storage.Bucket) error {
		v := g.Get(pageKey(page))
		if v == nil {
			return l.noPage(id, page)
		}
		if w, h, err = pagegeom.Size(v); err != nil {
			return damaged("document %s's page %d geometry does not decode", id, page)
		}
		return nil
	})
	return w, h, err
}

// Size returns the bytes a document's geometry takes in the
// library (its records' values) and the pages it covers.
func (l *Geometry) Size(id DocID) (size, pages int, err error) {
	err = l.geometryView(id, func(g storage.Bucket) error {
		return g.ForEach(func(_, v []byte) error {
			size += len(v)
			pages++
			return nil
		})
	})
	return size, pages, err
}

// readGeometry decodes pages first..last of a document's geometry and
// passes each to fn.
func (l *Geometry) readGeometry(id DocID, first, last int, fn func(n int, p *pagegeom.Page)) error {
	return l.geometryView(id, func(g storage.Bucket) error {
		keys := make([][]byte, 0, max(last-first+1, 0))
		for n := first; n <= last; n++ {
			keys = append(keys, pageKey(n))
		}
		for i, v := range g.GetMany(keys) {
			n := first + i
			if v == nil {
				return l.noPage(id, n)
			}
			p, err := pagegeom.Decode(v)
			if err != nil {
				return damaged("document %s's page %d geometry does not decode", id, n)
			}
			fn(n, &p)
		}
		return nil
	})
}

// geometryView runs fn on a document's geometry bucket in a read
// transaction, or fails with ErrNoGeometry (ErrNotFound for an unknown
// document).
func (l *Geometry) geometryView(id DocID, fn func(g storage.Bucket) error) error {
	return l.store.View(func(tx storage.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(id)) == nil {
			return errorf(ErrNotFound, "no document %s in the library", id)
		}
		var g storage.Bucket
		if b := tx.Bucket(bucketGeometry); b != nil {
			g = b.Bucket([]byte(id))
		}
		if g == nil {
			return errorf(ErrNoGeometry, "document %s has no page geometry: it is not a PDF, or was added before citelens kept it ('citelens reindex' adds it)", id)
		}
		return fn(g)
	})
}

// noPage is the error for a page a document does not have.
func (l *Geometry) noPage(id DocID, page int) error {
	return errorf(ErrNotFound, "document %s has no page %d", id, page)
}

// writeGeometry stores a loaded document's geometry in tx. A document
// loaded without geometry (rebuilt from its stored text) keeps what is
// stored when its text is unchanged, and loses it otherwise.
func writeGeometry(tx storage.Tx, d *Document, textChanged bool) error {
	root := tx.Bucket(bucketGeometry)
	key := []byte(d.ID)
	if d.geometry == nil && !textChanged {
		return nil
	}
	if root.Bucket(key) != nil {
		if err := root.DeleteBucket(key); err != nil {
			return err
		}
	}
	if d.geometry == nil {
		return nil
	}
	g, err := root.CreateBucket(key)
	if err != nil {
		return err
	}
	g.SetAppendOnly() // written once, in page order
	for i, p := range d.geometry {
		if err := g.Put(pageKey(i+1), p); err != nil {
			return err
		}
	}
	return nil
}

// CheckGeometry verifies a document's page geometry as a loader handed it
// over: nil (no geometry), or one record per page of pages, each
// decoding, its offsets inside a text of textLen bytes. Prepare checks it
// too; the add pipeline checks it first, to refuse a loader's output
// before anything else is done with it.
func CheckGeometry(geom [][]byte, pages, textLen int) error {
	if geom == nil {
		return nil
	}
	if len(geom) != max(pages, 1) {
		return fmt.Errorf("the loader returned geometry for %d pages of %d", len(geom), pages)
	}
	for i, b := range geom {
		if err := pagegeom.Validate(b, int32(textLen)); err != nil {
			return fmt.Errorf("the loader returned page %d's geometry undecodable or outside the text", i+1)
		}
	}
	return nil
}
