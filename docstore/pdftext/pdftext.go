// Package pdftext extracts the text of a PDF with its layout: words from
// glyph gaps, lines, paragraphs, reading order, and the page of every byte.
package pdftext

import (
	"context"
	"errors"
	"io"
)

// Result is the extracted text of a PDF.
type Result struct {
	Text string
	// PageStarts[i] is the byte offset in Text where page i+1 begins.
	PageStarts []int32
	Pages      int
	Title      string // from the document info dictionary, if any
}

// Sentinel errors; Extract wraps them with the reason.
var (
	ErrEncrypted = errors.New("the PDF is encrypted")
	ErrNoText    = errors.New("no text layer: is it a scan? OCR it first")
	ErrMalformed = errors.New("not a readable PDF")
)

// Extract reads the PDF in r. progress, if not nil, is called after each
// page with the pages done and the total.
//
// PROVISIONAL signature stub until the extractor lands.
func Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(done, total int)) (*Result, error) {
	return nil, ErrMalformed
}
