package docstore

import (
	"net/url"
	"regexp"
	"sync/atomic"

	"github.com/citelens/citelens/storage"
)

// The library reads and writes its records through the storage seam
// (storage.DB) and nothing else: every function that reads or writes a
// record takes a storage.Tx or storage.Bucket. What stands behind it is
// a library file (handle.go and the other bbolt files: a bbolt file shared
// between processes, with its locks, markers and page checks) or, through
// OpenStore, any other store, wrapped in a storeDB.

// storeDB is a store other than a library file, as the library uses it:
// the store's own transactions with what the file's handle adds that is
// about records rather than the file. A panic out of a transaction
// (a record decoding to nonsense that a decoder did not catch) is an
// ErrCorrupt error, as in the file, and the store rolls a write back;
// and a read that sees a version of the store it has not seen before
// checks whether another process made the documents cached stale, which
// the file does at each open.
type storeDB struct {
	storage.DB
	name     string
	readOnly bool
	// opened is told of a version of the store not seen before, in a
	// read transaction of it (Library.opened).
	opened func(storage.Tx) error
	// seen is the version (Tx.ID) opened was last told of, plus one: 0
	// until the first read.
	seen   atomic.Uint64
	closed atomic.Bool
}

// View runs fn in a read transaction of the store.
func (s *storeDB) View(fn func(storage.Tx) error) error {
	if s.closed.Load() {
		return errClosed
	}
	return s.DB.View(func(tx storage.Tx) (err error) {
		defer recoverDamage(&err)
		if id := tx.ID() + 1; s.seen.Load() != id && s.opened != nil {
			if err := s.opened(tx); err != nil {
				return err
			}
			s.seen.Store(id)
		}
		return fn(tx)
	})
}

// Update runs fn in a write transaction of the store; a library opened
// for reading refuses it.
func (s *storeDB) Update(fn func(storage.Tx) error) error {
	switch {
	case s.closed.Load():
		return errClosed
	case s.readOnly:
		return errorf(ErrReadOnly, "cannot write to the library %s: it is open for reading only", s.name)
	}
	return s.DB.Update(func(tx storage.Tx) (err error) {
		defer recoverDamage(&err)
		return fn(tx)
	})
}

// Close closes the store once the transactions in progress are done.
func (s *storeDB) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.DB.Close()
}

// viewAround runs fn in a read transaction however damaged the library
// is, for check's and salvage's reads, which go around what bbolt must
// not read (pageDamage) themselves. A store other than a library file has
// no such damage: its reads are View's.
func (l *Library) viewAround(fn func(storage.Tx) error) error {
	if l.file != nil {
		return l.file.viewAroundKV(fn)
	}
	return l.store.View(fn)
}

// unmap lets the pages a long run of transactions read out of the
// process's memory, where the store maps them (the file: handle.unmap).
func (l *Library) unmap() {
	if l.file != nil {
		l.file.unmap()
	}
}

// passwordSetting is a "password=…" setting of a connection string,
// quoted or not, in key-value form or a URL's query.
var passwordSetting = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)`)

// maskSecret is a store's address as messages may show it: a password in
// it, as a URL's user information or a "password=" setting, is masked.
func maskSecret(addr string) string {
	if u, err := url.Parse(addr); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			addr = u.Redacted()
		}
	}
	return passwordSetting.ReplaceAllString(addr, "${1}xxxxx")
}
