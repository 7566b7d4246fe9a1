// Package bboxref places text on PDF pages with an extractor independent
// of citelens — poppler's pdftotext -bbox-layout — so that the geometry
// citelens stores can be measured against it: Locate finds a sentence
// among a page's words as pdftotext reads them, and IoU compares the
// rectangles of two placements.
//
// Text is matched on its letters and digits only, lower case, with
// ligatures spelled out, so that the two extractors' different spacing,
// hyphenation and punctuation do not matter.
package bboxref

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ErrNoPdftotext means pdftotext is not installed (Debian:
// poppler-utils).
var ErrNoPdftotext = errors.New("pdftotext is not installed (apt-get install poppler-utils)")

// Box is a rectangle on a page in fractions of its shown width and height
// from the top-left corner, as docstore.PageRect.
type Box struct {
	Page           int
	X0, Y0, X1, Y1 float32
}

// Word is a word as pdftotext places it.
type Word struct {
	Page, Line int // the page (1-based) and a number unique to its line
	Text       string
	Box        Box
}

// Doc is a PDF's words as pdftotext reads them, in its reading order.
type Doc struct {
	Words []Word
	// byPage[p] is the first word of page p+1 (len(Words) past the end)
	byPage []int
}

// Run reads the PDF at path with pdftotext -bbox-layout, its pages as
// viewers show them (-cropbox).
func Run(ctx context.Context, path string) (*Doc, error) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		return nil, ErrNoPdftotext
	}
	cmd := exec.CommandContext(ctx, "pdftotext", "-bbox-layout", "-cropbox", path, "-")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	doc, perr := Parse(out)
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("pdftotext %s: %v", path, err)
	}
	return doc, perr
}

// Parse reads pdftotext -bbox-layout output.
func Parse(r io.Reader) (*Doc, error) {
	dec := xml.NewDecoder(xmlSafe{r})
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	doc := &Doc{}
	var w, h float64
	page, line := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading pdftotext's output: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "page":
			page++
			doc.byPage = append(doc.byPage, len(doc.Words))
			w, h = attr(se, "width"), attr(se, "height")
		case "line":
			line++
		case "word":
			var text string
			if err := dec.DecodeElement(&text, &se); err != nil {
				return nil, fmt.Errorf("reading pdftotext's output: %v", err)
			}
			if w <= 0 || h <= 0 {
				continue
			}
			doc.Words = append(doc.Words, Word{Page: page, Line: line, Text: text, Box: Box{Page: page,
				X0: float32(attr(se, "xMin") / w), Y0: float32(attr(se, "yMin") / h),
				X1: float32(attr(se, "xMax") / w), Y1: float32(attr(se, "yMax") / h)}})
		}
	}
	doc.byPage = append(doc.byPage, len(doc.Words))
	return doc, nil
}

// xmlSafe blanks the control characters pdftotext copies from a PDF's
// text into its XML, which XML does not allow.
type xmlSafe struct{ r io.Reader }

func (x xmlSafe) Read(b []byte) (int, error) {
	n, err := x.r.Read(b)
	for i, c := range b[:n] {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
	return n, err
}

func attr(se xml.StartElement, name string) float64 {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			v, _ := strconv.ParseFloat(a.Value, 64)
			return v
		}
	}
	return 0
}

// Pages is the number of pages read.
func (d *Doc) Pages() int { return len(d.byPage) - 1 }

// fold appends the letters and digits of s, lower case, ligatures spelled
// out, to dst.
func fold(dst []rune, s string) []rune {
	for _, r := range s {
		if lig, ok := ligatures[r]; ok {
			dst = append(dst, []rune(lig)...)
			continue
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = append(dst, unicode.ToLower(r))
		}
	}
	return dst
}

var ligatures = map[rune]string{'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st", 'Æ': "ae", 'æ': "ae", 'Œ': "oe", 'œ': "oe", 'ß': "ss"}

// Folded is the part of text that matching compares: its letters and
// digits, lower case, ligatures spelled out.
func Folded(text string) string { return string(fold(nil, text)) }

// Locate finds parts on pages first..last as pdftotext reads them. When
// their text, joined, occurs more than nth times there, its occurrence
// number nth (from 0) is taken: the same text set twice on a page (a
// value printed in two places) is told apart by order. Otherwise each
// part (the text of a line, say) is looked for on its own (see pick). It
// returns, for each pdftotext line holding matched words, the box of
// those words, and whether every part with letters or digits was found.
func (d *Doc) Locate(first, last, nth int, parts ...string) ([]Box, bool) {
	if first < 1 || last > d.Pages() || first > last {
		return nil, false
	}
	words := d.Words[d.byPage[first-1]:d.byPage[last]]
	var stream []rune
	var owner []int // the word of each rune of stream
	for i, w := range words {
		n := len(stream)
		stream = fold(stream, w.Text)
		for range len(stream) - n {
			owner = append(owner, i)
		}
	}
	hay := string(stream)
	// runeOf[b] is the rune of stream at byte b of hay
	runeOf := make([]int, 0, len(hay)+1)
	for i, r := range stream {
		for range len(string(r)) {
			runeOf = append(runeOf, i)
		}
	}
	runeOf = append(runeOf, len(stream))
	matched := map[int]bool{}
	mark := func(at, n int) {
		for k := runeOf[at]; k < runeOf[at+n]; k++ {
			matched[owner[k]] = true
		}
	}
	from := 0
	ok := true
	if whole := Folded(strings.Join(parts, " ")); whole != "" {
		at := -1
		for k, i := 0, 0; k <= nth; k++ {
			j := strings.Index(hay[i:], whole)
			if j < 0 {
				at = -1
				break
			}
			at, i = i+j, i+j+len(whole)
		}
		if at >= 0 {
			mark(at, len(whole))
			parts = nil
		}
	}
	for _, p := range parts {
		needle := Folded(p)
		if needle == "" {
			continue
		}
		at := d.pick(hay, needle, from, runeOf, owner, words)
		if at < 0 {
			ok = false
			continue
		}
		mark(at, len(needle))
		from = at + len(needle)
	}
	if len(matched) == 0 {
		return nil, false
	}
	idx := make([]int, 0, len(matched))
	for i := range matched {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var out []Box
	lineOf := map[int]int{} // pdftotext line → index in out
	for _, i := range idx {
		w := words[i]
		if k, seen := lineOf[w.Line]; seen {
			b := &out[k]
			b.X0, b.Y0, b.X1, b.Y1 = min(b.X0, w.Box.X0), min(b.Y0, w.Box.Y0), max(b.X1, w.Box.X1), max(b.Y1, w.Box.Y1)
			continue
		}
		lineOf[w.Line] = len(out)
		out = append(out, w.Box)
	}
	return out, ok
}

// pick chooses among the occurrences of needle in hay (byte offsets)
// the one whose words lie on the fewest of pdftotext's lines (a line
// part's text is on one line, the same letters spread over several are
// a coincidence), then the first at or after from, then the first; -1
// for none.
func (d *Doc) pick(hay, needle string, from int, runeOf, owner []int, words []Word) int {
	best, bestLines, bestAfter := -1, 0, false
	for at := 0; at <= len(hay)-len(needle); {
		i := strings.Index(hay[at:], needle)
		if i < 0 {
			break
		}
		i += at
		lines := 0
		prev := -1
		for k := runeOf[i]; k < runeOf[i+len(needle)]; k++ {
			if l := words[owner[k]].Line; l != prev {
				lines++
				prev = l
			}
		}
		after := i >= from
		if best < 0 || lines < bestLines || lines == bestLines && after && !bestAfter {
			best, bestLines, bestAfter = i, lines, after
		}
		at = i + 1
	}
	return best
}

// IoU is the area of the intersection of the regions a and b cover over
// the area of their union, pages counted apart: 1 for the same region, 0
// for disjoint ones (and for two empty ones).
func IoU(a, b []Box) float64 {
	pages := map[int]bool{}
	for _, x := range a {
		pages[x.Page] = true
	}
	for _, x := range b {
		pages[x.Page] = true
	}
	var inter, union float64
	for p := range pages {
		i, u := pageAreas(onPage(a, p), onPage(b, p))
		inter += i
		union += u
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

func onPage(bs []Box, p int) []Box {
	var out []Box
	for _, b := range bs {
		if b.Page == p && b.X1 > b.X0 && b.Y1 > b.Y0 {
			out = append(out, b)
		}
	}
	return out
}

// pageAreas computes the areas of (∪a ∩ ∪b) and (∪a ∪ ∪b) exactly, over
// the grid of all the boxes' edges.
func pageAreas(a, b []Box) (inter, union float64) {
	var xs, ys []float32
	for _, s := range [][]Box{a, b} {
		for _, r := range s {
			xs = append(xs, r.X0, r.X1)
			ys = append(ys, r.Y0, r.Y1)
		}
	}
	slices.Sort(xs)
	slices.Sort(ys)
	xs, ys = slices.Compact(xs), slices.Compact(ys)
	covers := func(s []Box, x, y float32) bool {
		for _, r := range s {
			if x >= r.X0 && x < r.X1 && y >= r.Y0 && y < r.Y1 {
				return true
			}
		}
		return false
	}
	for i := 0; i+1 < len(xs); i++ {
		for j := 0; j+1 < len(ys); j++ {
			area := float64(xs[i+1]-xs[i]) * float64(ys[j+1]-ys[j])
			inA, inB := covers(a, xs[i], ys[j]), covers(b, xs[i], ys[j])
			if inA && inB {
				inter += area
			}
			if inA || inB {
				union += area
			}
		}
	}
	return inter, union
}

// Part is where the geometry under test puts a piece of a span: the
// text of one line part, and its rectangle.
type Part struct {
	Text string
	Box  Box
}

// Score measures a placement of a span against pdftotext's: the span's
// parts in order, on pages first..last, where the span's text occurred
// nth times before it (Occurrences). It returns the IoU of their
// rectangles with pdftotext's placement of their text, and whether
// pdftotext's text holds every part.
func (d *Doc) Score(first, last, nth int, parts []Part) (iou float64, found bool) {
	texts := make([]string, len(parts))
	ours := make([]Box, len(parts))
	for i, p := range parts {
		texts[i], ours[i] = p.Text, p.Box
	}
	ref, found := d.Locate(first, last, nth, texts...)
	if !found {
		return 0, false
	}
	return IoU(ours, ref), true
}

// Occurrences counts the occurrences of text's letters and digits in
// before's: how many times a span's text was read on its pages before it.
func Occurrences(before, text string) int {
	t := Folded(text)
	if t == "" {
		return 0
	}
	return strings.Count(Folded(before), t)
}
