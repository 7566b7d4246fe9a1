package generate

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrBadRequest means a generation was asked for with settings it
	// cannot use (an unknown format, the LongCite model format over
	// chunks); the message says which.
	ErrBadRequest = errors.New("cannot build the prompt")
	// ErrNoStatements means the reply to CoF's step 2 (CiteAnswer) held no
	// statement to cite.
	ErrNoStatements = errors.New("the model returned no statements")
	// ErrUngrounded means CoF's filter discarded the answer, as the paper
	// discards an instance with fewer than CoFCitedShare of its
	// statements cited (CoFSettings.Discard).
	ErrUngrounded = errors.New("CoF's filter discarded the answer as not grounded in the documents")
)
