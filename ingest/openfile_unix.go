//go:build unix

package ingest

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without blocking: opening a FIFO
// that has no writer returns at once instead of waiting for one. The flag
// changes nothing for regular files.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
