package docstore

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"github.com/citelens/citelens/storage"
)

// The library's inverted index holds one list per term and field across
// the documents of a segment, so a question reads the lists of its terms
// and nothing of the documents that hold none of them. A list is stored
// as blocks of up to maxBlock bytes, each under the key
//
//	term 0x00 doc(u32 BE) unit(u32 BE)
//
// naming its first posting, so a term's blocks lie together in (document,
// unit) order and bbolt's B+tree is the list's skip index: a cursor finds
// the block holding a document with one Seek. A block is
//
//	uvarint maxTF<<1 | first, uvarint minLen (a bound on its postings)
//	the term's first block only: uvarint units, uvarint maxTF,
//	uvarint minLen (the term's summary in the segment)
//	then groups, one per document:
//	uvarint doc − previous doc (the key's doc for the first), uvarint n,
//	uvarint bytes, then n × (uvarint unit − previous unit, uvarint tf,
//	uvarint unit length)
//
// Documents share blocks, so the index costs a few bytes per posting
// rather than a bbolt key per term and document; a document's group is
// split across blocks when it is larger than a block. Blocks are written
// once, in key order, as part of a segment (segments.go).
//
// A group belongs to a document by number (DocNum); a reader skips the
// groups of documents that are not live (removed, until a merge drops
// them), so those stay invisible while their postings are there.

// DocNum is a document's number in its library: given at the add, in
// order, never reused, the key of its postings and its listing record.
type DocNum uint32

// maxBlock is the size a block is filled to: small enough that reading
// one document's postings of a term reads little more.
const maxBlock = 1024

// termSep ends a term in a block key: no term holds a NUL.
const termSep = 0x00

// listKey is the key of a block of term starting at (doc, unit).
func listKey(dst []byte, term string, doc DocNum, unit uint32) []byte {
	dst = append(dst, term...)
	dst = append(dst, termSep)
	dst = binary.BigEndian.AppendUint32(dst, uint32(doc))
	return binary.BigEndian.AppendUint32(dst, unit)
}

// termPrefix is the prefix of every block key of term.
func termPrefix(term string) []byte { return append([]byte(term), termSep) }

// keyStart reads the (doc, unit) of a block key with prefix p.
func keyStart(k, p []byte) (DocNum, uint32, bool) {
	if len(k) != len(p)+8 || !bytes.HasPrefix(k, p) {
		return 0, 0, false
	}
	return DocNum(binary.BigEndian.Uint32(k[len(p):])), binary.BigEndian.Uint32(k[len(p)+4:]), true
}

// group is one document's postings of a term in one block.
type group struct {
	doc           DocNum
	n             int
	first, last   uint32 // first and last unit
	maxTF, minLen uint32
	data          []byte // n × (unit delta, tf, length); the first delta from 0
}

// groupPosting is one posting being encoded.
type groupPosting struct {
	unit, tf, length uint32
}

// appendGroups encodes postings (in unit order, of one document) as
// groups of at most maxBlock bytes each.
func appendGroups(dst []group, doc DocNum, ps []groupPosting) []group {
	var g *group
	prev := uint32(0)
	for _, p := range ps {
		if g == nil || len(g.data) >= maxBlock {
			dst = append(dst, group{doc: doc, first: p.unit, minLen: ^uint32(0)})
			g = &dst[len(dst)-1]
			prev = 0
		}
		g.data = binary.AppendUvarint(g.data, uint64(p.unit-prev))
		g.data = binary.AppendUvarint(g.data, uint64(p.tf))
		g.data = binary.AppendUvarint(g.data, uint64(p.length))
		prev = p.unit
		g.n++
		g.last = p.unit
		g.maxTF = max(g.maxTF, p.tf)
		g.minLen = min(g.minLen, p.length)
	}
	return dst
}

// encodeListBlock writes groups (in order) as one block; sum, for the
// term's first block, is the term's summary.
func encodeListBlock(dst []byte, gs []group, sum *termSummary) []byte {
	maxTF, minLen := uint32(0), ^uint32(0)
	for _, g := range gs {
		maxTF, minLen = max(maxTF, g.maxTF), min(minLen, g.minLen)
	}
	first := uint64(0)
	if sum != nil {
		first = 1
	}
	dst = binary.AppendUvarint(dst, uint64(maxTF)<<1|first)
	dst = binary.AppendUvarint(dst, uint64(minLen))
	if sum != nil {
		dst = sum.append(dst)
	}
	prev := gs[0].doc
	for _, g := range gs {
		dst = binary.AppendUvarint(dst, uint64(g.doc-prev))
		dst = binary.AppendUvarint(dst, uint64(g.n))
		dst = binary.AppendUvarint(dst, uint64(len(g.data)))
		dst = append(dst, g.data...)
		prev = g.doc
	}
	return dst
}

// blockReader walks the groups of a block.
type blockReader struct {
	b             []byte
	doc           DocNum // of the group read last (the key's before the first)
	maxTF, minLen uint32
	// sum is the term's summary, in its first block.
	sum    termSummary
	hasSum bool
}

// uvarint reads one uvarint off b.
func uvarint(b *[]byte) (uint64, bool) {
	v, n := binary.Uvarint(*b)
	if n <= 0 {
		return 0, false
	}
	*b = (*b)[n:]
	return v, true
}

// openBlock starts reading block v, whose key names document doc.
func openBlock(v []byte, doc DocNum) (blockReader, error) {
	r := blockReader{b: v, doc: doc}
	tf, ok1 := uvarint(&r.b)
	ln, ok2 := uvarint(&r.b)
	if !ok1 || !ok2 {
		return r, ErrCorrupt
	}
	r.maxTF, r.minLen = uint32(min(tf>>1, math.MaxUint32)), uint32(min(ln, math.MaxUint32))
	if tf&1 != 0 {
		var err error
		if r.sum, err = readTermSummary(&r.b); err != nil {
			return r, err
		}
		r.hasSum = true
	}
	return r, nil
}

// next reads the next group's header and data (data unparsed); ok is
// false at the end of the block.
func (r *blockReader) next() (doc DocNum, n int, data []byte, ok bool, err error) {
	if len(r.b) == 0 {
		return 0, 0, nil, false, nil
	}
	dd, ok1 := uvarint(&r.b)
	cnt, ok2 := uvarint(&r.b)
	size, ok3 := uvarint(&r.b)
	if !ok1 || !ok2 || !ok3 || size > uint64(len(r.b)) || cnt > size || dd > 1<<32-1 {
		return 0, 0, nil, false, ErrCorrupt
	}
	r.doc += DocNum(dd)
	data, r.b = r.b[:size], r.b[size:]
	return r.doc, int(cnt), data, true, nil
}

// eachPosting decodes a group's n postings.
func eachPosting(data []byte, n int, fn func(unit, tf, length uint32)) error {
	unit := uint64(0)
	for range n {
		du, ok1 := uvarint(&data)
		tf, ok2 := uvarint(&data)
		ln, ok3 := uvarint(&data)
		if !ok1 || !ok2 || !ok3 {
			return ErrCorrupt
		}
		unit += du
		if unit > 1<<31-1 {
			return ErrCorrupt
		}
		fn(uint32(unit), uint32(min(tf, 1<<31-1)), uint32(min(ln, 1<<31-1)))
	}
	return nil
}

// runStart returns the unit of a group's first posting, or -1 when the
// group is damaged (PostingRun.Each reports that).
func runStart(data []byte) int64 {
	u, ok := uvarint(&data)
	if !ok || u > 1<<31-1 {
		return -1
	}
	return int64(u)
}

// before orders groups by document, then first unit.
func (g group) before(h group) bool {
	return g.doc < h.doc || g.doc == h.doc && g.first < h.first
}

// putBlocks writes a term's groups in a segment (all of them, in order)
// as blocks of about maxBlock bytes, the first with the term's summary.
func putBlocks(b storage.Bucket, term string, gs []group) error {
	if len(listKey(nil, term, 0, 0)) > storage.MaxKeySize || len(gs) == 0 {
		return nil // a term too long to index: bbolt refuses the key
	}
	sum := &termSummary{minLen: math.MaxUint32}
	for _, g := range gs {
		sum.add(g)
	}
	var key, val []byte
	for len(gs) > 0 {
		n, size := 0, 0
		for n < len(gs) && (n == 0 || size+len(gs[n].data) <= maxBlock) {
			size += len(gs[n].data) + 6
			n++
		}
		key = listKey(key[:0], term, gs[0].doc, gs[0].first)
		val = encodeListBlock(val[:0], gs[:n], sum)
		if err := b.Put(slices.Clone(key), slices.Clone(val)); err != nil {
			return err
		}
		gs, sum = gs[n:], nil
	}
	return nil
}

// termSummary is a term's summary in a segment, which its first block
// holds: the units that hold it and bounds on its postings, so that a
// question over the whole library reads a term's statistics in one lookup
// per segment. (Removed documents count in it until the segment is
// merged, as in most search engines.)
type termSummary struct {
	units         uint64
	maxTF, minLen uint32
}

func (s *termSummary) add(g group) {
	s.units += uint64(g.n)
	s.maxTF, s.minLen = max(s.maxTF, g.maxTF), min(s.minLen, g.minLen)
}

func (s *termSummary) append(b []byte) []byte {
	b = binary.AppendUvarint(b, s.units)
	b = binary.AppendUvarint(b, uint64(s.maxTF))
	return binary.AppendUvarint(b, uint64(s.minLen))
}

func readTermSummary(v *[]byte) (termSummary, error) {
	var s termSummary
	u, ok1 := uvarint(v)
	tf, ok2 := uvarint(v)
	ln, ok3 := uvarint(v)
	if !ok1 || !ok2 || !ok3 {
		return s, ErrCorrupt
	}
	s.units, s.maxTF, s.minLen = u, uint32(min(tf, math.MaxUint32)), uint32(min(ln, math.MaxUint32))
	return s, nil
}

// termSummaryIn reads term's summary in a segment's field bucket; ok is
// false when the segment does not hold the term.
func termSummaryIn(b storage.Bucket, term string) (s termSummary, ok bool, err error) {
	prefix := termPrefix(term)
	k, v := b.Cursor().Seek(prefix)
	d, _, found := keyStart(k, prefix)
	if !found {
		return s, false, nil
	}
	r, err := openBlock(v, d)
	if err != nil || !r.hasSum {
		return s, false, ErrCorrupt
	}
	return r.sum, true, nil
}
