package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine/llm"
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
// if there is one. A damaged library, wherever it is found, gets the way
// out (damageHint).
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "citelens: %s\n", textproc.Printable(err.Error()))
	hint := ""
	var h *hinted
	switch {
	case errors.As(err, &h):
		hint = h.hint
	case errors.Is(err, docstore.ErrCorrupt):
		hint = damageHint
	}
	for _, line := range strings.Split(hint, "\n") {
		if line != "" {
			fmt.Fprintf(w, "  %s\n", textproc.Printable(line))
		}
	}
}

// damageHint is what to do about a damaged library.
const damageHint = "Run 'citelens check' to see what is damaged, and 'citelens salvage NEW.db' to copy every readable\ndocument into a new library. Nothing has been changed."

// resumeError explains a long run (derive, embed) that stopped and says
// how to resume it: a cancellation reads "<what> interrupted"; a model
// endpoint's failure also gets its fix; resume is the last line.
func resumeError(err error, what, resume string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrCanceled) {
		return withHint(fmt.Errorf("%s interrupted", what), "%s", resume)
	}
	var le *llm.Error
	if errors.As(err, &le) && le.Fix() != "" {
		return withHint(err, "%s\n%s", le.Fix(), resume)
	}
	return withHint(err, "%s", resume)
}

// rerunCommand is the command line that runs command again over the same
// --doc references, with model as --model when it is set.
func rerunCommand(command string, refs []string, model string) string {
	s := "citelens " + command
	for _, r := range refs {
		s += " --doc " + r
	}
	if model != "" {
		s += " --model " + model
	}
	return s
}
