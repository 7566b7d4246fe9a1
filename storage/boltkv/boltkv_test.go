package boltkv_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/storagetest"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// backend is boltkv as the conformance suite drives it: a file in the
// test's temporary folder. The map is made larger than the suite's
// concurrent tests' stores, as bbolt makes a writer that must grow it
// wait for open reads (the package doc says so), and Snapshot commits
// while a read is open.
var backend = storagetest.Backend{
	Name: "bolt",
	New:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "store.db") },
	Open: func(addr string) (storage.DB, error) {
		return boltkv.Open(addr, &boltkv.Options{InitialMmapSize: 16 << 20})
	},
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, backend)
}

// open is a new store in the test's folder, closed when it ends.
func open(t *testing.T, opts *boltkv.Options) (*boltkv.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := boltkv.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

// TestWrap: a store opened by bbolt is the seam's through Wrap and
// WrapTx, and back to bbolt's through Bolt, BoltTx and BoltBucket; the
// two views are one store.
func TestWrap(t *testing.T) {
	t.Parallel()
	bdb, err := bolt.Open(filepath.Join(t.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := boltkv.Wrap(bdb)
	defer db.Close()
	if db.Bolt() != bdb {
		t.Error("Wrap(db).Bolt() is not db")
	}
	err = db.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("through the seam")); err != nil {
			return err
		}
		btx, ok := boltkv.BoltTx(tx)
		if !ok || !btx.Writable() {
			t.Fatal("BoltTx of an Update's transaction is not a writable bbolt transaction")
		}
		// bbolt's own writes in the same transaction.
		if err := btx.Bucket([]byte("b")).Put([]byte("raw"), []byte("through bbolt")); err != nil {
			return err
		}
		bb, ok := boltkv.BoltBucket(b)
		if !ok {
			t.Fatal("BoltBucket of a boltkv bucket failed")
		}
		bb.FillPercent = 0.9 // what only bbolt has
		if string(b.Get([]byte("raw"))) != "through bbolt" {
			t.Error("the seam does not see bbolt's write in the same transaction")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Code holding a *bolt.Tx hands it to code written against the seam.
	err = bdb.View(func(btx *bolt.Tx) error {
		tx := boltkv.WrapTx(btx)
		if tx.Writable() || tx.ID() != uint64(btx.ID()) {
			t.Errorf("WrapTx: writable %v, ID %d; bbolt says %v, %d", tx.Writable(), tx.ID(), btx.Writable(), btx.ID())
		}
		b := tx.Bucket([]byte("b"))
		if string(b.Get([]byte("k"))) != "through the seam" || string(b.Get([]byte("raw"))) != "through bbolt" {
			t.Error("bbolt's view of the store is not the seam's")
		}
		if back, ok := boltkv.BoltTx(tx); !ok || back != btx {
			t.Error("BoltTx(WrapTx(tx)) is not tx")
		}
		if boltkv.WrapBucket(btx.Bucket([]byte("nope"))) != nil {
			t.Error("WrapBucket(nil) is not a nil storage.Bucket")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// otherTx is a storage.Tx from some other backend.
type otherTx struct{ storage.Tx }

func TestBoltTxOfAnotherBackend(t *testing.T) {
	t.Parallel()
	if btx, ok := boltkv.BoltTx(otherTx{}); ok || btx != nil {
		t.Error("BoltTx of another backend's transaction succeeded")
	}
	if bb, ok := boltkv.BoltBucket(nil); ok || bb != nil {
		t.Error("BoltBucket(nil) succeeded")
	}
}

// TestErrorsMatchBoth: an error is the seam's and still bbolt's, for
// code that asks either, and a caller's own error keeps its words.
func TestErrorsMatchBoth(t *testing.T) {
	t.Parallel()
	db, _ := open(t, nil)
	mine := errors.New("mine")
	err := db.Update(func(tx storage.Tx) error {
		if _, err := tx.CreateBucket([]byte("b")); err != nil {
			return err
		}
		_, err := tx.CreateBucket([]byte("b"))
		if !errors.Is(err, storage.ErrBucketExists) || !errors.Is(err, bolterrors.ErrBucketExists) {
			t.Errorf("CreateBucket twice: %v matches not both the seam's and bbolt's error", err)
		}
		if err.Error() != storage.ErrBucketExists.Error() {
			t.Errorf("the error reads %q, want the seam's words", err)
		}
		_, err = tx.CreateBucket(nil)
		if !errors.Is(err, storage.ErrKeyRequired) || !errors.Is(err, bolterrors.ErrBucketNameRequired) {
			t.Errorf("CreateBucket(nil): %v, want the seam's ErrKeyRequired and bbolt's ErrBucketNameRequired", err)
		}
		// Wrapped on its way out, a seam error stays what it is.
		return errors.Join(mine, tx.DeleteBucket([]byte("nope")))
	})
	if !errors.Is(err, mine) || !errors.Is(err, storage.ErrBucketNotFound) {
		t.Errorf("Update returned %v, want fn's error, whole", err)
	}
}

// TestReadOnly: a file opened read-only refuses writes with the seam's
// error, and reads what was written.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	db, path := open(t, nil)
	if err := db.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := boltkv.Open(path, &boltkv.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.Update(func(storage.Tx) error {
		t.Error("fn ran in an Update on a read-only store")
		return nil
	})
	if !errors.Is(err, storage.ErrTxNotWritable) || !errors.Is(err, bolterrors.ErrDatabaseReadOnly) {
		t.Errorf("Update on a read-only store: %v, want %v", err, storage.ErrTxNotWritable)
	}
	if err := ro.View(func(tx storage.Tx) error {
		if got := tx.Bucket([]byte("b")).Get([]byte("k")); string(got) != "v" {
			t.Errorf("read-only: k = %q", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestTimeout: a file another open holds is given up after Timeout with
// bbolt's timeout error, and the path in the message.
func TestTimeout(t *testing.T) {
	t.Parallel()
	_, path := open(t, nil)
	_, err := boltkv.Open(path, &boltkv.Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, bolterrors.ErrTimeout) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a second open of a held file: %v, want %v naming %s", err, bolterrors.ErrTimeout, path)
	}
}

// TestNoSync: a store opened with NoSync skips fsync and keeps what is
// committed across a clean close.
func TestNoSync(t *testing.T) {
	t.Parallel()
	db, path := open(t, &boltkv.Options{NoSync: true})
	if !db.Bolt().NoSync {
		t.Error("Options.NoSync did not reach bbolt")
	}
	if err := db.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := boltkv.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if err := db2.View(func(tx storage.Tx) error {
		if got := tx.Bucket([]byte("b")).Get([]byte("k")); string(got) != "v" {
			t.Errorf("k = %q after a NoSync commit and a close", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAppendOnly: SetAppendOnly is bbolt's fill percent of 1.
func TestAppendOnly(t *testing.T) {
	t.Parallel()
	db, _ := open(t, nil)
	if err := db.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		b.SetAppendOnly()
		bb, _ := boltkv.BoltBucket(b)
		if bb.FillPercent != 1 {
			t.Errorf("FillPercent %v after SetAppendOnly, want 1", bb.FillPercent)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWrapAllocates: wrapping bbolt's values costs no allocation, a
// cursor's moves none, and a bucket's look-up and cursor one more than
// bbolt's (the cursor, which an interface makes escape).
func TestWrapAllocates(t *testing.T) {
	db, _ := open(t, nil)
	if err := db.Update(func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range 100 {
			if err := b.Put([]byte{byte(i)}, []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	name := []byte("b")
	if err := db.View(func(tx storage.Tx) error {
		btx, _ := boltkv.BoltTx(tx)
		bb := btx.Bucket(name)
		if n := testing.AllocsPerRun(100, func() {
			_ = boltkv.WrapTx(btx)
			_ = boltkv.WrapBucket(bb)
			_ = boltkv.Wrap(db.Bolt())
		}); n != 0 {
			t.Errorf("wrapping allocates %v times", n)
		}
		c := tx.Bucket(name).Cursor()
		if n := testing.AllocsPerRun(100, func() {
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
			}
			for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			}
		}); n != 0 {
			t.Errorf("a cursor's moves allocate %v times", n)
		}
		raw := testing.AllocsPerRun(100, func() { _ = btx.Bucket(name).Cursor() })
		wrapped := testing.AllocsPerRun(100, func() { _ = tx.Bucket(name).Cursor() })
		if wrapped > raw+1 {
			t.Errorf("a bucket's look-up and cursor allocate %v times through the seam, %v through bbolt", wrapped, raw)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
