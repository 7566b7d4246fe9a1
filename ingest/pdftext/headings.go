package pdftext

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Headings come from two sources. The outline (bookmarks) names them and
// the page each is on; its titles are found as lines of that page. The
// type names the rest: a short line, or a run of up to three, set larger
// than the document's body text or in bold at body size, standing alone
// (a block of its own, or set off from the lines around it).

// docStyle is what the whole document says about its type.
type docStyle struct {
	body float32 // the font size of most glyphs
}

// newDocStyle measures the body size over the document's kept fragments.
func newDocStyle(layouts []*pageLayout) docStyle {
	count := map[float32]int32{}
	for _, l := range layouts {
		for s, n := range l.sizes {
			count[s] += n
		}
		l.dropped(count)
	}
	for s, n := range count {
		if n <= 0 {
			delete(count, s) // every glyph of that size was dropped
		}
	}
	ds := docStyle{body: 10}
	var best int32
	for s, n := range count {
		if n > best || n == best && s < ds.body {
			ds.body, best = s, n
		}
	}
	return ds
}

// roundSize rounds a font size to a quarter point, so that the sizes of
// different fonts set at the same nominal size compare equal.
func roundSize(s float32) float32 { return float32(math.Round(float64(s)*4)) / 4 }

// styleKey is the look of a heading: its size to half a point, and
// whether it is bold.
type styleKey struct {
	size float32
	bold bool
}

func keyOf(f *frag) styleKey {
	return styleKey{size: float32(math.Round(float64(f.size)*2)) / 2, bold: f.bold}
}

// styled reports whether a line is set apart from body text: larger, or
// bold at body size. Code is not.
func (ds docStyle) styled(f *frag) bool {
	return !f.mono && (f.size >= 1.08*ds.body || f.bold && f.size >= 0.95*ds.body)
}

// headMark says a block is a heading and how it was found.
type headMark struct {
	entry *outlineEntry // the outline item it matched, or nil
	key   styleKey
}

// headRun is lines [i, j) of a block that form a heading.
type headRun struct {
	bl    *block
	i, j  int
	entry *outlineEntry
}

var (
	figureCaptionRE = regexp.MustCompile(`^(Figure|FIGURE|Fig\.|Listing|Chart|Exhibit)\s+[0-9A-Z]`)
	bareNumberRE    = regexp.MustCompile(`^[\d\s.,:;()\-–—%$€£]*$`)
	// a contents line whose title leaves room for two leader dots only
	shortLeaderRE = regexp.MustCompile(`\.\s?\.\s*[\dixvlc]+$`)
)

// markHeadings finds the heading lines among a page's blocks, outline
// items first, and gives each a block of its own. outline holds the
// page's outline items not yet found; those found are marked.
func markHeadings(blocks []*block, ds docStyle, outline []*outlineEntry) []*block {
	var runs []headRun
	if len(outline) > 0 {
		runs = matchOutline(blocks, ds, outline)
	}
	for _, bl := range blocks {
		if bl.table != nil {
			continue
		}
		for i := 0; i < len(bl.lines); {
			j := i + 1
			if !ds.styled(bl.lines[i]) {
				i = j
				continue
			}
			k := keyOf(bl.lines[i])
			for j < len(bl.lines) && ds.styled(bl.lines[j]) && keyOf(bl.lines[j]) == k {
				j++
			}
			if styleHeading(bl, i, j, ds) && !overlapsRun(runs, bl, i, j) {
				runs = append(runs, headRun{bl: bl, i: i, j: j})
			}
			i = j
		}
	}
	if len(runs) == 0 {
		return blocks
	}
	return splitHeadings(blocks, runs)
}

func overlapsRun(runs []headRun, bl *block, i, j int) bool {
	for _, r := range runs {
		if r.bl == bl && r.i < j && i < r.j {
			return true
		}
	}
	return false
}

// styleHeading reports whether lines [i, j) of bl, alike in style and set
// apart from body text, stand alone as a heading.
func styleHeading(bl *block, i, j int, ds docStyle) bool {
	if j-i > 3 {
		return false // a paragraph set in bold or large type
	}
	lines := bl.lines
	first, last := lines[i], lines[j-1]
	pitch := medianPitch(bl)
	// set off from the line above: the block starts here, the line above
	// ends short (a paragraph's end), or a wider gap than the block's pitch
	if i > 0 {
		p := lines[i-1]
		if p.u1 >= bl.u1-2*p.size && !(pitch > 0 && first.v-p.v > 1.2*pitch) {
			return false
		}
	}
	// and from the line below: the heading's last line ends short
	if j < len(lines) {
		n := lines[j]
		if last.u1 >= bl.u1-2*last.size && !(pitch > 0 && n.v-last.v > 1.2*pitch) {
			return false
		}
	}
	// a contents entry wrapped onto a line with leaders
	if j < len(lines) && leaderLine(lines[j].text()) {
		return false
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		if len(lineCells(lines[k])) > 1 {
			return false // cells apart: a table's header row
		}
		if k > i {
			b.WriteByte(' ')
		}
		b.WriteString(lines[k].text())
	}
	text := b.String()
	if !headingText(text) {
		return false
	}
	larger := first.size >= 1.08*ds.body
	if !larger && strings.ContainsAny(text[len(text)-1:], ".,;:") {
		return false // a bold sentence or a label ("Note:"), not a heading
	}
	return true
}

// headingText reports whether text can be a heading: a few words with
// letters in them, not a contents line, a caption or a page number.
func headingText(text string) bool {
	if len(text) > 200 || strings.Count(text, " ") >= 24 {
		return false
	}
	word := false // a word of two letters or more
	run := 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			run++
			word = word || run >= 2
		} else {
			run = 0
		}
	}
	if !word || bareNumberRE.MatchString(text) {
		return false
	}
	if leaderLine(text) || shortLeaderRE.MatchString(text) || captionRE.MatchString(text) || figureCaptionRE.MatchString(text) || pageNumRE.MatchString(text) {
		return false
	}
	// the end of a wrapped function signature or formula
	if strings.Count(text, "(") != strings.Count(text, ")") || strings.Count(text, "[") != strings.Count(text, "]") {
		return false
	}
	return !strings.HasSuffix(text, ",") && !strings.HasSuffix(text, ";")
}

// matchOutline finds the page's outline items among its lines: a line,
// or a run of up to three lines of a block, whose text is the item's
// title (section numbers, case, spacing and punctuation aside). Where a
// title occurs more than once, a line set apart in style and one nearer
// the destination's top edge win.
func matchOutline(blocks []*block, ds docStyle, outline []*outlineEntry) []headRun {
	type cand struct {
		run   headRun
		score float32
	}
	var runs []headRun
	// each line's letters and digits, to rule out most runs of lines
	// before their titleKey is worked out
	// and the first cell of lines with cells apart, which may hold the
	// title with more after it ("zip    Create Zip Archives")
	compacts := make([][]string, len(blocks))
	firsts := map[*frag]string{}
	for bi, bl := range blocks {
		if bl.table == nil {
			compacts[bi] = make([]string, len(bl.lines))
			for i, l := range bl.lines {
				compacts[bi][i] = compact(l.text())
				if cells := lineCells(l); len(cells) > 1 {
					firsts[l] = cells[0].text()
				}
			}
		}
	}
	keys := map[[3]int]titleKey{}
	for _, e := range outline {
		if e.found || e.key.bare == "" {
			continue
		}
		// every form of the title ends the same way as its shortest
		tail := e.key.bare
		if len(e.key.unlettered) < len(tail) {
			tail = e.key.unlettered
		}
		var best *cand
		for bi, bl := range blocks {
			if bl.table != nil {
				continue
			}
			for i := range bl.lines {
				run := ""
				for j := i + 1; j <= min(i+3, len(bl.lines)); j++ {
					run += compacts[bi][j-1]
					first, hasFirst := firsts[bl.lines[i]]
					if j > i+1 || !hasFirst || !strings.HasSuffix(compact(first), tail) {
						first = ""
					}
					if len(run) > len(e.key.full)+12 && first == "" {
						break // longer runs only add text
					}
					if !strings.HasSuffix(run, tail) && first == "" {
						continue
					}
					k, ok := keys[[3]int{bi, i, j}]
					if !ok {
						parts := make([]string, 0, j-i)
						for _, l := range bl.lines[i:j] {
							parts = append(parts, l.text())
						}
						k = newTitleKey(strings.Join(parts, " "))
						keys[[3]int{bi, i, j}] = k
					}
					if !k.matches(e.key) && (first == "" || !newTitleKey(first).matches(e.key)) {
						continue
					}
					if overlapsRun(runs, bl, i, j) || leaderLine(bl.lines[j-1].text()) {
						continue
					}
					score := float32(0)
					if !ds.styled(bl.lines[i]) {
						score += 1000
					}
					if !math.IsNaN(float64(e.top)) {
						d := bl.lines[i].v - e.top
						if d < -bl.lines[i].size {
							d = -4 * d // above the destination: less likely
						}
						score += abs32(d) / 100
					}
					if best == nil || score < best.score {
						best = &cand{run: headRun{bl: bl, i: i, j: j, entry: e}, score: score}
					}
				}
			}
		}
		if best != nil {
			e.found = true
			runs = append(runs, best.run)
		}
	}
	return runs
}

// splitHeadings gives each heading run a block of its own, splitting the
// blocks they are in.
func splitHeadings(blocks []*block, runs []headRun) []*block {
	slices.SortFunc(runs, func(a, b headRun) int { return cmp.Compare(a.i, b.i) })
	out := make([]*block, 0, len(blocks)+2*len(runs))
	for _, bl := range blocks {
		at := 0
		for _, r := range runs {
			if r.bl != bl {
				continue
			}
			if r.i > at {
				out = append(out, subBlock(bl, at, r.i))
			}
			h := subBlock(bl, r.i, r.j)
			h.head = &headMark{entry: r.entry, key: keyOf(bl.lines[r.i])}
			out = append(out, h)
			at = r.j
		}
		switch {
		case at == 0:
			out = append(out, bl)
		case at < len(bl.lines):
			out = append(out, subBlock(bl, at, len(bl.lines)))
		}
	}
	return out
}

// subBlock is lines [i, j) of bl as a block of their own, whose lines are
// joined as they were in bl: with its width and line pitch.
func subBlock(bl *block, i, j int) *block {
	b := &block{pitch: bl.pitch}
	if b.pitch == 0 {
		b.pitch = medianPitch(bl)
	}
	for _, l := range bl.lines[i:j] {
		b.add(l)
	}
	b.u0, b.u1 = bl.u0, bl.u1
	return b
}
