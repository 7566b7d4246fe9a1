// Package fix is the one path by which a failure reaches a person: the
// error says what went wrong (the reason), and its fix says what to do
// about it. Any error in a chain may carry a fix by having a method
//
//	Fix() string
//
// (*llm.Error does, engine's option and availability errors do, RAIDD's
// missing derivation does); With attaches one to any other error. The
// command line and the terminal UI both ask Of for it, so a failure reads
// the same wherever it is shown.
package fix

import (
	"fmt"
	"strings"
)

// Error is an error with what the user can do about it.
type Error struct {
	Err error  // the reason
	How string // the fix: one or more lines for a person
}

// Error is the reason's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the reason, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Fix returns what to do.
func (e *Error) Fix() string { return e.How }

// With attaches a fix, written as fmt.Sprintf(format, args...), to err.
// A nil err stays nil.
func With(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, How: fmt.Sprintf(format, args...)}
}

// fixer is any error that says how to fix it.
type fixer interface{ Fix() string }

// Of returns the fix of err: that of the first error in its chain with a
// Fix method that says something, or "" when none does.
func Of(err error) string {
	for err != nil {
		if f, ok := err.(fixer); ok {
			if s := f.Fix(); s != "" {
				return s
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if s := Of(e); s != "" {
					return s
				}
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// Message is err as a person reads it, on the command line and in the
// terminal UI alike: the reason, and the fix on its own, or "" when there
// is none or the reason already says it.
func Message(err error) (reason, how string) {
	reason = err.Error()
	how = Of(err)
	if strings.Contains(reason, how) {
		how = ""
	}
	return reason, how
}
