package docstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
)

// backend is a kind of store a library can be in, for the tests that must
// pass in every one: the library file (Open), and any storage.DB
// (OpenStore). A backend for another store is one more row of backends.
type backend struct {
	name string
	// new returns the address of a new, empty store.
	new func(t testing.TB) string
	// open opens the library at addr.
	open func(addr string) (*Library, error)
}

// backends are the stores the tests of the library's records run in.
func backends(t testing.TB) []backend {
	t.Helper()
	tempFile := func(t testing.TB) string { return filepath.Join(t.TempDir(), "library.db") }
	return []backend{
		{name: "file", new: tempFile, open: func(addr string) (*Library, error) { return Open(addr, nil) }},
		// A bbolt file as a plain store: no handle, no markers, no page
		// walk; only the seam.
		{name: "boltkv", new: tempFile, open: func(addr string) (*Library, error) {
			db, err := boltkv.Open(addr, nil)
			if err != nil {
				return nil, err
			}
			return openOver(db, addr)
		}},
		// PostgreSQL, in the test binary's private cluster (a database
		// per test; skipped, saying why, where PostgreSQL is not
		// installed).
		{name: "postgres", new: func(t testing.TB) string { return pgtest.New(t).ConnString() }, open: func(addr string) (*Library, error) {
			db, err := pgkv.Open(context.Background(), addr)
			if err != nil {
				return nil, err
			}
			return openOver(db, "postgres")
		}},
	}
}

// openOver opens a library over db, closing db when that fails.
func openOver(db storage.DB, name string) (*Library, error) {
	l, err := OpenStore(db, name, nil)
	if err != nil {
		db.Close()
	}
	return l, err
}

// forBackends runs test in every backend, as a subtest named for it.
func forBackends(t *testing.T, test func(t *testing.T, bk backend)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// library opens a new library in b, checked for consistency and closed
// at the end of the test, as openTestLibrary does for a file.
func (b backend) library(t testing.TB) *Library {
	t.Helper()
	return b.openChecked(t, b.new(t))
}

// openChecked opens the library at addr, checked for consistency and
// closed at the end of the test.
func (b backend) openChecked(t testing.TB, addr string) *Library {
	t.Helper()
	l, err := b.open(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Check(); err != nil {
			t.Errorf("library inconsistent at end of test: %v", err)
		}
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// TestReopen: what one library wrote — documents, their index, answers —
// is there when the store is opened again, and a removal too.
func TestReopen(t *testing.T) {
	t.Parallel()
	forBackends(t, testReopen)
}

func testReopen(t *testing.T, b backend) {
	addr := b.new(t)
	l, err := b.open(addr)
	if err != nil {
		t.Fatal(err)
	}
	keep := addFile(t, l, sampleText)
	gone := addText(t, l, "gone.txt", "A short text about harbours and tides.")
	if err := l.Answers().Save("a1", []byte(`{"author":{"user":"u"},"answer_id":"a1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove(gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Count(); err == nil {
		t.Error("a closed library still reads")
	}

	l = b.openChecked(t, addr)
	d, err := l.Document(keep.ID)
	if err != nil || d.Text != keep.Text || !slices.Equal(d.Sentences, keep.Sentences) {
		t.Fatalf("reopened: %v", err)
	}
	if n, err := matchCount(l, keep.ID, "unalienable rights"); err != nil || n == 0 {
		t.Errorf("not searchable after reopening: %d, %v", n, err)
	}
	if _, err := l.Info(gone.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the removed document after reopening: %v", err)
	}
	if _, rec, err := l.Answers().Get("a1"); err != nil || string(rec) != `{"author":{"user":"u"},"answer_id":"a1"}` {
		t.Errorf("answer after reopening: %s, %v", rec, err)
	}
	if n, err := l.Count(); err != nil || n != 1 {
		t.Errorf("Count = %d, %v", n, err)
	}
}

// TestManyWriters: goroutines adding documents and saving answers through
// one library at once lose nothing, and the index holds every document.
func TestManyWriters(t *testing.T) {
	t.Parallel()
	forBackends(t, testManyWriters)
}

func testManyWriters(t *testing.T, b backend) {
	l := b.library(t)
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d.txt", w, i)
				text := fmt.Sprintf("Writer %d wrote document token%dx%d about the common lighthouse.", w, w, i)
				if _, _, err := writeText(l, name, text); err != nil {
					errs <- fmt.Errorf("%s: %w", name, err)
				}
				if err := l.Answers().Save(fmt.Sprintf("a%d-%d", w, i), []byte(`{}`)); err != nil {
					errs <- err
				}
				if _, err := l.List(); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n, err := l.Count(); err != nil || n != writers*each {
		t.Fatalf("Count = %d, %v; want %d", n, err, writers*each)
	}
	if list, err := l.Answers().List(); err != nil || len(list) != writers*each {
		t.Errorf("%d answers, %v", len(list), err)
	}
	lighthouse := textproc.Terms("lighthouse")[0]
	if got := holders(t, l, lighthouse); len(got) != writers*each {
		t.Errorf("%d documents hold %q, want %d", len(got), lighthouse, writers*each)
	}
}

// TestStoreIsNotAFile: a library in a store other than a file says what
// it is without a password, skips the file's checks saying why, copies
// its records in a salvage, refuses writes when opened for reading, and
// finds no library in an empty store opened for reading.
func TestStoreIsNotAFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "library.db")
	db, err := boltkv.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(db, "store", &Options{ReadOnly: true}); !errors.Is(err, ErrNotFound) {
		t.Errorf("an empty store opened for reading: %v", err)
	}
	l, err := OpenStore(db, "postgres://citelens:hunter2@db.example/library", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Path(); strings.Contains(p, "hunter2") || !strings.Contains(p, "db.example/library") {
		t.Errorf("Path() = %q", p)
	}
	d := addFile(t, l, sampleText)
	in, err := l.Inspect(t.Context())
	if err != nil || !in.OK() || in.Documents != 1 || in.Readable != 1 || len(in.Skipped) != 1 || !strings.Contains(in.Skipped[0], "not one") {
		t.Fatalf("Inspect = %+v, %v", in, err)
	}
	if l.Damage() != nil {
		t.Error("a sound store reports damage")
	}
	dst := openTestLibrary(t)
	rep, err := l.Salvage(t.Context(), dst, fixtureSplit, nil)
	if err != nil || len(rep.Copied) != 1 || len(rep.Lost) != 0 {
		t.Fatalf("Salvage = %+v, %v", rep, err)
	}
	if got, err := dst.Document(d.ID); err != nil || got.Text != d.Text {
		t.Errorf("salvaged copy: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = boltkv.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err = OpenStore(db, "store", &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n, err := l.Count(); err != nil || n != 1 {
		t.Errorf("read-only Count = %d, %v", n, err)
	}
	if err := l.Answers().Save("a", []byte(`{}`)); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a write to a store opened for reading: %v", err)
	}
}

// TestMaskSecret: a store's address loses its password, in a URL or a
// setting, and keeps the rest.
func TestMaskSecret(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"/home/me/library.db":                         "/home/me/library.db",
		"postgres://me:s3cret@host:5432/lib":          "postgres://me:xxxxx@host:5432/lib",
		"postgres://me@host/lib?password=s3cret&x=1":  "postgres://me@host/lib?password=xxxxx&x=1",
		"host=db user=me password=s3cret dbname=lib":  "host=db user=me password=xxxxx dbname=lib",
		"host=db password='s3 cr\\'et' dbname=lib":    "host=db password=xxxxx dbname=lib",
		"host=db PASSWORD = s3cret":                   "host=db PASSWORD = xxxxx",
		"postgres://me:s3cret@host/lib?password=more": "postgres://me:xxxxx@host/lib?password=xxxxx",
	} {
		if got := maskSecret(addr); got != want {
			t.Errorf("maskSecret(%q) = %q, want %q", addr, got, want)
		}
	}
}
