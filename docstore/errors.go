package docstore

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with the path or ID concerned, so
// test with errors.Is.
var (
	// ErrLocked means another process holds the library open for writing.
	ErrLocked = errors.New("library is in use by another citelens process")
	// ErrNewerSchema means the library was written by a newer citelens.
	ErrNewerSchema = errors.New("library was written by a newer citelens")
	// ErrOlderSchema means the library was written by an older citelens
	// and must be reindexed (Library.Reindex, `citelens reindex`).
	ErrOlderSchema = errors.New("library was written by an older citelens")
	// ErrNotFound means no document (or answer) matches the reference.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a reference matches more than one document.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrUnsupported means the file's type has no loader.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrBinary means a text file contains NUL bytes.
	ErrBinary = errors.New("looks like a binary file")
	// ErrInvalidUTF8 means a text file is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("not valid UTF-8")
	// ErrEmpty means the file has no text to index.
	ErrEmpty = errors.New("no text")
	// ErrCorrupt means the library is damaged: a record does not decode
	// or holds impossible values, or the file itself is cut short or has
	// a bad page. Its messages read "the library is damaged: …";
	// Library.Inspect reports all the damage and Library.Salvage copies
	// what is readable into a new library.
	ErrCorrupt = errors.New("the library is damaged")
	// ErrNoGeometry means a document has no stored page geometry: it is
	// not a PDF (nor OCR'd), or was added before citelens kept it
	// (Library.Reindex, `citelens reindex`, adds it).
	ErrNoGeometry = errors.New("no page geometry")
)

// Fix says what to do about a library that cannot be used — damaged
// (ErrCorrupt) or held by another process past the lock timeout
// (ErrLocked) — wherever the error is found, or "" for any other error.
// Front ends show it when the error carries no fix of its own
// (internal/fix), so the command line, the terminal UI and the MCP server
// give the same way out.
func Fix(err error) string {
	switch {
	case errors.Is(err, ErrCorrupt):
		return damageFix
	case errors.Is(err, ErrLocked):
		return lockedFix
	}
	return ""
}

// lockedFix is what to do about a library another process kept locked
// past the lock timeout: citelens itself holds it only for a moment.
const lockedFix = "Another process has held the library for over 10 seconds: an older citelens that keeps it open,\nor one that is stuck. Close it and try again, or point --db at another library."

// damageFix is what to do about a damaged library.
const damageFix = "Run 'citelens check' to see what is damaged, and 'citelens salvage NEW.db' to copy every readable\ndocument into a new library. Nothing has been changed."

// reasonError is a complete, user-facing message that still matches its
// sentinel with errors.Is, so messages need not end in ": not found".
type reasonError struct {
	sentinel error
	msg      string
}

func (e *reasonError) Error() string        { return e.msg }
func (e *reasonError) Is(target error) bool { return target == e.sentinel }

// errorf formats a message for an error that matches sentinel.
func errorf(sentinel error, format string, args ...any) error {
	return &reasonError{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}
