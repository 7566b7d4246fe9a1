package storagetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/storage"
)

// guard is how long a test waits for another goroutine's transaction
// before it calls the backend stuck. It is no synchronisation, only an
// end to a wait that a correct backend never makes long.
const guard = 2 * time.Minute

// spoil makes every kind of change to a store setupMisuse made, for a
// transaction that must then keep none of them.
func spoil(t *testing.T, tx storage.Tx) {
	t.Helper()
	b := bucket(t, tx, "b")
	put(t, b, "val", "changed")
	put(t, b, "new", "v")
	if err := b.DeleteBucket([]byte("sub")); err != nil {
		t.Fatal(err)
	}
	put(t, nested(t, b, "sub2"), "k", "v")
	if _, err := b.NextSequence(); err != nil {
		t.Fatal(err)
	}
	create(t, tx, "top2")
	if err := b.Delete([]byte("val")); err != nil {
		t.Fatal(err)
	}
}

func testAtomicCommit(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupMisuse(t, st)
	fail := errors.New("fn failed on purpose")
	err := st.db.Update(func(tx storage.Tx) error {
		spoil(t, tx)
		return fmt.Errorf("wrapped: %w", fail)
	})
	if !errors.Is(err, fail) {
		t.Errorf("Update returned %v, want fn's error %v", err, fail)
	}
	checkMisuse(t, st, "after fn failed")
	// View returns fn's error too.
	if err := st.db.View(func(storage.Tx) error { return fail }); !errors.Is(err, fail) {
		t.Errorf("View returned %v, want fn's error %v", err, fail)
	}
}

func testPanicRollsBack(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupMisuse(t, st)
	type boom struct{ n int }
	thrown := &boom{29}
	func() {
		defer func() {
			if r := recover(); r != thrown {
				t.Errorf("Update's caller recovered %v, want the panic fn raised", r)
			}
		}()
		_ = st.db.Update(func(tx storage.Tx) error {
			spoil(t, tx)
			panic(thrown)
		})
		t.Error("Update returned after fn panicked")
	}()
	checkMisuse(t, st, "after fn panicked")
	// The writer's place is free again.
	st.update(func(tx storage.Tx) error {
		put(t, bucket(t, tx, "b"), "z-after", "kept")
		return nil
	})
	checkMisuse(t, st, "after a write following the panic", entry{k: "z-after", v: "kept"})
}

// snapshotState reads what Snapshot and Uncommitted check, as one string.
func snapshotState(tx storage.Tx) string {
	b := tx.Bucket([]byte("s"))
	if b == nil {
		return "no bucket s"
	}
	return fmt.Sprintf("%v seq=%d count=%d", forward(b.Cursor()), b.Sequence(), b.KeyCount())
}

const (
	stateBefore = `["gone"="1" "k"="old"] seq=0 count=2`
	stateAfter  = `["added"="2" "k"="new" "nb":bucket] seq=1 count=3`
)

// writeSnapshot is the write Snapshot and Uncommitted commit.
func writeSnapshot(tx storage.Tx) error {
	b := tx.Bucket([]byte("s"))
	if b == nil {
		return errors.New("no bucket s")
	}
	if err := b.Put([]byte("k"), []byte("new")); err != nil {
		return err
	}
	if err := b.Put([]byte("added"), []byte("2")); err != nil {
		return err
	}
	if err := b.Delete([]byte("gone")); err != nil {
		return err
	}
	if _, err := b.CreateBucket([]byte("nb")); err != nil {
		return err
	}
	_, err := b.NextSequence()
	return err
}

func setupSnapshot(t *testing.T, st *store) {
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "s")
		put(t, b, "k", "old")
		put(t, b, "gone", "1")
		return nil
	})
}

func testSnapshot(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupSnapshot(t, st)
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "s")
		if got := snapshotState(tx); got != stateBefore {
			t.Fatalf("before the write: %s, want %s", got, stateBefore)
		}
		committed := make(chan error, 1)
		go func() { committed <- st.db.Update(writeSnapshot) }()
		select {
		case err := <-committed:
			if err != nil {
				t.Fatalf("the concurrent Update: %v", err)
			}
		case <-time.After(guard):
			t.Fatalf("an Update did not commit in %v while a View was open: a writer must not wait for readers", guard)
		}
		// This transaction still sees its snapshot, through the bucket it
		// had and through a new look-up.
		if got := b.Get([]byte("k")); string(got) != "old" {
			t.Errorf("the open View's bucket reads k = %q after a commit, want old", got)
		}
		if got := snapshotState(tx); got != stateBefore {
			t.Errorf("the open View after a commit sees %s, want %s", got, stateBefore)
		}
		// A read begun after the commit sees it all.
		var after string
		if err := st.db.View(func(tx storage.Tx) error { after = snapshotState(tx); return nil }); err != nil {
			t.Fatalf("a second View: %v", err)
		}
		if after != stateAfter {
			t.Errorf("a View begun after the commit sees %s, want %s", after, stateAfter)
		}
		// And the first still does not.
		if got := snapshotState(tx); got != stateBefore {
			t.Errorf("the open View after a newer View sees %s, want %s", got, stateBefore)
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		if got := snapshotState(tx); got != stateAfter {
			t.Errorf("a View after the first ended sees %s, want %s", got, stateAfter)
		}
		return nil
	})
}

func testUncommitted(t *testing.T, s *suite) {
	st := s.fresh(t)
	setupSnapshot(t, st)
	st.update(func(tx storage.Tx) error {
		if err := writeSnapshot(tx); err != nil {
			t.Fatal(err)
		}
		if got := snapshotState(tx); got != stateAfter {
			t.Errorf("the writer sees %s, want its own writes: %s", got, stateAfter)
		}
		// A reader in another goroutine, while this write is open.
		seen := make(chan string, 1)
		go func() {
			var got string
			if err := st.db.View(func(tx storage.Tx) error { got = snapshotState(tx); return nil }); err != nil {
				got = "View failed: " + err.Error()
			}
			seen <- got
		}()
		select {
		case got := <-seen:
			if got != stateBefore {
				t.Errorf("a View while a write is open sees %s, want %s", got, stateBefore)
			}
		case <-time.After(guard):
			t.Fatalf("a View did not finish in %v while an Update was open: a reader must not wait for writers", guard)
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		if got := snapshotState(tx); got != stateAfter {
			t.Errorf("after the commit: %s, want %s", got, stateAfter)
		}
		return nil
	})
}

func testWritersSerialize(t *testing.T, s *suite) {
	st := s.fresh(t)
	const writers, each = 4, 25
	st.update(func(tx storage.Tx) error {
		create(t, tx, "w")
		return nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := st.db.Update(func(tx storage.Tx) error {
					b := tx.Bucket([]byte("w"))
					// Read, then write what was read plus one: lost
					// unless no other commit comes between.
					var n uint64
					if v := b.Get([]byte("counter")); v != nil {
						n = binary.BigEndian.Uint64(v)
					}
					if err := b.Put([]byte("counter"), binary.BigEndian.AppendUint64(nil, n+1)); err != nil {
						return err
					}
					return b.Put(fmt.Appendf(nil, "w%d-%02d", w, i), []byte("x"))
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d, write %d: %w", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "w")
		v := b.Get([]byte("counter"))
		if len(v) != 8 || binary.BigEndian.Uint64(v) != writers*each {
			t.Errorf("counter %x after %d increments by %d writers at once, want %d", v, writers*each, writers, writers*each)
		}
		if n := b.KeyCount(); n != writers*each+1 {
			t.Errorf("%d keys, want %d", n, writers*each+1)
		}
		return nil
	})
}

func testTxID(t *testing.T, s *suite) {
	st := s.fresh(t)
	viewID := func() uint64 {
		t.Helper()
		var id uint64
		st.view(func(tx storage.Tx) error { id = tx.ID(); return nil })
		return id
	}
	v0 := viewID()
	if again := viewID(); again != v0 {
		t.Errorf("two Views with no commit between: IDs %d and %d", v0, again)
	}
	var u1 uint64
	st.update(func(tx storage.Tx) error {
		u1 = tx.ID()
		create(t, tx, "b")
		if tx.ID() != u1 {
			t.Errorf("a transaction's ID changed as it wrote: %d, then %d", u1, tx.ID())
		}
		return nil
	})
	v1 := viewID()
	if u1 <= v0 || v1 != u1 {
		t.Errorf("IDs: a View %d, then an Update %d, then a View %d; want the Update's greater and the second View's the same as it", v0, u1, v1)
	}
	// A write rolled back leaves the ID as it was.
	fail := errors.New("rolled back on purpose")
	if err := st.db.Update(func(tx storage.Tx) error {
		create(t, tx, "c")
		return fail
	}); !errors.Is(err, fail) {
		t.Fatalf("Update: %v, want %v", err, fail)
	}
	if v := viewID(); v != v1 {
		t.Errorf("a View after a rolled back Update has ID %d, want %d as before it", v, v1)
	}
	var u2 uint64
	st.update(func(tx storage.Tx) error {
		u2 = tx.ID()
		put(t, bucket(t, tx, "b"), "k", "v")
		return nil
	})
	if v2 := viewID(); u2 <= u1 || v2 != u2 {
		t.Errorf("IDs: an Update %d, a View %d, an Update %d, a View %d; want them to grow with each commit", u1, v1, u2, v2)
	}
	// The ID stays across closing and opening the store.
	st.reopen()
	if v := viewID(); v < u2 {
		t.Errorf("after opening the store again, a View's ID is %d, below the last commit's %d", v, u2)
	}
}

func testReopen(t *testing.T, s *suite) {
	st := s.fresh(t)
	big := bigValue(300<<10, 6)
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		put(t, b, "k", "v")
		if err := b.Put([]byte("big"), big); err != nil {
			t.Fatal(err)
		}
		if err := b.SetSequence(42); err != nil {
			t.Fatal(err)
		}
		put(t, nested(t, nested(t, b, "n"), "m"), "deep", "d")
		create(t, tx, "empty")
		return nil
	})
	st.reopen()
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if string(b.Get([]byte("k"))) != "v" || string(b.Get([]byte("big"))) != string(big) || b.Sequence() != 42 {
			t.Errorf("after opening again: k %q, big %d bytes, sequence %d", b.Get([]byte("k")), len(b.Get([]byte("big"))), b.Sequence())
		}
		if got := path(tx, "b", "n", "m").Get([]byte("deep")); string(got) != "d" {
			t.Errorf("after opening again: b/n/m deep = %q", got)
		}
		if e := bucket(t, tx, "empty"); e.KeyCount() != 0 {
			t.Error("after opening again the empty bucket is not empty")
		}
		return nil
	})
	st.update(func(tx storage.Tx) error {
		put(t, bucket(t, tx, "b"), "k2", "v2")
		return nil
	})
	st.reopen()
	st.view(func(tx storage.Tx) error {
		if got := bucket(t, tx, "b").Get([]byte("k2")); string(got) != "v2" {
			t.Errorf("a write after opening again, opened again: k2 = %q", got)
		}
		return nil
	})
}
