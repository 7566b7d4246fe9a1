package pdftext

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// block is a column-wise group of consecutive lines: a paragraph, a few
// paragraphs, a heading or a code example.
type block struct {
	lines            []*frag
	u0, u1, top, bot float32
	table            *table    // the block is this table
	head             *headMark // the block is a heading
	pitch            float32   // the line pitch, when set by the block it was cut from
}

func (b *block) add(f *frag) {
	if len(b.lines) == 0 {
		b.u0, b.u1, b.top, b.bot = f.u0, f.u1, f.top, f.bot
	}
	b.lines = append(b.lines, f)
	b.u0, b.u1 = min(b.u0, f.u0), max(b.u1, f.u1)
	b.top, b.bot = min(b.top, f.top), max(b.bot, f.bot)
}

func (b *block) last() *frag { return b.lines[len(b.lines)-1] }

// buildBlocks groups fragments into blocks: each table is a block, and
// another fragment joins the block just above it when it overlaps it
// horizontally, at a line pitch and in a similar font size; a fragment
// under two blocks (a line spanning columns) starts its own.
func buildBlocks(frags []frag) []*block {
	order := make([]*frag, 0, len(frags))
	for i := range frags {
		if !frags[i].drop {
			order = append(order, &frags[i])
		}
	}
	slices.SortStableFunc(order, func(a, b *frag) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return cmp.Compare(a.u0, b.u0)
	})
	// footnotes are neither tables nor captions
	text := order
	if slices.ContainsFunc(order, func(f *frag) bool { return f.note }) {
		text = slices.DeleteFunc(slices.Clone(order), func(f *frag) bool { return f.note })
	}
	tables := findTables(text)
	for _, t := range tables {
		t.caption = captionFor(t, text)
	}
	var blocks []*block
	for _, f := range order {
		if f.cell {
			continue
		}
		var cand *block
		n := 0
		for i := len(blocks) - 1; i >= 0 && i >= len(blocks)-24; i-- {
			b := blocks[i]
			l := b.last()
			sz := max(f.size, l.size)
			dv := f.v - l.v
			if dv <= 0.3*sz || dv > 2.0*sz {
				continue
			}
			if max(f.size, l.size) > 1.15*min(f.size, l.size) {
				continue
			}
			if min(f.u1, b.u1)-max(f.u0, b.u0) <= 0 {
				continue
			}
			// a footnote starts a block of its own, and its lines join
			// no block of body text
			if f.note != l.note || f.noteHead {
				continue
			}
			cand = b
			n++
		}
		if n == 1 {
			cand.add(f)
			continue
		}
		b := &block{}
		b.add(f)
		blocks = append(blocks, b)
	}
	for _, t := range tables {
		tb := &block{table: t}
		for _, f := range t.frags() {
			tb.add(f)
		}
		blocks = append(blocks, tb)
	}
	return orderBlocks(blocks)
}

// orderBlocks sorts blocks into reading order (after Breuel, "High
// Performance Document Layout Analysis"): a block comes before another
// when it is above it and they overlap horizontally, or when it is wholly
// to its left and no third block lies between them vertically across both.
func orderBlocks(bs []*block) []*block {
	byPos := func(a, b *block) int {
		if c := cmp.Compare(a.top, b.top); c != 0 {
			return c
		}
		return cmp.Compare(a.u0, b.u0)
	}
	slices.SortStableFunc(bs, byPos)
	n := len(bs)
	if n <= 1 || n > 200 {
		return bs
	}
	xov := func(a, b *block) bool { return min(a.u1, b.u1)-max(a.u0, b.u0) > 0 }
	before := func(a, b *block) bool {
		if xov(a, b) {
			return a.top < b.top
		}
		if a.u1 > b.u0 {
			return false
		}
		upper, lower := a, b
		if b.top < a.top {
			upper, lower = b, a
		}
		for _, c := range bs {
			if c == a || c == b {
				continue
			}
			if c.top >= upper.bot-1 && c.bot <= lower.top+1 && c.u0 < a.u1 && c.u1 > b.u0 && xov(c, a) && xov(c, b) {
				return false
			}
		}
		return true
	}
	indeg := make([]int, n)
	succ := make([][]int, n)
	for i := range n {
		for j := range n {
			if i != j && before(bs[i], bs[j]) && !before(bs[j], bs[i]) {
				succ[i] = append(succ[i], j)
				indeg[j]++
			}
		}
	}
	done := make([]bool, n)
	out := make([]*block, 0, n)
	for len(out) < n {
		pick := -1
		for i := range n { // bs is sorted by position: the first ready block wins ties
			if !done[i] && indeg[i] == 0 {
				pick = i
				break
			}
		}
		if pick < 0 { // a cycle: take the topmost remaining block
			for i := range n {
				if !done[i] {
					pick = i
					break
				}
			}
		}
		done[pick] = true
		out = append(out, bs[pick])
		for _, j := range succ[pick] {
			indeg[j]--
		}
	}
	return out
}

// pageText is one page's text with what the document assembly needs to
// decide whether a sentence runs on from the page before.
type pageText struct {
	text       string
	startsOpen bool // the first block is prose
	endsOpen   bool // the last block is prose whose last line runs to the margin without ending a sentence
	startSize  float32
	endSize    float32
	heads      []pageHead  // the page's headings, in text order
	tables     []pageTable // the page's tables, in text order
	// pieces are the line parts written, until they are encoded as geom:
	// the page's geometry (pagegeom), offsets in text.
	pieces []piece
	geom   []byte
	// notes are the page's footnotes, until placeNotes writes them into
	// text.
	notes *pageNotes
	// joined: the page's text runs on from the previous page's
	joined bool
}

// span is a byte range [start, end) of a page's text.
type span [2]int

// pageHead is a heading line (or lines) of a page.
type pageHead struct {
	span
	key   styleKey
	entry *outlineEntry // the outline item it matched, or nil
}

// pageTable is a table of a page: its rows' lines and its caption's.
type pageTable struct {
	caption span // zero if none
	header  int  // the first header rows are column headings
	rows    []span
}

// hyphenMark follows a line-end hyphen that may join a word broken across
// lines; the document assembly decides whether to keep the hyphen.
const hyphenMark = '\x00'

// renderPage writes the blocks of a page as text: lines of a paragraph
// joined by spaces, paragraphs by blank lines, code and short lines by
// single newlines.
//
// Headings and tables stand apart, a blank line before and after; a
// table's rows are one line each. The page's footnotes are written apart,
// in notes, for placeNotes to place once the next page is known.
func renderPage(blocks []*block) pageText {
	body, notes := splitNotes(blocks)
	pt := renderBlocks(body)
	if len(notes) > 0 {
		if n := renderBlocks(notes); n.text != "" {
			pt.notes = &pageNotes{text: n.text, pieces: n.pieces, size: n.endSize}
		}
	}
	return pt
}

// renderBlocks writes blocks as renderPage does.
func renderBlocks(blocks []*block) pageText {
	var pt pageText
	var b strings.Builder
	var prev *block
	// the caption lines of the page's tables, and where each was written
	plain := func(bl *block) bool { return bl.table == nil && bl.head == nil }
	captions := map[*frag]span{}
	for _, bl := range blocks {
		if bl.table != nil && bl.table.caption != nil {
			captions[bl.table.caption] = span{}
		}
	}
	for _, bl := range blocks {
		var text string
		var rows [][2]int
		var capLine *frag
		var pieces []piece
		line := span{-1, -1}
		switch {
		case bl.table != nil:
			text, rows, pieces = bl.table.render()
		case bl.head != nil:
			// a heading set on several lines is one line of text
			for _, l := range bl.lines {
				t := l.text()
				text = joinCell(text, t)
				pieces = append(pieces, piece{f: l, words: l.words, at: wordsAt(l.words, len(text)-len(t))})
			}
		default:
			for _, l := range bl.lines {
				if _, ok := captions[l]; ok {
					capLine = l
					break
				}
			}
			text, line, pieces = renderBlock(bl, capLine)
		}
		if text == "" {
			continue
		}
		if prev == nil {
			first := bl.lines[0]
			pt.startsOpen = !first.mono && plain(bl)
			pt.startSize = first.size
		} else if plain(prev) && plain(bl) {
			b.WriteString(joinSep(b.String(), text, blockOpen(prev, bl.lines[0]), prev.last().size, bl.lines[0]))
		} else {
			b.WriteString("\n\n")
		}
		at := b.Len()
		b.WriteString(text)
		pt.pieces = append(pt.pieces, shiftPieces(pieces, at)...)
		switch {
		case bl.head != nil:
			pt.heads = append(pt.heads, pageHead{span: span{at, b.Len()}, key: bl.head.key, entry: bl.head.entry})
		case bl.table != nil:
			pg := pageTable{header: bl.table.header}
			for _, r := range rows {
				pg.rows = append(pg.rows, span{at + r[0], at + r[1]})
			}
			pt.tables = append(pt.tables, pg)
		case capLine != nil && line[0] >= 0:
			captions[capLine] = span{at + line[0], at + line[1]}
		}
		prev = bl
	}
	if prev != nil {
		pt.endsOpen = plain(prev) && blockOpen(prev, nil) && !endsSentence(b.String())
		pt.endSize = prev.last().size
	}
	// captions are matched to their tables once all are written
	k := 0
	for _, bl := range blocks {
		if bl.table == nil || k >= len(pt.tables) {
			continue
		}
		if c := bl.table.caption; c != nil {
			pt.tables[k].caption = captions[c]
		}
		k++
	}
	pt.text = b.String()
	return pt
}

// blockOpen reports whether a block's last line is prose running to the
// block's right edge: its paragraph may go on elsewhere.
//
// With the next line known, the test is whether its first word would have
// fitted at the end of this one (as within a block); without, whether the
// line reaches into the last fifth of the block's width.
func blockOpen(bl *block, next *frag) bool {
	l := bl.last()
	if l.mono || len(bl.lines) == 1 && l.u1-l.u0 < 25*l.size {
		return false // code, or a short line standing alone: a heading, a caption
	}
	if next != nil {
		size := max(l.size, next.size)
		firstW := next.words[0].u1 - next.words[0].u0
		return l.u1+0.3*size+firstW >= bl.u1-0.3*size
	}
	return l.u1 >= bl.u1-max(2*l.size, 0.2*(bl.u1-bl.u0))
}

// joinSep is what goes between text that ends a block and the text of the
// next block starting with line next.
func joinSep(before, after string, open bool, beforeSize float32, next *frag) string {
	if open && !next.mono && !endsSentence(before) && max(beforeSize, next.size) <= 1.1*min(beforeSize, next.size) {
		if sep, ok := hyphenSep(before, after); ok {
			return sep
		}
		if startsLower(after) {
			return " "
		}
	}
	return "\n\n"
}

// renderBlock writes a block's lines; it also returns where line want
// (one of the block's lines, or nil) was written, and the lines as
// pieces.
func renderBlock(bl *block, want *frag) (string, span, []piece) {
	at := span{-1, -1}
	pieces := make([]piece, 0, len(bl.lines))
	var b strings.Builder
	pitch := bl.pitch
	if pitch == 0 {
		pitch = medianPitch(bl)
	}
	codeLeft := bl.u0 // left edge of the current run of typewriter lines
	inline := false   // the previous line was a piece of code inside a sentence
	for i, l := range bl.lines {
		if l.mono && (i == 0 || !bl.lines[i-1].mono) {
			codeLeft = l.u0
			for _, m := range bl.lines[i:] {
				if !m.mono {
					break
				}
				codeLeft = min(codeLeft, m.u0)
			}
		}
		text, starts := lineText(l, codeLeft)
		if i > 0 {
			p := bl.lines[i-1]
			var next *frag
			if i+1 < len(bl.lines) {
				next = bl.lines[i+1]
			}
			switch {
			case !p.mono && l.mono && inlineCode(b.String(), l, next):
				b.WriteByte(' ')
				inline = true
			case inline && !l.mono:
				b.WriteByte(' ')
				inline = false
			default:
				b.WriteString(lineSep(b.String(), text, p, l, next, bl, pitch))
				inline = false
			}
			if inline {
				trimmed := strings.TrimSpace(text)
				shiftAt(starts, -strings.Index(text, trimmed))
				text = trimmed
			}
		}
		if l == want {
			at = span{b.Len(), b.Len() + len(text)}
		}
		pieces = append(pieces, piece{f: l, words: l.words, at: shiftAt(starts, b.Len())})
		b.WriteString(text)
	}
	return b.String(), at, pieces
}

// inlineCode reports whether typewriter line l, after prose that does not
// end a sentence and before prose going on in lower case, is code set
// inside the sentence rather than a code example.
func inlineCode(before string, l, next *frag) bool {
	if next == nil || next.mono || endsSentence(before) {
		return false
	}
	last := l.words[len(l.words)-1].text
	return startsLower(next.words[0].text) || strings.HasSuffix(last, ",") || strings.HasSuffix(last, ";")
}

func medianPitch(bl *block) float32 {
	if len(bl.lines) < 2 {
		return 0
	}
	ps := make([]float32, 0, len(bl.lines)-1)
	for i := 1; i < len(bl.lines); i++ {
		ps = append(ps, bl.lines[i].v-bl.lines[i-1].v)
	}
	slices.Sort(ps)
	return ps[len(ps)/2]
}

// lineSep decides what joins line l to the line p above it in block bl.
func lineSep(before, text string, p, l, next *frag, bl *block, pitch float32) string {
	switch {
	case p.mono && l.mono:
		return "\n"
	case p.mono != l.mono:
		return "\n\n"
	case pitch > 0 && l.v-p.v > 1.35*pitch:
		return "\n\n"
	}
	if leaderLine(before) || hasWideGap(l) || hasWideGap(p) && !continuesCell(p, l) {
		return "\n" // a table of contents, a table row, aligned columns
	}
	if itemStart(l.words[0].text) {
		if endsSentence(before) {
			return "\n\n"
		}
		return "\n"
	}
	size := max(p.size, l.size)
	firstW := l.words[0].u1 - l.words[0].u0
	// The first word of l would have fitted at the end of p: p ended on
	// purpose (the end of a paragraph, a list item, a table row).
	if p.u1+0.3*size+firstW < bl.u1-0.3*size {
		if endsSentence(before) {
			return "\n\n"
		}
		return "\n"
	}
	// A full line followed by an indented one, the line after returning to
	// the margin: a new, indented paragraph.
	if l.u0-bl.u0 > 0.8*size && p.u0-bl.u0 < 0.3*size && next != nil && next.u0-bl.u0 < 0.3*size && endsSentence(before) {
		return "\n\n"
	}
	if sep, ok := hyphenSep(before, text); ok {
		return sep
	}
	return " "
}

// hyphenSep joins a line ending in a hyphen after a letter to the next:
// before a lower-case letter the hyphen may have split a word (the
// document assembly decides), before a capital or digit it is part of a
// compound ("S-Plus") and stays, with no space.
func hyphenSep(before, after string) (string, bool) {
	if !endsHyphen(before) {
		return "", false
	}
	r, _ := utf8.DecodeRuneInString(after)
	switch {
	case unicode.IsLower(r):
		return string(hyphenMark), true
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return "", true
	}
	return "", false
}

// hasWideGap reports whether a line has a gap between words far wider
// than its ordinary spaces: cells of a table row, or text aligned in
// columns. Justification stretches spaces alike (more after a full stop,
// not at all in typewriter text), so the widest gap is compared with the
// ordinary spaces between proportional words.
func hasWideGap(l *frag) bool {
	var widest float32
	var ordinary []float32
	for i := 1; i < len(l.words); i++ {
		a, b := l.words[i-1], l.words[i]
		g := b.u0 - a.u1
		widest = max(widest, g)
		if a.mono == 0 && b.mono == 0 && !endsSentence(a.text) {
			ordinary = append(ordinary, g)
		}
	}
	if widest < 2*l.size {
		return false
	}
	if len(ordinary) == 0 {
		return widest >= 3*l.size
	}
	return widest >= 2.5*max(slices.Min(ordinary), 0.1*l.size)
}

var itemRE = regexp.MustCompile(`^(\(?\d{1,2}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\)|[•◦▪▫‣∙·])$`)

// itemStart reports whether a line's first word marks a list item: a
// bullet or an enumerator such as "2.", "b)" or "(iv)".
func itemStart(first string) bool {
	if itemRE.MatchString(first) {
		return true
	}
	r, n := utf8.DecodeRuneInString(first)
	return n < len(first) && strings.ContainsRune("•◦▪▫‣∙", r)
}

// continuesCell reports whether line l, under a line p with a wide gap,
// starts where the text after p's widest gap starts: the description of a
// definition list or a table cell running on.
func continuesCell(p, l *frag) bool {
	at, widest := float32(0), float32(-1)
	for i := 1; i < len(p.words); i++ {
		if g := p.words[i].u0 - p.words[i-1].u1; g > widest {
			at, widest = p.words[i].u0, g
		}
	}
	return abs32(l.u0-at) < 0.5*l.size
}

// leaderLine reports whether a line ends with dot leaders and a number, as
// in a table of contents or an index.
func leaderLine(s string) bool {
	s = strings.TrimRight(s, " 0123456789ivxlcdm,–-")
	return strings.HasSuffix(s, ". . .") || strings.HasSuffix(s, "....") || strings.HasSuffix(s, "…")
}

// lineText is a line's words joined by spaces; in typewriter lines the
// spaces reproduce the indentation and alignment. It also returns where
// each word starts.
func lineText(l *frag, left float32) (string, []int32) {
	if !l.mono {
		return l.text(), wordsAt(l.words, 0)
	}
	starts := make([]int32, len(l.words))
	var b strings.Builder
	cw := charWidth(l)
	if cw > 0 {
		ind := int(math.Round(float64((l.u0 - left) / cw)))
		b.WriteString(strings.Repeat(" ", clampInt(ind, 0, 80)))
	}
	for i, w := range l.words {
		if i > 0 {
			n := 1
			if cw > 0 {
				n = clampInt(int(math.Round(float64((w.u0-l.words[i-1].u1)/cw))), 1, 80)
			}
			b.WriteString(strings.Repeat(" ", n))
		}
		starts[i] = int32(b.Len())
		b.WriteString(w.text)
	}
	return b.String(), starts
}

// charWidth estimates the advance of one character of a typewriter line.
func charWidth(l *frag) float32 {
	var w float32
	n := 0
	for _, x := range l.words {
		w += x.u1 - x.u0
		n += utf8.RuneCountInString(x.text)
	}
	if n == 0 || w <= 0 {
		return 0
	}
	return w / float32(n)
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// endsSentence reports whether s ends with sentence-final punctuation,
// possibly followed by closing quotes or brackets.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " \n")
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		switch r {
		case '"', '\'', ')', ']', '’', '”', '»':
			s = s[:len(s)-n]
			continue
		case '.', '!', '?', ':', ';', '。', '！', '？':
			return true
		}
		return false
	}
	return false
}

// endsHyphen reports whether s ends with a letter followed by a hyphen.
func endsHyphen(s string) bool {
	if !strings.HasSuffix(s, "-") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	return unicode.IsLetter(r)
}
