package docstore

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore/docstoretest"
)

// damageInPlace damages the library file at path with damage and puts
// its modification time back, so that its transaction, size and time are
// what its sidecar found sound: bits rotting on the disk, a tool that
// writes in place and restores times. It fails the test unless the
// sidecar still vouches for the file, so that what follows tests the
// trust, not the walk.
func damageInPlace(t *testing.T, path string, damage func(t testing.TB, path string) int) {
	t.Helper()
	m, ok := markersFor(path)
	if !ok {
		t.Fatal("no markers")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	before := m.checked()
	if damage(t, path) < 0 {
		t.Fatal("the library has no page to damage that way")
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) || m.checked() != before || before == (fileState{}) {
		t.Fatalf("the sidecar no longer vouches for the damaged file: %+v", m.checked())
	}
}

// breakCurrentMeta flips a bit in the checksum of the file's current
// meta page, so that bbolt falls back to the older one (silently undoing
// the last commit) and a write would go on from there. It returns the
// page.
func breakCurrentMeta(t testing.TB, path string) int {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := currentBoltMeta(f, path)
	if err != nil {
		t.Fatal(err)
	}
	id := int64(m.txid % 2)
	off := id*int64(m.pageSize) + boltHeaderSize + 56
	var b [8]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	binary.NativeEndian.PutUint64(b[:], binary.NativeEndian.Uint64(b[:])^1)
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	return int(id)
}

// writingCommands are the library's side of every command that writes:
// add, rm, reindex (a rebuild of every document from its stored text),
// and ask saving its answer. Each opens the library afresh, as a new
// process does, and returns the error it met.
var writingCommands = map[string]func(path string) error{
	"add": func(path string) error {
		return withLibrary(path, func(l *Library) error {
			_, _, err := writeText(l, "new.txt", "A new document. It has two sentences.")
			return err
		})
	},
	"rm": func(path string) error {
		return withLibrary(path, func(l *Library) error {
			docs, err := l.List()
			if err != nil {
				return err
			}
			return l.Remove(docs[0].ID)
		})
	},
	"reindex": func(path string) error {
		return withLibrary(path, func(l *Library) error {
			rb, err := l.Rebuild()
			if err != nil {
				return err
			}
			for _, info := range rb.Documents() {
				d, err := rb.Stored(info)
				if err != nil {
					return err
				}
				fixtureSplit(d)
				p, err := Prepare(d, nil)
				if err != nil {
					return err
				}
				if err := rb.Replace(p, true); err != nil {
					return err
				}
			}
			return rb.Finish()
		})
	},
	"ask saving its answer": func(path string) error {
		return withLibrary(path, func(l *Library) error {
			if _, err := l.List(); err != nil { // ask reads first
				return err
			}
			return l.Answers().Save("a9", answerRecord("a9"))
		})
	},
}

func withLibrary(path string, fn func(*Library) error) error {
	l, err := Open(path, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	return fn(l)
}

// TestStaleSidecarVouchesForNothing (issue 34, item 4): damage that
// leaves the file's transaction, size and modification time as its
// sidecar found them sound — a live page on the free list, a branch page
// that is its own child, a current meta page that no longer checks out —
// is found by the check every open makes of what a write relies on, so
// every writing command fails with the damage and the file keeps every
// byte; and a rebuild of a looped library stops with the damage at once
// rather than descending for ever.
func TestStaleSidecarVouchesForNothing(t *testing.T) {
	for name, damage := range map[string]func(t testing.TB, path string) int{
		"a live page on the free list":        docstoretest.FreeLivePage,
		"a branch page its own child":         docstoretest.PageLoop,
		"the current meta page's bit flipped": breakCurrentMeta,
	} {
		for cmd, run := range writingCommands {
			t.Run(name+"/"+cmd, func(t *testing.T) {
				t.Parallel()
				path := reportsLibrary(t)
				damageInPlace(t, path, damage)
				before := fileSum(t, path)
				start := time.Now()
				docstoretest.Within(t, cmd, func() {
					if err := run(path); !errors.Is(err, ErrCorrupt) {
						t.Errorf("%s = %v, want ErrCorrupt", cmd, err)
					}
				})
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%s took %v to fail", cmd, d)
				}
				if fileSum(t, path) != before {
					t.Errorf("%s wrote to the damaged library", cmd)
				}
			})
		}
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestFoundDamageStopsWrites (issue 34, item 10): damage inside a record
// that no page check sees — a layout that runs past its text — once found
// by check, or by a read that decoded it, stops every writing command of
// every later process while the file is as it was found, with the damage
// error and its fix; the file keeps every byte.
func TestFoundDamageStopsWrites(t *testing.T) {
	for _, finder := range []string{"check", "a read"} {
		for cmd, run := range writingCommands {
			t.Run(finder+"/"+cmd, func(t *testing.T) {
				t.Parallel()
				path := buildLibrary(t)
				l := openAtUnchecked(t, path)
				docs, _ := l.List()
				victim := docs[1].ID
				damageLayout(t, l, victim, func(d *Document) { d.Sentences[3].End = 1 << 30 })
				l.Close()
				if finder == "check" {
					in, err := inspectDamaged(t, path)
					if err != nil || in.OK() {
						t.Fatalf("check = %+v, %v; want the layout damage", in, err)
					}
				} else {
					l := openAtUnchecked(t, path)
					if _, err := l.Document(victim); !errors.Is(err, ErrCorrupt) {
						t.Fatalf("reading the damaged document = %v", err)
					}
					l.Close()
				}
				before := fileSum(t, path)
				err := run(path)
				if !errors.Is(err, ErrCorrupt) || Fix(err) == "" {
					t.Errorf("%s = %v, want ErrCorrupt with a fix", cmd, err)
				}
				if fileSum(t, path) != before {
					t.Errorf("%s wrote to the damaged library", cmd)
				}
			})
		}
	}
}
