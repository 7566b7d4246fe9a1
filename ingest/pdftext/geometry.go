package pdftext

import (
	"math"

	"github.com/citelens/citelens/docstore/pagegeom"
)

// Geometry is kept as the text is written: every function that writes
// words into a page's text also returns a piece for each line part it
// wrote (the words, the line they stand on, and where each word starts
// in what it returned); the caller shifts the pieces by where it puts
// that text. The page's pieces become its pagegeom encoding as soon as
// the page is written, with offsets into the page's text, and those are
// moved into the document's text when the pages are assembled.

// piece is a line part as written: words of line f, each starting at
// the byte offset at the same index of at.
type piece struct {
	f     *frag
	words []word
	at    []int32
}

// wordsAt writes the offsets of words joined by single spaces (as
// joinWords writes them), starting at base.
func wordsAt(ws []word, base int) []int32 {
	at := make([]int32, len(ws))
	off := int32(base)
	for i, w := range ws {
		at[i] = off
		off += int32(len(w.text)) + 1
	}
	return at
}

// shiftPieces moves pieces written in a string put at offset by.
func shiftPieces(ps []piece, by int) []piece {
	for i := range ps {
		shiftAt(ps[i].at, by)
	}
	return ps
}

// shiftAt adds by to the offsets in at.
func shiftAt(at []int32, by int) []int32 {
	for k := range at {
		at[k] += int32(by)
	}
	return at
}

// pageFrame is how a page's reading frame sits on the page as shown.
type pageFrame struct {
	rot uint8 // the orientation the page's fragments are in
	// box is the CropBox (else MediaBox) in device space (user space
	// turned by /Rotate): x0, y0, x1, y1 with x0 < x1, y0 < y1.
	box [4]float32
}

// letter is the page box of a page that has none: US Letter.
var letter = [4]float32{0, 0, 612, 792}

// dir is the reading direction on the shown page of text in orientation
// rot.
func dir(rot uint8) pagegeom.Dir {
	switch rot {
	case 1:
		return pagegeom.BottomToTop
	case 2:
		return pagegeom.RightToLeft
	case 3:
		return pagegeom.TopToBottom
	}
	return pagegeom.LeftToRight
}

// shown maps a point of the reading frame to fractions of the shown page.
func (fr pageFrame) shown(u, v float32) (x, y float32) {
	dx, dy := toDevice(fr.rot, u, v)
	return (dx - fr.box[0]) / (fr.box[2] - fr.box[0]), (fr.box[3] - dy) / (fr.box[3] - fr.box[1])
}

// rect maps a box of the reading frame to the shown page.
func (fr pageFrame) rect(u0, u1, top, bot float32) pagegeom.Rect {
	x0, y0 := fr.shown(u0, top)
	x1, y1 := fr.shown(u1, bot)
	return pagegeom.Rect{X0: clamp01(min(x0, x1)), Y0: clamp01(min(y0, y1)), X1: clamp01(max(x0, x1)), Y1: clamp01(max(y0, y1))}
}

func clamp01(f float32) float32 {
	if !(f > 0) {
		return 0
	}
	return min(f, 1)
}

// encodeGeometry encodes a page's pieces, offsets in its text.
func encodeGeometry(fr pageFrame, ps []piece) []byte {
	n, words := 0, 0
	for _, pc := range ps {
		if len(pc.words) > 0 {
			n++
			words += len(pc.words)
		}
	}
	d := dir(fr.rot)
	w := pagegeom.NewWriter(make([]byte, 0, 16+n*12+words*5), fr.box[2]-fr.box[0], fr.box[3]-fr.box[1], n)
	for _, pc := range ps {
		if len(pc.words) == 0 {
			continue
		}
		u0, u1 := pc.words[0].u0, pc.words[0].u1
		for _, x := range pc.words[1:] {
			u0, u1 = min(u0, x.u0), max(u1, x.u1)
		}
		top, bot := pc.f.top, pc.f.bot
		last := len(pc.words) - 1
		w.Line(pc.at[0], pc.at[last]+int32(len(pc.words[last].text)), d, fr.rect(u0, u1, top, bot), len(pc.words))
		for i, x := range pc.words {
			r := fr.rect(x.u0, x.u1, top, bot)
			from, to := r.X0, r.X1
			if d.Vertical() {
				from, to = r.Y0, r.Y1
			}
			w.Word(pc.at[i], pc.at[i]+int32(len(x.text)), from, to)
		}
	}
	return w.Bytes()
}

// frameOf is the frame of a page with box (its CropBox or MediaBox, in
// user space; nil if none) turned by ctm, in orientation rot.
func frameOf(box []float64, ctm matrix, rot uint8) pageFrame {
	fr := pageFrame{rot: rot, box: letter}
	if len(box) != 4 {
		return fr
	}
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, x := range []float64{box[0], box[2]} {
		for _, y := range []float64{box[1], box[3]} {
			dx, dy := ctm.apply(x, y)
			lo[0], lo[1] = math.Min(lo[0], dx), math.Min(lo[1], dy)
			hi[0], hi[1] = math.Max(hi[0], dx), math.Max(hi[1], dy)
		}
	}
	if !(hi[0]-lo[0] > 0.5 && hi[1]-lo[1] > 0.5) || math.IsInf(hi[0]-lo[0], 0) || math.IsInf(hi[1]-lo[1], 0) {
		return fr
	}
	fr.box = [4]float32{float32(lo[0]), float32(lo[1]), float32(hi[0]), float32(hi[1])}
	return fr
}

// placeGeometry moves each page's geometry from offsets in its text to
// offsets in the document's, as placeStructure does its headings.
func placeGeometry(pages []pageText, starts []int32, ends []pageEnd) [][]byte {
	out := make([][]byte, len(pages))
	for i := range pages {
		g, err := pagegeom.Remap(pages[i].geom, func(off int32) int32 { return ends[i].place(starts[i], int(off)) })
		if err != nil { // cannot happen: the encoding was just made
			g = pagegeom.Append(nil, &pagegeom.Page{})
		}
		out[i] = g
		pages[i].geom = nil
	}
	return out
}
