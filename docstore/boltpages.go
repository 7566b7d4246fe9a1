package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the walk of a file's pages (what bbolt must not read).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
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
// free, never both, never neither. It runs under the lock of each open
// of a file another process may have changed, before bbolt reads or writes
// anything (handle.open).
//
// It also finds what bbolt must not be let read at all, as bbolt follows
// what a page says without a check: a page reached twice is a loop in
// which a cursor descends for ever, allocating as it goes (or recursing
// until the stack overflows, which no recover catches); a child that is
// not a page of records, or a record table longer than its page, sends
// it to pages picked by garbage; and a record whose length runs past its
// page becomes a slice of that length, gigabytes for a flipped bit, which
// the first copy allocates. The walker carries on past such damage to map
// all of it (pageDamage), so that reads refuse the file and check and
// salvage go around the damaged trees and records.

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

// pageDamage is what bbolt must not be let read in a damaged file. A
// tree is a bucket's own pages, named by its path: "" for the root
// bucket, then each bucket's name after a NUL ("\x00text",
// "\x00lengths\x00<id>"). A nil *pageDamage is a file bbolt may read
// throughout.
type pageDamage struct {
	// err is the first damage that put something here: what a read
	// that is refused says.
	err error
	// broken are the trees bbolt cannot be trusted to walk (a page
	// reached twice, a child that is no page of records, a record table
	// or key that runs past its page); everything under one is out of
	// reach too.
	broken map[string]bool
	// wild are the records, by tree and key, whose values run past their
	// page.
	wild map[string]map[string]bool
}

// treePath is the path of the tree of bucket names (nested in that
// order) below the root bucket.
func treePath(names ...[]byte) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteByte(0)
		b.Write(n)
	}
	return b.String()
}

// bucketOK reports whether bbolt may open and walk the bucket at path
// names (none: the root bucket): no tree on the way is broken, and no
// bucket record on it runs past its page.
func (d *pageDamage) bucketOK(names ...[]byte) bool {
	if d == nil {
		return true
	}
	if d.broken[""] {
		return false
	}
	for i := range names {
		parent := treePath(names[:i]...)
		if d.wild[parent][string(names[i])] || d.broken[parent+"\x00"+string(names[i])] {
			return false
		}
	}
	return true
}

// intact reports whether bbolt may read everything in the bucket at path
// names, the buckets nested in it included.
func (d *pageDamage) intact(names ...[]byte) bool {
	if !d.bucketOK(names...) {
		return false
	}
	if d == nil {
		return true
	}
	path := treePath(names...)
	within := func(p string) bool { return p == path || strings.HasPrefix(p, path+"\x00") }
	for p := range d.broken {
		if within(p) {
			return false
		}
	}
	for p := range d.wild {
		if within(p) {
			return false
		}
	}
	return true
}

// recordOK reports whether bbolt may read the record key of the bucket
// at path names (none: the root bucket, whose records are the buckets).
func (d *pageDamage) recordOK(key []byte, names ...[]byte) bool {
	return d == nil || d.bucketOK(names...) && !d.wild[treePath(names...)][string(key)]
}

// prefixOK reports whether bbolt may read every record of the bucket at
// path names whose key starts with prefix (a document's pieces).
func (d *pageDamage) prefixOK(prefix []byte, names ...[]byte) bool {
	if d == nil {
		return true
	}
	if !d.bucketOK(names...) {
		return false
	}
	for k := range d.wild[treePath(names...)] {
		if strings.HasPrefix(k, string(prefix)) {
			return false
		}
	}
	return true
}

// checkBoltPages returns an ErrCorrupt error describing the first damage
// in the pages of the bbolt file f (size bytes, at path for messages): a
// page that is not accounted for (reachable twice, both reachable and
// free, or neither, out of range or of the wrong type) or a record that
// does not lie inside its page or is out of order. It also returns what of
// the damage bbolt must not read, nil if nothing.
func checkBoltPages(f io.ReaderAt, size int64, path string) (unsafe *pageDamage, err error) {
	m, err := currentBoltMeta(f, path)
	if err != nil {
		return &pageDamage{err: err, broken: map[string]bool{"": true}}, err
	}
	w := &pageWalker{f: f, m: m, path: path, size: uint64(max(size, 0)), used: make(pageSet, (m.hw+63)/64)}
	if file, ok := f.(*os.File); ok {
		if data, unmap, ok := mapFile(file, size); ok {
			defer unmap()
			w.data = data
			// The file is locked against writers, but a file cut
			// short under the mapping would be a fault.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if x := recover(); x != nil {
					err = damaged("%s cannot be read: %v", path, x)
					unsafe = &pageDamage{err: err, broken: map[string]bool{"": true}}
				}
			}()
		}
	}
	if uint64(size) < m.hw*m.pageSize {
		// What is there is walked. bbolt maps the pages that are not
		// there, but past the end of its mapping it reads whatever
		// memory lies there: the trees with a page missing are broken.
		w.fail("", harmless, nil, "%s is cut short: it holds %d bytes of the %d its pages need", path, size, m.hw*m.pageSize)
	}
	w.checkMetas()
	w.used.add(0)
	w.used.add(1)
	w.walk()
	w.checkFree()
	if w.first == nil {
		w.first = checkDocumentKeys(w.topKeys, path)
	}
	return w.unsafe, w.first
}

// The full walk reads every branch and leaf page, in proportion to the
// file, so its verdict is remembered (sidecar.go); but the sidecar names
// only the file's transaction, size and time, which damage can leave as
// they were (bits rotting on the disk, a tool that writes in place and
// puts the time back, a sidecar forged). So every writing open, and
// every open that would take the sidecar's word, also makes the check
// below, which reads what a write relies on and little else, and trusts
// the sidecar only for the rest:
//
//   - both meta pages valid, their transactions one apart, their root,
//     free list and page count inside the file: bbolt falls back to the
//     older meta page when the newer does not check out, silently
//     undoing the last commit, and writes its next meta over that one;
//   - the free list read whole, every page it names inside the file and
//     named once: a write takes its new pages from it;
//   - every branch page of every tree, and the leaves of the trees that
//     hold buckets (the root bucket's, the index's, geometry's…), so
//     every page a write descends through to find its place, every
//     bucket's root, and the id of every leaf; each reached once (a page
//     pointing at itself, or at a page above it, is a loop in which
//     bbolt's cursors descend for ever) and none on the free list.
//
// What it does not read are the leaves of buckets of records (most of
// the file) and their overflow pages: a free list naming an overflow
// page, or a record running past its leaf, is left to the full walk —
// which the check's own failure brings on, and which runs whenever the
// file has changed since the sidecar's verdict. BenchmarkWriteCheck
// measures it against the full walk.

// checkBoltQuick makes the check every open makes before it trusts the
// sidecar (above) on the bbolt file f (size bytes, at path for
// messages), returning the first damage it finds as an ErrCorrupt error.
func checkBoltQuick(f io.ReaderAt, size int64, path string) error {
	m, err := currentBoltMeta(f, path)
	if err != nil {
		return err
	}
	// Read, not mapped: it reads few pages, and mapping a large file
	// and faulting them in costs more than reading them.
	w := &pageWalker{f: f, m: m, path: path, size: uint64(max(size, 0)), used: make(pageSet, (m.hw+63)/64), quick: true}
	if uint64(size) < m.hw*m.pageSize {
		return damaged("%s is cut short: it holds %d bytes of the %d its pages need", path, size, m.hw*m.pageSize)
	}
	if w.checkMetas(); w.first != nil {
		return w.first
	}
	w.used.add(0)
	w.used.add(1)
	w.walk()
	if w.first != nil {
		return w.first
	}
	w.checkFree()
	return w.first
}

// checkMetas checks the meta page bbolt does not use: valid, one
// transaction before the current, and pointing inside the file. A file
// bbolt has written has both valid, as it writes them in turn (and makes
// both when it creates the file).
func (w *pageWalker) checkMetas() {
	var metas [2]boltMeta
	for i := range metas {
		m, ok := parseBoltMeta(w.readAt(uint64(i)*w.m.pageSize, boltHeaderSize+boltMetaSize, true))
		if !ok {
			w.fail("", harmless, nil, "%s: its header page %d is damaged, so bbolt could fall back to an older state of the file", w.path, i)
			return
		}
		if m.pageSize != w.m.pageSize || m.root < 2 || m.root >= m.hw || m.freelist != boltNoFreelist && (m.freelist < 2 || m.freelist >= m.hw) ||
			m.hw*m.pageSize > w.size {
			w.fail("", harmless, nil, "%s: its header page %d points outside the file", w.path, i)
			return
		}
		metas[i] = m
	}
	if d := int64(metas[0].txid - metas[1].txid); d != 1 && d != -1 {
		w.fail("", harmless, nil, "%s: its header pages name transactions %d and %d, which are not one apart", w.path, metas[0].txid, metas[1].txid)
	}
}

// checkPagesAt runs checkBoltPages on the file at path; the caller holds
// its lock (in a transaction), so that no write changes it meanwhile.
func checkPagesAt(path string) (*pageDamage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return checkBoltPages(f, st.Size(), path)
}

type pageWalker struct {
	f      io.ReaderAt
	m      boltMeta
	path   string
	size   uint64  // the file's
	data   []byte  // the file mapped, if it could be: read, not f
	used   pageSet // pages reachable from the meta page
	buf    []byte
	first  error       // the first damage found
	unsafe *pageDamage // what bbolt must not read
	// topKeys are the keys of each bucket of the root bucket (the
	// buckets' own, not their buckets'), by its name, in order.
	topKeys map[string][]string
	// quick is set for checkBoltQuick's walk: of a branch page whose
	// children are leaves, only the first is read, and the others too
	// only when it holds buckets; the others' ids are claimed, not read.
	quick bool
	// buckets counts the bucket records read, for quick.
	buckets int
}

// What a piece of damage does to reading.
type hazard int

const (
	harmless   hazard = iota // bbolt reads around it, or faults (contained)
	breaksTree               // bbolt could loop or wander in the tree
	wildRecord               // a record's value runs past its page
)

// fail records a piece of damage in tree (and, for a wild record, key).
func (w *pageWalker) fail(tree string, h hazard, key []byte, format string, args ...any) {
	err := damaged(format, args...)
	if w.first == nil {
		w.first = err
	}
	if h == harmless {
		return
	}
	if w.unsafe == nil {
		w.unsafe = &pageDamage{err: err, broken: map[string]bool{}, wild: map[string]map[string]bool{}}
	}
	if h == breaksTree {
		w.unsafe.broken[tree] = true
		return
	}
	if w.unsafe.wild[tree] == nil {
		w.unsafe.wild[tree] = map[string]bool{}
	}
	w.unsafe.wild[tree][string(key)] = true
}

// read returns n bytes at page id's start, or fewer at the end of the
// file, valid until the next read.
func (w *pageWalker) read(id, n uint64) []byte {
	return w.readAt(id*w.m.pageSize, n, true)
}

// readAt returns n bytes at offset off of the file, or fewer at its end:
// in a buffer valid until the next call when reuse is set.
func (w *pageWalker) readAt(off, n uint64, reuse bool) []byte {
	if w.data != nil {
		end := uint64(len(w.data))
		return w.data[min(off, end):min(off+n, end)]
	}
	var b []byte
	if reuse {
		if uint64(cap(w.buf)) < n {
			w.buf = make([]byte, n)
		}
		b = w.buf[:n]
	} else {
		b = make([]byte, n)
	}
	k, _ := w.f.ReadAt(b, int64(off))
	return b[:k]
}

// claim marks page v.id and its overflow pages as used, reporting
// whether all of them were in the file and unused.
func (w *pageWalker) claim(v visit, overflow uint64) bool {
	if overflow >= w.m.hw-v.id {
		w.fail(v.tree, breaksTree, nil, "%s: page %d runs on past its %d pages", w.path, v.id, w.m.hw)
		return false
	}
	for p := v.id; p <= v.id+overflow; p++ {
		if w.used.has(p) {
			w.fail(v.tree, breaksTree, nil, "%s: page %d is used twice (by %s and by another page)", w.path, p, v.what())
			return false
		}
		w.used.add(p)
	}
	return true
}

// A visit is a page of records to check: a page of the file, or the page
// an inline bucket keeps in its value.
type visit struct {
	id     uint64 // the page's id (for an inline bucket, the page its value is on)
	inline []byte // an inline bucket's page; nil for a page of the file
	// from is the page that points at it (0: the meta page), through
	// the record of bucket if it is a bucket's root.
	from   uint64
	bucket []byte
	tree   string // the tree it belongs to (see pageDamage)
	// The page's keys lie between the keys its parent branch names for
	// it and for the next child (lo, hi; nil: no bound).
	lo, hi []byte
}

// what names what points at v, for messages.
func (v visit) what() string {
	switch {
	case v.bucket != nil:
		return fmt.Sprintf("bucket %q on page %d", v.bucket, v.from)
	case v.from == 0:
		return "the root bucket"
	}
	return fmt.Sprintf("page %d", v.from)
}

// name names page v, for messages.
func (v visit) name() string {
	if v.inline != nil {
		return "the page of " + v.what()
	}
	return fmt.Sprintf("page %d", v.id)
}

// walk visits every branch and leaf page reachable from the current meta
// page, with an explicit stack: a damaged file can chain pages deeper
// than any real tree. A page it cannot read as one of records is not
// descended from, nor one reached a second time.
func (w *pageWalker) walk() {
	stack := []visit{{id: w.m.root}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.inline != nil {
			stack = w.inlinePage(v, stack)
		} else {
			stack = w.page(v, stack)
		}
	}
}

// page checks page v.id and returns stack with the pages it points at.
func (w *pageWalker) page(v visit, stack []visit) []visit {
	ne := binary.NativeEndian
	if v.id < 2 || v.id >= w.m.hw {
		w.fail(v.tree, breaksTree, nil, "%s: %s points at page %d, outside its %d pages", w.path, v.what(), v.id, w.m.hw)
		return stack
	}
	// The first page whole, header and all: one read where there were
	// two (the quick check reads page by page).
	first := w.read(v.id, w.m.pageSize)
	if len(first) < boltHeaderSize {
		w.fail(v.tree, breaksTree, nil, "%s: page %d cannot be read", w.path, v.id)
		return stack
	}
	h := first[:boltHeaderSize]
	gotID, flags, count, overflow := ne.Uint64(h), ne.Uint16(h[8:]), uint64(ne.Uint16(h[10:])), uint64(ne.Uint32(h[12:]))
	if gotID != v.id || (flags != boltBranchPage && flags != boltLeafPage) {
		w.fail(v.tree, breaksTree, nil, "%s: page %d, used by %s, is not a page of records", w.path, v.id, v.what())
		return stack
	}
	if !w.claim(v, overflow) {
		return stack
	}
	span := (overflow + 1) * w.m.pageSize
	if v.id*w.m.pageSize+span > w.size {
		w.fail(v.tree, breaksTree, nil, "%s: page %d runs past the end of the file", w.path, v.id)
		return stack
	}
	// The first page holds the table and, but for large keys, the keys;
	// what runs into the overflow pages is read when needed.
	p := first
	if n := max(boltHeaderSize+count*boltElementSize, min(span, w.m.pageSize)); n > uint64(len(p)) {
		p = w.read(v.id, n)
	}
	base := v.id * w.m.pageSize
	at := func(at, n uint64) ([]byte, bool) {
		if at+n <= uint64(len(p)) {
			return p[at : at+n], true
		}
		b := w.readAt(base+at, n, false) // n < span: records lie in their page
		return b, uint64(len(b)) == n
	}
	if !w.quick || flags != boltBranchPage {
		return w.records(v, flags, count, span, at, stack)
	}
	return w.quickChildren(w.records(v, flags, count, span, at, nil), stack)
}

// quickChildren returns stack with the children kids of a branch page
// that checkBoltQuick reads: all of them when they are branches (their
// first is), else the first leaf, read now, and the others only when
// that one holds buckets, their ids claimed otherwise. A tree's leaves
// hold records or buckets, as the library's buckets do: one that mixes
// both has the buckets of its other leaves left to the full walk.
func (w *pageWalker) quickChildren(kids, stack []visit) []visit {
	if len(kids) == 0 {
		return stack
	}
	first := kids[0]
	if first.id < 2 || first.id >= w.m.hw {
		return append(stack, kids...) // page reports it
	}
	h := w.read(first.id, boltHeaderSize)
	if len(h) < boltHeaderSize || binary.NativeEndian.Uint16(h[8:]) != boltLeafPage {
		return append(stack, kids...)
	}
	before := w.buckets
	stack = w.page(first, stack)
	if w.buckets > before {
		return append(stack, kids[1:]...)
	}
	for _, k := range kids[1:] {
		if k.id < 2 || k.id >= w.m.hw {
			w.fail(k.tree, breaksTree, nil, "%s: %s points at page %d, outside its %d pages", w.path, k.what(), k.id, w.m.hw)
			continue
		}
		w.claim(k, 0)
	}
	return stack
}

// inlinePage checks the page of an inline bucket, kept in its value
// (v.inline), and returns stack with what it points at.
func (w *pageWalker) inlinePage(v visit, stack []visit) []visit {
	ne := binary.NativeEndian
	p := v.inline
	if len(p) < boltHeaderSize || ne.Uint16(p[8:]) != boltLeafPage {
		// bbolt reads an inline page that is not a leaf as a branch,
		// following child ids taken from its bytes.
		w.fail(v.tree, breaksTree, nil, "%s: the page of %s is not a page of records", w.path, v.what())
		return stack
	}
	return w.records(v, boltLeafPage, uint64(ne.Uint16(p[10:])), uint64(len(p)), func(at, n uint64) ([]byte, bool) {
		if at+n <= uint64(len(p)) {
			return p[at : at+n], true
		}
		return nil, false
	}, stack)
}

// records checks the element table of the page v (a branch or leaf page
// of count records, span bytes, whose bytes at returns) — each record
// inside the page, the keys in order, each bucket's header — and returns
// stack with the pages it points at: a branch's children, the root page
// of each bucket a leaf holds.
func (w *pageWalker) records(v visit, flags uint16, count, span uint64, at func(off, n uint64) ([]byte, bool), stack []visit) []visit {
	ne := binary.NativeEndian
	table, ok := at(0, boltHeaderSize+count*boltElementSize)
	if !ok || boltHeaderSize+count*boltElementSize > span || flags == boltBranchPage && count == 0 {
		// bbolt would take child ids from past the table.
		w.fail(v.tree, breaksTree, nil, "%s: %s says it holds %d records, more than fit", w.path, v.name(), count)
		return stack
	}
	var prev []byte // the previous key, to check the keys' order
	var top *[]string
	if flags == boltLeafPage && v.tree != "" && strings.IndexByte(v.tree[1:], 0) < 0 {
		if w.topKeys == nil {
			w.topKeys = map[string][]string{}
		}
		keys := w.topKeys[v.tree[1:]]
		top = &keys
		defer func() { w.topKeys[v.tree[1:]] = *top }()
	}
	var children []visit
	if flags == boltBranchPage {
		children = make([]visit, 0, count)
	}
	// bbolt writes a page's keys and values one after another, in the
	// records' order, from the end of the element table: a record whose
	// data does not start where the one before ended has a damaged
	// position or length — in a leaf, possibly one whose key still sorts
	// in place, which a write would then carry into a page out of order.
	next, laidOut := boltHeaderSize+count*boltElementSize, true
	for i := range count {
		base := boltHeaderSize + i*boltElementSize
		e := table[base:]
		// Its key (and value) must lie in the page: bbolt reads them
		// through its memory map, as slices of the length the page
		// says, where a length that runs past the file is a fault no
		// recover catches (in tx.Check's goroutine) and a copy of one
		// can be gigabytes.
		var pos, klen, vlen uint64
		if flags == boltBranchPage { // pos, ksize, child
			pos, klen = base+uint64(ne.Uint32(e)), uint64(ne.Uint32(e[4:]))
		} else { // flags, pos, ksize, vsize
			pos, klen, vlen = base+uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		}
		// (a record running past the page is reported as that, below)
		if pos != next && laidOut && pos+klen+vlen <= span {
			laidOut = false
			w.fail(v.tree, harmless, nil, "%s: %s has records that do not follow one another", w.path, v.name())
		}
		next = pos + klen + vlen
		if pos+klen > span {
			// A leaf's key is handed out as it is (cursors, ForEach);
			// a branch's only compared.
			h := harmless
			if flags == boltLeafPage {
				h = breaksTree
			}
			w.fail(v.tree, h, nil, "%s: %s has a record that runs past the page", w.path, v.name())
			if flags == boltBranchPage {
				children = append(children, visit{id: ne.Uint64(e[8:]), from: v.id, tree: v.tree})
			}
			continue
		}
		key, ok := at(pos, klen)
		if !ok {
			w.fail(v.tree, harmless, nil, "%s: %s cannot be read", w.path, v.name())
			continue
		}
		// The keys are in order, and between the parent's bounds (in
		// order, the first and last keys tell): a write finds its place
		// by them.
		if i > 0 && bytes.Compare(prev, key) >= 0 || i == 0 && v.lo != nil && bytes.Compare(key, v.lo) < 0 ||
			i == count-1 && v.hi != nil && bytes.Compare(key, v.hi) >= 0 {
			w.fail(v.tree, harmless, nil, "%s: %s has its records out of order", w.path, v.name())
		}
		prev = key // stays put: the page is not read again meanwhile
		if top != nil {
			*top = append(*top, string(key))
		}
		if flags == boltBranchPage && w.quick {
			// No bounds: the quick check reads few of the children,
			// and checks no keys against their parent's.
			children = append(children, visit{id: ne.Uint64(e[8:]), from: v.id, tree: v.tree})
			continue
		}
		if flags == boltBranchPage {
			if n := len(children); n > 0 {
				children[n-1].hi = bytes.Clone(key)
			}
			children = append(children, visit{id: ne.Uint64(e[8:]), from: v.id, tree: v.tree, lo: bytes.Clone(key), hi: v.hi})
			continue
		}
		if pos+klen+vlen > span {
			w.fail(v.tree, wildRecord, key, "%s: %s has a record that runs past the page", w.path, v.name())
			continue
		}
		if ne.Uint32(e)&boltBucketFlag == 0 {
			continue
		}
		// A bucket: its root page, or its inline page, read from its value.
		w.buckets++
		tree := v.tree + "\x00" + string(key)
		if vlen < boltBucketHeader {
			w.fail(tree, breaksTree, nil, "%s: %s has a bucket record too short to be one", w.path, v.name())
			continue
		}
		value, ok := at(pos+klen, vlen)
		if !ok {
			w.fail(tree, harmless, nil, "%s: %s cannot be read", w.path, v.name())
			continue
		}
		if r := ne.Uint64(value); r != 0 {
			stack = append(stack, visit{id: r, from: v.id, bucket: bytes.Clone(key), tree: tree})
		} else { // an inline bucket, in the value itself
			stack = append(stack, visit{id: v.id, inline: bytes.Clone(value[boltBucketHeader:]), from: v.id, bucket: bytes.Clone(key), tree: tree})
		}
	}
	return append(stack, children...)
}

// checkFree reads the free list and checks that it names no page in use
// and that every page is either in use or free. Its damage is harmless
// to reads: only a write reads the free list.
func (w *pageWalker) checkFree() {
	free := make(pageSet, len(w.used))
	fail := func(format string, args ...any) { w.fail("", harmless, nil, format, args...) }
	if id := w.m.freelist; id != boltNoFreelist {
		ne := binary.NativeEndian
		h := w.read(id, boltHeaderSize)
		if len(h) < boltHeaderSize || ne.Uint64(h) != id || ne.Uint16(h[8:]) != boltFreelistPage {
			fail("%s: its free-page list (page %d) is damaged", w.path, id)
			return
		}
		count, overflow := uint64(ne.Uint16(h[10:])), uint64(ne.Uint32(h[12:]))
		if id < 2 || id >= w.m.hw || overflow >= w.m.hw-id {
			fail("%s: its free-page list (page %d) runs outside its %d pages", w.path, id, w.m.hw)
			return
		}
		for p := id; p <= id+overflow; p++ {
			if w.used.has(p) {
				fail("%s: page %d is used twice (by the free-page list and by another page)", w.path, p)
				return
			}
			w.used.add(p)
		}
		span := (overflow + 1) * w.m.pageSize
		first := uint64(boltHeaderSize)
		if count == boltBigFreelist {
			c := w.read(id, boltHeaderSize+8)
			if len(c) < boltHeaderSize+8 {
				fail("%s: its free-page list (page %d) cannot be read", w.path, id)
				return
			}
			count, first = ne.Uint64(c[boltHeaderSize:]), boltHeaderSize+8
		}
		if count > (span-first)/8 {
			fail("%s: its free-page list (page %d) says it holds %d pages, more than fit", w.path, id, count)
			return
		}
		p := w.read(id, first+count*8)
		if uint64(len(p)) < first+count*8 {
			fail("%s: its free-page list (page %d) cannot be read", w.path, id)
			return
		}
		for i := range count {
			f := ne.Uint64(p[first+i*8:])
			switch {
			case f < 2 || f >= w.m.hw:
				fail("%s: its free-page list names page %d, outside its %d pages", w.path, f, w.m.hw)
				return
			case w.used.has(f):
				fail("%s: page %d is in use but also listed as free, so the next write would overwrite it", w.path, f)
				return
			case free.has(f):
				fail("%s: its free-page list names page %d twice", w.path, f)
				return
			}
			free.add(f)
		}
	}
	if w.first != nil || w.quick {
		return // pages not walked (for damage, or at all) would be counted as lost
	}
	for id := uint64(0); id < w.m.hw; id++ {
		if !w.used.has(id) && !free.has(id) {
			fail("%s: page %d is neither in use nor listed as free", w.path, id)
			return
		}
	}
}
