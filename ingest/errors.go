package ingest

import "errors"

// Sentinel errors. Functions wrap them with the path concerned, so test
// with errors.Is.
var (
	// ErrUnsupported means the file's type has no loader.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrBinary means a text file contains NUL bytes.
	ErrBinary = errors.New("looks like a binary file")
	// ErrInvalidUTF8 means a text file is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
	// ErrEmpty means the file has no text to index.
	ErrEmpty = errors.New("no text")
)
