package storagetest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/citelens/citelens/storage"
)

// orderKeys are keys whose order a backend can get wrong: bytes 0x00 and
// 0xff, bytes above 0x7f (signed comparison puts them first), keys that
// are prefixes of others, and a key that is a prefix plus 0x00. Sorted.
var orderKeys = [][]byte{
	{0x00}, {0x00, 0x00}, {0x00, 0x01}, {0x00, 0xff},
	{0x01},
	[]byte("a"), []byte("a\x00"), []byte("ab"), []byte("abc"), []byte("abd"),
	[]byte("b"),
	{0x7f}, {0x80}, {0x80, 0x00},
	{0xfe, 0xff},
	{0xff}, {0xff, 0x00}, {0xff, 0xff}, {0xff, 0xff, 0xff},
}

// valueOf is the value the tests store at key k.
func valueOf(k []byte) []byte { return fmt.Appendf(nil, "v%x", k) }

// shuffled is keys in an order fixed by seed.
func shuffled(keys [][]byte, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 29))
	out := slices.Clone(keys)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func testKeyOrder(t *testing.T, s *suite) {
	st := s.fresh(t)
	if !slices.IsSortedFunc(orderKeys, bytes.Compare) {
		t.Fatal("orderKeys is not sorted")
	}
	var want []entry
	for _, k := range orderKeys {
		want = append(want, mkEntry(k, valueOf(k)))
	}
	check := func(when string, tx storage.Tx) {
		t.Helper()
		b := bucket(t, tx, "order")
		sameEntries(t, when+": First, Next", forward(b.Cursor()), want)
		sameEntries(t, when+": Last, Prev", backward(b.Cursor()), reversed(want))
		sameEntries(t, when+": ForEach", forEach(t, b), want)
		var names [][]byte
		if err := tx.ForEachBucket(func(name []byte) error {
			names = append(names, bytes.Clone(name))
			return nil
		}); err != nil {
			t.Fatalf("ForEachBucket: %v", err)
		}
		wantNames := append([][]byte{[]byte("empty")}, orderKeys...)
		wantNames = append(wantNames, []byte("order"))
		slices.SortFunc(wantNames, bytes.Compare)
		if !slices.EqualFunc(names, wantNames, bytes.Equal) {
			t.Errorf("%s: ForEachBucket gave %q, want %q", when, names, wantNames)
		}
		e := bucket(t, tx, "empty")
		c := e.Cursor()
		k, v := c.First()
		at(t, when+": empty bucket: First", k, v, nil)
		k, v = c.Last()
		at(t, when+": empty bucket: Last", k, v, nil)
		k, v = c.Seek([]byte("a"))
		at(t, when+": empty bucket: Seek", k, v, nil)
		k, v = c.Seek(nil)
		at(t, when+": empty bucket: Seek(nil)", k, v, nil)
		if n := len(forEach(t, e)); n != 0 {
			t.Errorf("%s: empty bucket: ForEach called fn %d times", when, n)
		}
		if n := e.KeyCount(); n != 0 {
			t.Errorf("%s: empty bucket: KeyCount %d", when, n)
		}
	}
	st.update(func(tx storage.Tx) error {
		create(t, tx, "empty")
		b := create(t, tx, "order")
		for _, k := range shuffled(orderKeys, 1) {
			if err := b.Put(k, valueOf(k)); err != nil {
				t.Fatalf("Put(%q): %v", k, err)
			}
			// Top-level bucket names are keys too.
			create(t, tx, string(k))
		}
		check("in the writing transaction", tx)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", tx)
		return nil
	})
}

func testValuesAndBuckets(t *testing.T, s *suite) {
	st := s.fresh(t)
	want := []entry{
		{k: "a", v: "1"},
		{k: "b", bucket: true},
		{k: "c", v: ""}, // an empty value, which is not a bucket
		{k: "d", bucket: true},
		{k: "e", v: "5"},
	}
	check := func(when string, tx storage.Tx) {
		t.Helper()
		b := bucket(t, tx, "mixed")
		sameEntries(t, when+": First, Next", forward(b.Cursor()), want)
		sameEntries(t, when+": Last, Prev", backward(b.Cursor()), reversed(want))
		sameEntries(t, when+": ForEach", forEach(t, b), want)
		c := b.Cursor()
		k, v := c.Seek([]byte("b"))
		if string(k) != "b" || v != nil {
			t.Errorf("%s: Seek(b) = %q, %q; want the bucket b, with a nil value", when, k, v)
		}
		k, v = c.Seek([]byte("c"))
		if string(k) != "c" || v == nil || len(v) != 0 {
			t.Errorf("%s: Seek(c) = %q, %#v; want c with an empty, non-nil value", when, k, v)
		}
		if v := b.Get([]byte("c")); v == nil || len(v) != 0 {
			t.Errorf("%s: Get(c) = %#v, want an empty, non-nil value", when, v)
		}
		if v := b.Get([]byte("b")); v != nil {
			t.Errorf("%s: Get of a nested bucket = %q, want nil", when, v)
		}
		if nb := b.Bucket([]byte("a")); nb != nil {
			t.Errorf("%s: Bucket of a value's key is not nil", when)
		}
		if nb := b.Bucket([]byte("zz")); nb != nil {
			t.Errorf("%s: Bucket of a missing key is not nil", when)
		}
		if nb := b.Bucket([]byte("d")); nb == nil {
			t.Errorf("%s: Bucket(d) is nil", when)
		} else if got := nb.Get([]byte("in-d")); string(got) != "x" {
			t.Errorf("%s: d's in-d = %q, want x", when, got)
		}
		if tx.Bucket([]byte("nope")) != nil {
			t.Errorf("%s: tx.Bucket of a missing bucket is not nil", when)
		}
		if n := b.KeyCount(); n != len(want) {
			t.Errorf("%s: KeyCount %d, want %d", when, n, len(want))
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "mixed")
		// Written out of order, buckets among values.
		nested(t, b, "d")
		put(t, b, "e", "5")
		put(t, b, "a", "1")
		nested(t, b, "b")
		if err := b.Put([]byte("c"), nil); err != nil { // nil is an empty value
			t.Fatalf("Put(c, nil): %v", err)
		}
		put(t, b.Bucket([]byte("d")), "in-d", "x")
		check("in the writing transaction", tx)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", tx)
		return nil
	})
}

func testGetPutDelete(t *testing.T, s *suite) {
	st := s.fresh(t)
	maxKey := bytes.Repeat([]byte{0xab}, storage.MaxKeySize)
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		put(t, b, "k", "1")
		if got := b.Get([]byte("k")); string(got) != "1" {
			t.Errorf("Get after Put in the same transaction = %q, want 1", got)
		}
		put(t, b, "k", "2")
		if got := b.Get([]byte("k")); string(got) != "2" {
			t.Errorf("Get after a second Put = %q, want 2", got)
		}
		put(t, b, "gone", "x")
		if err := b.Delete([]byte("gone")); err != nil {
			t.Errorf("Delete: %v", err)
		}
		if got := b.Get([]byte("gone")); got != nil {
			t.Errorf("Get after Delete = %q, want nil", got)
		}
		if err := b.Delete([]byte("never")); err != nil {
			t.Errorf("Delete of a key not there: %v, want no error", err)
		}
		if err := b.Put(maxKey, []byte("max")); err != nil {
			t.Errorf("Put of a key of MaxKeySize bytes: %v", err)
		}
		sameEntries(t, "in the writing transaction", forward(b.Cursor()), []entry{{k: "k", v: "2"}, {k: string(maxKey), v: "max"}})
		return nil
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if got := b.Get([]byte("k")); string(got) != "2" {
			t.Errorf("Get after the commit = %q, want 2", got)
		}
		for _, k := range [][]byte{[]byte("gone"), []byte("never"), []byte("k\x00"), []byte("j"), nil, {}} {
			if got := b.Get(k); got != nil {
				t.Errorf("Get(%q) = %q, want nil", k, got)
			}
		}
		if got := b.Get(maxKey); string(got) != "max" {
			t.Errorf("Get of the MaxKeySize key = %q, want max", got)
		}
		// ForEach stops at fn's first error and returns it.
		stop := errors.New("stop here")
		calls := 0
		err := b.ForEach(func(k, v []byte) error {
			calls++
			return stop
		})
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("ForEach with fn failing: %v after %d calls, want %v after 1", err, calls, stop)
		}
		return nil
	})
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if err := b.Delete([]byte("k")); err != nil {
			t.Errorf("Delete: %v", err)
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if got := b.Get([]byte("k")); got != nil {
			t.Errorf("Get after a committed Delete = %q, want nil", got)
		}
		sameEntries(t, "after the Delete", forward(b.Cursor()), []entry{{k: string(maxKey), v: "max"}})
		// ForEachBucket stops at fn's first error too.
		stop := errors.New("stop here")
		calls := 0
		if err := tx.ForEachBucket(func([]byte) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
			t.Errorf("ForEachBucket with fn failing: %v after %d calls, want %v after 1", err, calls, stop)
		}
		return nil
	})
}

func testGetMany(t *testing.T, s *suite) {
	st := s.fresh(t)
	keys := [][]byte{
		[]byte("c"), []byte("absent"), []byte("a"), []byte("sub"), []byte("c"), {0xff}, []byte("b"), []byte("zz"), {},
	}
	want := []string{"3", "", "1", "", "3", "ff", "2", "", ""}
	wantNil := []bool{false, true, false, true, false, false, false, true, true}
	check := func(when string, b storage.Bucket) {
		t.Helper()
		got := b.GetMany(keys)
		if len(got) != len(keys) {
			t.Fatalf("%s: GetMany of %d keys gave %d values", when, len(keys), len(got))
		}
		for i := range keys {
			if (got[i] == nil) != wantNil[i] || string(got[i]) != want[i] {
				t.Errorf("%s: GetMany: key %d (%q) = %q (nil %v), want %q (nil %v)", when, i, keys[i], got[i], got[i] == nil, want[i], wantNil[i])
			}
		}
		if got := b.GetMany(nil); len(got) != 0 {
			t.Errorf("%s: GetMany(nil) = %q, want none", when, got)
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		put(t, b, "a", "1")
		put(t, b, "b", "2")
		put(t, b, "c", "3")
		put(t, b, "\xff", "ff")
		nested(t, b, "sub")
		check("in the writing transaction", b)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", bucket(t, tx, "b"))
		return nil
	})
}

// seqKey is the i'th of a run of keys in order, spread over many pages
// by a long value.
func seqKey(i int) []byte { return fmt.Appendf(nil, "key%05d", i) }

func seqValue(i int) []byte {
	return fmt.Appendf(nil, "value %05d %s", i, bytes.Repeat([]byte{byte('a' + i%26)}, 100))
}

func testCursor(t *testing.T, s *suite) {
	st := s.fresh(t)
	const n = 1000
	check := func(when string, b storage.Bucket) {
		t.Helper()
		c := b.Cursor()
		// The ends, and past them.
		k, v := c.First()
		at(t, when+": First", k, v, seqKey(0))
		k, v = c.Prev()
		at(t, when+": Prev from the first key", k, v, nil)
		k, v = c.Last()
		at(t, when+": Last", k, v, seqKey(n-1))
		k, v = c.Next()
		at(t, when+": Next from the last key", k, v, nil)
		// Seek: at a key, between keys, before the first, past the last.
		for _, tc := range []struct {
			seek []byte
			want []byte
		}{
			{seqKey(0), seqKey(0)},
			{seqKey(500), seqKey(500)},
			{append(seqKey(500), 0x00), seqKey(501)},
			{seqKey(n - 1), seqKey(n - 1)},
			{nil, seqKey(0)},
			{[]byte{}, seqKey(0)},
			{[]byte{0x00}, seqKey(0)},
			{[]byte("key"), seqKey(0)},
			{[]byte("key0049"), seqKey(490)},
			{append(seqKey(n-1), 0x00), nil},
			{[]byte("kez"), nil},
			{[]byte{0xff, 0xff}, nil},
		} {
			k, v := c.Seek(tc.seek)
			at(t, fmt.Sprintf("%s: Seek(%q)", when, tc.seek), k, v, tc.want)
			if tc.want != nil && !bytes.Equal(v, seqValue(int(atoi(tc.want[3:])))) {
				t.Errorf("%s: Seek(%q) value %q", when, tc.seek, v)
			}
		}
		// From a Seek, both ways, across pages.
		if k, _ = c.Seek(seqKey(300)); !bytes.Equal(k, seqKey(300)) {
			t.Errorf("%s: Seek(%q) landed on %q", when, seqKey(300), k)
		}
		for i := 299; i >= 250; i-- {
			k, v = c.Prev()
			at(t, when+": Prev after Seek", k, v, seqKey(i))
		}
		for i := 251; i <= 320; i++ {
			k, v = c.Next()
			at(t, when+": Next after Prev", k, v, seqKey(i))
		}
		// Every key, each way, with its value.
		i := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !bytes.Equal(k, seqKey(i)) || !bytes.Equal(v, seqValue(i)) {
				t.Fatalf("%s: forward walk: key %d is %q=%.20q", when, i, k, v)
			}
			i++
		}
		if i != n {
			t.Errorf("%s: forward walk saw %d keys, want %d", when, i, n)
		}
		i = n - 1
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if !bytes.Equal(k, seqKey(i)) || !bytes.Equal(v, seqValue(i)) {
				t.Fatalf("%s: backward walk: key %d is %q=%.20q", when, i, k, v)
			}
			i--
		}
		if i != -1 {
			t.Errorf("%s: backward walk stopped at %d, want -1", when, i)
		}
		// Many cursors at once, independent.
		c1, c2 := b.Cursor(), b.Cursor()
		if k1, _ := c1.Seek(seqKey(10)); !bytes.Equal(k1, seqKey(10)) {
			t.Errorf("%s: a first cursor's Seek landed on %q", when, k1)
		}
		if k2, _ := c2.Seek(seqKey(20)); !bytes.Equal(k2, seqKey(20)) {
			t.Errorf("%s: a second cursor's Seek landed on %q", when, k2)
		}
		k1, _ := c1.Next()
		k2, _ := c2.Prev()
		if !bytes.Equal(k1, seqKey(11)) || !bytes.Equal(k2, seqKey(19)) {
			t.Errorf("%s: two cursors at once: at %q and %q, want %q and %q", when, k1, k2, seqKey(11), seqKey(19))
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "c")
		for _, i := range rand.New(rand.NewPCG(2, 29)).Perm(n) {
			if err := b.Put(seqKey(i), seqValue(i)); err != nil {
				t.Fatalf("Put: %v", err)
			}
		}
		check("in the writing transaction", b)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", bucket(t, tx, "c"))
		return nil
	})
}

// atoi reads the decimal digits of b.
func atoi(b []byte) int64 {
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	return n
}

func testCursorDelete(t *testing.T, s *suite) {
	st := s.fresh(t)
	const n = 1000
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "c")
		for i := range n {
			if err := b.Put(seqKey(i), seqValue(i)); err != nil {
				t.Fatalf("Put: %v", err)
			}
		}
		nested(t, b, "zz-bucket")
		return nil
	})
	var want []entry
	for i := range n {
		if i%3 != 0 && (i < 400 || i >= 600) && i != 800 && i != 802 {
			want = append(want, mkEntry(seqKey(i), seqValue(i)))
		}
	}
	want = append(want, entry{k: "zz-bucket", bucket: true})
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "c")
		c := b.Cursor()
		// Delete as the cursor walks: every third key. Next after a
		// Delete lands on the key after the deleted one.
		i := 0
		for k, _ := c.First(); k != nil && bytes.HasPrefix(k, []byte("key")); k, _ = c.Next() {
			if !bytes.Equal(k, seqKey(i)) {
				t.Fatalf("walk deleting every third key: at %q, want %q", k, seqKey(i))
			}
			if i%3 == 0 {
				if err := c.Delete(); err != nil {
					t.Fatalf("Cursor.Delete: %v", err)
				}
			}
			i++
		}
		if i != n {
			t.Fatalf("walk deleting every third key saw %d keys, want %d", i, n)
		}
		// Delete a range: every key from 400 to 599.
		end := seqKey(600)
		for k, _ := c.Seek(seqKey(400)); k != nil && bytes.Compare(k, end) < 0; k, _ = c.Next() {
			if err := c.Delete(); err != nil {
				t.Fatalf("Cursor.Delete: %v", err)
			}
		}
		if got := b.Get(seqKey(450)); got != nil {
			t.Errorf("Get of a key deleted by a cursor = %.20q, want nil", got)
		}
		// Delete twice deletes one key; Prev after a Delete lands on the
		// key before the deleted one. (801 and 804 went above.)
		k, _ := c.Seek(seqKey(802))
		at(t, "Seek(802)", k, nil, seqKey(802))
		for range 2 {
			if err := c.Delete(); err != nil {
				t.Fatalf("Cursor.Delete: %v", err)
			}
		}
		k, _ = c.Prev()
		at(t, "Prev after Delete", k, nil, seqKey(800))
		k, _ = c.Next()
		at(t, "Next after Delete, then Prev", k, nil, seqKey(803))
		k, _ = c.Prev()
		at(t, "Prev", k, nil, seqKey(800))
		if err := c.Delete(); err != nil {
			t.Fatalf("Cursor.Delete: %v", err)
		}
		k, _ = c.Next()
		at(t, "Next after Delete", k, nil, seqKey(803))
		// A nested bucket is not deleted through a cursor.
		k, _ = c.Seek([]byte("zz-bucket"))
		if string(k) != "zz-bucket" {
			t.Fatalf("Seek(zz-bucket) = %q", k)
		}
		if err := c.Delete(); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Cursor.Delete on a nested bucket: %v, want %v", err, storage.ErrIncompatibleValue)
		}
		sameEntries(t, "in the writing transaction", forward(b.Cursor()), want)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "c")
		sameEntries(t, "after the commit", forward(b.Cursor()), want)
		sameEntries(t, "after the commit, backwards", backward(b.Cursor()), reversed(want))
		if n := b.KeyCount(); n != len(want) {
			t.Errorf("KeyCount %d, want %d", n, len(want))
		}
		return nil
	})
}

func testKeyCount(t *testing.T, s *suite) {
	st := s.fresh(t)
	count := func(when string, b storage.Bucket, want int) {
		t.Helper()
		if n := b.KeyCount(); n != want {
			t.Errorf("%s: KeyCount %d, want %d", when, n, want)
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		count("a new bucket", b, 0)
		put(t, b, "a", "1")
		put(t, b, "b", "2")
		put(t, b, "c", "")
		sub := nested(t, b, "sub")
		for i := range 10 {
			put(t, sub, fmt.Sprint(i), "x")
		}
		nested(t, sub, "deeper")
		nested(t, b, "sub2")
		count("three values and two buckets", b, 5)
		count("the nested bucket", sub, 11)
		put(t, b, "a", "overwritten")
		count("after an overwrite", b, 5)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		count("after the commit", bucket(t, tx, "b"), 5)
		return nil
	})
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if err := b.Delete([]byte("b")); err != nil {
			t.Fatal(err)
		}
		if err := b.DeleteBucket([]byte("sub")); err != nil {
			t.Fatal(err)
		}
		count("after deleting a value and a bucket", b, 3)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		count("after that commit", bucket(t, tx, "b"), 3)
		return nil
	})
}

func testReuseBuffers(t *testing.T, s *suite) {
	st := s.fresh(t)
	const n = 200
	check := func(when string, b storage.Bucket) {
		t.Helper()
		for i := range n {
			k := binary.BigEndian.AppendUint32([]byte("r"), uint32(i))
			if got, want := b.Get(k), fmt.Sprintf("value %d", i); string(got) != want {
				t.Fatalf("%s: key %d = %q, want %q", when, i, got, want)
			}
		}
		if b.Bucket([]byte("named")) == nil || b.Bucket([]byte("XXXXX")) != nil {
			t.Errorf("%s: the bucket whose name's buffer was reused is not named as it was made", when)
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		// One buffer for every key and one for every value, as a loop
		// that encodes its records into a scratch buffer does.
		var kb, vb []byte
		for i := range n {
			kb = binary.BigEndian.AppendUint32(append(kb[:0], 'r'), uint32(i))
			vb = fmt.Appendf(vb[:0], "value %d", i)
			if err := b.Put(kb, vb); err != nil {
				t.Fatalf("Put: %v", err)
			}
		}
		for i := range kb {
			kb[i] = 0xee
		}
		for i := range vb {
			vb[i] = 0xee
		}
		name := []byte("named")
		if _, err := b.CreateBucket(name); err != nil {
			t.Fatal(err)
		}
		copy(name, "XXXXX")
		check("in the writing transaction", b)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", bucket(t, tx, "b"))
		return nil
	})
}

// bigValue is n bytes that a backend cannot pass off by compressing or
// truncating: a fixed pseudo-random stream.
func bigValue(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 29))
	v := make([]byte, n)
	for i := 0; i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		copy(v[i:], w[:])
	}
	return v
}

func testLargeValues(t *testing.T, s *suite) {
	st := s.fresh(t)
	big := bigValue(8<<20, 3)
	mid := bigValue(1<<20+17, 4)
	check := func(when string, tx storage.Tx) {
		t.Helper()
		b := bucket(t, tx, "b")
		if got := b.Get([]byte("big")); !bytes.Equal(got, big) {
			t.Errorf("%s: the 8 MB value read back is %d bytes and differs", when, len(got))
		}
		if got := b.Bucket([]byte("sub")).Get([]byte("mid")); !bytes.Equal(got, mid) {
			t.Errorf("%s: the 1 MB value read back is %d bytes and differs", when, len(got))
		}
		c := b.Cursor()
		k, v := c.Seek([]byte("big"))
		if string(k) != "big" || !bytes.Equal(v, big) {
			t.Errorf("%s: a cursor on the 8 MB value gave %q with %d bytes", when, k, len(v))
		}
		if k, v = c.Next(); string(k) != "small" || string(v) != "s" {
			t.Errorf("%s: the key after the 8 MB value is %q=%q, want small=s", when, k, v)
		}
		vs := b.GetMany([][]byte{[]byte("a"), []byte("big")})
		if string(vs[0]) != "a" || !bytes.Equal(vs[1], big) {
			t.Errorf("%s: GetMany over the 8 MB value gave %q and %d bytes", when, vs[0], len(vs[1]))
		}
	}
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "b")
		put(t, b, "a", "a")
		if err := b.Put([]byte("big"), big); err != nil {
			t.Fatalf("Put of 8 MB: %v", err)
		}
		put(t, b, "small", "s")
		if err := nested(t, b, "sub").Put([]byte("mid"), mid); err != nil {
			t.Fatalf("Put of 1 MB: %v", err)
		}
		check("in the writing transaction", tx)
		return nil
	})
	st.view(func(tx storage.Tx) error {
		check("after the commit", tx)
		return nil
	})
	st.update(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		put(t, b, "big", "now small")
		return b.Bucket([]byte("sub")).Delete([]byte("mid"))
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "b")
		if got := b.Get([]byte("big")); string(got) != "now small" {
			t.Errorf("the overwritten 8 MB value = %.20q, want \"now small\"", got)
		}
		if got := b.Bucket([]byte("sub")).Get([]byte("mid")); got != nil {
			t.Errorf("the deleted 1 MB value is still there (%d bytes)", len(got))
		}
		return nil
	})
}

// manyKey is the i'th key of ManyKeys: big-endian, so numeric order is
// byte order.
func manyKey(i int) []byte { return binary.BigEndian.AppendUint32([]byte("m"), uint32(i)) }

func manyValue(i int) []byte { return fmt.Appendf(nil, "%d", i*7) }

func testManyKeys(t *testing.T, s *suite) {
	st := s.fresh(t)
	const n = 50000
	st.update(func(tx storage.Tx) error {
		b := create(t, tx, "many")
		// In order: bbolt holds a transaction's new keys in one sorted
		// array a leaf until the commit, so 50,000 keys in random order
		// cost it seconds of copying. Cursor and KeyOrder shuffle.
		for i := range n {
			if err := b.Put(manyKey(i), manyValue(i)); err != nil {
				t.Fatalf("Put %d: %v", i, err)
			}
		}
		if got := b.KeyCount(); got != n {
			t.Errorf("KeyCount in the writing transaction: %d, want %d", got, n)
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "many")
		i := 0
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if !bytes.Equal(k, manyKey(i)) || !bytes.Equal(v, manyValue(i)) {
				t.Fatalf("scan: key %d is %x=%q, want %x=%q", i, k, v, manyKey(i), manyValue(i))
			}
			i++
		}
		if i != n {
			t.Errorf("scan saw %d keys, want %d", i, n)
		}
		if got := b.KeyCount(); got != n {
			t.Errorf("KeyCount: %d, want %d", got, n)
		}
		k, _ := c.Seek(manyKey(n / 2))
		at(t, "Seek to the middle", k, nil, manyKey(n/2))
		k, _ = c.Last()
		at(t, "Last", k, nil, manyKey(n-1))
		var keys [][]byte
		for i := 0; i < n; i += 97 {
			keys = append(keys, manyKey(i), manyKey(n+i))
		}
		for j, v := range b.GetMany(keys) {
			if j%2 == 1 && v != nil || j%2 == 0 && !bytes.Equal(v, manyValue(j/2*97)) {
				t.Fatalf("GetMany: key %x = %q", keys[j], v)
			}
		}
		return nil
	})
	st.update(func(tx storage.Tx) error {
		c := bucket(t, tx, "many").Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if binary.BigEndian.Uint32(k[1:])%2 == 0 {
				if err := c.Delete(); err != nil {
					t.Fatalf("Cursor.Delete: %v", err)
				}
			}
		}
		return nil
	})
	st.view(func(tx storage.Tx) error {
		b := bucket(t, tx, "many")
		i := 1
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if !bytes.Equal(k, manyKey(i)) {
				t.Fatalf("after deleting the even keys: key %x, want %x", k, manyKey(i))
			}
			i += 2
		}
		if i != n+1 {
			t.Errorf("after deleting the even keys the scan ended before key %d, want %d", i, n+1)
		}
		return nil
	})
}
