package docstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/docstoretest"
)

// TestCheckBoltPages: a healthy library's pages all add up; a live page
// on the free list is found and named, as bbolt's own check finds it.
func TestCheckBoltPages(t *testing.T) {
	path := buildLibrary(t)
	if _, err := checkPagesAt(path); err != nil {
		t.Fatalf("a healthy library: %v", err)
	}
	live := docstoretest.FreeLivePage(t, path)
	_, err := checkPagesAt(path)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("page %d is in use but also listed as free", live)) {
		t.Errorf("a live page (%d) on the free list: %v", live, err)
	}
	if in, err := inspectDamaged(t, path); err != nil || in.OK() {
		t.Errorf("Inspect of the same file: %+v, %v; it should call it damaged too", in, err)
	}
}

// BenchmarkCheckBoltPages is the check every open of a changed file
// makes, on a library holding a text as large as R's reference manual
// (fullrefman.pdf's 4 MB), against bbolt's own page check (tx.Check) on
// the same file, which Inspect runs; and what a reading command pays for
// it: a read-only open and one read (List), which checks once.
func BenchmarkCheckBoltPages(b *testing.B) {
	doc := fixture("large.txt", markedText(50000))
	path := filepath.Join(b.TempDir(), "library.db")
	l, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.put(doc); err != nil {
		b.Fatal(err)
	}
	l.Close()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.Run("checkBoltPages", func(b *testing.B) {
		b.SetBytes(st.Size())
		for b.Loop() {
			if _, err := checkBoltPages(f, st.Size(), path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OpenReadOnlyAndList", func(b *testing.B) {
		for b.Loop() {
			l, err := Open(path, &Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := l.List(); err != nil {
				b.Fatal(err)
			}
			l.Close()
		}
	})
	b.Run("bbolt.Tx.Check", func(b *testing.B) {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		b.SetBytes(st.Size())
		for b.Loop() {
			_ = db.View(func(tx *bolt.Tx) error {
				for err := range tx.Check() {
					b.Fatal(err)
				}
				return nil
			})
		}
	})
}

// TestDamagedLibraryTurnsReadOnly: once damage is found — by the page
// check a writing open makes, or by any read — every write fails with
// that damage and the file keeps every byte, while what is readable
// still reads.
func TestDamagedLibraryTurnsReadOnly(t *testing.T) {
	writes := func(l *Library) map[string]error {
		_, _, addErr := writeText(l, "new.txt", "A new document. It has two sentences.")
		docs, _ := l.List()
		return map[string]error{
			"Add":        addErr,
			"SaveAnswer": l.Answers().Save("a2", []byte(`{"answer_id":"a2","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`)),
			"Remove":     l.Remove(docs[0].ID),
		}
	}
	// Each damage returns the read that finds it (nil when the page check
	// at open does) and the document it damaged, if one.
	for name, damage := range map[string]func(path string) (func(*Library) error, DocID){
		"a live page on the free list": func(path string) (func(*Library) error, DocID) {
			docstoretest.FreeLivePage(t, path)
			return nil, ""
		},
		"a layout record past its text": func(path string) (func(*Library) error, DocID) {
			l := openAtUnchecked(t, path)
			defer l.Close()
			docs, _ := l.List()
			damageLayout(t, l, docs[1].ID, func(d *Document) { d.Sentences[3].End = 1 << 30 })
			return func(l *Library) error { _, err := l.Document(docs[1].ID); return err }, docs[1].ID
		},
		// bytes inside a value: no page check sees them, and a write
		// that rewrote the page would copy them as they are — but once
		// a read has found them, nothing is written either.
		"a saved answer that does not decode": func(path string) (func(*Library) error, DocID) {
			l := openAtUnchecked(t, path)
			if err := l.Answers().Save("a1", []byte(`{"answer_id":"a1","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`)); err != nil {
				t.Fatal(err)
			}
			l.Close()
			// every copy: the file may also hold one on a free page
			b, _ := os.ReadFile(path)
			record := []byte(`{"answer_id":"a1"`)
			if !bytes.Contains(b, record) {
				t.Fatal("the saved answer is not in the file")
			}
			b = bytes.ReplaceAll(b, record, append([]byte("\x00\x07\xff"), record[3:]...))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return func(l *Library) error { _, err := l.Answers().List(); return err }, ""
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := buildLibrary(t)
			find, victim := damage(path)
			before, _ := os.ReadFile(path)
			l := openAtUnchecked(t, path)
			defer l.Close()
			docs, err := l.List()
			if err != nil || len(docs) != 3 {
				t.Fatalf("List of a damaged library = %d documents, %v", len(docs), err)
			}
			if find != nil {
				if err := find(l); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("the read of the damaged record = %v, want ErrCorrupt", err)
				}
			}
			for what, err := range writes(l) {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s on a damaged library = %v, want ErrCorrupt", what, err)
				}
			}
			for _, d := range docs {
				if _, err := l.Document(d.ID); err != nil && d.ID != victim {
					t.Errorf("an undamaged document no longer reads: %v", err)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the damaged library was written to")
			}
		})
	}
}

// openAtUnchecked opens the library at path without the consistency
// check on cleanup that openAt makes: for damaged libraries.
func openAtUnchecked(t *testing.T, path string) *Library {
	t.Helper()
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCheckSurvivesAKeyPastTheFile: a branch key that claims to run past
// the file is reported by Inspect (and refused for writing), not read —
// bbolt's own check read it in a goroutine of its own, a fault that killed
// the process.
func TestCheckSurvivesAKeyPastTheFile(t *testing.T) {
	path := reportsLibrary(t)
	page := docstoretest.LongBranchKey(t, path)
	if page < 0 {
		t.Fatal("the library has no branch page to damage")
	}
	if _, err := checkPagesAt(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("page %d has a record that runs past the page", page)) {
		t.Errorf("the page check: %v", err)
	}
	if in, err := inspectDamaged(t, path); err != nil || in.OK() {
		t.Errorf("Inspect = %+v, %v", in, err)
	}
}

// inspectDamaged inspects the library at path, opened as check opens it.
func inspectDamaged(t *testing.T, path string) (*Inspection, error) {
	t.Helper()
	l, err := Open(path, &Options{ReadDamaged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Inspect(t.Context())
}

// TestLoopsAndWildLengthsAreNotRead: a branch page that is its own child
// (a loop bbolt's cursors descend for ever, allocating: 24 GB before the
// machine killed 'citelens check'), a record of an inline bucket that
// claims a 3 GB value (which a write used to go ahead over) and a free
// list that claims 2^40 pages (which bbolt's Open for writing would
// allocate) are found by the checks of every open. Nothing reads there:
// commands fail with the damage, the file keeps every byte, and check and
// salvage finish, going around them.
func TestLoopsAndWildLengthsAreNotRead(t *testing.T) {
	for name, c := range map[string]struct {
		damage func(t testing.TB, path string) int
		found  string // what check says, %d the page
	}{
		"a branch page its own child":            {docstoretest.PageLoop, "page %d is used twice"},
		"an inline record's value past its page": {docstoretest.WildInlineValue, "page %d has a record that runs past the page"},
		"a free list of 2^40 pages":              {docstoretest.HugeFreelist, "free-page list (page %d) says it holds 1099511627776 pages"},
	} {
		t.Run(name, func(t *testing.T) {
			path := reportsLibrary(t)
			page := c.damage(t, path)
			if page < 0 {
				t.Fatal("the library has no page to damage that way")
			}
			before, _ := os.ReadFile(path)
			docstoretest.Within(t, "using the damaged library", func() {
				if l, err := Open(path, nil); err == nil {
					_, lerr := l.List()
					_, _, aerr := writeText(l, "new.txt", "A new document. It has two sentences.")
					for what, err := range map[string]error{"List": lerr, "Add": aerr, "SaveAnswer": l.Answers().Save("a", answerRecord("a"))} {
						if !errors.Is(err, ErrCorrupt) {
							t.Errorf("%s = %v, want ErrCorrupt", what, err)
						}
					}
					l.Close()
				} else if !errors.Is(err, ErrCorrupt) {
					t.Errorf("Open = %v, want ErrCorrupt", err)
				}
				in, err := inspectDamaged(t, path)
				if err != nil || !strings.Contains(fmt.Sprint(in.Problems), fmt.Sprintf(c.found, page)) {
					t.Errorf("Inspect = %+v, %v; want %q", in, err, fmt.Sprintf(c.found, page))
				}
				src, err := Open(path, &Options{ReadDamaged: true})
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				dst := openAtUnchecked(t, filepath.Join(t.TempDir(), "salvaged.db"))
				defer dst.Close()
				rep, err := src.Salvage(t.Context(), dst, fixtureSplit, nil)
				if err != nil || len(rep.Copied)+len(rep.Resegmented)+len(rep.Lost) != 12 {
					t.Errorf("Salvage = %+v, %v; want the 12 documents copied or lost", rep, err)
				}
				t.Logf("salvage copied %d, re-segmented %d, lost %d", len(rep.Copied), len(rep.Resegmented), len(rep.Lost))
			})
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the damaged library was written to")
			}
		})
	}
}

// TestStrayRecordIsDamage: a record whose document has no metadata (a
// flipped bit in a key leaves the pages sound, and check reports it) is
// found by the page walk of an open, so the library is not written.
func TestStrayRecordIsDamage(t *testing.T) {
	path := buildLibrary(t)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		// Keyed by a document ID, as a flipped bit in a key of the
		// records bucket would leave it (schema 4 keys text by number).
		stray := docRecord{num: 99}
		return tx.Bucket(bucketRecords).Put([]byte("0123456789abcdef"), stray.encode())
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := checkPagesAt(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "document 0123456789abcdef has records but no metadata record") {
		t.Errorf("the page check: %v", err)
	}
	before, _ := os.ReadFile(path)
	l := openAtUnchecked(t, path)
	defer l.Close()
	if _, _, err := writeText(l, "new.txt", "A new document. It has two sentences."); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Add = %v, want ErrCorrupt", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the damaged library was written to")
	}
}

// TestSoundWalkIsRemembered: the page walk's verdict outlives the
// process that made it (sidecar.go). An open of a library unchanged
// since a sound walk, or since a commit of a process that found it sound,
// does not walk again; one changed by another party since is walked, and
// damage found there is refused and forgets the verdict.
func TestSoundWalkIsRemembered(t *testing.T) {
	path := buildLibrary(t) // its own commits leave the sidecar current
	m, ok := markersFor(path)
	if !ok {
		t.Fatal("no markers for the library")
	}
	sidecar := filepath.Join(filepath.Dir(path), m.checkedName())
	if fi, err := os.Stat(sidecar); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the sidecar after building: %v, %v", fi, err)
	}
	read := func() error {
		l, err := Open(path, &Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer l.Close()
		_, err = l.List()
		return err
	}
	walks := pageWalks.Load()
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if n := pageWalks.Load() - walks; n != 0 {
		t.Errorf("a read of an unchanged library walked its pages %d times", n)
	}

	// A write of this process's own, then a read: neither walks.
	l := openAtUnchecked(t, path)
	if err := l.Answers().Save("a2", []byte(`{"answer_id":"a2","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if n := pageWalks.Load() - walks; n != 0 {
		t.Errorf("a save and a read after it walked the pages %d times", n)
	}

	// Another party commits (the transaction moves) and damages a page.
	// Damage that moved nothing the sidecar holds — bits rotting on the
	// disk — would not be walked for here; that is check's to find.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte("other"), []byte("party"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	docstoretest.PageLoop(t, path)
	docstoretest.Within(t, "a read of a looped library", func() {
		if err := read(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("a read of a library looped by another party = %v, want ErrCorrupt", err)
		}
	})
	if n := pageWalks.Load() - walks; n != 1 {
		t.Errorf("a read of a changed library walked its pages %d times, want 1", n)
	}
	if _, err := os.Stat(sidecar); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sidecar outlived the damage found: %v", err)
	}
}

// reportsLibrary builds a library of twelve reports, large enough to have
// branch pages, and returns its path.
func reportsLibrary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "library.db")
	l := openAtUnchecked(t, path)
	for i := range 12 {
		body := strings.Repeat(fmt.Sprintf("Report %d on rivers, courts and trade number %d. ", i, i*7919), 400)
		if _, _, err := writeText(l, fmt.Sprintf("r%d.txt", i), body); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	return path
}

// TestCheckFindsARecordsLengthChanged: a leaf record's value made one
// byte shorter leaves every key in order, so nothing but the layout shows
// it — and a write would carry the misread record into pages out of
// order (the mutation trials found it). bbolt lays records out one after
// another, so the next record no longer starts where this one ends.
func TestCheckFindsARecordsLengthChanged(t *testing.T) {
	path := reportsLibrary(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := currentBoltMeta(bytes.NewReader(b), path)
	if err != nil {
		t.Fatal(err)
	}
	// The pages in use (a freed leaf page would not be read).
	w := &pageWalker{f: bytes.NewReader(b), m: m, path: path, size: uint64(len(b)), used: make(pageSet, (m.hw+63)/64)}
	w.used.add(0)
	w.used.add(1)
	w.walk()
	if w.first != nil {
		t.Fatalf("the library is damaged before the test damages it: %v", w.first)
	}
	ne := binary.NativeEndian
	ps := int(m.pageSize)
	damagedPage := -1
	for p := 2; p < int(m.hw) && damagedPage < 0; p++ {
		if !w.used.has(uint64(p)) {
			continue
		}
		pg := b[p*ps : (p+1)*ps]
		if ne.Uint64(pg) != uint64(p) || ne.Uint16(pg[8:]) != boltLeafPage || ne.Uint16(pg[10:]) < 2 { // a page's own header, not an overflow's bytes
			continue
		}
		e := pg[boltHeaderSize:]
		if ne.Uint32(e) != 0 || ne.Uint32(e[12:]) == 0 { // a plain value, not empty
			continue
		}
		ne.PutUint32(e[12:], ne.Uint32(e[12:])-1)
		damagedPage = p
	}
	if damagedPage < 0 {
		t.Fatal("the library has no leaf page to damage")
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := checkPagesAt(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("page %d has records that do not follow one another", damagedPage)) {
		t.Errorf("the page check: %v", err)
	}
}
