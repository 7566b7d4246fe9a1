package cof

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNoStatements means step 2's reply held no statement to cite.
	ErrNoStatements = errors.New("the model returned no statements")
)
