package longcite

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNothingRetrieved means retrieval found no sentence or chunk that
	// shares a word with the question, so rag has nothing to answer from.
	ErrNothingRetrieved = errors.New("nothing in the documents matches the question")
	// ErrNoRoom means the model's context is too small for even one
	// sentence after the prompt's instructions.
	ErrNoRoom = errors.New("the model's context leaves no room for the documents")
)
