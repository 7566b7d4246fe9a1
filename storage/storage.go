// Package storage is the seam under the library: transactional, ordered
// key-value storage in nested buckets, as the library's records and index
// need it and no more. bbolt (storage/boltkv) is its first backend, for one
// person's library in one file; a server database can stand behind the same
// interfaces for a team's.
//
// The model is bbolt's, because the library was written against it and
// because it is small: a store holds buckets; a bucket holds keys in byte
// order, each with a value or a nested bucket; every read and write happens
// in a transaction, read-only or read-write. A read transaction sees one
// consistent snapshot for its whole life; a write transaction's changes are
// seen by nobody until it commits, and all of them or none are kept, also
// when the writer dies half-way. storagetest holds the suite every backend
// must pass, and README.md the contract in prose.
//
// Two things are not bbolt's, for a backend on the other side of a network,
// where a round trip costs far more than a read: GetMany reads a batch of
// keys in one call, and Cursor.Seek followed by Next is a range read that a
// backend may fetch a page of rows at a time. Code over this seam should ask
// for what it needs in as few calls as it can.
//
// Values handed out by Get, GetMany and cursors belong to the transaction:
// they are valid until it ends and must not be changed. Copy what must
// outlive it.
package storage

import (
	"context"
	"errors"
)

// DB is a store: a set of top-level buckets, read and written in
// transactions. It is safe for concurrent use.
type DB interface {
	// View runs fn in a read-only transaction: a consistent snapshot that
	// writers committing meanwhile do not change. fn's error is returned.
	View(fn func(Tx) error) error
	// Update runs fn in a read-write transaction and commits it when fn
	// returns nil; when fn fails (or panics), nothing it did is kept.
	// Writers are serialised: fn reads the latest commit, and no other
	// commit comes between its reads and its own, so a read-modify-write
	// in one Update is never lost. fn runs once.
	Update(fn func(Tx) error) error
	// Close releases the store. Transactions in progress finish first.
	Close() error
}

// Tx is a transaction. It is not safe for concurrent use: one goroutine
// runs it.
type Tx interface {
	// Bucket returns the top-level bucket name, or nil when there is none.
	Bucket(name []byte) Bucket
	// CreateBucket makes the top-level bucket name; ErrBucketExists when
	// it is there already.
	CreateBucket(name []byte) (Bucket, error)
	// CreateBucketIfNotExists returns the top-level bucket name, made
	// when it was not there.
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	// DeleteBucket removes the top-level bucket name and all it holds;
	// ErrBucketNotFound when there is none.
	DeleteBucket(name []byte) error
	// ForEachBucket calls fn with the name of every top-level bucket, in
	// order.
	ForEachBucket(fn func(name []byte) error) error
	// Writable reports whether this is a read-write transaction.
	Writable() bool
	// ID is the store's version as this transaction sees it: it grows with
	// every committed write, so two reads with the same ID saw the same
	// data. A write's ID is the one the reads after its commit see.
	ID() uint64
}

// Bucket is a set of keys in byte order, each with a value or a nested
// bucket, read and written in the transaction it came from.
type Bucket interface {
	// Get returns key's value, or nil when key is absent or names a
	// nested bucket.
	Get(key []byte) []byte
	// GetMany returns the values of keys, in their order, nil for each
	// absent one: Get for many keys in one round trip.
	GetMany(keys [][]byte) [][]byte
	// Put sets key's value. The key must be non-empty and at most
	// MaxKeySize bytes; key and value may be reused once Put returns. An
	// empty (or nil) value reads back as a non-nil empty slice, so a nil
	// value always means a nested bucket.
	Put(key, value []byte) error
	// Delete removes key's value; a key not there is no error.
	Delete(key []byte) error
	// Cursor walks the bucket's keys in order.
	Cursor() Cursor
	// ForEach calls fn with every key in order and its value (nil for a
	// nested bucket). fn must not change the bucket.
	ForEach(fn func(k, v []byte) error) error
	// Bucket returns the nested bucket name, or nil.
	Bucket(name []byte) Bucket
	// CreateBucket makes the nested bucket name; ErrBucketExists when it
	// is there already, ErrIncompatibleValue when name holds a value.
	CreateBucket(name []byte) (Bucket, error)
	// CreateBucketIfNotExists returns the nested bucket name, made when it
	// was not there.
	CreateBucketIfNotExists(name []byte) (Bucket, error)
	// DeleteBucket removes the nested bucket name and all it holds.
	DeleteBucket(name []byte) error
	// Sequence is the bucket's counter; NextSequence increments it and
	// returns the new value; SetSequence sets it. The counter is part of
	// the transaction like any write.
	Sequence() uint64
	NextSequence() (uint64, error)
	SetSequence(v uint64) error
	// KeyCount is the number of keys (values and nested buckets) directly
	// in the bucket.
	KeyCount() int
	// SetAppendOnly hints that keys will be written in increasing order
	// and never changed, so a backend can pack them densely (bbolt's
	// FillPercent of 1). It changes no result.
	SetAppendOnly()
}

// Cursor walks a bucket's keys in byte order. Every move returns the key
// it lands on and its value (nil for a nested bucket), or a nil key past
// either end; from there only First, Last or Seek place it again. After a
// write through the bucket rather than the cursor, place it again before
// moving it.
type Cursor interface {
	First() (key, value []byte)
	Last() (key, value []byte)
	Next() (key, value []byte)
	Prev() (key, value []byte)
	// Seek lands on the first key at or after seek.
	Seek(seek []byte) (key, value []byte)
	// Delete removes the key the cursor is on. Next then lands on the key
	// after it and Prev on the key before, so a loop may delete as it
	// walks; a second Delete before a move deletes nothing.
	Delete() error
}

// Watcher is a store that tells its users when any process, on any
// machine, commits a write: a server's stores, whose other writers a
// process cannot see as a file's change. A store that is not a Watcher is
// watched some other way (a library file: its modification time).
type Watcher interface {
	// Watch calls changed after commits by any process, its own included,
	// until ctx is done or the store is closed; commits close together may
	// be told as one call. It returns once watching has started, or with
	// the reason it cannot; changed runs on a goroutine of the store's.
	Watch(ctx context.Context, changed func()) error
}

// Writers is a store shared by processes on several machines, which can
// tell whether a writer is still at work: a process ID means nothing on
// another machine, so work a writer leaves half-done (a document written
// in pieces over many transactions) is marked with the identity the store
// gives, and judged abandoned by the store, not by the process table.
// A store that is not a Writers is one machine's (a library file): its
// users judge by process ID.
type Writers interface {
	// WriterID is this handle's identity as a writer: a short string,
	// never the same for two handles, kept alive while the handle is open
	// and can reach the store. When the handle lost its hold (a cut
	// connection), it takes a new identity: what was marked with the old
	// one may be taken for abandoned.
	WriterID() (string, error)
	// WriterAlive reports whether the writer id (WriterID's, from any
	// process on any machine) is still alive: false once its process died
	// or lost its hold on the store, also after kill -9. An id the store
	// did not make is an error.
	WriterAlive(id string) (bool, error)
}

// MaxKeySize is the longest key every backend takes.
const MaxKeySize = 32768

// The errors a backend returns for misuse of buckets and transactions,
// the same from every backend (errors.Is). An error changes nothing and
// leaves the transaction usable: its other writes still commit.
var (
	ErrBucketExists      = errors.New("storage: bucket already exists")
	ErrBucketNotFound    = errors.New("storage: bucket not found")
	ErrIncompatibleValue = errors.New("storage: a value where a bucket is asked for, or a bucket where a value is")
	ErrKeyRequired       = errors.New("storage: key required")
	ErrKeyTooLarge       = errors.New("storage: key too large")
	ErrTxNotWritable     = errors.New("storage: write in a read-only transaction")
)
