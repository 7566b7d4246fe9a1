package pdftext

import (
	"encoding/binary"
	"math"
	"strings"
)

// A document's pages are written only once all are laid out (running
// heads, the body size and the outline need every page), so every page's
// fragments wait in memory. They wait packed: the words of a 2,400-page
// manual take 47 MB as structs and strings, full of pointers the
// collector scans, 15 MB as bytes. (Deflated they took 9 MB, for a sixth
// of the extraction's CPU time; by the time the pages are written the
// index and the library file's transaction take more than that, so the
// deflating did not lower the peak of an add.) What the document-wide
// decisions need is kept beside them: the page's edge lines (copies,
// with the index of each fragment), its glyphs by type size, and its
// number of fragments.

// pack packs a laid-out page's fragments, keeping its edge lines (page is
// its index) and counts, and drops its groups.
func (pl *pageLayout) pack(page int) {
	if len(pl.groups) == 0 {
		return
	}
	g := pl.groups[0]
	pl.nfrags = len(g.frags)
	pl.sizes = map[float32]int32{}
	for i := range g.frags {
		for _, w := range g.frags[i].words {
			pl.sizes[roundSize(w.size)] += w.n
		}
	}
	if !pl.unread && g.rot == 0 {
		pl.edges = edgeLines(page, g.frags, pl.vmin, pl.vmax)
		pl.away = awayCores(g.frags, pl.edges) // before the edge lines hold copies
		for i := range pl.edges {
			e := &pl.edges[i]
			e.idx = make([]int, len(e.frags))
			for k, f := range e.frags {
				for j := range g.frags {
					if &g.frags[j] == f {
						e.idx[k] = j
					}
				}
				c := *f
				c.words = make([]word, len(f.words))
				for j, w := range f.words {
					w.text = strings.Clone(w.text) // not the page's packed text
					c.words[j] = w
				}
				e.frags[k] = &c
			}
		}
	}
	pl.packed = packFrags(g.frags)
	pl.groups = nil
}

// frags unpacks the page's fragments with the drops decided on its edge
// lines.
func (pl *pageLayout) frags() []frag {
	if pl.packed == nil {
		return nil
	}
	fs := unpackFrags(pl.packed)
	for _, e := range pl.edges {
		for k, f := range e.frags {
			fs[e.idx[k]].drop = f.drop
		}
	}
	return fs
}

// droppedGlyphs counts the page's glyphs by type size in fragments
// dropped as running heads, and the fragments.
func (pl *pageLayout) dropped(sizes map[float32]int32) (frags int) {
	for _, e := range pl.edges {
		for _, f := range e.frags {
			if !f.drop {
				continue
			}
			frags++
			if sizes != nil {
				for _, w := range f.words {
					sizes[roundSize(w.size)] -= w.n
				}
			}
		}
	}
	return frags
}

const (
	packMono = 1 << iota
	packBold
	packDrop
	packCell
)

// A packed word's first byte says which of its fields are the previous
// word's.
const (
	sameV = 1 << iota
	sameSize
)

// packFrags writes fragments as bytes: the counts of fragments and words
// and the words' text, then each fragment's flags, box and words.
func packFrags(fs []frag) []byte {
	nw, size := 0, 0
	for _, f := range fs {
		nw += len(f.words)
		for _, w := range f.words {
			size += len(w.text)
		}
	}
	b := make([]byte, 0, 16+size+len(fs)*26+nw*16)
	b = binary.AppendUvarint(b, uint64(len(fs)))
	b = binary.AppendUvarint(b, uint64(nw))
	b = binary.AppendUvarint(b, uint64(size))
	for _, f := range fs {
		for _, w := range f.words {
			b = append(b, w.text...)
		}
	}
	float := func(x float32) { b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x)) }
	for _, f := range fs {
		var flags byte
		if f.mono {
			flags |= packMono
		}
		if f.bold {
			flags |= packBold
		}
		if f.drop {
			flags |= packDrop
		}
		if f.cell {
			flags |= packCell
		}
		b = append(b, flags)
		for _, x := range []float32{f.u0, f.u1, f.v, f.size, f.top, f.bot} {
			float(x)
		}
		b = binary.AppendUvarint(b, uint64(len(f.words)))
		for i, w := range f.words {
			// the words of a line mostly share their baseline and size
			var same byte
			if i > 0 && w.v == f.words[i-1].v {
				same |= sameV
			}
			if i > 0 && w.size == f.words[i-1].size {
				same |= sameSize
			}
			b = append(b, same)
			float(w.u0)
			float(w.u1)
			if same&sameV == 0 {
				float(w.v)
			}
			if same&sameSize == 0 {
				float(w.size)
			}
			b = binary.AppendVarint(b, int64(w.n))
			b = binary.AppendVarint(b, int64(w.mono))
			b = binary.AppendVarint(b, int64(w.bold))
			b = binary.AppendUvarint(b, uint64(len(w.text)))
		}
	}
	return b
}

// unpackFrags reads what packFrags wrote, the words in one block and
// their text in one string.
func unpackFrags(b []byte) []frag {
	uvarint := func() int {
		v, n := binary.Uvarint(b)
		b = b[n:]
		return int(v)
	}
	varint := func() int32 {
		v, n := binary.Varint(b)
		b = b[n:]
		return int32(v)
	}
	float := func() float32 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b))
		b = b[4:]
		return x
	}
	nf, nw, size := uvarint(), uvarint(), uvarint()
	text := string(b[:size])
	b = b[size:]
	fs := make([]frag, nf)
	words := make([]word, nw)
	at, k := 0, 0
	for i := range fs {
		f := &fs[i]
		flags := b[0]
		b = b[1:]
		f.mono, f.bold, f.drop, f.cell = flags&packMono != 0, flags&packBold != 0, flags&packDrop != 0, flags&packCell != 0
		f.u0, f.u1, f.v, f.size, f.top, f.bot = float(), float(), float(), float(), float(), float()
		n := uvarint()
		f.words = words[k : k+n : k+n]
		for j := range f.words {
			w := &f.words[j]
			same := b[0]
			b = b[1:]
			w.u0, w.u1 = float(), float()
			if same&sameV != 0 {
				w.v = f.words[j-1].v
			} else {
				w.v = float()
			}
			if same&sameSize != 0 {
				w.size = f.words[j-1].size
			} else {
				w.size = float()
			}
			w.n, w.mono, w.bold = varint(), varint(), varint()
			l := uvarint()
			w.text = text[at : at+l]
			at += l
		}
		k += n
	}
	return fs
}
