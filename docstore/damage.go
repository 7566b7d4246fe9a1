package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// bbolt's panics and faults on a damaged file contained.

import (
	"errors"
	"os"
	"runtime/debug"
	"syscall"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// A damaged library file (one cut short by an interrupted copy, or with a
// bad page) makes bbolt panic ("invalid freelist page", "unreachable
// unfreed") or read past the end of its memory map, which is a fault that
// would kill the process. guardedDB contains both: every transaction runs
// with faults turned into panics (debug.SetPanicOnFault), and a panic out
// of a transaction becomes an ErrCorrupt error saying the library is
// damaged. Records that decode to nonsense are caught by the decoders
// (validate.go); this is the net under everything else.
type guardedDB struct{ *bolt.DB }

// View runs fn in a read transaction, containing damage.
func (g guardedDB) View(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	return g.DB.View(fn)
}

// Update runs fn in a write transaction, containing damage. bbolt rolls
// the transaction back when fn panics, so nothing half-written commits.
func (g guardedDB) Update(fn func(*bolt.Tx) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverDamage(&err)
	return g.DB.Update(fn)
}

// openBolt opens the bbolt file, containing the panics and faults bbolt
// hits on a damaged file, and reports its errors about the file's format
// as damage.
//
// bbolt holds the file (and its lock) from the start of Open, so when Open
// panics the file is closed here, through the OpenFile hook. That releases
// the lock only if bbolt had not yet mapped the file, which is why Open
// runs checkBoltFile first: it catches the damage bbolt's Open panics on.
func openBolt(path string, opt *bolt.Options) (db *bolt.DB, err error) {
	var file *os.File
	opt.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		file = f
		return f, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if x := recover(); x != nil {
			if file != nil {
				_ = file.Close()
			}
			db, err = nil, damaged("%v", x)
		}
	}()
	db, err = bolt.Open(path, 0o600, opt)
	switch {
	case err == nil, errors.Is(err, bolterrors.ErrTimeout), errors.Is(err, os.ErrPermission), errors.Is(err, os.ErrNotExist),
		errors.Is(err, syscall.EROFS):
		return db, err // not the file's content: a read-only mount, permissions
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum), errors.Is(err, bolterrors.ErrVersionMismatch):
		return nil, damaged("%v", err)
	}
	if fi, serr := os.Stat(path); serr == nil && fi.Size() > 0 && fi.Mode().IsRegular() {
		// bbolt's other refusals of an existing file ("file size too
		// small", a bad page size) are about its content.
		return nil, damaged("%v", err)
	}
	return nil, err
}
