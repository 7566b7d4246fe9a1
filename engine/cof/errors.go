package cof

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNoRoom means the model's context is too small for even one
	// sentence of the documents after the prompt's instructions.
	ErrNoRoom = errors.New("the model's context leaves no room for the documents")
	// ErrNoStatements means step 2's reply held no statement to cite.
	ErrNoStatements = errors.New("the model returned no statements")
)
