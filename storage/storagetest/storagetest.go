// Package storagetest is the conformance suite of the storage seam: what
// every backend must do, as tests. A backend passes it or is not a
// backend; the library's code is written against what it checks and
// nothing more.
//
// # Running it
//
// A backend's tests call Run with a Backend: a name, New to make a fresh
// empty store and give its address (a file's path, a server's connection
// string), and Open to open an address:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, storagetest.Backend{
//			Name: "bolt",
//			New:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "s.db") },
//			Open: func(addr string) (storage.DB, error) { return boltkv.Open(addr, nil) },
//		})
//	}
//
// Every subtest makes its own store with New, opens it with Open and
// closes it when it ends; the subtests run in parallel. New may register
// a cleanup with t.Cleanup. The suite never opens one address twice at
// once, so a backend that locks its store (bbolt does) can pass.
//
// Two subtests kill a writer: they run the test binary again as a child
// process (os.Args[0] with -test.run naming the test that called Run, and
// the store's address in the environment), which reaches Run again, opens
// the store and writes to it until the parent kills it with SIGKILL. Run
// itself recognises the child and does its part, so nothing else is
// needed; a TestMain that must not run in the child (one that starts a
// server, say) calls Child(b) first, which does the child's part and
// exits, and returns at once in the parent.
//
// # The contract
//
// A store holds top-level buckets; a bucket holds keys, each with a value
// or a nested bucket, to any depth. What a backend guarantees, and the
// subtests that check it:
//
//   - Keys are in byte order (bytes.Compare): 0x00 and 0xff bytes, and
//     keys that are prefixes of others, in their place; top-level bucket
//     names too (KeyOrder). A cursor sees values and nested buckets in one
//     order, a nested bucket's value nil; an empty value is a non-nil
//     empty slice, so nil means a bucket (ValuesAndBuckets).
//   - Get, Put, Delete and ForEach do what bbolt's do: a transaction reads
//     its own writes; deleting a key not there is no error; ForEach stops
//     at fn's first error and returns it (GetPutDelete). GetMany is Get
//     for many keys, nil for each absent one, in their order (GetMany).
//   - A cursor's First, Last, Next, Prev and Seek land on keys in order; a
//     move past either end, or a Seek past the last key, returns a nil
//     key, after which only First, Last or Seek place the cursor again
//     (Cursor). Cursor.Delete removes the key the cursor is on, and Next
//     then lands on the key after it, so a loop may delete as it walks
//     (CursorDelete). After a write through the bucket rather than the
//     cursor, a cursor must be placed again before it moves.
//   - Nested buckets are made, found and deleted at any depth; deleting
//     one deletes all it holds; one made again under the same name is
//     empty (NestedBuckets).
//   - A bucket's sequence starts at 0, holds any uint64, and is written
//     and rolled back with the transaction like a key (Sequences).
//     KeyCount counts the values and buckets directly in a bucket, the
//     transaction's own writes included (KeyCount).
//   - Misuse fails with the storage package's errors (errors.Is), and an
//     error changes nothing and leaves the transaction usable: its other
//     writes still commit (Errors, WriteInReadTx).
//   - Update keeps all of fn's writes or none: none when fn returns an
//     error or panics, and the panic goes on to Update's caller
//     (AtomicCommit, PanicRollsBack).
//   - A read transaction sees one snapshot: a writer that commits while it
//     is open changes nothing it sees, and a read begun after the commit
//     sees all of it (Snapshot); nobody sees a write before its commit
//     (Uncommitted). A writer must be able to commit while reads are open.
//   - Writers are serialised: an Update reads the latest commit and no
//     other commit comes between its reads and its own, so a read, then a
//     write, in one Update is never lost (WritersSerialize). A backend that
//     gets there by retrying must not run fn twice.
//   - Tx.ID grows with every commit and with nothing else; a write's ID is
//     the one the reads after its commit see (TxID).
//   - Put's key and value belong to the caller again when Put returns
//     (ReuseBuffers). Values of 8 MB and keys of storage.MaxKeySize
//     bytes are taken (LargeValues, GetPutDelete); 50,000 keys written in
//     one transaction are read back in order (ManyKeys). What is committed
//     is there when the store is opened again (Reopen).
//   - A process killed while it writes leaves the store as if the
//     transaction had never begun, or, when it was past its commit, with
//     all of it; the store opens again, readable and writable
//     (KilledMidTransaction, KilledWhileCommitting). This is about the
//     process dying; a machine losing power is the backend's own promise.
package storagetest

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
)

// Backend is a storage backend as the suite drives it.
type Backend struct {
	// Name names the backend in failures and tells a child process
	// which backend it is for.
	Name string
	// New makes a fresh, empty store and returns its address. It runs
	// once a subtest, in the subtest; it may register cleanups on t.
	New func(t *testing.T) string
	// Open opens the store at addr. The suite closes what it opens, and
	// opens an address again only after closing it (or after the process
	// holding it was killed).
	Open func(addr string) (storage.DB, error)
}

// suite is one Run: the backend, and the -test.run pattern that brings a
// child process back to it.
type suite struct {
	b   Backend
	run string
}

// Run runs the conformance suite against b, a subtest each property, in
// parallel. In a child process started by one of its subtests, it does
// the child's part instead and exits (see Child).
func Run(t *testing.T, b Backend) {
	Child(b)
	if os.Getenv(envChild) != "" {
		t.Skipf("storagetest: a child process for backend %q, not %q", os.Getenv(envBackend), b.Name)
	}
	if b.Name == "" || b.New == nil || b.Open == nil {
		t.Fatal("storagetest: a Backend needs a Name, New and Open")
	}
	s := &suite{b: b, run: runPattern(t.Name())}
	for _, c := range []struct {
		name string
		fn   func(*testing.T, *suite)
	}{
		{"KeyOrder", testKeyOrder},
		{"ValuesAndBuckets", testValuesAndBuckets},
		{"GetPutDelete", testGetPutDelete},
		{"GetMany", testGetMany},
		{"Cursor", testCursor},
		{"CursorDelete", testCursorDelete},
		{"NestedBuckets", testNestedBuckets},
		{"Sequences", testSequences},
		{"KeyCount", testKeyCount},
		{"Errors", testErrors},
		{"WriteInReadTx", testWriteInReadTx},
		{"AtomicCommit", testAtomicCommit},
		{"PanicRollsBack", testPanicRollsBack},
		{"Snapshot", testSnapshot},
		{"Uncommitted", testUncommitted},
		{"WritersSerialize", testWritersSerialize},
		{"TxID", testTxID},
		{"ReuseBuffers", testReuseBuffers},
		{"LargeValues", testLargeValues},
		{"ManyKeys", testManyKeys},
		{"Reopen", testReopen},
		{"KilledMidTransaction", testKilledMidTransaction},
		{"KilledWhileCommitting", testKilledWhileCommitting},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, s)
		})
	}
}

// runPattern is the -test.run pattern that runs the test named name and
// no other: each level of the name anchored and quoted.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// store is a subtest's store: its address and the DB open on it.
type store struct {
	t    *testing.T
	b    Backend
	addr string
	db   storage.DB
}

// fresh makes and opens a new store, closed when the subtest ends.
func (s *suite) fresh(t *testing.T) *store {
	t.Helper()
	st := &store{t: t, b: s.b, addr: s.b.New(t)}
	st.open()
	t.Cleanup(st.close)
	return st
}

func (st *store) open() {
	st.t.Helper()
	db, err := st.b.Open(st.addr)
	if err != nil {
		st.t.Fatalf("%s: open %s: %v", st.b.Name, st.addr, err)
	}
	st.db = db
}

func (st *store) close() {
	st.t.Helper()
	if st.db == nil {
		return
	}
	err := st.db.Close()
	st.db = nil
	if err != nil {
		st.t.Errorf("%s: close %s: %v", st.b.Name, st.addr, err)
	}
}

// reopen closes the store and opens it again.
func (st *store) reopen() {
	st.t.Helper()
	st.close()
	st.open()
}

// update runs fn in a write transaction, failing the test if it fails.
func (st *store) update(fn func(storage.Tx) error) {
	st.t.Helper()
	if err := st.db.Update(fn); err != nil {
		st.t.Fatalf("Update: %v", err)
	}
}

// view runs fn in a read transaction, failing the test if it fails.
func (st *store) view(fn func(storage.Tx) error) {
	st.t.Helper()
	if err := st.db.View(fn); err != nil {
		st.t.Fatalf("View: %v", err)
	}
}

// bucket is the top-level bucket name in tx, which must be there.
func bucket(t *testing.T, tx storage.Tx, name string) storage.Bucket {
	t.Helper()
	b := tx.Bucket([]byte(name))
	if b == nil {
		t.Fatalf("bucket %q is not there", name)
	}
	return b
}

// create makes the top-level bucket name, which must not be there.
func create(t *testing.T, tx storage.Tx, name string) storage.Bucket {
	t.Helper()
	b, err := tx.CreateBucket([]byte(name))
	if err != nil {
		t.Fatalf("CreateBucket(%q): %v", name, err)
	}
	if b == nil {
		t.Fatalf("CreateBucket(%q) returned no bucket and no error", name)
	}
	return b
}

// nested makes the bucket name in b, which must not be there.
func nested(t *testing.T, b storage.Bucket, name string) storage.Bucket {
	t.Helper()
	nb, err := b.CreateBucket([]byte(name))
	if err != nil {
		t.Fatalf("CreateBucket(%q): %v", name, err)
	}
	if nb == nil {
		t.Fatalf("CreateBucket(%q) returned no bucket and no error", name)
	}
	return nb
}

// put sets key to value in b.
func put(t *testing.T, b storage.Bucket, key, value string) {
	t.Helper()
	if err := b.Put([]byte(key), []byte(value)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

// entry is a key as a cursor shows it: a value, or a nested bucket.
type entry struct {
	k, v   string
	bucket bool
}

func (e entry) String() string {
	if e.bucket {
		return fmt.Sprintf("%q:bucket", e.k)
	}
	return fmt.Sprintf("%q=%q", e.k, e.v)
}

func mkEntry(k, v []byte) entry { return entry{string(k), string(v), v == nil} }

// forward is what c shows from First to the end.
func forward(c storage.Cursor) []entry {
	var es []entry
	for k, v := c.First(); k != nil; k, v = c.Next() {
		es = append(es, mkEntry(k, v))
	}
	return es
}

// backward is what c shows from Last to the start.
func backward(c storage.Cursor) []entry {
	var es []entry
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		es = append(es, mkEntry(k, v))
	}
	return es
}

// forEach is what b.ForEach shows.
func forEach(t *testing.T, b storage.Bucket) []entry {
	t.Helper()
	var es []entry
	if err := b.ForEach(func(k, v []byte) error {
		es = append(es, mkEntry(k, v))
		return nil
	}); err != nil {
		t.Fatalf("ForEach: %v", err)
	}
	return es
}

// sameEntries fails the test when got is not want, showing where they
// part.
func sameEntries(t *testing.T, what string, got, want []entry) {
	t.Helper()
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if i == len(got) && i == len(want) {
		return
	}
	t.Errorf("%s: %d keys, want %d; from key %d:\n got  %v\n want %v", what, len(got), len(want), i, window(got, i), window(want, i))
}

// window is a few of es from i on, for a failure's message.
func window(es []entry, i int) string {
	const show = 4
	var b strings.Builder
	for j := i; j < len(es) && j < i+show; j++ {
		if e := es[j]; len(e.v) > 24 {
			e.v = e.v[:24] + "…"
			fmt.Fprint(&b, e, " ")
		} else {
			fmt.Fprint(&b, e, " ")
		}
	}
	if len(es) > i+show {
		fmt.Fprintf(&b, "and %d more", len(es)-i-show)
	} else if i >= len(es) {
		b.WriteString("(end)")
	}
	return b.String()
}

// reversed is es last first.
func reversed(es []entry) []entry {
	r := make([]entry, len(es))
	for i, e := range es {
		r[len(es)-1-i] = e
	}
	return r
}

// at fails the test unless a cursor move returned key want (nil for
// none), with a value when want is a value's key.
func at(t *testing.T, what string, k, v []byte, want []byte) {
	t.Helper()
	switch {
	case want == nil && k != nil:
		t.Errorf("%s: at %q, want past the end (nil key)", what, k)
	case want == nil && v != nil:
		t.Errorf("%s: nil key with value %q", what, v)
	case want != nil && !bytes.Equal(k, want):
		t.Errorf("%s: at %q, want %q", what, k, want)
	}
}
