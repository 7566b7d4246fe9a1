package pdffile

import (
	"errors"
	"fmt"
)

// Sentinel errors; Open's errors wrap one of them with the reason.
var (
	// ErrEncrypted: the PDF needs a password, or uses an encryption the
	// reader does not support.
	ErrEncrypted = errors.New("the PDF is encrypted")
	// ErrMalformed: the file is not a PDF or is too damaged to read.
	ErrMalformed = errors.New("not a readable PDF")
)

// Damage is damage found in a file, said in a reader's words: one line,
// no bytes of the file, and where it can, at which byte of the file it is.
// It wraps ErrMalformed.
type Damage struct {
	// At is the byte of the file where the damage is, or -1.
	At int64
	// What the damage is: "a hex string holds a character that is not a
	// hex digit".
	What string
	// Structural: an object is not where the cross-reference table puts
	// it, so rebuilding the table may read more of the file.
	Structural bool
}

// Reason is the damage as a clause: "the file is damaged at byte 12: …".
func (d *Damage) Reason() string {
	if d.At >= 0 {
		return fmt.Sprintf("the file is damaged at byte %d: %s", d.At, d.What)
	}
	return "the file is damaged: " + d.What
}

func (d *Damage) Error() string { return ErrMalformed.Error() + ": " + d.Reason() }

// Unwrap makes a Damage an ErrMalformed.
func (d *Damage) Unwrap() error { return ErrMalformed }

// damage is a Damage at byte at (-1: unknown).
func damage(at int64, what string) *Damage { return &Damage{At: at, What: what} }
