package pgkv

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/citelens/citelens/storage"
)

// TestReadAhead checks that a run of ascending Gets reads ahead (a few
// round trips for 4,000 Gets, not 4,000) and answers as plain Gets do:
// present keys' values, nil for absent keys and for a nested bucket's
// name; that Gets in another order, or of large values, do not read
// ahead; and that a write transaction's Gets see its own writes.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	db, rt := openCounting(t)
	key := func(i int) []byte { return fmt.Appendf(nil, "%05d", i) }
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := 0; i < 4000; i += 2 { // even keys only: odd ones are absent
			if i == 1000 {
				if _, err := b.CreateBucket(key(i)); err != nil {
					return err
				}
				continue
			}
			if err := b.Put(key(i), fmt.Appendf(nil, "v%d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	want := func(i int) []byte {
		if i%2 == 1 || i == 1000 {
			return nil
		}
		return fmt.Appendf(nil, "v%d", i)
	}
	check := func(b storage.Bucket, i int) {
		t.Helper()
		if got := b.Get(key(i)); !bytes.Equal(got, want(i)) || (got == nil) != (want(i) == nil) {
			t.Fatalf("Get(%s) = %q, want %q", key(i), got, want(i))
		}
	}
	count := func(what string, fn func(storage.Tx) error) int64 {
		t.Helper()
		view(t, db, fn) // prepares the statements on the connection
		before := rt.n.Load()
		view(t, db, fn)
		return rt.n.Load() - before
	}
	ascending := count("ascending", func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		for i := range 4000 {
			check(b, i)
		}
		return nil
	})
	// begin, end, the Gets before the run counts, and pages of 32, 64 …
	// 2048 rows (2,000 keys from the ninth Get's on).
	if ascending > 2+aheadAfter+8 {
		t.Errorf("4,000 ascending Gets took %d round trips", ascending)
	}
	descending := count("descending", func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		for i := 3999; i >= 3900; i-- {
			check(b, i)
		}
		return nil
	})
	if descending != 2+100 {
		t.Errorf("100 descending Gets took %d round trips, want one each and 2", descending)
	}
	// Large values are not read ahead: a page of them would bring far
	// more than the Gets ask for.
	big := bytes.Repeat([]byte("x"), aheadValue+1)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("big"))
		if err != nil {
			return err
		}
		for i := range 50 {
			if err := b.Put(key(i), big); err != nil {
				return err
			}
		}
		return nil
	})
	large := count("large values", func(tx storage.Tx) error {
		b := tx.Bucket([]byte("big"))
		for i := range 50 {
			if !bytes.Equal(b.Get(key(i)), big) {
				t.Fatalf("Get(%s) of a large value is wrong", key(i))
			}
		}
		return nil
	})
	if large != 2+50 {
		t.Errorf("50 ascending Gets of large values took %d round trips, want one each and 2", large)
	}
	update(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		for i := 1; i < 200; i += 2 {
			if err := b.Put(key(i), []byte("new")); err != nil {
				return err
			}
			if got := b.Get(key(i)); string(got) != "new" {
				t.Errorf("in a write transaction, Get(%s) after its Put = %q", key(i), got)
			}
			check(b, i+1)
		}
		return nil
	})
}
