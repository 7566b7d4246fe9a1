package extractive

import "errors"

// ErrOption means a request option the strategy cannot use; the message
// names it and says what it takes.
var ErrOption = errors.New("invalid extractive option")
