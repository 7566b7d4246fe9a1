package citations

import "errors"

// Sentinel errors of the package; wrapped with details where they occur.
var (
	// ErrBadNumbering: a numbering was asked to number sentences or chunks a
	// document does not have.
	ErrBadNumbering = errors.New("cannot number the prompt's sentences")
	// ErrBadGold: gold evidence that cannot be scored against.
	ErrBadGold = errors.New("the gold answer cannot be scored")
	// ErrMissingDoc: an export needs a document that is not available.
	ErrMissingDoc = errors.New("a cited document is not available")
	// ErrUnknownFormat: an export format that is not one of Formats.
	ErrUnknownFormat = errors.New("unknown export format")
)
