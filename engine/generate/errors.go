package generate

import "errors"

// ErrBadRequest means a generation was asked for with settings it cannot
// use (an unknown format, the LongCite model format over chunks); the
// message says which.
var ErrBadRequest = errors.New("cannot build the prompt")
