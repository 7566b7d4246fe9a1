package docstore

import (
	"encoding/binary"
)

// Binary layouts of the tables stored per document. Fixed-width little
// endian for the tables (decoded in well under a millisecond for 150k
// sentences, which keeps `ask` on a big library fast) and uvarints for
// postings (compact, decoded only for the query's terms).

func putInt32s(dst []byte, vs ...int32) []byte {
	for _, v := range vs {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
	}
	return dst
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) i32() int32 {
	if len(r.b) < 4 {
		r.err = ErrCorrupt
		return 0
	}
	v := int32(binary.LittleEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

func (r *reader) count(width int) int {
	n := int(r.i32())
	if n < 0 || n*width > len(r.b) {
		r.err = ErrCorrupt
		return 0
	}
	return n
}

// layoutPageStarts reads the page starts of a layout record of any schema
// version (they are its first table), checked against a text of n bytes;
// nil if they cannot be read.
func layoutPageStarts(b []byte, n int) []int32 {
	r := &reader{b: b}
	ps := make([]int32, r.count(4))
	for i := range ps {
		ps[i] = r.i32()
		if ps[i] < 0 || int(ps[i]) > n || (i > 0 && ps[i] < ps[i-1]) {
			return nil
		}
	}
	if r.err != nil || len(ps) == 0 || ps[0] != 0 {
		return nil
	}
	return ps
}

// posting is one entry of a term's postings list: the sentence (or chunk)
// index and the term's frequency in it.
type posting struct {
	idx int32
	tf  int32
}

// postings are stored as uvarint count, then (delta idx, tf) uvarint pairs.
func encodePostings(dst []byte, ps []posting) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ps)))
	prev := int32(0)
	for _, p := range ps {
		dst = binary.AppendUvarint(dst, uint64(p.idx-prev))
		dst = binary.AppendUvarint(dst, uint64(p.tf))
		prev = p.idx
	}
	return dst
}

// forEachPosting decodes b and calls fn for each posting; it returns
// ErrCorrupt on a truncated list.
func forEachPosting(b []byte, fn func(idx int32, tf int32)) error {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return ErrCorrupt
	}
	b = b[k:]
	idx := int32(0)
	for i := uint64(0); i < n; i++ {
		d, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return ErrCorrupt
		}
		tf, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 {
			return ErrCorrupt
		}
		b = b[k1+k2:]
		idx += int32(d)
		fn(idx, int32(tf))
	}
	return nil
}

// postingsLen returns the number of postings (the document frequency)
// without decoding the list.
func postingsLen(b []byte) int {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return 0
	}
	return int(n)
}

// lengths are stored as one uint16 per unit (sentence or chunk): its number
// of index terms, saturated at 65535.
func encodeLengths(ls []int32) []byte {
	b := make([]byte, 2*len(ls))
	for i, l := range ls {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(min(l, 65535)))
	}
	return b
}

func decodeLengths(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}
