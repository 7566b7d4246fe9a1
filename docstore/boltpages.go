package docstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A write trusts the free list: bbolt hands its pages out for new data.
// If the free list names a page still in use (a flipped bit, a bad
// copy), the next write puts new data over it, and what that page held
// is gone for good — salvage could have recovered it before. bbolt does
// not check; Inspect does (bbolt's tx.Check), but reads every record.
// checkBoltPages does only what that check does with pages: it walks the
// tree from the current meta page, reading the header and element table
// of each branch and leaf page (never a value's overflow pages), and
// accounts for every page below the high-water mark — in use once, or
// free, never both, never neither. It runs under the lock of a write
// open, before bbolt writes anything (handle.open).

// Page layout beyond boltfile.go's (bbolt's internal/common): a branch
// element is pos u32, ksize u32, child pgid u64; a leaf element is flags
// u32, pos u32, ksize u32, vsize u32, pos counted from the element; a
// bucket's value starts with its root pgid u64 (0 for an inline bucket,
// which has no pages of its own) and sequence u64. A freelist page lists
// its ids after the header, with the count in the first id when the
// header's count is 0xFFFF.
const (
	boltElementSize  = 16
	boltBucketFlag   = 0x01
	boltBigFreelist  = 0xFFFF
	boltBucketHeader = 16
)

// pageSet is a bitmap of page ids.
type pageSet []uint64

func (s pageSet) has(id uint64) bool { return s[id/64]&(1<<(id%64)) != 0 }
func (s pageSet) add(id uint64)      { s[id/64] |= 1 << (id % 64) }

// checkBoltPages returns an ErrCorrupt error describing the first page
// of the bbolt file f (size bytes, at path for messages) that is not
// accounted for: reachable twice, both reachable and free, or neither,
// out of range or of the wrong type.
func checkBoltPages(f io.ReaderAt, size int64, path string) error {
	m, err := currentBoltMeta(f, path)
	if err != nil {
		return err
	}
	if uint64(size) < m.hw*m.pageSize {
		return damaged("%s is cut short: it holds %d bytes of the %d its pages need", path, size, m.hw*m.pageSize)
	}
	w := &pageWalker{f: f, m: m, path: path, used: make(pageSet, (m.hw+63)/64)}
	w.used.add(0)
	w.used.add(1)
	if err := w.walk(); err != nil {
		return err
	}
	return w.checkFree()
}

// checkPagesAt runs checkBoltPages on the file at path; the caller holds
// its lock (in a transaction), so that no write changes it meanwhile.
func checkPagesAt(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return checkBoltPages(f, st.Size(), path)
}

type pageWalker struct {
	f    io.ReaderAt
	m    boltMeta
	path string
	used pageSet // pages reachable from the meta page
	buf  []byte
}

// read reads n bytes at page id's start, or fewer at the end of the file.
func (w *pageWalker) read(id, n uint64) []byte {
	if uint64(cap(w.buf)) < n {
		w.buf = make([]byte, n)
	}
	b := w.buf[:n]
	k, _ := w.f.ReadAt(b, int64(id*w.m.pageSize))
	return b[:k]
}

// claim marks pages id to id+overflow as used by what, failing if one is
// outside the file or used already.
func (w *pageWalker) claim(id, overflow uint64, what string) error {
	if id < 2 || id >= w.m.hw || overflow >= w.m.hw-id {
		return damaged("%s: %s points at page %d, outside its %d pages", w.path, what, id, w.m.hw)
	}
	for p := id; p <= id+overflow; p++ {
		if w.used.has(p) {
			return damaged("%s: page %d is used twice (by %s and by another page)", w.path, p, what)
		}
		w.used.add(p)
	}
	return nil
}

// walk visits every branch and leaf page reachable from the current meta
// page, with an explicit stack: a damaged file can chain pages deeper
// than any real tree.
func (w *pageWalker) walk() error {
	ne := binary.NativeEndian
	// A page's keys lie between the keys its parent branch names for it
	// and for the next child (lo, hi; nil: no bound).
	type visit struct {
		id     uint64
		what   string
		lo, hi []byte
	}
	stack := []visit{{id: w.m.root, what: "the root bucket"}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.id < 2 || v.id >= w.m.hw {
			return damaged("%s: %s points at page %d, outside its %d pages", w.path, v.what, v.id, w.m.hw)
		}
		h := w.read(v.id, boltHeaderSize)
		if len(h) < boltHeaderSize {
			return damaged("%s: page %d cannot be read", w.path, v.id)
		}
		gotID, flags, count, overflow := ne.Uint64(h), ne.Uint16(h[8:]), uint64(ne.Uint16(h[10:])), uint64(ne.Uint32(h[12:]))
		if gotID != v.id || (flags != boltBranchPage && flags != boltLeafPage) {
			return damaged("%s: page %d, used by %s, is not a page of records", w.path, v.id, v.what)
		}
		if err := w.claim(v.id, overflow, v.what); err != nil {
			return err
		}
		span := (overflow + 1) * w.m.pageSize
		table := boltHeaderSize + count*boltElementSize
		if table > span {
			return damaged("%s: page %d says it holds %d records, more than fit", w.path, v.id, count)
		}
		// The first page holds the table and, but for large keys, the
		// keys; what runs into the overflow pages is read when needed.
		p := w.read(v.id, max(table, min(span, w.m.pageSize)))
		if uint64(len(p)) < table {
			return damaged("%s: page %d cannot be read", w.path, v.id)
		}
		what := fmt.Sprintf("page %d", v.id)
		var prev []byte // the previous key, to check the keys' order
		var children []visit
		for i := range count {
			base := boltHeaderSize + i*boltElementSize
			e := p[base:]
			// Its key (and value) must lie in the page: bbolt reads them
			// through its memory map, where a length that runs past the
			// file is a fault no recover catches (in tx.Check's goroutine).
			var at, end uint64
			if flags == boltBranchPage { // pos, ksize, child
				at = base + uint64(ne.Uint32(e))
				end = at + uint64(ne.Uint32(e[4:]))
			} else { // flags, pos, ksize, vsize
				at = base + uint64(ne.Uint32(e[4:]))
				end = at + uint64(ne.Uint32(e[8:])) + uint64(ne.Uint32(e[12:]))
			}
			if end > span {
				return damaged("%s: page %d has a record that runs past the page", w.path, v.id)
			}
			// The keys are in order: a write finds its place by them.
			klen := uint64(ne.Uint32(e[4:]))
			if flags == boltLeafPage {
				klen = uint64(ne.Uint32(e[8:]))
			}
			key, err := w.key(v.id, p, at, klen)
			if err != nil {
				return err
			}
			if i > 0 && bytes.Compare(prev, key) >= 0 || i == 0 && v.lo != nil && bytes.Compare(key, v.lo) < 0 ||
				v.hi != nil && bytes.Compare(key, v.hi) >= 0 {
				return damaged("%s: page %d has its records out of order", w.path, v.id)
			}
			prev = append(prev[:0], key...)
			if flags == boltBranchPage {
				if n := len(children); n > 0 {
					children[n-1].hi = bytes.Clone(key)
				}
				children = append(children, visit{id: ne.Uint64(e[8:]), what: what, lo: bytes.Clone(key), hi: v.hi})
				continue
			}
			if ne.Uint32(e)&boltBucketFlag == 0 {
				continue
			}
			// A bucket: its root page, read from its value.
			off := at + uint64(ne.Uint32(e[8:]))
			if vsize := uint64(ne.Uint32(e[12:])); vsize < boltBucketHeader {
				return damaged("%s: page %d has a bucket record too short to be one", w.path, v.id)
			}
			var root [8]byte
			if k, _ := w.f.ReadAt(root[:], int64(v.id*w.m.pageSize+off)); k < len(root) {
				return damaged("%s: page %d cannot be read", w.path, v.id)
			}
			if r := ne.Uint64(root[:]); r != 0 { // 0: an inline bucket, in the value itself
				stack = append(stack, visit{id: r, what: fmt.Sprintf("a bucket on page %d", v.id)})
			}
		}
		stack = append(stack, children...)
	}
	return nil
}

// key returns the n bytes at offset at of page id, from p (the page's
// first bytes) when they are there.
func (w *pageWalker) key(id uint64, p []byte, at, n uint64) ([]byte, error) {
	if at+n <= uint64(len(p)) {
		return p[at : at+n], nil
	}
	k := make([]byte, n)
	if got, _ := w.f.ReadAt(k, int64(id*w.m.pageSize+at)); uint64(got) < n {
		return nil, damaged("%s: page %d cannot be read", w.path, id)
	}
	return k, nil
}

// checkFree reads the free list and checks that it names no page in use
// and that every page is either in use or free.
func (w *pageWalker) checkFree() error {
	free := make(pageSet, len(w.used))
	if id := w.m.freelist; id != boltNoFreelist {
		ne := binary.NativeEndian
		h := w.read(id, boltHeaderSize)
		if len(h) < boltHeaderSize || ne.Uint64(h) != id || ne.Uint16(h[8:]) != boltFreelistPage {
			return damaged("%s: its free-page list (page %d) is damaged", w.path, id)
		}
		count, overflow := uint64(ne.Uint16(h[10:])), uint64(ne.Uint32(h[12:]))
		if err := w.claim(id, overflow, "the free-page list"); err != nil {
			return err
		}
		span := (overflow + 1) * w.m.pageSize
		first := uint64(boltHeaderSize)
		if count == boltBigFreelist {
			c := w.read(id, boltHeaderSize+8)
			if len(c) < boltHeaderSize+8 {
				return damaged("%s: its free-page list (page %d) cannot be read", w.path, id)
			}
			count, first = ne.Uint64(c[boltHeaderSize:]), boltHeaderSize+8
		}
		if count > (span-first)/8 {
			return damaged("%s: its free-page list (page %d) says it holds %d pages, more than fit", w.path, id, count)
		}
		p := w.read(id, first+count*8)
		if uint64(len(p)) < first+count*8 {
			return damaged("%s: its free-page list (page %d) cannot be read", w.path, id)
		}
		for i := range count {
			f := ne.Uint64(p[first+i*8:])
			switch {
			case f < 2 || f >= w.m.hw:
				return damaged("%s: its free-page list names page %d, outside its %d pages", w.path, f, w.m.hw)
			case w.used.has(f):
				return damaged("%s: page %d is in use but also listed as free, so the next write would overwrite it", w.path, f)
			case free.has(f):
				return damaged("%s: its free-page list names page %d twice", w.path, f)
			}
			free.add(f)
		}
	}
	for id := uint64(0); id < w.m.hw; id++ {
		if !w.used.has(id) && !free.has(id) {
			return damaged("%s: page %d is neither in use nor listed as free", w.path, id)
		}
	}
	return nil
}
