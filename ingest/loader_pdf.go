package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/pagegeom"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/ocr"
	"github.com/citelens/citelens/ingest/pdftext"
)

// StageOCR is the ingest stage of reading scanned pages, reported through
// Progress with pages done and total.
const StageOCR = "OCR"

// loadPDF extracts a PDF's text layer and, when asked to, OCRs the pages
// that have none.
func loadPDF(ctx context.Context, content []byte, opt LoadOptions) (*Loaded, error) {
	res, err := pdftext.ExtractBytes(ctx, content, opt.progress(StageExtracting))
	scan := errors.Is(err, pdftext.ErrNoText) && res != nil
	switch {
	case scan && opt.OCR == nil:
		return nil, fmt.Errorf("%w: 'citelens add --ocr' reads it with Tesseract", err)
	case err != nil && !scan:
		return nil, err
	}
	ld := &Loaded{Text: res.Text, PageStarts: res.PageStarts, Title: res.Title, Warnings: res.Warnings,
		Headings: res.Headings, Tables: res.Tables, Geometry: res.Geometry}
	for _, r := range res.PageLabels {
		ld.PageLabels = append(ld.PageLabels, docstore.PageLabelRange(r))
	}
	if opt.OCR == nil {
		return ld, nil
	}
	empty := res.EmptyPages()
	if len(empty) == 0 {
		return ld, nil
	}
	pages, err := ocr.Recognize(ctx, content, empty, *opt.OCR, opt.progress(StageOCR))
	if err != nil {
		return nil, err
	}
	mergeOCR(ld, pages)
	var sized []string // pages read other than as asked, or not at all
	for _, p := range pages {
		if p.Warning != "" {
			sized = append(sized, p.Warning)
		}
	}
	if len(ld.OCRPages) == 0 && strings.TrimSpace(ld.Text) == "" && len(sized) > 0 {
		return nil, fmt.Errorf("%w: it has no text layer, and OCR found none: %s", ErrEmpty, sized[0])
	}
	ld.Warnings = append(ld.Warnings, sized...)
	if len(ld.OCRPages) < len(empty) {
		ld.Warnings = append(ld.Warnings, fmt.Sprintf("OCR found no text on %d of the %d pages without a text layer", len(empty)-len(ld.OCRPages), len(empty)))
	}
	return ld, nil
}

// mergeOCR puts the OCR'd pages' text in place of the empty pages of a
// PDF's text, each OCR'd page its own paragraphs, and moves the text
// pages' headings and tables with them.
func mergeOCR(ld *Loaded, pages []ocr.Page) {
	byPage := make(map[int]*ocr.Page, len(pages))
	for i := range pages {
		byPage[pages[i].Number] = &pages[i]
	}
	old, oldStarts := ld.Text, ld.PageStarts
	buf := make([]byte, 0, len(old)+len(pages)*3000)
	starts := make([]int32, len(oldStarts))
	delta := make([]int32, len(oldStarts)) // how far each text page moved
	var headings []structure.Heading
	afterOCR := false
	for i := range oldStarts {
		start, end := int(oldStarts[i]), len(old)
		if i+1 < len(oldStarts) {
			end = int(oldStarts[i+1])
		}
		if p := byPage[i+1]; p != nil {
			if p.Text == "" {
				starts[i] = int32(len(buf))
				continue
			}
			buf = bytes.TrimRight(buf, " \n")
			if len(buf) > 0 {
				buf = append(buf, "\n\n"...)
			}
			starts[i] = int32(len(buf))
			for _, h := range p.Headings {
				h.Span.Start += starts[i]
				h.Span.End += starts[i]
				headings = append(headings, h)
			}
			buf = append(buf, p.Text...)
			if i < len(ld.Geometry) {
				ld.Geometry[i] = ocrGeometry(p, starts[i], ld.Geometry[i])
			}
			ld.OCRPages = append(ld.OCRPages, i+1)
			afterOCR = true
			continue
		}
		if afterOCR && len(buf) > 0 && start < end {
			buf = append(buf, "\n\n"...)
		}
		afterOCR = false
		starts[i] = int32(len(buf))
		delta[i] = starts[i] - int32(start)
		buf = append(buf, old[start:end]...)
		if i < len(ld.Geometry) && delta[i] != 0 {
			d := delta[i]
			if g, err := pagegeom.Remap(ld.Geometry[i], func(off int32) int32 { return off + d }); err == nil {
				ld.Geometry[i] = g
			}
		}
	}
	move := func(s structure.Span) structure.Span {
		if s.Len() == 0 {
			return s
		}
		// the page holding s: the last whose start is at or before it
		page := sort.Search(len(oldStarts), func(i int) bool { return oldStarts[i] > s.Start }) - 1
		d := delta[max(page, 0)]
		return structure.Span{Start: s.Start + d, End: s.End + d}
	}
	for _, h := range ld.Headings {
		h.Span = move(h.Span)
		headings = append(headings, h)
	}
	sort.SliceStable(headings, func(i, j int) bool { return headings[i].Span.Start < headings[j].Span.Start })
	for i := range ld.Tables {
		t := &ld.Tables[i]
		t.Caption = move(t.Caption)
		for k := range t.Header {
			t.Header[k] = move(t.Header[k])
		}
		for k := range t.Rows {
			t.Rows[k] = move(t.Rows[k])
		}
	}
	ld.Text, ld.PageStarts, ld.Headings = string(buf), starts, headings
}

// ocrGeometry is the geometry of an OCR'd page whose text starts at
// offset start: a line part per line Tesseract read, from its words'
// boxes on the page's image. The page's size is taken from its text
// layer's geometry, textGeom.
func ocrGeometry(p *ocr.Page, start int32, textGeom []byte) []byte {
	var g pagegeom.Page
	g.Width, g.Height, _ = pagegeom.Size(textGeom)
	if p.Size.X <= 0 || p.Size.Y <= 0 {
		return pagegeom.Append(nil, &g)
	}
	sx, sy := 1/float32(p.Size.X), 1/float32(p.Size.Y)
	for i, w := range p.Words {
		if i == 0 || w.Line != p.Words[i-1].Line {
			g.Lines = append(g.Lines, pagegeom.Line{Dir: pagegeom.LeftToRight, Start: start + w.Span.Start,
				Box: pagegeom.Rect{X0: 1, Y0: 1}})
		}
		l := &g.Lines[len(g.Lines)-1]
		x0, y0, x1, y1 := float32(w.Box.Min.X)*sx, float32(w.Box.Min.Y)*sy, float32(w.Box.Max.X)*sx, float32(w.Box.Max.Y)*sy
		l.Box = pagegeom.Rect{X0: min(l.Box.X0, x0), Y0: min(l.Box.Y0, y0), X1: max(l.Box.X1, x1), Y1: max(l.Box.Y1, y1)}
		l.Words = append(l.Words, pagegeom.Word{Start: start + w.Span.Start, End: start + w.Span.End, From: x0, To: x1})
		l.End = start + w.Span.End
	}
	return pagegeom.Append(nil, &g)
}
