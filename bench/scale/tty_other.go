//go:build !linux

package main

import (
	"errors"
	"time"
)

// firstFrame needs Linux's pseudo-terminals.
func firstFrame(bin, db string, env []string, want string) (time.Duration, error) {
	return 0, errors.New("the terminal UI's start is measured on Linux only")
}
