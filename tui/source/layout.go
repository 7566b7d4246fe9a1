package source

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/internal/draw"
)

// The viewer never wraps a whole document. A document's text is indexed
// once into blocks (its lines), and only the blocks that meet the viewport
// are wrapped, each on its own; a scroll position is a block and a wrapped
// row within it. Every display cell keeps the source bytes it came from, so
// a byte range maps onto the screen however sanitising changed lengths.

const (
	// tabWidth is the tab stop distance; tabs are expanded to spaces.
	tabWidth = 4
	// maxBlock bounds a block's length. A text with very long lines (a
	// whole file without newlines) is cut into blocks of at most this many
	// bytes, at a space where there is one, so that wrapping one block
	// stays cheap. Such a cut ends a wrapped row early: a cosmetic cost
	// paid only by pathological input.
	maxBlock = 4096
)

// lineIndex is a document text's blocks: block i is text[starts[i]:ends[i]],
// a line without its terminator. Lines end at '\n' (with any '\r' before
// it) and at '\f' (pdftotext's page break), and a line is cut where a
// page begins, so every page after the first begins a block: the block
// pageOf names, which the viewer marks with a page break.
type lineIndex struct {
	text   string
	starts []int32
	ends   []int32

	// pageStarts are the byte offsets of pages 2, 3, …; next is the
	// first not yet placed while indexing. pageOf maps a block that
	// begins a page to its page number.
	pageStarts []int32
	next       int
	pageOf     map[int]int
}

// newLineIndex indexes text, whose pages after the first start at the
// offsets pageStarts[1:] (a document's PageStarts; nil for one page):
// one strings.IndexByte per line, a few milliseconds for a 4.4 MB manual.
func newLineIndex(text string, pageStarts []int32) *lineIndex {
	n := len(text)/32 + 1 // lines are rarely shorter on average
	ix := &lineIndex{text: text, starts: make([]int32, 0, n), ends: make([]int32, 0, n), pageOf: map[int]int{}}
	if len(pageStarts) > 1 {
		ix.pageStarts = pageStarts[1:]
	}
	// Form feeds are rare (one a page): find the next one only when the
	// last is passed, rather than looking inside every line.
	ff := -1
	nextFF := func(from int) {
		ff = -1
		if i := strings.IndexByte(text[from:], '\f'); i >= 0 {
			ff = from + i
		}
	}
	nextFF(0)
	pos := 0
	for {
		nl := strings.IndexByte(text[pos:], '\n')
		end, next := len(text), len(text)
		if nl >= 0 {
			end = pos + nl
			next = end + 1
		}
		for ff >= 0 && ff < end {
			ix.addBlocks(pos, ff)
			pos = ff + 1
			nextFF(pos)
		}
		line := end
		if line > pos && text[line-1] == '\r' {
			line--
		}
		ix.addBlocks(pos, line)
		if nl < 0 || next == len(text) {
			break
		}
		pos = next
	}
	return ix
}

// addBlocks adds the line text[start:end] as blocks: cut where a page
// begins, and into pieces of at most maxBlock bytes.
func (ix *lineIndex) addBlocks(start, end int) {
	for ix.next < len(ix.pageStarts) {
		ps := int(ix.pageStarts[ix.next])
		if ps <= start {
			// The page begins here (or in the line break before): the
			// next block is its first.
			ix.pageOf[len(ix.starts)] = ix.next + 2
			ix.next++
			continue
		}
		if ps >= end {
			break
		}
		ix.addRun(start, ps)
		start = ps
	}
	ix.addRun(start, end)
}

// addRun adds text[start:end], within one page, as blocks of at most
// maxBlock bytes.
func (ix *lineIndex) addRun(start, end int) {
	for end-start > maxBlock {
		cut := start + maxBlock
		if sp := strings.LastIndexByte(ix.text[start+maxBlock/2:cut], ' '); sp >= 0 {
			cut = start + maxBlock/2 + sp + 1
		} else {
			for cut > start && !utf8.RuneStart(ix.text[cut]) {
				cut--
			}
		}
		ix.starts = append(ix.starts, int32(start))
		ix.ends = append(ix.ends, int32(cut))
		start = cut
	}
	ix.starts = append(ix.starts, int32(start))
	ix.ends = append(ix.ends, int32(end))
}

// blocks is the number of blocks; never zero.
func (ix *lineIndex) blocks() int { return len(ix.starts) }

// block returns block i's text and its offset in the document.
func (ix *lineIndex) block(i int) (string, int) {
	s, e := int(ix.starts[i]), int(ix.ends[i])
	return ix.text[s:e], s
}

// blockAt returns the block containing byte offset off: the last block
// starting at or before it.
func (ix *lineIndex) blockAt(off int) int {
	lo, hi := 0, len(ix.starts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(ix.starts[mid]) <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return max(lo-1, 0)
}

// cluster reads the grapheme cluster of s at i, drawn at column col of its
// row. It returns where the next cluster starts, the text to draw (made
// terminal-safe), its width in cells, and whether it is whitespace a row
// may break after.
func cluster(s string, i, col int) (next int, disp string, w int, space bool) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t':
		n := 1
		if c == '\t' {
			n = tabWidth - col%tabWidth
		}
		// A mark after whitespace (a combining accent, a variation
		// selector) is a cluster of its own in the text, but drawn after a
		// space it joins that space, and may widen it: draw and measure
		// the two together, as one cluster that is not a break.
		if k := joining(" ", s[i+1:]); k > 0 {
			disp = draw.Pad(n-1) + textproc.Printable(" "+s[i+1:i+1+k])
			return i + 1 + k, disp, n - 1 + ansi.StringWidth(disp[n-1:]), false
		}
		return i + 1, draw.Pad(n), n, true
	case c > ' ' && c < utf8.RuneSelf && c != 0x7f && (i+1 == len(s) || s[i+1] < utf8.RuneSelf):
		// Printable ASCII not followed by a combining mark: the common case.
		return i + 1, s[i : i+1], 1, false
	}
	cl, w := ansi.FirstGraphemeCluster(s[i:], ansi.GraphemeWidth)
	// No real cluster holds an ASCII character after its first rune (CR LF
	// aside, and lines hold no LF), but invalid UTF-8 can be grouped with
	// what follows it, a tab included: cut such a cluster short, so tabs
	// and spaces always come here on their own.
	_, n := utf8.DecodeRuneInString(s[i:])
	for j := n; j < len(cl); j++ {
		if cl[j] < utf8.RuneSelf {
			cl = cl[:j]
			break
		}
	}
	if cl == "" {
		cl = s[i : i+n]
	}
	disp = textproc.Printable(cl)
	if disp != cl {
		// A control character became its Control Picture, a bidi override
		// was dropped, or invalid UTF-8 became U+FFFD: measure what is shown.
		// A picture is a base character where the control was none: the
		// marks after it (a combining mark, a variation selector), a
		// cluster of their own in the text, join it when drawn, so they
		// are taken into this cluster and measured with it.
		if k := joining(disp, s[i+len(cl):]); k > 0 {
			cl = s[i : i+len(cl)+k]
			disp = textproc.Printable(cl)
		}
		w = ansi.StringWidth(disp)
	}
	return i + len(cl), disp, w, false
}

// joining returns how many bytes at the start of rest would join base in
// one grapheme cluster when the two are drawn side by side: none unless rest
// starts with a mark that has no base of its own (a combining accent, a
// variation selector). Only whole, valid non-ASCII runes are taken, so tabs
// and spaces still come to cluster on their own.
func joining(base, rest string) int {
	if rest == "" || rest[0] < utf8.RuneSelf {
		return 0
	}
	joined, _ := ansi.FirstGraphemeCluster(base+rest, ansi.GraphemeWidth)
	extra := rest[:max(0, min(len(joined)-len(base), len(rest)))]
	if k := strings.IndexFunc(extra, func(r rune) bool { return r < utf8.RuneSelf }); k >= 0 {
		extra = extra[:k]
	}
	for len(extra) > 0 && !utf8.ValidString(extra) {
		extra = extra[:len(extra)-1]
	}
	return len(extra)
}

// wrapBlock appends to dst the offsets (relative to s) at which the rows of
// s start when wrapped to width cells: at the last space, tab, wide
// character or hyphen that fits, or anywhere in a word longer than a row.
// Whitespace that does not fit hangs past the end of its row, undrawn, so
// rows never start with the space they broke at. An empty s has one row.
func wrapBlock(dst []int32, s string, width int) []int32 {
	dst = append(dst, 0)
	rowStart, col, brk := 0, 0, -1
	for i := 0; i < len(s); {
		next, _, w, space := cluster(s, i, col)
		if col+w > width && col > 0 {
			if space {
				for next < len(s) && (s[next] == ' ' || s[next] == '\t') {
					next++
				}
				if next == len(s) {
					break
				}
				i = next
			} else if brk > rowStart {
				i = brk
			}
			rowStart, col, brk = i, 0, -1
			dst = append(dst, int32(i))
			continue
		}
		col += w
		if space || w > 1 || s[i] == '-' && i > rowStart {
			brk = next
		}
		i = next
	}
	return dst
}

// Classes of text a cell can be drawn in, in increasing priority: a cell in
// several is drawn in the highest.
type class uint8

const (
	clsText class = iota
	clsFaint
	clsHighlight
	clsMatch
	clsCurrent
	numClasses
)

// Range is a byte range [Start, End) of a document's text.
type Range struct{ Start, End int }

func (r Range) meets(start, end int) bool { return r.Start < end && start < r.End }

// marks is what to paint over the text in the rows being drawn.
type marks struct {
	primary Range
	others  []Range
	// matches are the search match starts (ascending, non-overlapping),
	// each matchLen bytes long; current is the index of the current one
	// within matches, or -1.
	matches  []int32
	matchLen int
	current  int
	// cursor into matches: rows are drawn in document order, so the
	// first match that can still meet a cell only moves forward.
	next int
}

// classOf returns the class of the bytes [start, end). Calls must come in
// document order.
func (mk *marks) classOf(start, end int) class {
	for mk.next < len(mk.matches) && int(mk.matches[mk.next])+mk.matchLen <= start {
		mk.next++
	}
	// Matches are sorted and do not overlap, so every match from next on
	// that starts before end meets the cell.
	found := false
	for j := mk.next; j < len(mk.matches) && int(mk.matches[j]) < end; j++ {
		if j == mk.current {
			return clsCurrent
		}
		found = true
	}
	if found {
		return clsMatch
	}
	if mk.primary.meets(start, end) {
		return clsHighlight
	}
	for _, r := range mk.others {
		if r.meets(start, end) {
			return clsFaint
		}
	}
	return clsText
}

// renderRow draws s[from:to] (s is a block at document offset base) into b,
// clipped and padded to exactly width cells, marking cells by mk. Cells
// drawn as their own source bytes are written in one piece per run.
func renderRow(b *strings.Builder, s string, base, from, to, width int, mk *marks, paints *[numClasses]draw.Paint) {
	const none = numClasses
	col, run := 0, none
	lit := -1 // start of source bytes drawn as they are, not yet written
	i := from
	for i < to {
		next, disp, w, _ := cluster(s, i, col)
		if col+w > width {
			break // hanging whitespace, or a cluster wider than the pane
		}
		if c := mk.classOf(base+i, base+next); c != run {
			if lit >= 0 {
				b.WriteString(s[lit:i])
				lit = -1
			}
			if run != none {
				b.WriteString(paints[run].Suffix())
			}
			run = c
			b.WriteString(paints[run].Prefix())
		}
		if len(disp) == next-i && disp == s[i:next] {
			if lit < 0 {
				lit = i
			}
		} else {
			if lit >= 0 {
				b.WriteString(s[lit:i])
				lit = -1
			}
			b.WriteString(disp)
		}
		col += w
		i = next
	}
	if lit >= 0 {
		b.WriteString(s[lit:i])
	}
	if run != none {
		b.WriteString(paints[run].Suffix())
	}
	if col < width {
		b.WriteString(draw.Pad(width - col))
	}
}
