package pdftext

import (
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
	core   string // normalised text without its leading/trailing number
	lead   int    // leading number, or -1
	trail  int    // trailing number, or -1
	pageNo bool   // the line is nothing but a page number
	big    bool   // set larger than the page's text: a title, not a running head
}

var (
	pageNumRE  = regexp.MustCompile(`^(?i)[\s\-–—.\[\(]*(page|p\.|seite|pág\.?)?\s*(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|/|von|de)\s*\d{1,5})?[\s\-–—.\]\)]*$`)
	leadNumRE  = regexp.MustCompile(`^\d{1,5}\b`)
	trailNumRE = regexp.MustCompile(`\b\d{1,5}$`)
)

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
	sizes := make([]float32, len(frags))
	for i := range frags {
		sizes[i] = frags[i].size
	}
	slices.Sort(sizes)
	body := sizes[len(sizes)/2]
	var out []edgeLine
	add := func(l []*frag, top bool) {
		v := l[0].v
		if h > 0 && (top && v > vmin+0.2*h || !top && v < vmax-0.2*h) {
			return
		}
		e := newEdgeLine(page, l, top)
		for _, f := range l {
			e.big = e.big || f.size > 1.15*body
		}
		out = append(out, e)
	}
	for i := 0; i < 2 && i < len(lines); i++ {
		add(lines[i], true)
	}
	for i := len(lines) - 1; i >= max(2, len(lines)-2); i-- {
		add(lines[i], false)
	}
	return out
}

func newEdgeLine(page int, l []*frag, top bool) edgeLine {
	e := edgeLine{page: page, top: top, frags: l, lead: -1, trail: -1}
	text := strings.TrimSpace(e.text())
	e.pageNo = pageNumRE.MatchString(text)
	if m := leadNumRE.FindString(text); m != "" {
		e.lead, _ = strconv.Atoi(m)
		text = strings.TrimSpace(text[len(m):])
	}
	if m := trailNumRE.FindString(text); m != "" {
		e.trail, _ = strconv.Atoi(m)
		text = strings.TrimSpace(text[:len(text)-len(m)])
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
	e.core = strings.TrimSpace(b.String())
	return e
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

// unsureHead is a line dropped as a running head on repetition alone (no
// page number counting up beside it) that is not on every page's edge:
// the kind of guess a reader should hear about.
type unsureHead struct {
	text  string // as on its first page
	pages int    // pages it was dropped from
}

// dropRunning marks running headers, footers and page numbers: edge lines
// that are bare page numbers, that repeat (numbers aside) on other pages,
// or whose leading or trailing number counts up with the pages around. It
// returns the unsure drops (unsureHead), most pages first.
func dropRunning(edges [][]edgeLine) []unsureHead {
	type key struct {
		core string
		top  bool
	}
	pages := map[key]map[int]bool{}
	for _, es := range edges {
		for _, e := range es {
			if letters(e.core) < 3 {
				continue
			}
			k := key{e.core, e.top}
			if pages[k] == nil {
				pages[k] = map[int]bool{}
			}
			pages[k][e.page] = true
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
			drop := e.pageNo || !e.big && (letters(e.core) >= 3 && runs[key{e.core, e.top}] || numbered(e, p))
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
			if k := (key{e.core, e.top}); !e.pageNo && !numbered(e, p) && len(pages[k]) < withText {
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
