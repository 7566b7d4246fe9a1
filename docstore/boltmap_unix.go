//go:build unix

package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the file mapped for the page walk.

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f for reading, for the page check,
// which reads them in small pieces all over the file (a system call each
// took most of its time). ok is false when the file cannot be mapped.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { _ = syscall.Munmap(data) }, true
}
