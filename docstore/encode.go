package docstore

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/citelens/citelens/docstore/structure"
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

// layout is the stored form of PageStarts, Sentences, Chunks, Sections
// and Tables:
//
//	u32 npages, npages×i32 page starts,
//	u32 nsents, nsents×(i32 start, i32 end, i32 page, i32 section, i32 table, i32 flags),
//	u32 nchunks, nchunks×(i32 first, i32 last, i32 tokens),
//	u32 nsections, nsections×(i32 start, i32 end, i32 level, i32 parent, i32 sentence),
//	u32 ntables, ntables×(i32 caption start, i32 caption end,
//	    u32 nheader, nheader×(i32, i32), u32 nrows, nrows×(i32, i32))
func encodeLayout(d *Document) []byte {
	b := make([]byte, 0, 20+4*len(d.PageStarts)+24*len(d.Sentences)+12*len(d.Chunks)+20*len(d.Sections))
	b = putInt32s(b, int32(len(d.PageStarts)))
	b = putInt32s(b, d.PageStarts...)
	b = putInt32s(b, int32(len(d.Sentences)))
	for _, s := range d.Sentences {
		b = putInt32s(b, s.Start, s.End, s.Page, s.Section, s.Table, int32(s.Flags))
	}
	b = putInt32s(b, int32(len(d.Chunks)))
	for _, c := range d.Chunks {
		b = putInt32s(b, c.First, c.Last, c.Tokens)
	}
	b = putInt32s(b, int32(len(d.Sections)))
	for _, s := range d.Sections {
		b = putInt32s(b, s.Heading.Start, s.Heading.End, int32(s.Level), s.Parent, s.Sentence)
	}
	b = putInt32s(b, int32(len(d.Tables)))
	putSpans := func(ss []structure.Span) {
		b = putInt32s(b, int32(len(ss)))
		for _, s := range ss {
			b = putInt32s(b, s.Start, s.End)
		}
	}
	for _, t := range d.Tables {
		b = putInt32s(b, t.Caption.Start, t.Caption.End)
		putSpans(t.Header)
		putSpans(t.Rows)
	}
	words := make([]string, 0, len(d.Compounds))
	for w := range d.Compounds {
		words = append(words, w)
	}
	slices.Sort(words)
	putString := func(s string) {
		b = putInt32s(b, int32(len(s)))
		b = append(b, s...)
	}
	b = putInt32s(b, int32(len(words)))
	for _, w := range words {
		putString(w)
		b = putInt32s(b, int32(len(d.Compounds[w])))
		for _, p := range d.Compounds[w] {
			putString(p)
		}
	}
	return b
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

func decodeLayout(b []byte, d *Document) error {
	r := &reader{b: b}
	n := r.count(4)
	d.PageStarts = make([]int32, n)
	for i := range d.PageStarts {
		d.PageStarts[i] = r.i32()
	}
	n = r.count(24)
	d.Sentences = make([]Sentence, n)
	for i := range d.Sentences {
		d.Sentences[i] = Sentence{Start: r.i32(), End: r.i32(), Page: r.i32(),
			Section: r.i32(), Table: r.i32(), Flags: structure.Flags(r.i32())}
	}
	n = r.count(12)
	d.Chunks = make([]Chunk, n)
	for i := range d.Chunks {
		d.Chunks[i] = Chunk{First: r.i32(), Last: r.i32(), Tokens: r.i32()}
	}
	n = r.count(20)
	d.Sections = make([]structure.Section, n)
	for i := range d.Sections {
		d.Sections[i] = structure.Section{Heading: structure.Span{Start: r.i32(), End: r.i32()},
			Level: int(r.i32()), Parent: r.i32(), Sentence: r.i32()}
	}
	spans := func() []structure.Span {
		n := r.count(8)
		if n == 0 {
			return nil
		}
		ss := make([]structure.Span, n)
		for i := range ss {
			ss[i] = structure.Span{Start: r.i32(), End: r.i32()}
		}
		return ss
	}
	n = r.count(16)
	d.Tables = make([]structure.Table, n)
	for i := range d.Tables {
		d.Tables[i].Caption = structure.Span{Start: r.i32(), End: r.i32()}
		d.Tables[i].Header = spans()
		d.Tables[i].Rows = spans()
	}
	str := func() string {
		n := r.count(1)
		v := string(r.b[:n])
		r.b = r.b[n:]
		return v
	}
	if n = r.count(8); n > 0 {
		d.Compounds = make(map[string][]string, n)
		for range n {
			w := str()
			parts := make([]string, r.count(4))
			for j := range parts {
				parts[j] = str()
			}
			d.Compounds[w] = parts
		}
	}
	if r.err != nil {
		return fmt.Errorf("document %s layout: %w", d.ID, r.err)
	}
	return nil
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
