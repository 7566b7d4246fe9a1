package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/citelens/citelens/docstore/textproc"
)

// hinted is an error that carries a suggestion for the user, printed on its
// own line under the error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// withHint attaches a user-facing fix to err.
func withHint(err error, format string, args ...any) error {
	return &hinted{err: err, hint: fmt.Sprintf(format, args...)}
}

// printError writes err for a person: one line, control characters
// neutralised (errors may quote file names and document text), and the hint
// if there is one.
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "citelens: %s\n", textproc.Printable(err.Error()))
	var h *hinted
	if errors.As(err, &h) && h.hint != "" {
		for _, line := range strings.Split(h.hint, "\n") {
			fmt.Fprintf(w, "  %s\n", textproc.Printable(line))
		}
	}
}
