package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrOption means a request option the strategy cannot use; the message
// names it and says what it takes. Every strategy's option errors wrap it.
var ErrOption = errors.New("invalid option")

// IntOption reads val, the value of the integer option key, which must be
// a whole number from lo to hi. Anything else is an error wrapping
// ErrOption that quotes val as given and says what to give:
// `k="x": give a whole number of chunks to retrieve, 1 to 256`, what being
// "a whole number of chunks to retrieve".
func IntOption(key, val string, lo, hi int, what string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(val))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s=%q: give %s, %d to %d", ErrOption, key, val, what, lo, hi)
	}
	return n, nil
}

// UnknownOption is the error for key, an option the strategy does not
// take: it lists the keys the strategy takes. note, if not empty, follows
// the key in the message (" (why this key is not taken here)").
func UnknownOption(strategy, key, note string, keys []string) error {
	return fmt.Errorf("%w: %q%s; the %s strategy takes %s", ErrOption, key, note, strategy, strings.Join(keys, ", "))
}
