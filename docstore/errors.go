package docstore

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Functions wrap them with the path or ID concerned, so
// test with errors.Is.
var (
	// ErrLocked means another process holds the library open for writing.
	ErrLocked = errors.New("library is in use by another citelens process")
	// ErrNewerSchema means the library was written by a newer citelens.
	ErrNewerSchema = errors.New("library was written by a newer citelens")
	// ErrOlderSchema means the library was written by an older citelens
	// and must be reindexed (ingest's Reindex, `citelens reindex`).
	ErrOlderSchema = errors.New("library was written by an older citelens")
	// ErrNotFound means no document (or answer) matches the reference.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a reference matches more than one document.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrCorrupt means the library is damaged: a record does not decode
	// or holds impossible values, or the file itself is cut short or has
	// a bad page. Its messages read "the library is damaged: …";
	// Library.Inspect reports all the damage and Library.Salvage copies
	// what is readable into a new library.
	ErrCorrupt = errors.New("the library is damaged")
	// ErrNoGeometry means a document has no stored page geometry: it is
	// not a PDF (nor OCR'd), or was added before citelens kept it
	// (ingest's Reindex, `citelens reindex`, adds it).
	ErrNoGeometry = errors.New("no page geometry")
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

// Fix says what to do about a library that cannot be used — damaged
// (ErrCorrupt), held by another process past the lock timeout (ErrLocked)
// or not writable (ErrReadOnly) — wherever the error is found, or "" for
// any other error. Front ends show it when the error carries no fix of
// its own (internal/fix), so the command line, the terminal UI and the
// MCP server give the same way out.
func Fix(err error) string {
	switch {
	case errors.Is(err, ErrCorrupt):
		return damageFix
	case errors.Is(err, ErrLocked):
		return lockedFix(err)
	case errors.Is(err, ErrReadOnly):
		return readOnlyFix
	}
	return ""
}

// lockedFix is what to do about a library another process kept locked
// past the lock timeout: who holds it, when a citelens says so (one
// holds it only for a moment at a time, so it may be stuck or writing
// something large), and otherwise that it is no citelens of today.
func lockedFix(err error) string {
	var le *LockedError
	if errors.As(err, &le) && len(le.Holders) > 0 {
		var b strings.Builder
		for _, h := range le.Holders {
			fmt.Fprintf(&b, "%s.\n", h)
		}
		b.WriteString("Wait for it to finish and try again, or stop it (kill PID); or point --db at another library.")
		return b.String()
	}
	return "Another process has held the library for over 10 seconds and says nothing of itself: not a citelens,\n" +
		"or an older one that keeps it open, or one that is stuck. Close it and try again, or point --db at another library."
}

// readOnlyFix says what works on a library that cannot be written, and
// what to do for the rest.
const readOnlyFix = "Reading still works: ls, show, search, answers, export, check and ask --no-save.\n" +
	"To add, remove, reindex or save answers, make the library writable (remount its file system\n" +
	"read-write, or chmod u+w it), or copy it somewhere writable and point --db at the copy."

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

// damaged returns an ErrCorrupt error reading "the library is damaged: …".
func damaged(format string, args ...any) error {
	return errorf(ErrCorrupt, "the library is damaged: "+format, args...)
}

// recoverDamage, deferred, turns a panic into a damaged-library error:
// the net under the decoders (validate.go) for records that decode to
// nonsense, and, in the file (damage.go), under bbolt's own panics.
func recoverDamage(err *error) {
	if x := recover(); x != nil {
		*err = damaged("%v", x)
	}
}
