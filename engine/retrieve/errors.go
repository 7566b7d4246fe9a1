package retrieve

import "errors"

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrBadOptions: options that cannot be honoured (a negative K, a
	// window overlap as large as the window).
	ErrBadOptions = errors.New("invalid retrieval options")
	// ErrDense: the dense scorer failed; lexical results are still usable.
	ErrDense = errors.New("dense scoring failed")
)
