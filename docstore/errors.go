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
	// ErrReadOnly means the library cannot be written: its file system
	// is mounted read-only, or the file (or its folder, for a new one)
	// is not writable by this user. Reading it still works.
	ErrReadOnly = errors.New("the library cannot be written")
)

// LockedError is the ErrLocked error of a library another process held
// past the lock timeout: Holders are the citelens processes that said
// they hold it (none: not a citelens, or one too old to say).
type LockedError struct {
	Path    string
	Holders []Holder
}

func (e *LockedError) Error() string        { return fmt.Sprintf("%v (%s)", ErrLocked, e.Path) }
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

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
