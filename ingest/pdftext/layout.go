package pdftext

import (
	"cmp"
	"slices"
	"strings"
)

// word is a run of glyphs with no break between them.
type word struct {
	u0, u1, v, size float32
	text            string
	mono, n         int32 // glyphs in a typewriter font, all glyphs
	bold            int32 // glyphs in a bold font or drawn twice (fake bold)
}

// frag is a line fragment: the words of one row of text up to a column
// gutter.
type frag struct {
	words     []word
	u0, u1, v float32
	size      float32 // dominant font size
	top, bot  float32
	mono      bool // mostly typewriter glyphs: code
	bold      bool // mostly bold glyphs
	drop      bool // a running header, footer or page number
	cell      bool // a line of a table
	note      bool // a line of the page's footnotes (markNotes)
	noteHead  bool // the first line of a footnote
}

func (f *frag) text() string { return joinWords(f.words) }

// joinWords is the words' text joined by spaces.
func joinWords(ws []word) string {
	if len(ws) == 1 {
		return ws[0].text
	}
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.text)
	}
	return b.String()
}

// Layout tuning, as fractions of the font size.
const (
	wordGap       = 0.11 // a gap wider than this between glyphs is a space
	baselineShift = 0.30 // baselines further apart than this start a new word
	dupOverlap    = 0.12 // a glyph repeated within this distance is fake bold
)

// buildWords joins the glyphs of one orientation, in content order, into
// words.
func buildWords(gs []glyph, buf []byte) []word {
	// The words' texts are slices of one string made at the end, not a
	// string each: ends[i] is where word i's text ends in all.
	words := make([]word, 0, len(gs)/4+1)
	ends := make([]int, 0, cap(words))
	all := make([]byte, 0, len(buf))
	start := 0 // of the current word in all
	var w word
	var last *glyph
	flush := func() {
		if len(all) > start {
			words = append(words, w)
			ends = append(ends, len(all))
		}
		start = len(all)
		last = nil
	}
	for i := range gs {
		g := &gs[i]
		text := buf[g.off : g.off+g.n]
		if last != nil {
			size := max(last.size, g.size)
			dv := abs32(g.v - last.v)
			if dv < dupOverlap*size && abs32(g.u0-last.u0) < dupOverlap*size && string(text) == string(buf[last.off:last.off+last.n]) {
				if w.bold < w.n {
					w.bold++
				}
				continue // the same glyph drawn again (fake bold, shadow)
			}
			gap := g.u0 - last.u1
			if g.space || dv > baselineShift*size || gap > wordGap*size || gap < -0.6*size {
				flush()
			}
		}
		if last == nil {
			w = word{u0: g.u0, u1: g.u1, v: g.v, size: g.size}
		}
		all = append(all, text...)
		w.u0 = min(w.u0, g.u0)
		w.u1 = max(w.u1, g.u1)
		if g.size > w.size {
			w.size, w.v = g.size, g.v
		}
		w.n++
		if g.mono {
			w.mono++
		}
		if g.bold {
			w.bold++
		}
		last = g
	}
	flush()
	text, from := string(all), 0
	for i := range words {
		words[i].text = text[from:ends[i]]
		from = ends[i]
	}
	return words
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// row is the words sharing a baseline band.
type row struct {
	words    []word
	top, bot float32 // the band of its largest word
	v, size  float32
}

// buildRows groups words into rows by vertical overlap.
func buildRows(words []word) []*row {
	slices.SortStableFunc(words, func(a, b word) int { return cmp.Compare(a.v, b.v) })
	var rows []*row
	for _, w := range words {
		top, bot := w.v-0.75*w.size, w.v+0.25*w.size
		var best *row
		bestOv := float32(0)
		for i := len(rows) - 1; i >= 0 && i >= len(rows)-8; i-- {
			r := rows[i]
			ov := min(bot, r.bot) - max(top, r.top)
			h := min(bot-top, r.bot-r.top)
			if h > 0 && ov/h >= 0.5 && ov/h > bestOv {
				best, bestOv = r, ov/h
			}
		}
		if best == nil {
			rows = append(rows, &row{words: []word{w}, top: top, bot: bot, v: w.v, size: w.size})
			continue
		}
		best.words = append(best.words, w)
		if w.size > best.size*1.05 {
			best.top, best.bot, best.v, best.size = top, bot, w.v, w.size
		}
	}
	for _, r := range rows {
		slices.SortStableFunc(r.words, func(a, b word) int { return cmp.Compare(a.u0, b.u0) })
		r.words = mergeTouching(r.words)
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return cmp.Compare(a.v, b.v) })
	return rows
}

// mergeTouching joins words of a row that touch: content drawn out of
// order (a link, a mark added later) splits a word in content order but not
// on the page.
func mergeTouching(ws []word) []word {
	out := ws[:1]
	for _, w := range ws[1:] {
		p := &out[len(out)-1]
		size := max(p.size, w.size)
		gap := w.u0 - p.u1
		if gap < wordGap*size && gap > -0.2*size && abs32(w.v-p.v) < baselineShift*size {
			p.text += w.text
			p.u1 = max(p.u1, w.u1)
			p.n += w.n
			p.mono += w.mono
			p.bold += w.bold
			if w.size > p.size {
				p.size, p.v = w.size, w.v
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

// bodySize is the font size of most of the text.
func bodySize(rows []*row) float32 {
	count := map[float32]int{}
	for _, r := range rows {
		for _, w := range r.words {
			count[float32(int(w.size*2+0.5))/2] += len(w.text)
		}
	}
	best, bestN := float32(10), 0
	for s, n := range count {
		if n > bestN || n == bestN && s < best {
			best, bestN = s, n
		}
	}
	return best
}

// gutter is a vertical strip between columns over a run of rows.
type gutter struct {
	u0, u1       float32
	rowLo, rowHi int // rows [rowLo, rowHi] are split here
}

// findGutters finds column gutters: vertical strips that no word crosses
// over a run of rows, with prose-wide text on both sides in many of them.
func findGutters(rows []*row, body float32) []gutter {
	if len(rows) < 5 {
		return nil
	}
	minU, maxU := float32(1e30), float32(-1e30)
	for _, r := range rows {
		minU = min(minU, r.words[0].u0)
		for _, w := range r.words {
			maxU = max(maxU, w.u1)
		}
	}
	binW := max(body*0.25, 0.5)
	nb := int((maxU-minU)/binW) + 1
	if nb < 8 || nb > 20000 {
		return nil
	}
	// state[row][bin]: 0 open, 1 covered by a word, 2 in a gap with words on both sides
	const open, covered, inGap = 0, 1, 2
	state := make([][]uint8, len(rows))
	bin := func(u float32) int { return clampInt(int((u-minU)/binW), 0, nb-1) }
	for i, r := range rows {
		st := make([]uint8, nb)
		for j, w := range r.words {
			for b := bin(w.u0); b <= bin(w.u1); b++ {
				st[b] = covered
			}
			if j > 0 {
				// a wide gap may be a gutter; a word space is text
				// running across
				prev := r.words[j-1]
				mark := uint8(covered)
				if w.u0-prev.u1 >= 0.8*body {
					mark = inGap
				}
				for b := bin(prev.u1) + 1; b < bin(w.u0); b++ {
					if st[b] == open {
						st[b] = mark
					}
				}
			}
		}
		state[i] = st
	}
	var out []gutter
	for b := 0; b < nb; b++ {
		lo := 0
		for lo < len(rows) {
			if state[lo][b] == covered {
				lo++
				continue
			}
			hi := lo
			gaps := 0
			for hi < len(rows) && state[hi][b] != covered {
				if state[hi][b] == inGap {
					gaps++
				}
				hi++
			}
			if gaps >= 5 && proseBothSides(rows[lo:hi], minU+float32(b)*binW, body) {
				out = append(out, gutter{u0: minU + float32(b)*binW, u1: minU + float32(b+1)*binW, rowLo: lo, rowHi: hi - 1})
			}
			lo = hi
		}
	}
	// merge adjacent bins over the same rows
	var merged []gutter
	for _, g := range out {
		if n := len(merged); n > 0 && merged[n-1].u1 >= g.u0-binW/2 && merged[n-1].rowLo == g.rowLo && merged[n-1].rowHi == g.rowHi {
			merged[n-1].u1 = g.u1
			continue
		}
		merged = append(merged, g)
	}
	return merged
}

// proseBothSides reports whether the rows that have text on both sides of u
// have, in the median, several words' width on each side, and words rather
// than figures: the columns of a table of figures are not columns of text.
func proseBothSides(rows []*row, u, body float32) bool {
	var left, right, leftFig, rightFig []float32
	for _, r := range rows {
		var l0, l1, r0, r1 float32
		var nl, nr, fl, fr int
		for _, w := range r.words {
			if w.u1 <= u {
				if nl == 0 {
					l0 = w.u0
				}
				l1 = w.u1
				nl++
				if isFigure(w.text) {
					fl++
				}
			} else if w.u0 >= u {
				if nr == 0 {
					r0 = w.u0
				}
				r1 = w.u1
				nr++
				if isFigure(w.text) {
					fr++
				}
			}
		}
		if nl > 0 && nr > 0 {
			left = append(left, l1-l0)
			right = append(right, r1-r0)
			leftFig = append(leftFig, float32(fl)/float32(nl))
			rightFig = append(rightFig, float32(fr)/float32(nr))
		}
	}
	if len(left) < 5 {
		return false
	}
	median := func(xs []float32) float32 {
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	return median(left) >= 6*body && median(right) >= 6*body && median(leftFig) < 0.6 && median(rightFig) < 0.6
}

func clampInt(x, lo, hi int) int { return max(lo, min(hi, x)) }

// buildFrags splits rows at column gutters into line fragments.
func buildFrags(rows []*row) []frag {
	body := bodySize(rows)
	gutters := findGutters(rows, body)
	var frags []frag
	for i, r := range rows {
		start := 0
		for j := 1; j <= len(r.words); j++ {
			split := j == len(r.words)
			if !split {
				a, b := r.words[j-1], r.words[j]
				for _, g := range gutters {
					if i >= g.rowLo && i <= g.rowHi && a.u1 <= g.u1 && b.u0 >= g.u0 && b.u0-a.u1 >= 0.8*body {
						split = true
						break
					}
				}
			}
			if split {
				frags = append(frags, newFrag(r.words[start:j]))
				start = j
			}
		}
	}
	return frags
}

func newFrag(ws []word) frag {
	f := frag{words: ws, u0: ws[0].u0, u1: ws[0].u1}
	sizes := map[float32]int{}
	var mono, bold, n int32
	var big word
	for _, w := range ws {
		f.u1 = max(f.u1, w.u1)
		sizes[w.size] += len(w.text)
		mono += w.mono
		bold += w.bold
		n += w.n
		if w.size > big.size || w.size == big.size && len(w.text) > len(big.text) {
			big = w
		}
	}
	bestN := -1
	for s, c := range sizes {
		if c > bestN || c == bestN && s > f.size {
			f.size, bestN = s, c
		}
	}
	f.v = big.v
	f.top, f.bot = big.v-0.75*big.size, big.v+0.25*big.size
	f.mono = n > 0 && float32(mono) >= 0.8*float32(n)
	// A list's number may be set in the text face before a bold title,
	// and code in a bold title in the typewriter face; a line whose first
	// word is not bold is a sentence with words in bold.
	nb, first := n, ws[0]
	if len(ws) > 1 && first.bold == 0 && (itemStart(first.text) || sectionNumRE.MatchString(first.text+" ")) {
		nb -= first.n
		first = ws[1]
	}
	for _, w := range ws {
		if w.mono == w.n && w.bold == 0 && nb > w.n {
			nb -= w.n
		}
	}
	f.bold = nb > 0 && float32(bold) >= 0.8*float32(nb) && 2*first.bold >= first.n
	return f
}
