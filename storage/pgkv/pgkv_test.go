package pgkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/citelens/citelens/storage/storagetest"
	"github.com/jackc/pgx/v5"
)

// backend is pgkv as the conformance suite drives it: a store is a fresh
// database in the test binary's cluster, its address the connection
// string, which the suite's child processes open too.
var backend = storagetest.Backend{
	Name: "pg",
	New:  func(t *testing.T) string { return pgtest.New(t).ConnString() },
	Open: func(addr string) (storage.DB, error) { return Open(context.Background(), addr) },
}

func TestMain(m *testing.M) {
	storagetest.Child(backend) // a kill test's child writes to its parent's cluster
	pgtest.Main(m)
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, backend)
}

// open opens a store in a fresh database.
func open(t testing.TB) (*DB, pgtest.Database) {
	t.Helper()
	d := pgtest.New(t)
	db, err := Open(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, d
}

// update runs fn in an Update and fails t on its error.
func update(t testing.TB, db storage.DB, fn func(storage.Tx) error) {
	t.Helper()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// view runs fn in a View and fails t on its error.
func view(t testing.TB, db storage.DB, fn func(storage.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// keysOf walks b forward and backward and fails t unless both walks
// agree; it returns the keys in order.
func keysOf(t *testing.T, b storage.Bucket) [][]byte {
	t.Helper()
	var fwd, back [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		fwd = append(fwd, k)
	}
	c = b.Cursor()
	for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
		back = append(back, k)
	}
	if len(fwd) != len(back) {
		t.Fatalf("%d keys forward, %d backward", len(fwd), len(back))
	}
	for i := range fwd {
		if !bytes.Equal(fwd[i], back[len(back)-1-i]) {
			t.Fatalf("key %d forward %x, backward %x", i, fwd[i], back[len(back)-1-i])
		}
	}
	return fwd
}

// TestByteOrder stores keys that a text collation or a careless prefix
// index would misorder (0x00, 0xff, prefixes of one another, keys longer
// than the index's 1024-byte head that differ only after it, a key of
// MaxKeySize) and finds them in byte order, by walks, Seek and Get.
func TestByteOrder(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	head := bytes.Repeat([]byte{'h'}, 1024)
	keys := [][]byte{
		{0x00}, {0x00, 0x00}, {0x00, 0x01}, {0x01}, {0x7f}, {0x80}, {0xff}, {0xff, 0x00}, {0xff, 0xff},
		[]byte("a"), []byte("ab"), []byte("abc"), []byte("B"), []byte("b"), []byte("é"), []byte("e\u0301"),
		head, append(head[:1024:1024], 0x00), append(head[:1024:1024], 'a'), append(head[:1024:1024], 'a', 'b'),
		append(head[:1024:1024], 0xff), append(head[:1023:1023], 'g'), append(head[:1023:1023], 'i'),
		bytes.Repeat([]byte{0xfe}, storage.MaxKeySize),
	}
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("order"))
		if err != nil {
			return err
		}
		for i, k := range keys {
			if err := b.Put(k, []byte{byte(i)}); err != nil {
				return fmt.Errorf("put %x: %w", k, err)
			}
		}
		return nil
	})
	want := make([][]byte, len(keys))
	copy(want, keys)
	sort.Slice(want, func(i, j int) bool { return bytes.Compare(want[i], want[j]) < 0 })
	view(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("order"))
		got := keysOf(t, b)
		if len(got) != len(want) {
			t.Fatalf("%d keys, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("key %d is %.20x (len %d), want %.20x (len %d)", i, got[i], len(got[i]), want[i], len(want[i]))
			}
		}
		for i, k := range keys {
			if v := b.Get(k); !bytes.Equal(v, []byte{byte(i)}) {
				t.Errorf("Get(%.20x) = %v", k, v)
			}
			// Seek to a key lands on it; to a key just below, on it too.
			if sk, _ := b.Cursor().Seek(k); !bytes.Equal(sk, k) {
				t.Errorf("Seek(%.20x) landed on %.20x", k, sk)
			}
		}
		// Seek between keys sharing the long head.
		if k, _ := b.Cursor().Seek(append(head[:1024:1024], 'a', 'a')); !bytes.Equal(k, append(head[:1024:1024], 'a', 'b')) {
			t.Errorf("Seek(head+aa) landed on %.20x… (len %d)", k, len(k))
		}
		if got := b.KeyCount(); got != len(keys) {
			t.Errorf("KeyCount = %d, want %d", got, len(keys))
		}
		return nil
	})
}

// TestValuesAndBuckets covers values (empty ones too), nested buckets and
// the seam's errors for misuse.
func TestValuesAndBuckets(t *testing.T) {
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		if !tx.Writable() {
			t.Error("an Update is not writable")
		}
		b, err := tx.CreateBucket([]byte("top"))
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket([]byte("top")); !errors.Is(err, storage.ErrBucketExists) {
			t.Errorf("CreateBucket twice: %v", err)
		}
		if again, err := tx.CreateBucketIfNotExists([]byte("top")); err != nil || again == nil {
			t.Errorf("CreateBucketIfNotExists on an existing bucket: %v, %v", again, err)
		}
		if err := b.Put([]byte("empty"), nil); err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("v1")); err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("v2")); err != nil {
			return err
		}
		if err := b.Put(nil, []byte("x")); !errors.Is(err, storage.ErrKeyRequired) {
			t.Errorf("Put of an empty key: %v", err)
		}
		if err := b.Put(make([]byte, storage.MaxKeySize+1), nil); !errors.Is(err, storage.ErrKeyTooLarge) {
			t.Errorf("Put of a key too large: %v", err)
		}
		nested, err := b.CreateBucket([]byte("nested"))
		if err != nil {
			return err
		}
		if err := nested.Put([]byte("deep"), []byte("1")); err != nil {
			return err
		}
		deeper, err := nested.CreateBucket([]byte("deeper"))
		if err != nil {
			return err
		}
		if err := deeper.Put([]byte("deepest"), []byte("2")); err != nil {
			return err
		}
		if err := b.Put([]byte("nested"), []byte("x")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Put over a bucket: %v", err)
		}
		if err := b.Delete([]byte("nested")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Delete of a bucket: %v", err)
		}
		if _, err := b.CreateBucket([]byte("k")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("CreateBucket over a value: %v", err)
		}
		if err := b.DeleteBucket([]byte("k")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("DeleteBucket of a value: %v", err)
		}
		if err := b.DeleteBucket([]byte("none")); !errors.Is(err, storage.ErrBucketNotFound) {
			t.Errorf("DeleteBucket of nothing: %v", err)
		}
		if err := b.Delete([]byte("none")); err != nil {
			t.Errorf("Delete of nothing: %v", err)
		}
		if b.Bucket([]byte("k")) != nil || b.Get([]byte("nested")) != nil {
			t.Error("a value read as a bucket or a bucket as a value")
		}
		_, err = tx.CreateBucket([]byte("other"))
		return err
	})
	// A second transaction finds it all, without the cache of the first.
	view(t, db, func(tx storage.Tx) error {
		if tx.Writable() {
			t.Error("a View is writable")
		}
		b := tx.Bucket([]byte("top"))
		if b == nil {
			t.Fatal("no top bucket")
		}
		if v := b.Get([]byte("empty")); v == nil || len(v) != 0 {
			t.Errorf("an empty value reads %#v, want empty and not nil", v)
		}
		if v := b.Get([]byte("k")); string(v) != "v2" {
			t.Errorf("k = %q", v)
		}
		if b.Get([]byte("absent")) != nil || b.Bucket([]byte("absent")) != nil || tx.Bucket([]byte("absent")) != nil {
			t.Error("something absent is there")
		}
		if got := b.Bucket([]byte("nested")).Bucket([]byte("deeper")).Get([]byte("deepest")); string(got) != "2" {
			t.Errorf("deepest = %q", got)
		}
		var names []string
		if err := tx.ForEachBucket(func(n []byte) error { names = append(names, string(n)); return nil }); err != nil {
			return err
		}
		if strings.Join(names, ",") != "other,top" {
			t.Errorf("top-level buckets %v", names)
		}
		var seen []string
		if err := b.ForEach(func(k, v []byte) error {
			seen = append(seen, fmt.Sprintf("%s=%v", k, v == nil))
			return nil
		}); err != nil {
			return err
		}
		if strings.Join(seen, ",") != "empty=false,k=false,nested=true" {
			t.Errorf("ForEach saw %v", seen)
		}
		if err := b.Put([]byte("k"), nil); !errors.Is(err, storage.ErrTxNotWritable) {
			t.Errorf("Put in a View: %v", err)
		}
		if _, err := tx.CreateBucket([]byte("x")); !errors.Is(err, storage.ErrTxNotWritable) {
			t.Errorf("CreateBucket in a View: %v", err)
		}
		if _, err := b.NextSequence(); !errors.Is(err, storage.ErrTxNotWritable) {
			t.Errorf("NextSequence in a View: %v", err)
		}
		if err := b.Cursor().Delete(); !errors.Is(err, storage.ErrTxNotWritable) {
			t.Errorf("Cursor.Delete in a View: %v", err)
		}
		return nil
	})
	// Deleting a bucket deletes everything below it, rows and all.
	update(t, db, func(tx storage.Tx) error {
		if err := tx.Bucket([]byte("top")).DeleteBucket([]byte("nested")); err != nil {
			return err
		}
		if tx.Bucket([]byte("top")).Bucket([]byte("nested")) != nil {
			t.Error("a deleted bucket is still there in its transaction")
		}
		return tx.DeleteBucket([]byte("other"))
	})
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var buckets, entries int
	if err := conn.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM citelens_buckets), (SELECT count(*) FROM citelens_entries)").Scan(&buckets, &entries); err != nil {
		t.Fatal(err)
	}
	// The root and top; top's two values and its entry in the root.
	if buckets != 2 || entries != 3 {
		t.Errorf("%d buckets and %d entries left, want 2 and 3", buckets, entries)
	}
}

// TestSequenceAndID: counters and the store's version are kept by a
// commit and only by a commit.
func TestSequenceAndID(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	var id0 uint64
	view(t, db, func(tx storage.Tx) error { id0 = tx.ID(); return nil })
	update(t, db, func(tx storage.Tx) error {
		if tx.ID() != id0+1 {
			t.Errorf("a write's ID %d after %d", tx.ID(), id0)
		}
		b, err := tx.CreateBucket([]byte("s"))
		if err != nil {
			return err
		}
		n, err := b.CreateBucket([]byte("n"))
		if err != nil {
			return err
		}
		for i := 1; i <= 3; i++ {
			if got, err := b.NextSequence(); err != nil || got != uint64(i) {
				t.Errorf("NextSequence = %d, %v; want %d", got, err, i)
			}
		}
		return n.SetSequence(1 << 63)
	})
	err := db.Update(func(tx storage.Tx) error {
		if _, err := tx.Bucket([]byte("s")).NextSequence(); err != nil {
			return err
		}
		return errors.New("no")
	})
	if err == nil || err.Error() != "no" {
		t.Fatalf("a failing Update returned %v", err)
	}
	view(t, db, func(tx storage.Tx) error {
		if tx.ID() != id0+1 {
			t.Errorf("ID %d after one committed write from %d", tx.ID(), id0)
		}
		b := tx.Bucket([]byte("s"))
		if b.Sequence() != 3 || b.Bucket([]byte("n")).Sequence() != 1<<63 {
			t.Errorf("sequences %d and %d, want 3 and 2^63", b.Sequence(), b.Bucket([]byte("n")).Sequence())
		}
		return nil
	})
}

// TestRollback: fn's error or panic keeps nothing.
func TestRollback(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	update(t, db, func(tx storage.Tx) error {
		_, err := tx.CreateBucket([]byte("b"))
		return err
	})
	boom := errors.New("boom")
	if err := db.Update(func(tx storage.Tx) error {
		tx.Bucket([]byte("b")).Put([]byte("k"), []byte("v"))
		tx.CreateBucket([]byte("c"))
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("Update returned %v, want fn's error", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("fn's panic did not come out of Update")
			}
		}()
		db.Update(func(tx storage.Tx) error {
			tx.Bucket([]byte("b")).Put([]byte("k2"), []byte("v"))
			panic("panic in fn")
		})
	}()
	view(t, db, func(tx storage.Tx) error {
		if tx.Bucket([]byte("c")) != nil || tx.Bucket([]byte("b")).KeyCount() != 0 {
			t.Error("a failed Update left something")
		}
		return nil
	})
}

// TestCursorPages walks a bucket of more keys than a page holds, both
// ways, with seeks between, and sees the transaction's own writes made
// while the cursor walks; a cursor's Delete walks on to the next key.
func TestCursorPages(t *testing.T) {
	db, _ := open(t)
	const n = 3000
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := 0; i < n; i += 2 { // even keys
			if err := b.Put(key(i), key(i)); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if got := len(keysOf(t, b)); got != n/2 {
			t.Errorf("walked %d keys, want %d", got, n/2)
		}
		c := b.Cursor()
		if k, v := c.Seek(key(1001)); !bytes.Equal(k, key(1002)) || !bytes.Equal(v, key(1002)) {
			t.Errorf("Seek(1001) = %s", k)
		}
		if k, _ := c.Prev(); !bytes.Equal(k, key(1000)) {
			t.Errorf("Prev = %s", k)
		}
		if k, _ := c.Seek(key(n)); k != nil {
			t.Errorf("Seek past the end = %s", k)
		}
		if k, _ := c.Prev(); !bytes.Equal(k, key(n-2)) {
			t.Errorf("Prev after a Seek past the end = %s, want the last", k)
		}
		if k, _ := c.Next(); k != nil {
			t.Errorf("Next from the last = %s", k)
		}
		if k, _ := c.Prev(); !bytes.Equal(k, key(n-4)) {
			t.Errorf("Prev after Next ran out = %s, want the one before the last", k)
		}
		if k, _ := c.First(); !bytes.Equal(k, key(0)) {
			t.Errorf("First = %s", k)
		}
		if k, _ := c.Prev(); k != nil {
			t.Errorf("Prev from the first = %s", k)
		}
		if k, _ := c.Next(); !bytes.Equal(k, key(2)) {
			t.Errorf("Next after Prev ran out = %s, want the second", k)
		}
		return nil
	})
	update(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		c := b.Cursor()
		i := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if !bytes.Equal(k, key(i)) {
				t.Fatalf("at %s, want %s", k, key(i))
			}
			// Add the odd key after this one: the walk must see it.
			if i%2 == 0 && i+1 < n {
				if err := b.Put(key(i+1), nil); err != nil {
					return err
				}
			}
			i++
		}
		if i != n {
			t.Errorf("walked %d keys while adding, want %d", i, n)
		}
		// Delete every key whose number ends in 7, by the cursor.
		deleted := 0
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if k[len(k)-1] == '7' {
				if err := c.Delete(); err != nil {
					return err
				}
				deleted++
			}
		}
		if deleted != n/10 || b.KeyCount() != n-n/10 {
			t.Errorf("deleted %d, %d keys left", deleted, b.KeyCount())
		}
		if b.Get(key(17)) != nil || b.Get(key(18)) == nil {
			t.Error("the cursor deleted the wrong keys")
		}
		// And the rest, all of them.
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		if b.KeyCount() != 0 {
			t.Errorf("%d keys left after deleting all", b.KeyCount())
		}
		return nil
	})
}

// TestGetMany reads present, absent, repeated and bucket keys in one call.
func TestGetMany(t *testing.T) {
	db, _ := open(t)
	long := bytes.Repeat([]byte{'x'}, 2000)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		b.Put([]byte("a"), []byte("1"))
		b.Put([]byte("c"), []byte{})
		b.Put(long, []byte("long"))
		_, err = b.CreateBucket([]byte("sub"))
		return err
	})
	view(t, db, func(tx storage.Tx) error {
		got := tx.Bucket([]byte("b")).GetMany([][]byte{[]byte("c"), []byte("zz"), []byte("a"), nil, []byte("sub"), []byte("a"), long})
		want := []string{"", "<nil>", "1", "<nil>", "<nil>", "1", "long"}
		for i := range want {
			s := string(got[i])
			if got[i] == nil {
				s = "<nil>"
			}
			if s != want[i] {
				t.Errorf("GetMany[%d] = %q, want %q", i, s, want[i])
			}
		}
		return nil
	})
}

// TestWritersSerialise: writers from two DBs on one database run one at
// a time and lose no increment; one that must wait says so.
func TestWritersSerialise(t *testing.T) {
	t.Parallel()
	db1, d := open(t)
	var waited atomic.Int32
	db2, err := OpenOptions(context.Background(), d.URL(), Options{Waiting: func() { waited.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	update(t, db1, func(tx storage.Tx) error {
		_, err := tx.CreateBucket([]byte("c"))
		return err
	})
	const each = 25
	var wg sync.WaitGroup
	for _, db := range []*DB{db1, db2, db1, db2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := db.Update(func(tx storage.Tx) error {
					b := tx.Bucket([]byte("c"))
					var n int
					fmt.Sscan(string(b.Get([]byte("n"))), &n)
					return b.Put([]byte("n"), []byte(fmt.Sprint(n+1)))
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	view(t, db1, func(tx storage.Tx) error {
		if got := string(tx.Bucket([]byte("c")).Get([]byte("n"))); got != fmt.Sprint(4*each) {
			t.Errorf("counter %s after %d increments", got, 4*each)
		}
		if tx.ID() != 4*each+1 {
			t.Errorf("ID %d after %d writes", tx.ID(), 4*each+1)
		}
		return nil
	})
	// Make db2 wait for certain: db1 holds the lock until db2 has said
	// it waits.
	before := waited.Load()
	holding, release := make(chan struct{}), make(chan struct{})
	go func() {
		db1.Update(func(tx storage.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	done := make(chan error)
	go func() { done <- db2.Update(func(storage.Tx) error { return nil }) }()
	deadline := time.After(10 * time.Second)
	for waited.Load() == before {
		select {
		case <-deadline:
			t.Fatal("a writer behind another did not say it waits")
		case err := <-done:
			t.Fatalf("a writer finished while another held the lock (%v)", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReaderDoesNotWait: a View runs and ends while an Update holds the
// writer lock, and sees the snapshot from before the Update's commit.
func TestReaderDoesNotWait(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("old"))
	})
	holding, release, written := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		written <- db.Update(func(tx storage.Tx) error {
			if err := tx.Bucket([]byte("b")).Put([]byte("k"), []byte("new")); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	viewed := make(chan error)
	go func() {
		viewed <- db.View(func(tx storage.Tx) error {
			if v := tx.Bucket([]byte("b")).Get([]byte("k")); string(v) != "old" {
				return fmt.Errorf("a reader saw %q before the writer committed", v)
			}
			return nil
		})
	}()
	select {
	case err := <-viewed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a View waited for an Update")
	}
	// A snapshot stays: a View begun now, reading after the commit, sees
	// the old value still.
	inView, committed := make(chan struct{}), make(chan struct{})
	go func() {
		viewed <- db.View(func(tx storage.Tx) error {
			b := tx.Bucket([]byte("b"))
			close(inView)
			<-committed
			if v := b.Get([]byte("k")); string(v) != "old" {
				return fmt.Errorf("a snapshot taken before a commit saw %q", v)
			}
			return nil
		})
	}()
	<-inView
	close(release)
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	close(committed)
	if err := <-viewed; err != nil {
		t.Error(err)
	}
}

// TestConnectionErrors: a failed connection names the server and the
// database and never the password, whatever form the string takes.
func TestConnectionErrors(t *testing.T) {
	t.Parallel()
	dead := t.TempDir()
	const pw = "Sw0rdf1sh-secret"
	for _, cs := range []string{
		"postgres://alice:" + pw + "@/librarydb?host=" + dead + "&connect_timeout=5",
		"host=" + dead + " dbname=librarydb user=alice password=" + pw + " connect_timeout=5",
		"postgres://alice:" + pw + "@/librarydb?host=" + dead + "&sslmode=bogus", // a parse error
	} {
		_, err := Open(context.Background(), cs)
		if err == nil {
			t.Fatalf("Open(%q) succeeded", cs)
		}
		msg := err.Error()
		if strings.Contains(msg, pw) {
			t.Errorf("the error shows the password: %s", msg)
		}
		if !strings.Contains(msg, "librarydb") {
			t.Errorf("the error does not name the database: %s", msg)
		}
		if !strings.Contains(cs, "bogus") && !strings.Contains(msg, dead) {
			t.Errorf("the error does not name the host: %s", msg)
		}
	}
	// A wrong password is refused (trust accepts any, so ask for a role
	// that does not exist instead), again without the password.
	d := pgtest.New(t)
	_, err := Open(context.Background(), fmt.Sprintf("host=%s port=%d dbname=%s user=nobody password=%s", d.Host, pgtest.Port, d.Name, pw))
	if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), d.Name) {
		t.Errorf("Open as an unknown role: %v", err)
	}
}

// TestLostConnection: a read whose connection dies makes the View fail,
// though the read could only answer nil.
func TestLostConnection(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	})
	admin, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	err = db.View(func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if _, err := admin.Exec(context.Background(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'", d.Name); err != nil {
			return err
		}
		if v := b.Get([]byte("k")); v != nil {
			return fmt.Errorf("read %q over a dead connection", v)
		}
		if k, _ := b.Cursor().Seek([]byte("k")); k != nil {
			return errors.New("a cursor moved over a dead connection")
		}
		return nil // as if the key were absent
	})
	if err == nil || !strings.Contains(err.Error(), "reading a key") {
		t.Errorf("View over a dead connection returned %v", err)
	}
	// The pool has dropped the dead connection: the store still works.
	view(t, db, func(tx storage.Tx) error {
		if v := tx.Bucket([]byte("b")).Get([]byte("k")); string(v) != "v" {
			t.Errorf("after a lost connection k = %q", v)
		}
		return nil
	})
}

// TestSchema: Open makes the tables once, a second Open finds them, and
// a store of a newer schema is refused, saying so.
func TestSchema(t *testing.T) {
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		_, err := tx.CreateBucket([]byte("kept"))
		return err
	})
	db2, err := Open(context.Background(), d.URL())
	if err != nil {
		t.Fatal(err)
	}
	view(t, db2, func(tx storage.Tx) error {
		if tx.Bucket([]byte("kept")) == nil {
			t.Error("a second Open lost the bucket")
		}
		return nil
	})
	db2.Close()
	admin, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(context.Background(), "UPDATE citelens_meta SET schema_version = $1", schemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), d.ConnString())
	if err == nil || !strings.Contains(err.Error(), "newer citelens") || !strings.Contains(err.Error(), d.Name) {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

// TestPlans: the statements a cursor and Get send use the entries'
// index, in custom and generic plans alike, over a bucket too big to
// sort whole.
func TestPlans(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := b.Put(fmt.Appendf(nil, "%06d", i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ANALYZE citelens_entries"); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRow(ctx, "SELECT child FROM citelens_entries WHERE bucket = 0").Scan(&id); err != nil {
		t.Fatal(err)
	}
	// PREPARE and EXPLAIN EXECUTE, so that plan_cache_mode applies as to
	// pgx's prepared statements.
	k := `'\x303031303030'::bytea`
	statements := map[string][2]string{
		"qFrom":    {qFrom, fmt.Sprintf("%d, %s, 256", id, k)},
		"qAfter":   {qAfter, fmt.Sprintf("%d, %s, 256", id, k)},
		"qBefore":  {qBefore, fmt.Sprintf("%d, %s, 256", id, k)},
		"qLast":    {qLast, fmt.Sprintf("%d, 256", id)},
		"qGet":     {qGet, fmt.Sprintf("%d, %s", id, k)},
		"qGetMany": {qGetMany, fmt.Sprintf("%d, ARRAY[%s, %s]", id, k, `'\x303030303037'::bytea`)},
		"qLookup":  {qLookup, fmt.Sprintf("%d, %s", id, k)},
	}
	fullSort := regexp.MustCompile(`(^|->)\s*Sort\s`)
	for name, st := range statements {
		if _, err := conn.Exec(ctx, "PREPARE "+name+" AS "+st[0]); err != nil {
			t.Fatal(name, err)
		}
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.Query(ctx, "EXPLAIN EXECUTE "+name+"("+st[1]+")", pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(name, err)
			}
			var plan []string
			for rows.Next() {
				var line string
				rows.Scan(&line)
				plan = append(plan, line)
			}
			if rows.Err() != nil {
				t.Fatal(name, rows.Err())
			}
			p := strings.Join(plan, "\n")
			if !strings.Contains(p, "citelens_entries_key") || strings.Contains(p, "Seq Scan") || fullSort.MatchString(p) {
				t.Errorf("%s (%s) plan:\n%s", name, mode, p)
			}
		}
	}
}

// TestSharedHeads: keys longer than the index's head that share it come
// from the server in any order; walks see them in byte order whether a
// page ends inside their run or the run fills whole pages, between
// short keys before and after.
func TestSharedHeads(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	head := bytes.Repeat([]byte{'h'}, headLen)
	want := [][]byte{[]byte("a"), []byte("h"), []byte("z")}
	// 20 keys before the run so the first page (32 rows) ends inside
	// it, then a run of 150 keys (more than the second page, 64).
	for i := range 20 {
		want = append(want, fmt.Appendf(nil, "b%03d", i))
	}
	for i := range 150 {
		// Tails that sort differently from their insertion order and
		// their digests.
		want = append(want, append(head[:headLen:headLen], fmt.Appendf(nil, "%03d", (i*37)%150)...))
	}
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for _, k := range want {
			v := k
			if len(k) > headLen {
				v = k[headLen:]
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	sort.Slice(want, func(i, j int) bool { return bytes.Compare(want[i], want[j]) < 0 })
	view(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		got := keysOf(t, b)
		if len(got) != len(want) {
			t.Fatalf("%d keys, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("key %d is …%s, want …%s", i, got[i][max(0, len(got[i])-4):], want[i][max(0, len(want[i])-4):])
			}
		}
		// Seek into the run and walk on: a first page wholly inside it.
		c := b.Cursor()
		k, v := c.Seek(append(head[:headLen:headLen], "0995"...))
		for i := 100; i < 150; i++ {
			if want := fmt.Sprintf("%03d", i); !bytes.Equal(v, []byte(want)) {
				t.Fatalf("walking the run from its middle: %q where %q", v, want)
			}
			k, v = c.Next()
		}
		if string(k) != "z" {
			t.Errorf("after the run: %q", k)
		}
		return nil
	})
}

// TestManyNestedBuckets: in a bucket of more nested buckets than a
// transaction keeps the names of, writes are sent one by one and still
// refused over a nested bucket.
func TestManyNestedBuckets(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range maxChildren + 1 {
			if _, err := b.CreateBucket(fmt.Appendf(nil, "n%04d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if err := b.Put([]byte("v"), []byte("1")); err != nil {
			return err
		}
		if !b.(*bucket).st.asking {
			t.Error("a bucket of more than maxChildren nested buckets is not written one key at a time")
		}
		if err := b.Put([]byte("n0500"), []byte("1")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Put over a nested bucket: %v", err)
		}
		if err := b.Delete([]byte("n0999")); !errors.Is(err, storage.ErrIncompatibleValue) {
			t.Errorf("Delete of a nested bucket: %v", err)
		}
		if err := b.Put([]byte("w"), []byte("2")); err != nil {
			return err
		}
		return b.Delete([]byte("v"))
	})
	view(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if b.Get([]byte("v")) != nil || string(b.Get([]byte("w"))) != "2" || b.Bucket([]byte("n0500")) == nil || b.KeyCount() != maxChildren+2 {
			t.Errorf("v=%q w=%q, %d keys", b.Get([]byte("v")), b.Get([]byte("w")), b.KeyCount())
		}
		return nil
	})
}

// TestWaitingWriteMeetsABucket: should a write that waits to be sent
// meet a bucket after all (one made behind the writer lock's back), the
// table's CHECK fails it and the transaction commits nothing, rather
// than turn the bucket into a value.
func TestWaitingWriteMeetsABucket(t *testing.T) {
	t.Parallel()
	db, d := open(t)
	update(t, db, func(tx storage.Tx) error {
		_, err := tx.CreateBucket([]byte("b"))
		return err
	})
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	err = db.Update(func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if err := b.Put([]byte("a"), []byte("1")); err != nil { // waits; the bucket has no nested ones
			return err
		}
		if _, err := admin.Exec(ctx, `WITH n AS (INSERT INTO citelens_buckets (parent) VALUES ($1) RETURNING id)
			INSERT INTO citelens_entries (bucket, key, child) SELECT $1, 'sneaked', id FROM n`, b.(*bucket).st.id); err != nil {
			return err
		}
		return b.Put([]byte("sneaked"), []byte("value"))
	})
	if err == nil || !strings.Contains(err.Error(), "citelens_entries_value_or_bucket") {
		t.Errorf("Update over a bucket it did not know of: %v", err)
	}
	view(t, db, func(tx storage.Tx) error {
		b := tx.Bucket([]byte("b"))
		if b.Get([]byte("a")) != nil || b.Bucket([]byte("sneaked")) == nil {
			t.Error("the failed transaction kept a write, or the bucket was overwritten")
		}
		return nil
	})
}

// TestEndedTx: a bucket kept past its transaction reads nothing and
// writes nothing, rather than use a connection back in the pool.
func TestEndedTx(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	var kept storage.Bucket
	update(t, db, func(tx storage.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		kept = b
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte("v"))
	})
	if v := kept.Get([]byte("k")); v != nil {
		t.Errorf("Get after the transaction = %q", v)
	}
	if err := kept.Put([]byte("k"), []byte("w")); !errors.Is(err, errEnded) {
		t.Errorf("Put after the transaction: %v", err)
	}
	if k, _ := kept.Cursor().First(); k != nil {
		t.Errorf("a cursor after the transaction found %q", k)
	}
}

// TestWaitingWritesKeepOrder: writes that wait are sent as runs, a
// statement a run; a key written twice, deleted then written, written
// then deleted, across two buckets in turn, ends as the last write said,
// in the transaction and after its commit.
func TestWaitingWritesKeepOrder(t *testing.T) {
	t.Parallel()
	db, _ := open(t)
	update(t, db, func(tx storage.Tx) error {
		b1, err := tx.CreateBucket([]byte("b1"))
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket([]byte("b2")); err != nil {
			return err
		}
		return b1.Put([]byte("y"), []byte("old"))
	})
	want := "b1: k=2 y=3 z=4 | b2: k=9 x=5"
	state := func(tx storage.Tx) string {
		var parts []string
		for _, name := range []string{"b1", "b2"} {
			var kv []string
			tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				kv = append(kv, string(k)+"="+string(v))
				return nil
			})
			parts = append(parts, name+": "+strings.Join(kv, " "))
		}
		return strings.Join(parts, " | ")
	}
	update(t, db, func(tx storage.Tx) error {
		b1, b2 := tx.Bucket([]byte("b1")), tx.Bucket([]byte("b2"))
		steps := []func() error{
			func() error { return b1.Put([]byte("k"), []byte("1")) },
			func() error { return b1.Put([]byte("k"), []byte("2")) }, // twice in one run
			func() error { return b1.Put([]byte("x"), []byte("1")) },
			func() error { return b1.Delete([]byte("x")) }, // written, then deleted
			func() error { return b1.Delete([]byte("y")) },
			func() error { return b1.Put([]byte("y"), []byte("3")) }, // deleted, then written
			func() error { return b2.Put([]byte("k"), []byte("9")) },
			func() error { return b1.Put([]byte("z"), []byte("4")) },
			func() error { return b2.Put([]byte("x"), []byte("5")) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		if n := len(b1.(*bucket).tx.pending); n != len(steps) {
			t.Errorf("%d writes wait, want all %d", n, len(steps))
		}
		if got := state(tx); got != want {
			t.Errorf("in the transaction: %s, want %s", got, want)
		}
		return nil
	})
	view(t, db, func(tx storage.Tx) error {
		if got := state(tx); got != want {
			t.Errorf("after the commit: %s, want %s", got, want)
		}
		return nil
	})
}
