package docstoretest

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// FreeLivePage damages the library file at path the way a flipped bit or
// a bad copy can: it adds a page still in use to the file's free list,
// choosing the lowest-numbered leaf page so that bbolt hands it out first
// and the next write puts new data over it. It returns that page. The
// pages are found with bbolt's own page inspection (Tx.Page), not with
// the code under test.
func FreeLivePage(t testing.TB, path string) int {
	t.Helper()
	pageSize, pages := pageTypes(t, path)
	live := slices.Index(pages, "leaf")
	freelist := slices.Index(pages, "freelist")
	if live < 0 || freelist < 0 {
		t.Fatalf("FreeLivePage: no leaf page (%d) or free list (%d) found", live, freelist)
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ne := binary.NativeEndian
	page := make([]byte, pageSize)
	if _, err := f.ReadAt(page, int64(freelist*pageSize)); err != nil {
		t.Fatal(err)
	}
	count := int(ne.Uint16(page[10:]))
	if count == 0xFFFF || 16+(count+1)*8 > pageSize {
		t.Fatalf("FreeLivePage: the free list (%d pages) does not fit one more on its page", count)
	}
	ids := []uint64{uint64(live)}
	for i := range count {
		ids = append(ids, ne.Uint64(page[16+8*i:]))
	}
	slices.Sort(ids)
	ne.PutUint16(page[10:], uint16(len(ids)))
	for i, id := range ids {
		ne.PutUint64(page[16+8*i:], id)
	}
	if _, err := f.WriteAt(page, int64(freelist*pageSize)); err != nil {
		t.Fatal(err)
	}
	return live
}

// LongBranchKey damages the library file at path so that the second key
// of a branch page starts at its own record (bytes that sort before the
// first key) and claims to run a gigabyte, far past the file: a check
// of the keys' order finds it out of order, and writing it in a message
// reads it through bbolt's memory map, a fault. It returns the page, or
// -1 when the library has no branch page (it is too small).
func LongBranchKey(t testing.TB, path string) int {
	t.Helper()
	pageSize, pages := pageTypes(t, path)
	branch := slices.Index(pages, "branch")
	if branch < 0 {
		return -1
	}
	// the second branch element (pos u32, ksize u32, pgid u64, after the
	// 16-byte page header and the first): pos 0, ksize 1 GB
	var elem [8]byte
	binary.NativeEndian.PutUint32(elem[4:], 1<<30)
	writeAt(t, path, elem[:], int64(branch*pageSize+16+16))
	return branch
}

// PageLoop damages the library file at path so that its pages form a
// loop: the first child of a branch page becomes the page itself, where
// bbolt's cursors, which trust the tree, descend for ever. It returns the
// page, or -1 when the library has no branch page (it is too small).
func PageLoop(t testing.TB, path string) int {
	t.Helper()
	pageSize, pages := pageTypes(t, path)
	branch := slices.Index(pages, "branch")
	if branch < 0 {
		return -1
	}
	// the first branch element: pos u32, ksize u32, pgid u64
	var pgid [8]byte
	binary.NativeEndian.PutUint64(pgid[:], uint64(branch))
	writeAt(t, path, pgid[:], int64(branch*pageSize+16+8))
	return branch
}

// WildInlineValue damages the library file at path so that a record in an
// inline bucket (one kept in its parent's record, as small buckets are)
// claims a value of 3 GB, far past its page: bbolt hands it out as a slice
// of that length. It returns the page that holds the inline bucket, or -1
// when there is none.
func WildInlineValue(t testing.TB, path string) int {
	t.Helper()
	pageSize, pages := pageTypes(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ne := binary.NativeEndian
	for id, typ := range pages {
		if typ != "leaf" {
			continue
		}
		p := b[id*pageSize : (id+1)*pageSize]
		for i := range int(ne.Uint16(p[10:])) {
			// a leaf element: flags u32, pos u32, ksize u32, vsize u32;
			// a bucket's value: root pgid u64 (0 when inline), sequence
			// u64, then the inline page
			e := 16 + 16*i
			if ne.Uint32(p[e:])&1 == 0 || int(ne.Uint32(p[e+12:])) < 16+16+16 {
				continue
			}
			value := e + int(ne.Uint32(p[e+4:])) + int(ne.Uint32(p[e+8:]))
			if value+48 > len(p) || ne.Uint64(p[value:]) != 0 || ne.Uint16(p[value+16+10:]) == 0 {
				continue
			}
			// the inline page's first element's vsize
			var vsize [4]byte
			ne.PutUint32(vsize[:], 3<<30)
			writeAt(t, path, vsize[:], int64(id*pageSize+value+16+16+12))
			return id
		}
	}
	return -1
}

// HugeFreelist damages the library file at path so that its free list
// claims 2^40 pages (the count in its first id, as for a list of 64k or
// more), which bbolt's Open for writing would copy into a slice that
// long. It returns the free list's page.
func HugeFreelist(t testing.TB, path string) int {
	t.Helper()
	pageSize, pages := pageTypes(t, path)
	freelist := slices.Index(pages, "freelist")
	if freelist < 0 {
		t.Fatal("HugeFreelist: the library has no free list")
	}
	var b [16]byte // count u16 at 10 in the header; then the first id at 16
	binary.NativeEndian.PutUint16(b[0:], 0xFFFF)
	writeAt(t, path, b[:2], int64(freelist*pageSize+10))
	binary.NativeEndian.PutUint64(b[8:], 1<<40)
	writeAt(t, path, b[8:], int64(freelist*pageSize+16))
	return freelist
}

func writeAt(t testing.TB, path string, b []byte, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	// A damaging write leaves the transaction and size as they were, so
	// the library's record of a sound walk (docstore's sidecar) knows it
	// only by its modification time, which file systems keep to a coarse
	// clock: a write within the tick of the library's last commit would
	// keep it. Move it on a second, as another party's write made later
	// would.
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, fi.ModTime().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
}

// pageTypes returns the page size of the library file at path and the
// type of each of its pages as bbolt's own page inspection (Tx.Page) tells
// it — "leaf", "branch", "freelist", "free", "meta" — not the code under
// test.
func pageTypes(t testing.TB, path string) (int, []string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pageSize := db.Info().PageSize
	var types []string
	err = db.View(func(tx *bolt.Tx) error {
		types = make([]string, int(tx.Size())/pageSize)
		for id := 2; id < len(types); id++ {
			if p, err := tx.Page(id); err == nil && p != nil {
				types[id] = p.Type
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pageSize, types
}
