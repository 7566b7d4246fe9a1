package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// printError writes err for a person: the reason on one line, control
// characters neutralised (errors may quote file names and document text),
// and its fix, if it has one, on the lines under it. A damaged library,
// wherever it is found, gets the way out (damageHint).
func printError(w io.Writer, err error) {
	reason, how := fix.Message(err)
	fmt.Fprintf(w, "citelens: %s\n", textproc.Printable(reason))
	switch {
	case how != "":
	case errors.Is(err, docstore.ErrCorrupt):
		how = damageHint
	case errors.Is(err, docstore.ErrLocked):
		how = lockedHint(err)
	case errors.Is(err, docstore.ErrReadOnly):
		how = readOnlyHint
	}
	for _, line := range strings.Split(how, "\n") {
		if line != "" {
			fmt.Fprintf(w, "  %s\n", textproc.Printable(line))
		}
	}
}

// lockedHint is what to do about a library another process kept locked
// past the lock timeout: who holds it, when a citelens says so (one
// holds it only for a moment at a time, so it may be stuck or writing
// something large), and otherwise that it is no citelens of today.
func lockedHint(err error) string {
	var le *docstore.LockedError
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

// readOnlyHint says what works on a library that cannot be written, and
// what to do for the rest.
const readOnlyHint = "Reading still works: ls, show, search, answers, export, check and ask --no-save.\n" +
	"To add, remove, reindex or save answers, make the library writable (remount its file system\n" +
	"read-write, or chmod u+w it), or copy it somewhere writable and point --db at the copy."

// damageHint is what to do about a damaged library.
const damageHint = "Run 'citelens check' to see what is damaged, and 'citelens salvage NEW.db' to copy every readable\ndocument into a new library. Nothing has been changed."

// resumeError explains a long run (derive, embed) that stopped and says
// how to resume it: a cancellation reads "<what> interrupted"; a model
// endpoint's failure also gets its fix; resume is the last line.
func resumeError(err error, what, resume string) error {
	if engine.Canceled(err) {
		return fix.With(fmt.Errorf("%s interrupted", what), "%s", resume)
	}
	if how := fix.Of(err); how != "" {
		return fix.With(err, "%s\n%s", how, resume)
	}
	return fix.With(err, "%s", resume)
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
