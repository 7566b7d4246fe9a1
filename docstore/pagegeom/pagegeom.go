// Package pagegeom is where a page's stored text stands on the page: the
// boxes of its line parts, each with the byte range of the stored text it
// produced and the extents of its words, so that any byte span of the
// text maps to rectangles on the page.
//
// Coordinates are fractions (0..1) of the page as a viewer shows it (the
// CropBox, after /Rotate), from its top-left corner. A page is stored
// compactly (Append, Decode): a few bytes a word, positions to a ten
// thousandth of the page.
package pagegeom

import (
	"encoding/binary"
	"errors"
	"math"
)

// Page is one page's geometry.
type Page struct {
	// Width and Height are the page's shown size in PDF points (1/72
	// inch): its CropBox (else MediaBox) after /Rotate.
	Width, Height float32
	// Lines are the page's line parts in text order. A line part is the
	// words of one text line written together: a line of a paragraph, a
	// cell of a table row (a row's cells are separate parts), a line of
	// a heading.
	Lines []Line
}

// Dir is a line's reading direction on the shown page.
type Dir uint8

// Reading directions.
const (
	LeftToRight Dir = iota
	TopToBottom
	RightToLeft
	BottomToTop
)

// Vertical reports whether lines of direction d run down or up the page.
func (d Dir) Vertical() bool { return d&1 == 1 }

// Rect is a rectangle of the shown page, in fractions of its width (X)
// and height (Y) from the top-left corner, X0 ≤ X1 and Y0 ≤ Y1.
type Rect struct {
	X0, Y0, X1, Y1 float32
}

// Line is a line part: its box, and the bytes [Start, End) of the stored
// text that its words were written as (separators between its words
// included).
type Line struct {
	Start, End int32
	Box        Rect
	Dir        Dir
	// Words are the line's words in reading order, each with its bytes
	// and its extent along the line (From ≤ To): X for lines across the
	// page, Y for lines running up or down it.
	Words []Word
}

// Word is one word of a line.
type Word struct {
	Start, End int32
	From, To   float32
}

// Rects returns the boxes of the line parts holding bytes [start, end) of
// the text, in text order: the whole box of a line inside the span, and
// at the span's ends the box narrowed to the words it reaches into. A
// line whose part of the span holds no word (only a separator) has none.
func (p *Page) Rects(start, end int32) []Rect {
	var out []Rect
	for i := range p.Lines {
		if r, ok := p.Lines[i].Clip(start, end); ok {
			out = append(out, r)
		}
	}
	return out
}

// Clip returns the box of the line's words that bytes [start, end) reach
// into, and whether there are any.
func (l *Line) Clip(start, end int32) (Rect, bool) {
	if end <= l.Start || start >= l.End || start >= end {
		return Rect{}, false
	}
	first, last := -1, -1
	for i, w := range l.Words {
		if w.End > start && w.Start < end {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return Rect{}, false
	}
	r := l.Box
	if first == 0 && last == len(l.Words)-1 {
		return r, true
	}
	from, to := l.Words[first].From, l.Words[first].To
	for _, w := range l.Words[first+1 : last+1] {
		from, to = min(from, w.From), max(to, w.To)
	}
	if l.Dir.Vertical() {
		r.Y0, r.Y1 = max(r.Y0, from), min(r.Y1, to)
	} else {
		r.X0, r.X1 = max(r.X0, from), min(r.X1, to)
	}
	return r, true
}

// q is the resolution of stored positions: a ten thousandth of the page.
const q = 10000

func quant(f float32) uint64 {
	if !(f > 0) { // NaN too
		return 0
	}
	if f >= 1 {
		return q
	}
	return uint64(math.Round(float64(f) * q))
}

func unquant(v uint64) float32 { return float32(v) / q }

// Append appends p's encoding to dst. Offsets are delta-coded varints
// (so a page's encoding does not depend on where its text starts but for
// its first line), positions ten-thousandths of the page, words a few
// bytes each. Lines and words must be in text order.
//
// Layout: width and height (float32 bits), then the line count; per line
// its start (from the previous line's end, signed), length, direction,
// box (x0, y0, width, height) and word count; per word its start (from
// the previous word's end, or the line's start), length, and extent
// (start from the previous word's end along the line, signed; length).
func Append(dst []byte, p *Page) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(p.Width))
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(p.Height))
	dst = binary.AppendUvarint(dst, uint64(len(p.Lines)))
	var prevEnd int32
	for i := range p.Lines {
		l := &p.Lines[i]
		dst = binary.AppendVarint(dst, int64(l.Start-prevEnd))
		dst = binary.AppendUvarint(dst, uint64(max(l.End-l.Start, 0)))
		prevEnd = l.End
		x0, y0 := quant(l.Box.X0), quant(l.Box.Y0)
		x1, y1 := max(quant(l.Box.X1), x0), max(quant(l.Box.Y1), y0)
		dst = append(dst, byte(l.Dir&3))
		dst = binary.AppendUvarint(dst, x0)
		dst = binary.AppendUvarint(dst, y0)
		dst = binary.AppendUvarint(dst, x1-x0)
		dst = binary.AppendUvarint(dst, y1-y0)
		dst = binary.AppendUvarint(dst, uint64(len(l.Words)))
		at, pos := l.Start, int64(x0)
		if l.Dir.Vertical() {
			pos = int64(y0)
		}
		for _, w := range l.Words {
			dst = binary.AppendUvarint(dst, uint64(max(w.Start-at, 0)))
			dst = binary.AppendUvarint(dst, uint64(max(w.End-w.Start, 0)))
			at = max(w.End, at)
			from, to := quant(w.From), quant(w.To)
			to = max(to, from)
			dst = binary.AppendVarint(dst, int64(from)-pos)
			dst = binary.AppendUvarint(dst, to-from)
			pos = int64(to)
		}
	}
	return dst
}

// ErrCorrupt means an encoding does not decode.
var ErrCorrupt = errors.New("page geometry does not decode")

// Size reads a page's shown size from its encoding without decoding the
// rest.
func Size(b []byte) (w, h float32, err error) {
	if len(b) < 8 {
		return 0, 0, ErrCorrupt
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), math.Float32frombits(binary.LittleEndian.Uint32(b[4:])), nil
}

// Decode decodes a page encoded by Append.
func Decode(b []byte) (Page, error) {
	var p Page
	var err error
	if p.Width, p.Height, err = Size(b); err != nil {
		return p, err
	}
	d := decoder{b: b[8:]}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return p, ErrCorrupt
	}
	p.Lines = make([]Line, 0, n)
	var prevEnd int64
	for range n {
		start := prevEnd + d.varint()
		end := start + int64(d.uvarint())
		prevEnd = end
		dir := Dir(d.byte() & 3)
		x0, y0 := d.uvarint(), d.uvarint()
		x1, y1 := x0+d.uvarint(), y0+d.uvarint()
		nw := d.uvarint()
		if d.bad || nw > uint64(len(d.b)) || start < 0 || end > math.MaxInt32 {
			return p, ErrCorrupt
		}
		l := Line{Start: int32(start), End: int32(end), Dir: dir,
			Box: Rect{unquant(x0), unquant(y0), unquant(x1), unquant(y1)}, Words: make([]Word, 0, nw)}
		at, pos := start, int64(x0)
		if dir.Vertical() {
			pos = int64(y0)
		}
		for range nw {
			ws := at + int64(d.uvarint())
			we := ws + int64(d.uvarint())
			at = we
			from := pos + d.varint()
			to := from + int64(d.uvarint())
			pos = to
			if from < 0 || we > math.MaxInt32 {
				d.bad = true
			}
			l.Words = append(l.Words, Word{Start: int32(ws), End: int32(we), From: unquant(uint64(max(from, 0))), To: unquant(uint64(max(to, 0)))})
		}
		if d.bad {
			return p, ErrCorrupt
		}
		p.Lines = append(p.Lines, l)
	}
	if d.bad || len(d.b) != 0 {
		return p, ErrCorrupt
	}
	return p, nil
}

// Remap re-encodes an encoded page with every byte offset passed through
// f, which must keep their order (the offsets of a page's text as they
// move into the document's text).
func Remap(b []byte, f func(int32) int32) ([]byte, error) {
	p, err := Decode(b)
	if err != nil {
		return nil, err
	}
	for i := range p.Lines {
		l := &p.Lines[i]
		l.Start, l.End = f(l.Start), f(l.End)
		for k := range l.Words {
			w := &l.Words[k]
			w.Start, w.End = f(w.Start), f(w.End)
		}
	}
	return Append(b[:0:0], &p), nil
}

// decoder reads varints, remembering a failure.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}
