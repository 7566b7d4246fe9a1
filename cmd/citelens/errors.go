package main

import (
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
// wherever it is found, gets the way out (docstore.Fix).
func printError(w io.Writer, err error) {
	reason, how := fix.Message(err)
	fmt.Fprintf(w, "citelens: %s\n", textproc.Printable(reason))
	if how == "" {
		how = docstore.Fix(err)
	}
	for _, line := range strings.Split(how, "\n") {
		if line != "" {
			fmt.Fprintf(w, "  %s\n", textproc.Printable(line))
		}
	}
}

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
