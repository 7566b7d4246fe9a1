package storagetest

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/citelens/citelens/storage"
)

// path is the bucket at the end of names from tx's top level, or nil.
func path(tx storage.Tx, names ...string) storage.Bucket {
	b := tx.Bucket([]byte(names[0]))
	for _, n := range names[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket([]byte(n))
	}
	return b
}

func testNestedBuckets(t *testing.T, s *suite) {
	st := s.fresh(t)
	full := func(when string, tx storage.Tx) {
		t.Helper()
		if got := path(tx, "a", "b", "c", "d").Get([]byte("deepest")); string(got) != "4" {
			t.Errorf("%s: a/b/c/d deepest = %q, want 4", when, got)
		}
		if got := path(tx, "a", "b", "c").Get([]byte("deep")); string(got) != "3" {
			t.Errorf("%s: a/b/c deep = %q, want 3", when, got)
		}
		if got := path(tx, "a", "b").Get([]byte("mid")); string(got) != "2" {
			t.Errorf("%s: a/b mid = %q, want 2", when, got)
		}
	}
	sibling := func(when string, tx storage.Tx) {
		t.Helper()
		sib := path(tx, "a", "sib")
		if sib == nil {
			t.Fatalf("%s: the sibling a/sib is gone", when)
		}
		sameEntries(t, when+": a/sib", forward(sib.Cursor()), []entry{{k: "s", v: "5"}, {k: "t", bucket: true}})
		if got := path(tx, "a", "sib", "t").Get([]byte("x")); string(got) != "6" {
			t.Errorf("%s: a/sib/t x = %q, want 6", when, got)
		}
	}
	st.update(func(tx storage.Tx) error {
		a := create(t, tx, "a")
		b := nested(t, a, "b")
		c := nested(t, b, "c")
		put(t, b, "mid", "2")
		put(t, c, "deep", "3")
		put(t, nested(t, c, "d"), "deepest", "4")
		sib := nested(t, a, "sib")
		put(t, sib, "s", "5")
		put(t, nested(t, sib, "t"), "x", "6")
		full("in the writing transaction", tx)
		sibling("in the writing transaction", tx)
		// CreateBucketIfNotExists finds what is there.
		again, err := tx.CreateBucketIfNotExists([]byte("a"))
		if err != nil || again == nil || again.Bucket([]byte("b")) == nil {
			t.Errorf("CreateBucketIfNotExists of an existing top-level bucket: %v, or its content is not there", err)
		}
		againB, err := a.CreateBucketIfNotExists([]byte("b"))
		if err != nil || againB == nil || string(againB.Get([]byte("mid"))) != "2" {
			t.Errorf("CreateBucketIfNotExists of an existing nested bucket: %v, or its content is not there", err)
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		full("after the commit", tx)
		sibling("after the commit", tx)
		return nil
	})

	// Deleting a nested bucket deletes all under it, and only that.
	st.update(func(tx storage.Tx) error {
		a := bucket(t, tx, "a")
		if err := a.DeleteBucket([]byte("b")); err != nil {
			t.Fatalf("DeleteBucket(b): %v", err)
		}
		if a.Bucket([]byte("b")) != nil {
			t.Error("a/b is there after DeleteBucket in the same transaction")
		}
		sibling("after deleting a/b", tx)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		if path(tx, "a", "b") != nil {
			t.Error("a/b is there after its deletion was committed")
		}
		sibling("after deleting a/b was committed", tx)
		return nil
	})

	// Made again, it is empty: nothing of the old one comes back.
	st.update(func(tx storage.Tx) error {
		b := nested(t, bucket(t, tx, "a"), "b")
		if n := b.KeyCount(); n != 0 {
			t.Errorf("a/b made again holds %d keys", n)
		}
		if b.Bucket([]byte("c")) != nil || b.Get([]byte("mid")) != nil {
			t.Error("a/b made again has the old one's content")
		}
		put(t, b, "new", "7")
		return nil
	})
	st.view(func(tx storage.Tx) error {
		sameEntries(t, "a/b made again", forward(path(tx, "a", "b").Cursor()), []entry{{k: "new", v: "7"}})
		return nil
	})

	// Deleted and made again in one transaction.
	st.update(func(tx storage.Tx) error {
		if err := tx.DeleteBucket([]byte("a")); err != nil {
			t.Fatalf("DeleteBucket(a): %v", err)
		}
		if tx.Bucket([]byte("a")) != nil {
			t.Error("a is there after DeleteBucket")
		}
		a := create(t, tx, "a")
		if n := a.KeyCount(); n != 0 {
			t.Errorf("a deleted and made again in one transaction holds %d keys", n)
		}
		put(t, a, "only", "8")
		return nil
	})
	st.view(func(tx storage.Tx) error {
		sameEntries(t, "a deleted and made again", forward(bucket(t, tx, "a").Cursor()), []entry{{k: "only", v: "8"}})
		var names []string
		if err := tx.ForEachBucket(func(n []byte) error { names = append(names, string(n)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 || names[0] != "a" {
			t.Errorf("top-level buckets %q, want [a]", names)
		}
		return nil
	})
}

func testSequences(t *testing.T, s *suite) {
	st := s.fresh(t)
	next := func(b storage.Bucket, want uint64) {
		t.Helper()
		n, err := b.NextSequence()
		if err != nil || n != want {
			t.Errorf("NextSequence = %d, %v; want %d", n, err, want)
		}
	}
	seq := func(when string, b storage.Bucket, want uint64) {
		t.Helper()
		if n := b.Sequence(); n != want {
			t.Errorf("%s: Sequence %d, want %d", when, n, want)
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "s")
		seq("a new bucket", b, 0)
		next(b, 1)
		next(b, 2)
		if err := b.SetSequence(100); err != nil {
			t.Fatalf("SetSequence: %v", err)
		}
		seq("after SetSequence(100)", b, 100)
		next(b, 101)
		n := nested(t, b, "n")
		seq("a new nested bucket", n, 0)
		next(n, 1)
		seq("the parent after the child's NextSequence", b, 101)
		big := create(t, tx, "big")
		if err := big.SetSequence(math.MaxUint64); err != nil {
			t.Fatalf("SetSequence(MaxUint64): %v", err)
		}
		seq("after SetSequence(MaxUint64)", big, math.MaxUint64)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		seq("after the commit", bucket(t, tx, "s"), 101)
		seq("the nested bucket after the commit", path(tx, "s", "n"), 1)
		seq("after SetSequence(MaxUint64) was committed", bucket(t, tx, "big"), math.MaxUint64)
		return nil
	})
	// A failed transaction's sequence changes are not kept.
	fail := errors.New("rolled back on purpose")
	err := st.db.Update(func(tx storage.Tx) error {
		b := bucket(t, tx, "s")
		next(b, 102)
		next(path(tx, "s", "n"), 2)
		if err := b.SetSequence(7); err != nil {
			t.Fatalf("SetSequence: %v", err)
		}
		return fail
	})
	if !errors.Is(err, fail) {
		t.Fatalf("Update returned %v, want %v", err, fail)
	}
	st.view(func(tx storage.Tx) error {
		seq("after a rolled back NextSequence and SetSequence", bucket(t, tx, "s"), 101)
		seq("the nested bucket after a rolled back NextSequence", path(tx, "s", "n"), 1)
		return nil
	})
	// A bucket made again starts again at 0.
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "s")
		if err := b.DeleteBucket([]byte("n")); err != nil {
			t.Fatal(err)
		}
		seq("a nested bucket deleted and made again", nested(t, b, "n"), 0)
		if err := tx.DeleteBucket([]byte("s")); err != nil {
			t.Fatal(err)
		}
		seq("a top-level bucket deleted and made again", create(t, tx, "s"), 0)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		seq("a bucket made again, after the commit", bucket(t, tx, "s"), 0)
		return nil
	})
}

// setupMisuse makes bucket b holding the value val and the nested
// bucket sub (holding deep), the ground the error tests stand on.
func setupMisuse(t *testing.T, st *store) {
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		put(t, b, "val", "x")
		put(t, nested(t, b, "sub"), "deep", "y")
		if err := b.SetSequence(9); err != nil {
			t.Fatal(err)
		}
		return nil
	})
}

// checkMisuse fails the test unless the store is as setupMisuse made it,
// plus the keys in extra.
func checkMisuse(t *testing.T, st *store, when string, extra ...entry) {
	t.Helper()
	st.view(func(tx storage.Tx) error {
		var names []string
		if err := tx.ForEachBucket(func(n []byte) error { names = append(names, string(n)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 || names[0] != "b" {
			t.Errorf("%s: top-level buckets %q, want [b]", when, names)
		}
		b := bucket(t, tx, "b")
		want := append([]entry{{k: "sub", bucket: true}, {k: "val", v: "x"}}, extra...)
		sameEntries(t, when, forward(b.Cursor()), want)
		sameEntries(t, when+": b/sub", forward(b.Bucket([]byte("sub")).Cursor()), []entry{{k: "deep", v: "y"}})
		if n := b.Sequence(); n != 9 {
			t.Errorf("%s: sequence %d, want 9", when, n)
		}
		return nil
	})
}

func testErrors(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupMisuse(t, st)
	tooLong := bytes.Repeat([]byte("k"), storage.MaxKeySize+1)
	cases := []struct {
		what string
		want error
		op   func(tx storage.Tx, b storage.Bucket) error
	}{
		{"CreateBucket of a top-level bucket that is there", storage.ErrBucketExists,
			func(tx storage.Tx, b storage.Bucket) error { _, err := tx.CreateBucket([]byte("b")); return err }},
		{"CreateBucket of a nested bucket that is there", storage.ErrBucketExists,
			func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucket([]byte("sub")); return err }},
		{"DeleteBucket of a top-level bucket not there", storage.ErrBucketNotFound,
			func(tx storage.Tx, b storage.Bucket) error { return tx.DeleteBucket([]byte("nope")) }},
		{"DeleteBucket of a nested bucket not there", storage.ErrBucketNotFound,
			func(tx storage.Tx, b storage.Bucket) error { return b.DeleteBucket([]byte("nope")) }},
		{"Put with a nil key", storage.ErrKeyRequired,
			func(tx storage.Tx, b storage.Bucket) error { return b.Put(nil, []byte("v")) }},
		{"Put with an empty key", storage.ErrKeyRequired,
			func(tx storage.Tx, b storage.Bucket) error { return b.Put([]byte{}, []byte("v")) }},
		{"CreateBucket with an empty name, top-level", storage.ErrKeyRequired,
			func(tx storage.Tx, b storage.Bucket) error { _, err := tx.CreateBucket(nil); return err }},
		{"CreateBucket with an empty name, nested", storage.ErrKeyRequired,
			func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucket([]byte{}); return err }},
		{"CreateBucketIfNotExists with an empty name", storage.ErrKeyRequired,
			func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucketIfNotExists(nil); return err }},
		{"Put with a key over MaxKeySize", storage.ErrKeyTooLarge,
			func(tx storage.Tx, b storage.Bucket) error { return b.Put(tooLong, []byte("v")) }},
		{"CreateBucket with a name over MaxKeySize, top-level", storage.ErrKeyTooLarge,
			func(tx storage.Tx, b storage.Bucket) error { _, err := tx.CreateBucket(tooLong); return err }},
		{"CreateBucketIfNotExists with a name over MaxKeySize, nested", storage.ErrKeyTooLarge,
			func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucketIfNotExists(tooLong); return err }},
		{"Put on a nested bucket's key", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error { return b.Put([]byte("sub"), []byte("v")) }},
		{"Delete of a nested bucket's key", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error { return b.Delete([]byte("sub")) }},
		{"CreateBucket on a value's key", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucket([]byte("val")); return err }},
		{"CreateBucketIfNotExists on a value's key", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error {
				_, err := b.CreateBucketIfNotExists([]byte("val"))
				return err
			}},
		{"DeleteBucket of a value's key", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error { return b.DeleteBucket([]byte("val")) }},
		{"Cursor.Delete on a nested bucket", storage.ErrIncompatibleValue,
			func(tx storage.Tx, b storage.Bucket) error {
				c := b.Cursor()
				if k, _ := c.Seek([]byte("sub")); string(k) != "sub" {
					return errors.New("Seek(sub) missed it")
				}
				return c.Delete()
			}},
	}
	// Every error in one transaction, which then commits a write of its
	// own: an error changes nothing and spoils nothing.
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		for _, c := range cases {
			if err := c.op(tx, b); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.what, err, c.want)
			}
		}
		put(t, b, "z-after", "kept")
		return nil
	})
	checkMisuse(t, st, "after the errors", entry{k: "z-after", v: "kept"})
}

func testWriteInReadTx(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupMisuse(t, st)
	st.update(func(tx storage.Tx) error {
		if !tx.Writable() {
			t.Error("Writable is false in Update")
		}
		return nil
	})
	cases := []struct {
		what string
		op   func(tx storage.Tx, b storage.Bucket) error
	}{
		{"tx.CreateBucket", func(tx storage.Tx, b storage.Bucket) error { _, err := tx.CreateBucket([]byte("new")); return err }},
		{"tx.CreateBucketIfNotExists", func(tx storage.Tx, b storage.Bucket) error {
			_, err := tx.CreateBucketIfNotExists([]byte("new"))
			return err
		}},
		{"tx.DeleteBucket", func(tx storage.Tx, b storage.Bucket) error { return tx.DeleteBucket([]byte("b")) }},
		{"Put", func(tx storage.Tx, b storage.Bucket) error { return b.Put([]byte("val"), []byte("changed")) }},
		{"Put of a new key", func(tx storage.Tx, b storage.Bucket) error { return b.Put([]byte("new"), []byte("v")) }},
		{"Delete", func(tx storage.Tx, b storage.Bucket) error { return b.Delete([]byte("val")) }},
		{"CreateBucket", func(tx storage.Tx, b storage.Bucket) error { _, err := b.CreateBucket([]byte("new")); return err }},
		{"CreateBucketIfNotExists", func(tx storage.Tx, b storage.Bucket) error {
			_, err := b.CreateBucketIfNotExists([]byte("new"))
			return err
		}},
		{"DeleteBucket", func(tx storage.Tx, b storage.Bucket) error { return b.DeleteBucket([]byte("sub")) }},
		{"NextSequence", func(tx storage.Tx, b storage.Bucket) error { _, err := b.NextSequence(); return err }},
		{"SetSequence", func(tx storage.Tx, b storage.Bucket) error { return b.SetSequence(1) }},
		{"Cursor.Delete", func(tx storage.Tx, b storage.Bucket) error {
			c := b.Cursor()
			if k, _ := c.Seek([]byte("val")); string(k) != "val" {
				return errors.New("Seek(val) missed it")
			}
			return c.Delete()
		}},
	}
	st.view(func(tx storage.Tx) error {
		if tx.Writable() {
			t.Error("Writable is true in View")
		}
		b := bucket(t, tx, "b")
		for _, c := range cases {
			if err := c.op(tx, b); !errors.Is(err, storage.ErrTxNotWritable) {
				t.Errorf("%s in a read transaction: %v, want %v", c.what, err, storage.ErrTxNotWritable)
			}
		}
		if got := b.Get([]byte("val")); string(got) != "x" {
			t.Errorf("val after the refused writes = %q, want x", got)
		}
		return nil
	})
	checkMisuse(t, st, "after the refused writes")
}
