package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// Open makes the file's handle the library's store.

import (
	"fmt"
	"os"
	"path/filepath"
)

// Open opens (creating if needed) the library file at path: a bbolt file
// the library holds only for its transactions, so that many processes
// share it (handle.go). The file and its directory are private to the
// user (0600, 0700). OpenStore opens a library in another store.
func Open(path string, opt *Options) (*Library, error) {
	if opt == nil {
		opt = &Options{}
	}
	timeout := opt.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	readOnly := opt.ReadOnly || opt.ReadDamaged
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the library folder: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, errorf(ErrNotFound, "no library at %s", path)
	}
	if !opt.ReadDamaged {
		if err := checkBoltFile(path); err != nil {
			return nil, err
		}
	}
	h := newHandle(path, readOnly, timeout)
	h.waiting.Store(&opt.Waiting)
	l := newLibrary(h, path)
	l.file = h
	l.keepFiles = opt.Files == FilesKeep
	h.opened = l.opened
	if err := l.open(readOnly, opt); err != nil {
		h.Close()
		return nil, err
	}
	// bbolt only sets the mode when it creates the file; a library copied in
	// with looser permissions is tightened too (to the user's bits: one
	// made read-only on purpose stays so).
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&^0o600 != 0 && !opt.ReadOnly {
		_ = os.Chmod(path, fi.Mode().Perm()&0o600)
	}
	return l, nil
}
