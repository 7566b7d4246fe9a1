package dag

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNoRoom means the model's context is too small for even one
	// retrieved sentence after the prompt's instructions.
	ErrNoRoom = errors.New("the model's context leaves no room for the documents")
)
