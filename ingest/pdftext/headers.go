package pdftext

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// edgeLine is a line at the top or bottom edge of a page: a candidate
// running header, footer or page number.
type edgeLine struct {
	page   int
	top    bool
	frags  []*frag
	idx    []int  // each fragment's index among the page's, once packed
	core   string // normalised text without its leading/trailing number
	lead   int    // leading number, or -1
	trail  int    // trailing number, or -1
	pageNo bool   // the line is nothing but a page number
	big    bool   // set larger than the page's text: a title, not a running head
	head   bool   // a table's header row (tableHead), not a running head
}

var (
	pageNumRE = regexp.MustCompile(`^(?i)[\s\-–—.\[\(]*(page|p\.|seite|pág\.?)?\s*(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|/|von|de)\s*\d{1,5})?[\s\-–—.\]\)]*$`)
)

// leadNum is the number of up to five digits that starts s as a word
// (what `^\d{1,5}\b` matches), or "". lineCore runs on every short line
// of every page, where the regular expressions cost a tenth of the
// layout's time.
func leadNum(s string) string {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == 0 || n > 5 || n < len(s) && isWordByte(s[n]) {
		return ""
	}
	return s[:n]
}

// trailNum is the number of up to five digits that ends s as a word
// (what `\b\d{1,5}$` matches), or "".
func trailNum(s string) string {
	n := 0
	for n < len(s) && isDigit(s[len(s)-1-n]) {
		n++
	}
	if n == 0 || n > 5 || n < len(s) && isWordByte(s[len(s)-1-n]) {
		return ""
	}
	return s[len(s)-n:]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte is a byte of an ASCII word, as \b sees it.
func isWordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// edgeLines returns up to two lines at the top and two at the bottom of a
// page's main text, when they lie in the top or bottom fifth of the page.
func edgeLines(page int, frags []frag, vmin, vmax float32) []edgeLine {
	if len(frags) == 0 {
		return nil
	}
	idx := make([]int, len(frags))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if frags[a].v != frags[b].v {
			if frags[a].v < frags[b].v {
				return -1
			}
			return 1
		}
		if frags[a].u0 < frags[b].u0 {
			return -1
		}
		return 1
	})
	// group fragments into lines by baseline
	var lines [][]*frag
	for _, i := range idx {
		f := &frags[i]
		if n := len(lines); n > 0 {
			l := lines[n-1][0]
			if abs32(f.v-l.v) < 0.5*max(f.size, l.size) {
				lines[n-1] = append(lines[n-1], f)
				continue
			}
		}
		lines = append(lines, []*frag{f})
	}
	h := vmax - vmin
	body := textSize(frags)
	var out []edgeLine
	add := func(i int, top bool) {
		l := lines[i]
		v := l[0].v
		if h > 0 && (top && v > vmin+0.2*h || !top && v < vmax-0.2*h) {
			return
		}
		e := newEdgeLine(page, l, top)
		for _, f := range l {
			e.big = e.big || f.size > 1.15*body
		}
		e.head = top && tableHead(lines, i)
		out = append(out, e)
	}
	for i := 0; i < 2 && i < len(lines); i++ {
		add(i, true)
	}
	for i := len(lines) - 1; i >= max(2, len(lines)-2); i-- {
		add(i, false)
	}
	return out
}

// tableHead reports whether line i of a page's lines (fragments by
// baseline) is the header row of a table: cells apart, over lines set
// close under it (a row, or the lines of a row whose cells are centred)
// whose cells line up with two of its own or more. A table continued
// from the page before repeats its header at the top of the page, as a
// running head repeats, but a running head stands apart from the text
// under it.
func tableHead(lines [][]*frag, i int) bool {
	a := lineOf(lines[i])
	ca := lineCells(&a)
	if len(ca) < 2 {
		return false
	}
	tol := max(0.8*a.size, 3)
	lined := make([]bool, len(ca))
	prev := a.v
	for _, l := range lines[i+1 : min(len(lines), i+4)] {
		b := lineOf(l)
		if b.v-prev > 1.8*a.size {
			break
		}
		prev = b.v
		for _, x := range lineCells(&b) {
			for k, y := range ca {
				lined[k] = lined[k] || abs32(x.u0-y.u0) <= tol || abs32(x.u1-y.u1) <= tol
			}
		}
	}
	n := 0
	for _, ok := range lined {
		if ok {
			n++
		}
	}
	return n >= 2
}

// lineOf is the fragments of one baseline as one line.
func lineOf(fs []*frag) frag {
	var ws []word
	for _, f := range fs {
		ws = append(ws, f.words...)
	}
	slices.SortFunc(ws, func(a, b word) int { return cmp.Compare(a.u0, b.u0) })
	return newFrag(ws)
}

// textSize is the median size of a page's prose, or of all its text when
// it has none: a page of code examples set smaller than the prose must not
// make its running head look like a title.
func textSize(frags []frag) float32 {
	sizes := make([]float32, 0, len(frags))
	for i := range frags {
		if !frags[i].mono {
			sizes = append(sizes, frags[i].size)
		}
	}
	if len(sizes) == 0 {
		for i := range frags {
			sizes = append(sizes, frags[i].size)
		}
	}
	slices.Sort(sizes)
	return sizes[len(sizes)/2]
}

func newEdgeLine(page int, l []*frag, top bool) edgeLine {
	e := edgeLine{page: page, top: top, frags: l}
	text := strings.TrimSpace(e.text())
	e.pageNo = pageNumRE.MatchString(text)
	e.core, e.lead, e.trail = lineCore(text)
	return e
}

// lineCore is a line's text as running heads are compared: without a
// leading or trailing number (which it returns, -1 for none), in lower
// case, other digits as '#', spaces collapsed.
//
// A section number is not a page number, though it may count up with the
// pages of a short contract ("2. License Grants" opening page 2, "3.2.
// Distribution" page 3): a leading number followed by a period and a
// space or a digit, or a trailing one after a digit and a period
// ("Version 2.0"), is kept in the core and not returned.
func lineCore(text string) (core string, lead, trail int) {
	lead, trail = -1, -1
	if m := leadNum(text); m != "" {
		if rest := text[len(m):]; !(len(rest) > 1 && rest[0] == '.' && (rest[1] == ' ' || isDigit(rest[1]))) {
			lead, _ = strconv.Atoi(m)
			text = strings.TrimSpace(rest)
		}
	}
	if m := trailNum(text); m != "" {
		if before := text[:len(text)-len(m)]; !(len(before) > 1 && before[len(before)-1] == '.' && isDigit(before[len(before)-2])) {
			trail, _ = strconv.Atoi(m)
			text = strings.TrimSpace(before)
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsDigit(r):
			b.WriteByte('#')
		case unicode.IsSpace(r):
			if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String()), lead, trail
}

// running reports whether a line found at the same edge of pages reads as
// a running head: on at least two pages, most of them near another page
// with it (running heads repeat on consecutive or alternate pages, where a
// heading that happens to open a page, such as "Arguments" in a reference
// manual, is scattered).
func running(pages map[int]bool) bool {
	if len(pages) < 2 {
		return false
	}
	near := 0
	for p := range pages {
		if pages[p-1] || pages[p+1] || pages[p-2] || pages[p+2] {
			near++
		}
	}
	return 2*near > len(pages)
}

// maxHeadWords is the most words a heading or a running head has: a
// longer line is prose.
const maxHeadWords = 12

// words counts the line's words.
func (e edgeLine) words() int {
	n := 0
	for _, f := range e.frags {
		n += len(f.words)
	}
	return n
}

// text is the line as printed.
func (e edgeLine) text() string {
	parts := make([]string, len(e.frags))
	for i, f := range e.frags {
		parts[i] = f.text()
	}
	return strings.Join(parts, " ")
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// awayCores lists the cores of a page's short lines away from its edges
// (fs are the page's fragments, edges its edge lines), once each: what
// awayFromEdges counts. It is taken when the page is laid out, before its
// fragments are packed away.
func awayCores(fs []frag, edges []edgeLine) []string {
	atEdge := map[*frag]bool{}
	for _, e := range edges {
		for _, f := range e.frags {
			atEdge[f] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for i := range fs {
		f := &fs[i]
		if atEdge[f] || len(f.words) > maxHeadWords {
			continue
		}
		n := 0
		for _, w := range f.words {
			n += letters(w.text)
		}
		if n < 3 {
			continue
		}
		core, _, _ := lineCore(strings.TrimSpace(f.text()))
		if !seen[core] {
			seen[core] = true
			out = append(out, core)
		}
	}
	return out
}

// awayFromEdges counts, for each edge line's core, the pages on which the
// same text stands as a line away from the page's edges. away gives a
// page's cores of such lines (awayCores). A section heading such as
// "Source" in a reference manual opens a page now and then, and near
// other pages it opens, but stands mid-page far more often; a running
// head seldom stands anywhere but at an edge.
func awayFromEdges(edges [][]edgeLine, away func(page int) []string) map[string]int {
	// only lines at the edges of two pages or more can be running heads
	onPages := map[string]int{}
	for _, es := range edges {
		for i, e := range es {
			if letters(e.core) >= 3 && !e.pageNo && (i == 0 || es[i-1].core != e.core) {
				onPages[e.core]++
			}
		}
	}
	counts := map[string]int{}
	for p := range edges {
		for _, core := range away(p) {
			if onPages[core] >= 2 {
				counts[core]++
			}
		}
	}
	return counts
}

// unsureHead is a line dropped as a running head on repetition alone (no
// page number counting up beside it) that is not on every page's edge:
// the kind of guess a reader should hear about.
type unsureHead struct {
	text  string // as on its first page
	pages int    // pages it was dropped from
}

// dropRunning marks running headers, footers and page numbers: edge lines
// that are bare page numbers, that repeat (numbers aside) on other pages
// and stand away from the page edges on fewer pages (away, from
// awayFromEdges), or whose leading or trailing number counts up with the
// pages around. It returns the unsure drops (unsureHead), most pages
// first.
func dropRunning(edges [][]edgeLine, away map[string]int) []unsureHead {
	type key struct {
		core string
		top  bool
	}
	pages := map[key]map[int]bool{}
	// pages on which a line stands next to another at the same edge:
	// under it at the top, over it at the bottom
	pairs := map[[2]key]int{}
	for _, es := range edges {
		for i, e := range es {
			if letters(e.core) < 3 {
				continue
			}
			k := key{e.core, e.top}
			if pages[k] == nil {
				pages[k] = map[int]bool{}
			}
			pages[k][e.page] = true
			if i > 0 && es[i-1].top == e.top {
				pairs[[2]key{{es[i-1].core, e.top}, k}]++
			}
		}
	}
	// the pages a line shares most often with one line above it
	partner := map[key]int{}
	for pk, n := range pairs {
		if letters(pk[0].core) >= 3 {
			partner[pk[1]] = max(partner[pk[1]], n)
		}
	}
	// whether each line runs, decided once: a running head is on most
	// pages, so asking for each of its pages would cost pages² steps
	runs := make(map[key]bool, len(pages))
	for k, ps := range pages {
		runs[k] = running(ps)
	}
	numbered := func(e edgeLine, p int) bool {
		for d := -2; d <= 2; d++ {
			j := p + d
			if d == 0 || j < 0 || j >= len(edges) {
				continue
			}
			for _, o := range edges[j] {
				if o.top != e.top {
					continue
				}
				for _, n := range []int{e.lead, e.trail} {
					if n < 0 {
						continue
					}
					if o.lead == n+d || o.trail == n+d {
						return true
					}
				}
			}
		}
		return false
	}
	withText := 0
	for _, es := range edges {
		if len(es) > 0 {
			withText++
		}
	}
	unsure := map[key]*unsureHead{}
	var order []key
	for p, es := range edges {
		droppedTop, droppedBottom := false, false
		for i, e := range es {
			// the second line from an edge goes only with the first
			if i > 0 && es[i-1].top == e.top {
				if e.top && !droppedTop || !e.top && !droppedBottom {
					continue
				}
			}
			// a page carries its running head once: the line under one
			// that says the same is the page's own (a reference topic's
			// name under the running head that repeats it)
			// and a second line of running head, unless it is on most
			// pages, comes with the same first line on most of its pages:
			// "NAME" opens a man page under a running head of its own
			again, alone := false, false
			k := key{e.core, e.top}
			if i > 0 && es[i-1].top == e.top {
				again = es[i-1].core == e.core
				alone = letters(es[i-1].core) >= 3 && 2*partner[k] < len(pages[k]) && 5*len(pages[k]) < 4*withText
			}
			// a line of prose at the edge of two pages is a passage that
			// happens to repeat (a reference cited on two nearby pages)
			// unless every page carries it (a long footer)
			prose := len(pages[k]) < 3 && len(pages[k]) < withText && e.words() > maxHeadWords
			repeats := letters(e.core) >= 3 && runs[k] && away[e.core] < len(pages[k]) && !again && !alone && !prose
			drop := e.pageNo || !e.big && !e.head && (repeats || numbered(e, p))
			if !drop {
				if e.top {
					droppedTop = false
				} else {
					droppedBottom = false
				}
				continue
			}
			for _, f := range e.frags {
				f.drop = true
			}
			if !e.pageNo && !numbered(e, p) && len(pages[k]) < withText {
				if unsure[k] == nil {
					unsure[k] = &unsureHead{text: e.text()}
					order = append(order, k)
				}
				unsure[k].pages++
			}
			if e.top {
				droppedTop = true
			} else {
				droppedBottom = true
			}
		}
	}
	out := make([]unsureHead, len(order))
	for i, k := range order {
		out[i] = *unsure[k]
	}
	slices.SortStableFunc(out, func(a, b unsureHead) int { return b.pages - a.pages })
	return out
}
