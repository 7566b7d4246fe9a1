package docstore

// This file is part of the library file, docstore's bbolt part (doc.go):
// the checks of a file's meta pages before bbolt opens it.

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"os"
)

// bbolt trusts its file: opened cut short (an interrupted copy), it maps
// pages that are not there and faults on the first read of one, and it
// loads the freelist page in Open itself, panicking ("invalid freelist
// page") while it holds the file's lock and mapping, which nothing can
// release afterwards. checkBoltFile reads the file's two meta pages as
// bbolt does and checks, before bbolt sees the file, that every page they
// point to is there and is what they say it is.
//
// The layout (stable since boltdb): a page starts with a 16-byte header
// (id u64, flags u16, count u16, overflow u32); pages 0 and 1 hold a meta
// record after it (magic u32, version u32, page size u32, flags u32, root
// bucket pgid u64 and sequence u64, freelist pgid u64, high-water pgid
// u64, txid u64, FNV-64a checksum u64 of the fields before it), in the
// machine's byte order. The valid meta with the higher txid is current.

const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltHeaderSize   = 16
	boltMetaSize     = 64
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltFreelistPage = 0x10
	boltNoFreelist   = ^uint64(0)
)

type boltMeta struct {
	pageSize           uint64
	root, freelist, hw uint64
	txid               uint64
}

// parseBoltMeta decodes the meta record of a meta page, or reports it
// invalid.
func parseBoltMeta(page []byte) (boltMeta, bool) {
	if len(page) < boltHeaderSize+boltMetaSize {
		return boltMeta{}, false
	}
	m := page[boltHeaderSize : boltHeaderSize+boltMetaSize]
	ne := binary.NativeEndian
	h := fnv.New64a()
	h.Write(m[:56])
	if ne.Uint32(m[0:]) != boltMagic || ne.Uint32(m[4:]) != boltVersion || ne.Uint64(m[56:]) != h.Sum64() {
		return boltMeta{}, false
	}
	return boltMeta{
		pageSize: uint64(ne.Uint32(m[8:])),
		root:     ne.Uint64(m[16:]),
		freelist: ne.Uint64(m[32:]),
		hw:       ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
	}, true
}

// currentBoltMeta reads the meta pages of the bbolt file f (at path, for
// messages) and returns the one bbolt would use: the valid one with the
// higher txid. Its page size and page count are checked to be sane.
func currentBoltMeta(f io.ReaderAt, path string) (boltMeta, error) {
	readPage := func(off, n uint64) []byte {
		b := make([]byte, n)
		k, _ := f.ReadAt(b, int64(off))
		return b[:k]
	}
	m0, ok0 := parseBoltMeta(readPage(0, boltHeaderSize+boltMetaSize))
	pageSize := uint64(os.Getpagesize())
	if ok0 {
		pageSize = m0.pageSize
	}
	m1, ok1 := parseBoltMeta(readPage(pageSize, boltHeaderSize+boltMetaSize))
	m := m0
	switch {
	case !ok0 && !ok1:
		return m, damaged("%s has no valid header page (it is not a citelens library, or its start is overwritten)", path)
	case ok1 && (!ok0 || m1.txid > m0.txid):
		m = m1
	}
	if m.pageSize < 1024 || m.pageSize > 1<<20 {
		return m, damaged("%s has a page size of %d bytes", path, m.pageSize)
	}
	if need := m.hw * m.pageSize; m.hw < 2 || need/m.pageSize != m.hw {
		return m, damaged("%s says it has %d pages", path, m.hw)
	}
	return m, nil
}

// checkBoltFile returns an ErrCorrupt error when the library file at path
// is cut short or its meta pages point at pages that are not what they
// should be. A missing or empty file (a new library) passes.
func checkBoltFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	size := uint64(st.Size())
	m, err := currentBoltMeta(f, path)
	if err != nil {
		return err
	}
	readPage := func(off, n uint64) []byte {
		b := make([]byte, n)
		k, _ := f.ReadAt(b, int64(off))
		return b[:k]
	}
	need := m.hw * m.pageSize
	if size < need {
		return damaged("%s is cut short: it holds %d bytes of the %d its pages need (an interrupted copy?)", path, size, need)
	}
	checkPage := func(what string, id uint64, flags ...uint16) error {
		if id < 2 || id >= m.hw {
			return damaged("%s puts its %s at page %d, outside its %d pages", path, what, id, m.hw)
		}
		h := readPage(id*m.pageSize, boltHeaderSize)
		if len(h) < boltHeaderSize {
			return damaged("%s: its %s page %d cannot be read", path, what, id)
		}
		ne := binary.NativeEndian
		gotID, gotFlags, overflow := ne.Uint64(h), ne.Uint16(h[8:]), uint64(ne.Uint32(h[12:]))
		okFlags := false
		for _, f := range flags {
			okFlags = okFlags || gotFlags == f
		}
		if gotID != id || !okFlags || id+overflow >= m.hw {
			return damaged("%s: its %s page %d is damaged", path, what, id)
		}
		return nil
	}
	if err := checkPage("root", m.root, boltBranchPage, boltLeafPage); err != nil {
		return err
	}
	if m.freelist == boltNoFreelist {
		return nil
	}
	if err := checkPage("freelist", m.freelist, boltFreelistPage); err != nil {
		return err
	}
	// bbolt's Open for writing copies the free list into a slice of the
	// length it says: a flipped bit in it would be an allocation of
	// terabytes, which kills the process.
	h := readPage(m.freelist*m.pageSize, boltHeaderSize+8)
	ne := binary.NativeEndian
	count, first, overflow := uint64(ne.Uint16(h[10:])), uint64(boltHeaderSize), uint64(ne.Uint32(h[12:]))
	if count == boltBigFreelist && len(h) == boltHeaderSize+8 {
		count, first = ne.Uint64(h[boltHeaderSize:]), boltHeaderSize+8
	}
	if span := (overflow + 1) * m.pageSize; count > (span-first)/8 {
		return damaged("%s: its free-page list (page %d) says it holds %d pages, more than fit", path, m.freelist, count)
	}
	return nil
}
