package pdftext

import (
	"errors"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// Sentinel errors; Extract wraps them with the reason.
var (
	// ErrEncrypted: the PDF needs a password, or uses an encryption the
	// reader does not support.
	ErrEncrypted = pdffile.ErrEncrypted
	// ErrNoText: no page has extractable text (a scan without OCR).
	ErrNoText = errors.New("no text layer: is it a scan? OCR it first")
	// ErrMalformed: the file is not a PDF or is too damaged to read.
	ErrMalformed = pdffile.ErrMalformed
	// ErrBudget: reading the PDF would take more work than citelens
	// allows one document (its content inflates without bound), and no
	// text was found before the limit.
	ErrBudget = errors.New("the PDF is too costly to read")
)
