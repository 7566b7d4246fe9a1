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
	w := NewWriter(dst, p.Width, p.Height, len(p.Lines))
	for i := range p.Lines {
		l := &p.Lines[i]
		w.Line(l.Start, l.End, l.Dir, l.Box, len(l.Words))
		for _, x := range l.Words {
			w.Word(x.Start, x.End, x.From, x.To)
		}
	}
	return w.Bytes()
}

// Writer encodes a page as Append does, line by line, without a Page
// to hold it: NewWriter with the number of lines, then each line with
// the number of its words, each followed by its words.
type Writer struct{ e encoder }

// NewWriter starts the encoding of a page of the given shown size and
// number of lines, appended to dst.
func NewWriter(dst []byte, width, height float32, lines int) *Writer {
	w := &Writer{encoder{dst: dst}}
	w.e.page(width, height, lines)
	return w
}

// Line writes a line's fields; its words must follow.
func (w *Writer) Line(start, end int32, d Dir, box Rect, words int) {
	x0, y0 := quant(box.X0), quant(box.Y0)
	w.e.line(start, end, d, x0, y0, max(quant(box.X1), x0), max(quant(box.Y1), y0), words)
}

// Word writes a word of the current line.
func (w *Writer) Word(start, end int32, from, to float32) {
	f := quant(from)
	w.e.word(start, end, f, max(quant(to), f))
}

// Bytes returns the encoding.
func (w *Writer) Bytes() []byte { return w.e.dst }

// encoder writes an encoding field by field, in order.
type encoder struct {
	dst     []byte
	prevEnd int32 // the previous line's end
	at      int32 // the previous word's end, or the line's start
	pos     int64 // the previous word's end along the line, or the box's start
}

func (e *encoder) page(w, h float32, lines int) {
	e.dst = binary.LittleEndian.AppendUint32(e.dst, math.Float32bits(w))
	e.dst = binary.LittleEndian.AppendUint32(e.dst, math.Float32bits(h))
	e.dst = binary.AppendUvarint(e.dst, uint64(lines))
}

func (e *encoder) line(start, end int32, d Dir, x0, y0, x1, y1 uint64, words int) {
	e.dst = binary.AppendVarint(e.dst, int64(start-e.prevEnd))
	e.dst = binary.AppendUvarint(e.dst, uint64(max(end-start, 0)))
	e.prevEnd = max(end, start)
	e.dst = append(e.dst, byte(d&3))
	e.dst = binary.AppendUvarint(e.dst, x0)
	e.dst = binary.AppendUvarint(e.dst, y0)
	e.dst = binary.AppendUvarint(e.dst, x1-x0)
	e.dst = binary.AppendUvarint(e.dst, y1-y0)
	e.dst = binary.AppendUvarint(e.dst, uint64(words))
	e.at, e.pos = start, int64(x0)
	if d.Vertical() {
		e.pos = int64(y0)
	}
}

func (e *encoder) word(start, end int32, from, to uint64) {
	e.dst = binary.AppendUvarint(e.dst, uint64(max(start-e.at, 0)))
	e.dst = binary.AppendUvarint(e.dst, uint64(max(end-start, 0)))
	e.at = max(end, e.at)
	e.dst = binary.AppendVarint(e.dst, int64(from)-e.pos)
	e.dst = binary.AppendUvarint(e.dst, to-from)
	e.pos = int64(to)
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

// lineRec and wordRec are a line's and a word's fields as read, in
// absolute values.
type lineRec struct {
	start, end     int32
	dir            Dir
	x0, y0, x1, y1 uint64
	words          int
}

type wordRec struct {
	start, end int32
	from, to   uint64
}

// scan reads an encoding, passing each line and then each of its words
// to the callbacks (either may be nil), and fails with ErrCorrupt on
// damage: a cut or overlong record, offsets outside [0, limit), or
// positions off the page.
func scan(b []byte, limit int32, onPage func(w, h float32, lines int), onLine func(lineRec), onWord func(wordRec)) error {
	w, h, err := Size(b)
	if err != nil {
		return err
	}
	d := decoder{b: b[8:]}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return ErrCorrupt
	}
	if onPage != nil {
		onPage(w, h, int(n))
	}
	var prevEnd int64
	for range n {
		start := prevEnd + d.varint()
		end := start + int64(d.uvarint())
		prevEnd = end
		dir := Dir(d.byte() & 3)
		x0, y0 := d.uvarint(), d.uvarint()
		x1, y1 := x0+d.uvarint(), y0+d.uvarint()
		nw := d.uvarint()
		if d.bad || nw > uint64(len(d.b)) || start < 0 || end < start || end > int64(limit) || x0 > q || y0 > q || x1 > q || y1 > q {
			return ErrCorrupt
		}
		if onLine != nil {
			onLine(lineRec{start: int32(start), end: int32(end), dir: dir, x0: x0, y0: y0, x1: x1, y1: y1, words: int(nw)})
		}
		at, pos := start, int64(x0)
		if dir.Vertical() {
			pos = int64(y0)
		}
		for range nw {
			ws := at + int64(d.uvarint())
			we := ws + int64(d.uvarint())
			from := pos + d.varint()
			to := from + int64(d.uvarint())
			if d.bad || ws < at || we < ws || we > int64(limit) || from < 0 || to < from || to > q {
				return ErrCorrupt
			}
			at, pos = we, to
			if onWord != nil {
				onWord(wordRec{start: int32(ws), end: int32(we), from: uint64(from), to: uint64(to)})
			}
		}
	}
	if d.bad || len(d.b) != 0 {
		return ErrCorrupt
	}
	return nil
}

// Decode decodes a page encoded by Append.
func Decode(b []byte) (Page, error) {
	var p Page
	err := scan(b, math.MaxInt32,
		func(w, h float32, lines int) {
			p.Width, p.Height = w, h
			p.Lines = make([]Line, 0, lines)
		},
		func(l lineRec) {
			p.Lines = append(p.Lines, Line{Start: l.start, End: l.end, Dir: l.dir,
				Box: Rect{unquant(l.x0), unquant(l.y0), unquant(l.x1), unquant(l.y1)}, Words: make([]Word, 0, l.words)})
		},
		func(w wordRec) {
			l := &p.Lines[len(p.Lines)-1]
			l.Words = append(l.Words, Word{Start: w.start, End: w.end, From: unquant(w.from), To: unquant(w.to)})
		})
	return p, err
}

// Validate checks that an encoding decodes with every offset in [0,
// limit], without decoding it into a Page.
func Validate(b []byte, limit int32) error { return scan(b, limit, nil, nil, nil) }

// Remap re-encodes an encoded page with every byte offset passed through
// f, which must keep their order (the offsets of a page's text as they
// move into the document's text), field by field.
func Remap(b []byte, f func(int32) int32) ([]byte, error) {
	e := encoder{dst: make([]byte, 0, len(b)+8)}
	err := scan(b, math.MaxInt32,
		func(w, h float32, lines int) { e.page(w, h, lines) },
		func(l lineRec) { e.line(f(l.start), f(l.end), l.dir, l.x0, l.y0, l.x1, l.y1, l.words) },
		func(w wordRec) { e.word(f(w.start), f(w.end), w.from, w.to) })
	if err != nil {
		return nil, err
	}
	return e.dst, nil
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
