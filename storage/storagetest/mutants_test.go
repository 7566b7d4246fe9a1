package storagetest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/storagetest"
)

// The suite's own test: it must fail a backend that breaks the contract.
// Each mutant is boltkv with one fault that a real backend could have;
// TestMutants runs the suite's subtest that should catch it, against the
// mutant, in a child process (a failing subtest cannot be watched from
// inside), and fails unless that subtest fails.

const envMutant = "STORAGETEST_MUTANT"

var mutants = []struct {
	name, caughtBy string
}{
	// Put hands bbolt the caller's slice, as bbolt's own Put takes it.
	{"put-keeps-the-callers-value", "ReuseBuffers"},
	// An empty value stored as nil reads back as a bucket's nil.
	{"empty-value-is-nil", "ValuesAndBuckets"},
	// bbolt's cursor as it is: Next after Delete skips a key.
	{"bbolts-cursor-delete", "CursorDelete"},
	// bbolt's errors as they are, not the seam's.
	{"bbolts-errors", "Errors"},
	// Update commits what fn did though fn failed.
	{"commits-on-error", "AtomicCommit"},
	// A read transaction that reads the latest commit, key by key.
	{"reads-the-latest", "Snapshot"},
	// No write transactions: each write commits by itself.
	{"autocommit", "KilledMidTransaction"},
}

func TestMutants(t *testing.T) {
	if os.Getenv(envMutant) != "" {
		t.Skip("a mutant's child process")
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestMutant$/^"+m.caughtBy+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), envMutant+"="+m.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a backend whose fault is %s; %s should have failed it:\n%s", m.name, m.caughtBy, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutant/"+m.caughtBy) {
				t.Fatalf("the suite failed mutant %s, but not in %s:\n%s", m.name, m.caughtBy, out)
			}
		})
	}
}

// TestMutant runs the suite against the mutant named in the environment:
// only as TestMutants' child.
func TestMutant(t *testing.T) {
	m := os.Getenv(envMutant)
	if m == "" {
		t.Skip("run by TestMutants")
	}
	storagetest.Run(t, storagetest.Backend{
		Name: "mutant-" + m,
		New:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "store.db") },
		Open: func(addr string) (storage.DB, error) {
			// NoSync: a killed process loses nothing by it, and the
			// autocommit mutant commits thousands of times.
			db, err := boltkv.Open(addr, &boltkv.Options{InitialMmapSize: 16 << 20, NoSync: true})
			if err != nil {
				return nil, err
			}
			return mdb{db, m}, nil
		},
	})
}

// mdb, mtx and mbucket are boltkv's DB, Tx and Bucket with the fault m.
type mdb struct {
	*boltkv.DB
	m string
}

type mtx struct {
	storage.Tx
	m string
}

type mbucket struct {
	seamBucket
	m string
}

// seamBucket names the field mbucket embeds, which its Bucket method
// would clash with.
type seamBucket = storage.Bucket

func (d mdb) View(fn func(storage.Tx) error) error {
	if d.m == "reads-the-latest" {
		return fn(latestTx{d.DB, false})
	}
	return d.DB.View(func(tx storage.Tx) error { return fn(mtx{tx, d.m}) })
}

func (d mdb) Update(fn func(storage.Tx) error) error {
	if d.m == "autocommit" {
		return fn(latestTx{d.DB, true})
	}
	if d.m == "commits-on-error" {
		var ferr error
		if err := d.DB.Update(func(tx storage.Tx) error { ferr = fn(mtx{tx, d.m}); return nil }); err != nil {
			return err
		}
		return ferr
	}
	return d.DB.Update(func(tx storage.Tx) error { return fn(mtx{tx, d.m}) })
}

func (t mtx) wrap(b storage.Bucket, err error) (storage.Bucket, error) {
	if b == nil {
		return nil, t.err(err)
	}
	return mbucket{b, t.m}, t.err(err)
}

// err is a seam error as the mutant returns it: for bbolts-errors,
// bbolt's own, which boltkv's error wraps beside the seam's.
func (t mtx) err(err error) error {
	var both interface{ Unwrap() []error }
	if t.m == "bbolts-errors" && errors.As(err, &both) {
		return both.Unwrap()[1]
	}
	return err
}

func (t mtx) Bucket(name []byte) storage.Bucket {
	b, _ := t.wrap(t.Tx.Bucket(name), nil)
	return b
}

func (t mtx) CreateBucket(name []byte) (storage.Bucket, error) {
	return t.wrap(t.Tx.CreateBucket(name))
}

func (t mtx) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	return t.wrap(t.Tx.CreateBucketIfNotExists(name))
}

func (t mtx) DeleteBucket(name []byte) error { return t.err(t.Tx.DeleteBucket(name)) }

func (b mbucket) tx() mtx { return mtx{m: b.m} }

func (b mbucket) Bucket(name []byte) storage.Bucket {
	nb, _ := b.tx().wrap(b.seamBucket.Bucket(name), nil)
	return nb
}

func (b mbucket) CreateBucket(name []byte) (storage.Bucket, error) {
	return b.tx().wrap(b.seamBucket.CreateBucket(name))
}

func (b mbucket) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	return b.tx().wrap(b.seamBucket.CreateBucketIfNotExists(name))
}

func (b mbucket) DeleteBucket(name []byte) error { return b.tx().err(b.seamBucket.DeleteBucket(name)) }

func (b mbucket) Delete(key []byte) error { return b.tx().err(b.seamBucket.Delete(key)) }

func (b mbucket) Put(key, value []byte) error {
	bb, _ := boltkv.BoltBucket(b.seamBucket)
	switch b.m {
	case "put-keeps-the-callers-value":
		return bb.Put(key, value)
	case "empty-value-is-nil":
		if len(value) == 0 {
			return bb.Put(key, nil)
		}
	}
	return b.tx().err(b.seamBucket.Put(key, value))
}

func (b mbucket) Cursor() storage.Cursor {
	if b.m == "bbolts-cursor-delete" {
		bb, _ := boltkv.BoltBucket(b.seamBucket)
		return bb.Cursor()
	}
	return b.seamBucket.Cursor()
}

// latestTx is a transaction that is none: each read opens a read
// transaction of its own, so it sees every commit as it comes, and when
// autocommit says so each write commits in an Update of its own.
type latestTx struct {
	db         *boltkv.DB
	autocommit bool
}

func (t latestTx) Bucket(name []byte) storage.Bucket {
	found := false
	_ = t.with(func(tx storage.Tx) { found = tx.Bucket(name) != nil })
	if found {
		return latestBucket{t, [][]byte{name}}
	}
	return nil
}

func (t latestTx) with(fn func(storage.Tx)) error {
	return t.db.View(func(tx storage.Tx) error { fn(tx); return nil })
}

// write runs fn in an Update of its own, if autocommit allows writes.
func (t latestTx) write(fn func(storage.Tx) error) error {
	if !t.autocommit {
		return storage.ErrTxNotWritable
	}
	return t.db.Update(fn)
}

func (t latestTx) CreateBucket(name []byte) (storage.Bucket, error) {
	err := t.write(func(tx storage.Tx) error { _, err := tx.CreateBucket(name); return err })
	if err != nil {
		return nil, err
	}
	return latestBucket{t, [][]byte{name}}, nil
}
func (t latestTx) CreateBucketIfNotExists(name []byte) (storage.Bucket, error) {
	err := t.write(func(tx storage.Tx) error { _, err := tx.CreateBucketIfNotExists(name); return err })
	if err != nil {
		return nil, err
	}
	return latestBucket{t, [][]byte{name}}, nil
}
func (t latestTx) DeleteBucket(name []byte) error {
	return t.write(func(tx storage.Tx) error { return tx.DeleteBucket(name) })
}
func (t latestTx) ForEachBucket(fn func([]byte) error) error {
	return t.db.View(func(tx storage.Tx) error { return tx.ForEachBucket(fn) })
}
func (t latestTx) Writable() bool { return t.autocommit }
func (t latestTx) ID() uint64 {
	var id uint64
	_ = t.with(func(tx storage.Tx) { id = tx.ID() })
	return id
}

// latestBucket is a bucket of a latestTx, by its path; its values are
// copied out of the transaction that read them.
type latestBucket struct {
	t    latestTx
	path [][]byte
}

func (b latestBucket) in(fn func(storage.Bucket)) {
	_ = b.t.with(func(tx storage.Tx) {
		if bk := b.find(tx); bk != nil {
			fn(bk)
		}
	})
}

func (b latestBucket) find(tx storage.Tx) storage.Bucket {
	bk := tx.Bucket(b.path[0])
	for _, n := range b.path[1:] {
		if bk == nil {
			return nil
		}
		bk = bk.Bucket(n)
	}
	return bk
}

// write runs fn on the bucket in an Update of its own (see latestTx).
func (b latestBucket) write(fn func(storage.Bucket) error) error {
	return b.t.write(func(tx storage.Tx) error {
		bk := b.find(tx)
		if bk == nil {
			return storage.ErrBucketNotFound
		}
		return fn(bk)
	})
}

func clone(v []byte) []byte {
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

func (b latestBucket) Get(key []byte) (v []byte) {
	b.in(func(bk storage.Bucket) { v = clone(bk.Get(key)) })
	return v
}

func (b latestBucket) GetMany(keys [][]byte) [][]byte {
	vs := make([][]byte, len(keys))
	for i, k := range keys {
		vs[i] = b.Get(k)
	}
	return vs
}
func (b latestBucket) Put(key, value []byte) error {
	return b.write(func(bk storage.Bucket) error { return bk.Put(key, value) })
}
func (b latestBucket) Delete(key []byte) error {
	return b.write(func(bk storage.Bucket) error { return bk.Delete(key) })
}

// Cursor reads the bucket as it is now, whole.
func (b latestBucket) Cursor() storage.Cursor {
	c := &sliceCursor{i: -1}
	b.in(func(bk storage.Bucket) {
		_ = bk.ForEach(func(k, v []byte) error {
			c.keys, c.values = append(c.keys, clone(k)), append(c.values, clone(v))
			return nil
		})
	})
	return c
}

func (b latestBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (b latestBucket) Bucket(name []byte) storage.Bucket {
	return latestBucket{b.t, append(append([][]byte{}, b.path...), name)}
}
func (b latestBucket) CreateBucket([]byte) (storage.Bucket, error) {
	return nil, storage.ErrTxNotWritable
}
func (b latestBucket) CreateBucketIfNotExists([]byte) (storage.Bucket, error) {
	return nil, storage.ErrTxNotWritable
}
func (b latestBucket) DeleteBucket([]byte) error { return storage.ErrTxNotWritable }
func (b latestBucket) Sequence() (n uint64) {
	b.in(func(bk storage.Bucket) { n = bk.Sequence() })
	return n
}
func (b latestBucket) NextSequence() (n uint64, err error) {
	err = b.write(func(bk storage.Bucket) (err error) { n, err = bk.NextSequence(); return err })
	return n, err
}
func (b latestBucket) SetSequence(n uint64) error {
	return b.write(func(bk storage.Bucket) error { return bk.SetSequence(n) })
}
func (b latestBucket) KeyCount() (n int) {
	b.in(func(bk storage.Bucket) { n = bk.KeyCount() })
	return n
}
func (b latestBucket) SetAppendOnly() {}

// sliceCursor walks keys read beforehand.
type sliceCursor struct {
	keys, values [][]byte
	i            int
}

func (c *sliceCursor) at(i int) ([]byte, []byte) {
	c.i = i
	if i < 0 || i >= len(c.keys) {
		return nil, nil
	}
	return c.keys[i], c.values[i]
}

func (c *sliceCursor) First() ([]byte, []byte) { return c.at(0) }
func (c *sliceCursor) Last() ([]byte, []byte)  { return c.at(len(c.keys) - 1) }
func (c *sliceCursor) Next() ([]byte, []byte)  { return c.at(c.i + 1) }
func (c *sliceCursor) Prev() ([]byte, []byte)  { return c.at(c.i - 1) }
func (c *sliceCursor) Seek(seek []byte) ([]byte, []byte) {
	for i, k := range c.keys {
		if string(k) >= string(seek) {
			return c.at(i)
		}
	}
	return c.at(len(c.keys))
}
func (c *sliceCursor) Delete() error { return storage.ErrTxNotWritable }
