package pdffile

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/ascii85"
	"errors"
	"fmt"
	"io"
	"sort"
)

// The library reads the cross-reference chain (the section startxref
// names, then each section's /Prev) before any object, and trusts it: it
// sizes its table from the numbers it finds, follows /Prev without
// remembering where it has been, and resolves an object packed in an
// object stream by resolving that stream first, recursively. readXref
// walks the chain first, section by section as the library will, with
// this package's lexer, and finds what would make the library allocate
// without bound, loop, or recurse until the stack overflows.

// maxXrefObjects bounds the objects a file may number: no file holds
// more than a few per byte, and the library allocates a table entry (40
// bytes) for each.
const maxXrefObjects = 8_000_000

// maxXrefEntryBytes bounds the width of a cross-reference stream's
// entries (the sum of /W), which the library allocates before reading.
const maxXrefEntryBytes = 64

// maxColumns bounds a PNG predictor's /Columns, which the library
// allocates twice over for a stream it decodes.
const maxColumns = 1 << 20

// An xrefChain is the cross-reference chain as the library will read it.
type xrefChain struct {
	start    int64             // the offset startxref gives
	streams  bool              // its sections are cross-reference streams
	trailers []*dict           // each section's trailer (a stream's dictionary), newest first
	size     int64             // the largest /Size
	packed   map[uint32]uint32 // object → the object stream holding it, as the library resolves it
	complete bool              // the chain was read to its end
	// loop is the /Prev entry that closes a loop, blanked before the
	// library reads the file: [from, to) in the file; zero if none.
	loop [2]int64
}

// readXref walks the chain. It returns nil when the chain cannot be read
// the library's way (the library then fails on it, or must be shown a
// rebuilt one), and a *Damage when reading it would cost the library
// unbounded memory or an endless recursion.
func readXref(ctx context.Context, src *source) (*xrefChain, error) {
	start, ok := startxref(src)
	if !ok {
		return nil, nil
	}
	c := &xrefChain{start: start, packed: map[uint32]uint32{}}
	limit := min(int64(maxXrefObjects), src.size*50+100_000)
	var set entryBits // entries the library has filled, which older sections do not replace
	seen := map[int64]bool{}
	for off := start; ; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seen[off] = true
		var trailer *dict
		var err error
		switch {
		case len(c.trailers) == 0:
			trailer, err = c.readFirst(ctx, src, off, limit, &set)
		case c.streams:
			trailer, err = c.readStream(ctx, src, off, limit, &set)
		default:
			trailer, err = readTable(src, off, limit)
		}
		var d *Damage
		switch {
		case errors.As(err, &d), err != nil && err == ctx.Err():
			return nil, err
		case err != nil:
			return c.read(), nil // the library fails here too
		}
		c.trailers = append(c.trailers, trailer)
		prev, ok := trailer.get("Prev").(int64)
		if !ok {
			c.complete = trailer.get("Prev") == nil
			break
		}
		if seen[prev] {
			c.loop = trailer.spans["Prev"]
			c.complete = true
			break
		}
		off = prev
	}
	return c.read(), nil
}

// read is the chain read so far, nil if none of it could be read.
func (c *xrefChain) read() *xrefChain {
	if len(c.trailers) == 0 {
		return nil
	}
	return c
}

// check refuses a chain on which the library would recurse without end.
func (c *xrefChain) check() error {
	if c == nil {
		return nil
	}
	for _, s := range c.packed {
		if _, packed := c.packed[s]; packed {
			return damage(-1, "its cross-reference table puts an object stream inside another")
		}
	}
	return nil
}

// encrypted reports whether the trailer the library keeps names an
// encryption dictionary.
func (c *xrefChain) encrypted() bool {
	return c != nil && c.trailers[0].get("Encrypt") != nil
}

// objStms lists the object streams the library resolves objects from.
func (c *xrefChain) objStms() []uint32 {
	set := map[uint32]bool{}
	for _, s := range c.packed {
		set[s] = true
	}
	ids := make([]uint32, 0, len(set))
	for s := range set {
		ids = append(ids, s)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// startxref finds the offset startxref gives, as the library does: on the
// last line "startxref" of the last 100 bytes.
func startxref(src *source) (int64, bool) {
	const endChunk = 100
	if src.size < endChunk {
		return 0, false
	}
	buf, _ := src.window(src.size-endChunk, endChunk)
	i := lastLine(buf, "startxref")
	if i < 0 {
		return 0, false
	}
	l := newLexer(buf[i+len("startxref"):], 0, true, false)
	t, err := l.token()
	if err != nil || t.kind != tokInt {
		return 0, false
	}
	return t.n, true
}

// lastLine is the library's findLastLine: the last s that has a line
// break on both sides.
func lastLine(buf []byte, s string) int {
	end := len(buf)
	for {
		i := bytes.LastIndex(buf[:end], []byte(s))
		if i <= 0 || i+len(s) >= len(buf) {
			return -1
		}
		if (buf[i-1] == '\n' || buf[i-1] == '\r') && (buf[i+len(s)] == '\n' || buf[i+len(s)] == '\r') {
			return i
		}
		end = i
	}
}

// parseAt runs parse on a window of the file from off, larger windows
// while the object runs past its end.
func parseAt[T any](src *source, off int64, parse func(*lexer) (T, error)) (T, error) {
	for n := 64 << 10; ; n *= 4 {
		data, final := src.window(off, n)
		v, err := parse(newLexer(data, off, final, false))
		if !errors.Is(err, errTruncated) || final || n >= maxInMemory {
			return v, err
		}
	}
}

// readFirst reads the section startxref names, which decides how the
// library reads the others.
func (c *xrefChain) readFirst(ctx context.Context, src *source, off, limit int64, set *entryBits) (*dict, error) {
	isTable, err := parseAt(src, off, func(l *lexer) (bool, error) {
		t, err := l.token()
		return t.is("xref"), err
	})
	if err != nil {
		return nil, err
	}
	if isTable {
		return readTable(src, off, limit)
	}
	c.streams = true
	return c.readStream(ctx, src, off, limit, set)
}

// bounded is the damage of a number that would make the library allocate
// a table for more objects than the file can hold.
func bounded(at int64, what string, v, limit int64) error {
	if v > limit {
		return damage(at, fmt.Sprintf("its cross-reference %s %d is out of range", what, v))
	}
	return nil
}

// readTable reads a cross-reference table ("xref", subsections, then the
// trailer) and returns its trailer.
func readTable(src *source, off, limit int64) (*dict, error) {
	return parseAt(src, off, func(l *lexer) (*dict, error) {
		if t, err := l.token(); err != nil || !t.is("xref") {
			return nil, orSyntax(err)
		}
		for {
			t, err := l.token()
			if err != nil {
				return nil, err
			}
			if t.is("trailer") {
				break
			}
			n, err := l.token()
			if err != nil {
				return nil, err
			}
			if t.kind != tokInt || n.kind != tokInt || t.n < 0 || n.n < 0 {
				return nil, errSyntax
			}
			if err := bounded(t.at, "subsection", t.n+n.n, limit); err != nil {
				return nil, err
			}
			for range n.n {
				a, err := l.token()
				if err != nil {
					return nil, err
				}
				b, err := l.token()
				if err != nil {
					return nil, err
				}
				kw, err := l.token()
				if err != nil {
					return nil, err
				}
				if a.kind != tokInt || b.kind != tokInt || !kw.is("f") && !kw.is("n") {
					return nil, errSyntax
				}
			}
		}
		v, _, err := l.object(0)
		trailer, ok := v.(*dict)
		if err != nil || !ok {
			return nil, orSyntax(err)
		}
		if size, ok := trailer.int("Size"); ok {
			if err := bounded(off, "size", size, limit); err != nil {
				return nil, err
			}
		}
		return trailer, nil
	})
}

// readStream reads a cross-reference stream, records its entries that
// the library will keep, and returns its dictionary.
func (c *xrefChain) readStream(ctx context.Context, src *source, off, limit int64, set *entryBits) (*dict, error) {
	s, err := parseAt(src, off, func(l *lexer) (*stream, error) {
		v, _, err := l.object(0)
		def, ok := v.(objdef)
		if err != nil || !ok {
			return nil, orSyntax(err)
		}
		s, ok := def.obj.(*stream)
		if !ok {
			return nil, errSyntax
		}
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	d := s.dict
	size, ok := d.int("Size")
	if d.name("Type") != "XRef" || !ok && len(c.trailers) == 0 {
		return nil, errSyntax
	}
	if len(c.trailers) > 0 && size > c.firstSize() {
		return nil, errSyntax // the library refuses an older section larger than the newest
	}
	if err := bounded(off, "size", size, limit); err != nil {
		return nil, err
	}
	c.size = max(c.size, size)
	index := array{int64(0), size}
	if a, ok := d.get("Index").(array); ok && a != nil {
		index = a
	}
	if len(index)%2 != 0 {
		return nil, errSyntax
	}
	w, err := entryWidths(d, off)
	if err != nil {
		return nil, err
	}
	data, err := xrefStreamData(src, s, off)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, w[0]+w[1]+w[2])
	for ; len(index) > 0; index = index[2:] {
		first, ok1 := index[0].(int64)
		n, ok2 := index[1].(int64)
		if !ok1 || !ok2 || first < 0 {
			return nil, errSyntax
		}
		if err := bounded(off, "index", first+n, limit); err != nil {
			return nil, err
		}
		for i := range n {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if _, err := io.ReadFull(data, buf); err != nil {
				return nil, errSyntax // the library fails on a short stream
			}
			typ := entryInt(buf[:w[0]])
			if w[0] == 0 {
				typ = 1
			}
			x := uint32(first + i)
			if set.has(x) {
				continue // a newer section gave this object
			}
			switch typ {
			case 0:
				set.add(x)
			case 1:
				if x != 0 || uint16(entryInt(buf[w[0]+w[1]:])) != 0 {
					set.add(x)
				}
			case 2:
				if x != 0 {
					set.add(x)
					c.packed[x] = uint32(entryInt(buf[w[0] : w[0]+w[1]]))
				}
			}
		}
	}
	return d, nil
}

// firstSize is the /Size of the newest section, against which the library
// checks the older ones.
func (c *xrefChain) firstSize() int64 {
	n, _ := c.trailers[0].int("Size")
	return n
}

// entryWidths reads /W, refusing widths the library would allocate
// without bound.
func entryWidths(d *dict, at int64) ([3]int, error) {
	var w [3]int
	ws, ok := d.get("W").(array)
	if !ok || len(ws) < 3 {
		return w, errSyntax
	}
	total := 0
	for i, x := range ws {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return w, errSyntax
		}
		if n > maxXrefEntryBytes || total+int(n) > maxXrefEntryBytes {
			return w, damage(at, "its cross-reference stream's entries are too wide")
		}
		total += int(n)
		if i < 3 {
			w[i] = int(n)
		}
	}
	return w, nil
}

func entryInt(b []byte) int {
	x := 0
	for _, c := range b {
		x = x<<8 | int(c)
	}
	return x
}

// xrefStreamData decodes a cross-reference stream's data the way the
// library does at that point: /Length, /Filter and /DecodeParms must be
// direct (references resolve to nothing before the table is read), and
// only Flate (with the PNG Up predictor) and ASCII85 are known.
func xrefStreamData(src *source, s *stream, at int64) (io.Reader, error) {
	n, _ := s.dict.int("Length")
	if n <= 0 {
		return bytes.NewReader(nil), nil
	}
	var rd io.Reader = io.NewSectionReader(src.r, s.data, n)
	params := s.dict.get("DecodeParms")
	switch f := s.dict.get("Filter").(type) {
	case nil, ref:
		return rd, nil
	case name:
		return decodeFilter(rd, string(f), params, at)
	case array:
		for i, x := range f {
			nm, _ := x.(name)
			var p any
			if ps, ok := params.(array); ok && i < len(ps) {
				p = ps[i]
			}
			var err error
			if rd, err = decodeFilter(rd, string(nm), p, at); err != nil {
				return nil, err
			}
		}
		return rd, nil
	}
	return nil, errSyntax
}

func decodeFilter(rd io.Reader, filter string, params any, at int64) (io.Reader, error) {
	p, _ := params.(*dict)
	switch filter {
	case "FlateDecode":
		zr, err := zlib.NewReader(rd)
		if err != nil {
			return nil, errSyntax
		}
		pred := p.get("Predictor")
		if pred == nil {
			return zr, nil
		}
		if n, _ := pred.(int64); n != 12 {
			return nil, errSyntax
		}
		cols, _ := p.int("Columns")
		if cols < 0 {
			return nil, errSyntax
		}
		if cols > maxColumns {
			return nil, damage(at, fmt.Sprintf("its cross-reference stream has %d columns", cols))
		}
		return &pngUp{r: zr, hist: make([]byte, 1+cols), tmp: make([]byte, 1+cols)}, nil
	case "ASCII85Decode":
		if p != nil {
			return nil, errSyntax
		}
		return ascii85.NewDecoder(&ascii85Only{r: rd}), nil
	}
	return nil, errSyntax
}

// pngUp undoes the PNG Up predictor, the one the library knows.
type pngUp struct {
	r         io.Reader
	hist, tmp []byte
	pend      []byte
}

func (p *pngUp) Read(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if len(p.pend) > 0 {
			m := copy(b, p.pend)
			n += m
			b = b[m:]
			p.pend = p.pend[m:]
			continue
		}
		if _, err := io.ReadFull(p.r, p.tmp); err != nil {
			return n, err
		}
		if p.tmp[0] != 2 {
			return n, errSyntax
		}
		for i, c := range p.tmp {
			p.hist[i] += c
		}
		p.pend = p.hist[1:]
	}
	return n, nil
}

// ascii85Only passes the ASCII85 characters of r up to "~", as the
// library does before decoding.
type ascii85Only struct {
	r   io.Reader
	eod bool
}

func (a *ascii85Only) Read(p []byte) (int, error) {
	if a.eod {
		return 0, io.EOF
	}
	n, err := a.r.Read(p)
	out := 0
	for _, c := range p[:n] {
		if c == '~' {
			a.eod = true
			return out, io.EOF
		}
		if c >= '!' && c <= 'u' || c == 'z' {
			p[out] = c
			out++
		}
	}
	return out, err
}

// entryBits is a growable set of object numbers.
type entryBits []uint64

func (b entryBits) has(x uint32) bool {
	return int(x/64) < len(b) && b[x/64]&(1<<(x%64)) != 0
}

func (b *entryBits) add(x uint32) {
	for int(x/64) >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[x/64] |= 1 << (x % 64)
}

// orSyntax is err, or errSyntax when the input read but not as wanted.
func orSyntax(err error) error {
	if err != nil {
		return err
	}
	return errSyntax
}
