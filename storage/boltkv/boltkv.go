// Package boltkv is the storage seam's bbolt backend: a store is one bbolt
// file, and the seam's values are bbolt's own under other names.
//
// The adapters cost nothing to make: DB, and the unexported Tx and Bucket
// types, are bbolt's types redeclared, so wrapping one is a pointer
// conversion, with no allocation and no lookup, and each method calls
// bbolt's straight through. A cursor is bbolt's with a note of where it
// is; a move through it costs one call more than bbolt's (about 1.5 ns a
// key: BenchmarkCursorScan), and allocates nothing. So code that reads
// postings through cursors in tight loops can go through the seam. Code
// that manages its own *bolt.DB (the library's handle opens the file on
// demand, under its own locks) uses the seam with Wrap and WrapTx, and
// code that needs bbolt itself (page checks, fill percents, statistics)
// reaches it again with BoltTx and BoltBucket.
//
// Where the seam promises more than bbolt, the adapters make it so:
//   - Put copies the value, so the caller may reuse it (bbolt keeps the
//     caller's slice until the commit), and stores an empty value as a
//     non-nil empty slice, so nil means a nested bucket (bbolt returns nil
//     for a nil value until the commit, and an empty slice after it).
//   - bbolt's errors come back as the seam's: errors.Is(err,
//     storage.ErrBucketExists) holds, and so does errors.Is(err,
//     bolterrors.ErrBucketExists), for code that still asks bbolt's.
//   - A bucket's name is checked against storage.MaxKeySize, which bbolt
//     does only for keys.
//   - After Cursor.Delete, Next lands on the key after the deleted one;
//     bbolt's sometimes skips it (see cursor).
//
// One thing bbolt does that the seam does not promise away: a writer that
// must grow the file past its memory map waits until open read
// transactions end. Options.InitialMmapSize above the store's size avoids
// the wait.
package boltkv

import (
	"fmt"
	"os"
	"time"

	"github.com/citelens/citelens/storage"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Options are the ways Open can open a file: bbolt's options of the same
// names, for the few the seam's users need.
type Options struct {
	// ReadOnly opens the file shared, for reading only: Update fails
	// with storage.ErrTxNotWritable. Many read-only opens may share a
	// file; a read-write open excludes all others.
	ReadOnly bool
	// Timeout is how long Open waits for another process to release the
	// file's lock; zero waits for ever (bbolt's default).
	Timeout time.Duration
	// NoSync skips the fsync at each commit: much faster, and a crash of
	// the process still loses nothing committed, but a crash of the
	// machine may lose the last commits (never half of one). For tests
	// and bulk loads that can be redone.
	NoSync bool
	// InitialMmapSize is how many bytes of the file to map at first; zero
	// is bbolt's default. A writer that grows the file past the map
	// waits for open read transactions to end, so a store read while it
	// is written should map more than it will hold.
	InitialMmapSize int
	// Mode is the new file's permissions; zero is 0600, as a library
	// holds one person's documents.
	Mode os.FileMode
}

// DB is a bbolt file as a storage.DB: bbolt's DB under another name, so
// Wrap and Bolt convert between the two for nothing.
type DB bolt.DB

// Open opens the bbolt file at path, making it when it is not there and
// opts does not say ReadOnly. A nil opts is the zero Options.
func Open(path string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	mode := opts.Mode
	if mode == 0 {
		mode = 0o600
	}
	db, err := bolt.Open(path, mode, &bolt.Options{
		ReadOnly:        opts.ReadOnly,
		Timeout:         opts.Timeout,
		NoSync:          opts.NoSync,
		InitialMmapSize: opts.InitialMmapSize,
	})
	if err != nil {
		return nil, fmt.Errorf("boltkv: open %s: %w", path, mapErr(err))
	}
	return (*DB)(db), nil
}

// Wrap is db as a storage.DB. The two are one store: Close closes db.
func Wrap(db *bolt.DB) *DB { return (*DB)(db) }

// Bolt is the bbolt DB behind d, for what only bbolt does.
func (d *DB) Bolt() *bolt.DB { return (*bolt.DB)(d) }

// View runs fn in a bbolt read transaction.
func (d *DB) View(fn func(storage.Tx) error) error {
	return mapErr((*bolt.DB)(d).View(func(t *bolt.Tx) error { return fn((*tx)(t)) }))
}

// Update runs fn in a bbolt write transaction, committed when fn returns
// nil. bbolt rolls it back when fn fails or panics (and lets the panic
// go on); a process killed before the commit's meta page is written
// leaves the file as it was.
func (d *DB) Update(fn func(storage.Tx) error) error {
	return mapErr((*bolt.DB)(d).Update(func(t *bolt.Tx) error { return fn((*tx)(t)) }))
}

// Close closes the bbolt file, after the transactions in progress.
func (d *DB) Close() error { return mapErr((*bolt.DB)(d).Close()) }

// WrapTx is a bbolt transaction as a storage.Tx, for code handed a
// *bolt.Tx by its own bbolt DB.
func WrapTx(t *bolt.Tx) storage.Tx { return (*tx)(t) }

// BoltTx is the bbolt transaction behind t, and whether there is one: t
// came from this package.
func BoltTx(t storage.Tx) (*bolt.Tx, bool) {
	bt, ok := t.(*tx)
	return (*bolt.Tx)(bt), ok && bt != nil
}

// WrapBucket is a bbolt bucket as a storage.Bucket; nil stays nil.
func WrapBucket(b *bolt.Bucket) storage.Bucket {
	if b == nil {
		return nil
	}
	return (*bucket)(b)
}

// BoltBucket is the bbolt bucket behind b, and whether there is one.
func BoltBucket(b storage.Bucket) (*bolt.Bucket, bool) {
	bb, ok := b.(*bucket)
	return (*bolt.Bucket)(bb), ok && bb != nil
}

// tx is bbolt's Tx as a storage.Tx.
type tx bolt.Tx

func (t *tx) Bucket(name []byte) storage.Bucket {
	return WrapBucket((*bolt.Tx)(t).Bucket(name))
}

func (t *tx) CreateBucket(name []byte) (storage.Bucket, error) {
	if len(name) > storage.MaxKeySize {
		return nil, errKeyTooLarge
	}
	b, err := (*bolt.Tx)(t).CreateBucket(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return (*bucket)(b), nil
}

func (t *tx) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	if len(name) > storage.MaxKeySize {
		return nil, errKeyTooLarge
	}
	b, err := (*bolt.Tx)(t).CreateBucketIfNotExists(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return (*bucket)(b), nil
}

func (t *tx) DeleteBucket(name []byte) error {
	return mapErr((*bolt.Tx)(t).DeleteBucket(name))
}

// ForEachBucket walks the root's keys, which are all buckets, without
// opening each as bbolt's Tx.ForEach does.
func (t *tx) ForEachBucket(fn func(name []byte) error) error {
	c := (*bolt.Tx)(t).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) Writable() bool { return (*bolt.Tx)(t).Writable() }

// ID is bbolt's transaction ID: the last commit's for a read, the one it
// will commit as for a write.
func (t *tx) ID() uint64 { return uint64((*bolt.Tx)(t).ID()) }

// bucket is bbolt's Bucket as a storage.Bucket.
type bucket bolt.Bucket

func (b *bucket) Get(key []byte) []byte { return (*bolt.Bucket)(b).Get(key) }

func (b *bucket) GetMany(keys [][]byte) [][]byte {
	vs := make([][]byte, len(keys))
	for i, k := range keys {
		vs[i] = (*bolt.Bucket)(b).Get(k)
	}
	return vs
}

// Put hands bbolt a copy of value, which bbolt keeps until the commit,
// and never a nil one (see the package doc).
func (b *bucket) Put(key, value []byte) error {
	v := make([]byte, len(value))
	copy(v, value)
	return mapErr((*bolt.Bucket)(b).Put(key, v))
}

func (b *bucket) Delete(key []byte) error { return mapErr((*bolt.Bucket)(b).Delete(key)) }

func (b *bucket) Cursor() storage.Cursor { return &cursor{c: *(*bolt.Bucket)(b).Cursor()} }

func (b *bucket) ForEach(fn func(k, v []byte) error) error {
	return mapErr((*bolt.Bucket)(b).ForEach(fn))
}

func (b *bucket) Bucket(name []byte) storage.Bucket {
	return WrapBucket((*bolt.Bucket)(b).Bucket(name))
}

func (b *bucket) CreateBucket(name []byte) (storage.Bucket, error) {
	if len(name) > storage.MaxKeySize {
		return nil, errKeyTooLarge
	}
	nb, err := (*bolt.Bucket)(b).CreateBucket(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return (*bucket)(nb), nil
}

func (b *bucket) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	if len(name) > storage.MaxKeySize {
		return nil, errKeyTooLarge
	}
	nb, err := (*bolt.Bucket)(b).CreateBucketIfNotExists(name)
	if err != nil {
		return nil, mapErr(err)
	}
	return (*bucket)(nb), nil
}

func (b *bucket) DeleteBucket(name []byte) error {
	return mapErr((*bolt.Bucket)(b).DeleteBucket(name))
}

func (b *bucket) Sequence() uint64 { return (*bolt.Bucket)(b).Sequence() }

func (b *bucket) NextSequence() (uint64, error) {
	n, err := (*bolt.Bucket)(b).NextSequence()
	return n, mapErr(err)
}

func (b *bucket) SetSequence(v uint64) error { return mapErr((*bolt.Bucket)(b).SetSequence(v)) }

// KeyCount walks the bucket: bbolt's Stats().KeyN counts nested buckets'
// keys too, and in a write transaction misses what is not yet committed.
func (b *bucket) KeyCount() int {
	n := 0
	c := (*bolt.Bucket)(b).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// SetAppendOnly fills split pages full, as keys written in order never
// land in a page already split.
func (b *bucket) SetAppendOnly() { (*bolt.Bucket)(b).FillPercent = 1 }

// cursor is bbolt's Cursor as a storage.Cursor, plus what makes Delete
// safe to walk on: bbolt's Next after Delete skips the key after the
// deleted one when its page was already changed in the transaction (the
// node it reads from has closed the gap), and a second Delete deletes
// that key. So the cursor remembers where it is, and after a Delete the
// next move starts from a Seek to the deleted key, which lands on the
// key after it.
type cursor struct {
	c       bolt.Cursor
	at      []byte // the key the last move landed on
	deleted bool   // at was deleted by Delete and not moved from since
}

// land notes where a move landed and returns it.
func (c *cursor) land(k, v []byte) ([]byte, []byte) {
	c.at, c.deleted = k, false
	return k, v
}

func (c *cursor) First() ([]byte, []byte)           { return c.land(c.c.First()) }
func (c *cursor) Last() ([]byte, []byte)            { return c.land(c.c.Last()) }
func (c *cursor) Seek(seek []byte) ([]byte, []byte) { return c.land(c.c.Seek(seek)) }

func (c *cursor) Next() ([]byte, []byte) {
	if c.deleted {
		return c.land(c.c.Seek(c.at))
	}
	return c.land(c.c.Next())
}

func (c *cursor) Prev() ([]byte, []byte) {
	if c.deleted {
		if k, _ := c.c.Seek(c.at); k == nil {
			return c.land(c.c.Last())
		}
	}
	return c.land(c.c.Prev())
}

// Delete deletes the key the cursor is on, once: a second Delete before a
// move finds it gone.
func (c *cursor) Delete() error {
	if c.deleted {
		return nil
	}
	if err := c.c.Delete(); err != nil {
		return mapErr(err)
	}
	c.deleted = true
	return nil
}

// boltError is one of bbolt's errors as the seam's: it reads as the
// seam's and matches both (errors.Is).
type boltError struct{ seam, bolt error }

func (e *boltError) Error() string   { return e.seam.Error() }
func (e *boltError) Unwrap() []error { return []error{e.seam, e.bolt} }

// The seam's errors for bbolt's, made once so an error costs no
// allocation.
var (
	errBucketExists      = &boltError{storage.ErrBucketExists, bolterrors.ErrBucketExists}
	errBucketNotFound    = &boltError{storage.ErrBucketNotFound, bolterrors.ErrBucketNotFound}
	errIncompatibleValue = &boltError{storage.ErrIncompatibleValue, bolterrors.ErrIncompatibleValue}
	errBucketNameReq     = &boltError{storage.ErrKeyRequired, bolterrors.ErrBucketNameRequired}
	errKeyRequired       = &boltError{storage.ErrKeyRequired, bolterrors.ErrKeyRequired}
	errKeyTooLarge       = &boltError{storage.ErrKeyTooLarge, bolterrors.ErrKeyTooLarge}
	errTxNotWritable     = &boltError{storage.ErrTxNotWritable, bolterrors.ErrTxNotWritable}
	errDatabaseReadOnly  = &boltError{storage.ErrTxNotWritable, bolterrors.ErrDatabaseReadOnly}
)

// mapErr is err with bbolt's sentinel errors replaced by the seam's. bbolt
// returns them bare, so they are compared as they are: an error that
// wraps one, a caller's own, keeps its words.
func mapErr(err error) error {
	switch err {
	case nil:
		return nil
	case bolterrors.ErrBucketExists:
		return errBucketExists
	case bolterrors.ErrBucketNotFound:
		return errBucketNotFound
	case bolterrors.ErrIncompatibleValue:
		return errIncompatibleValue
	case bolterrors.ErrBucketNameRequired:
		return errBucketNameReq
	case bolterrors.ErrKeyRequired:
		return errKeyRequired
	case bolterrors.ErrKeyTooLarge:
		return errKeyTooLarge
	case bolterrors.ErrTxNotWritable:
		return errTxNotWritable
	case bolterrors.ErrDatabaseReadOnly:
		return errDatabaseReadOnly
	}
	return err
}
