package pagerender

import "errors"

// The errors a Renderer returns wrap one of these.
var (
	// ErrRenderer: PDFium could not be started or failed inside.
	ErrRenderer = errors.New("the page renderer failed")
	// ErrTimeout: a call into PDFium ran past Options.Timeout and was
	// stopped.
	ErrTimeout = errors.New("the page took too long to render")
	// ErrTooLarge: the page asks for more than the renderer allows it
	// (memory past MemoryLimit, images or objects past the page budget).
	ErrTooLarge = errors.New("the page is too large to render")
	// ErrClosed: the Renderer was closed.
	ErrClosed = errors.New("the page renderer is closed")
	// ErrEncrypted: the document needs a password.
	ErrEncrypted = errors.New("the PDF is encrypted")
	// ErrDamaged: PDFium could not read the document as a PDF.
	ErrDamaged = errors.New("the PDF cannot be read")
	// ErrNoPage: the page number is outside the document.
	ErrNoPage = errors.New("no such page")
)
