package docstore

import (
	"encoding/binary"
)

// Binary layouts of the tables stored per document: fixed-width little
// endian (decoded in well under a millisecond for 150k sentences, which
// keeps `ask` on a big library fast). Postings are stored in blocks of
// uvarints (blocks.go).

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

// posting is one entry of a term's postings in an index being built: the
// unit (sentence, chunk…) and the term's frequency in it.
type posting struct {
	idx int32
	tf  int32
}
