package okra

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNothingRetrieved means no segment of the documents shares a word
	// with the question (or its sub-questions), so okra has nothing to
	// answer from; okra-precise reads the whole documents instead.
	ErrNothingRetrieved = errors.New("nothing in the documents matches the question")
	// ErrNoRoom means the model's context is too small for even one
	// retrieved sentence after the prompt's instructions.
	ErrNoRoom = errors.New("the model's context leaves no room for the retrieved text")
)
