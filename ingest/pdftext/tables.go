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

// A table is found from geometry alone: consecutive lines whose cells —
// runs of words between gaps far wider than a space — line up on common
// column edges. Its rows are then written one line each, cells in reading
// order and padded to their columns, instead of being torn into columns or
// run together as a paragraph.
//
// A row is every line of its cells: a cell wrapped over several lines is
// joined, also when the row's other cells are centred on it (centreRows),
// and a row the layout tore at a column gutter is joined again
// (tableLines), also in the typewriter face. A header set on two lines,
// the upper one's words centred over the columns, is one header row
// (headLine); a header row repeated at the top of each page the table
// runs over is not a running head (tableHead, headers.go).

// cell is a run of words of one line between wide gaps.
type cell struct {
	u0, u1 float32
	words  []word
}

func (c cell) text() string { return joinWords(c.words) }

// column is a band of the page that a table's cells of one column share.
type column struct {
	u0, u1 float32
	right  bool // its cells line up on the right (figures)
}

// tableRow is one row of a table: a line with its cells, and the lines
// that continue its cells below (a wrapped description).
type tableRow struct {
	lines []*frag
	cells []string // one per column; "" where the row has none
	// parts are where each cell's pieces of text come from: per
	// column, the words of one line each, and where in the cell they
	// start
	parts [][]cellPart
	multi bool // the row's first line has cells in two columns or more
}

// cellPart is the words of one line in a cell, joined by spaces from
// byte at of the cell's text.
type cellPart struct {
	f     *frag
	words []word
	at    int
}

// table is a run of lines laid out in columns.
type table struct {
	rows             []*tableRow
	cols             []column
	header           int   // the leading rows that are column headings
	caption          *frag // a "Table 3: …" line just above or below, if any
	u0, u1, top, bot float32
	size             float32
	// parts maps a row line joined from fragments of one baseline to
	// them
	parts map[*frag][]*frag
	// weak marks the joined lines none of whose fragments has cells
	// apart: a row torn at a gutter, or two columns of prose side by side
	weak map[*frag]bool
}

// frags lists the page fragments the table's rows are made of.
func (t *table) frags() []*frag {
	var out []*frag
	for _, r := range t.rows {
		for _, l := range r.lines {
			if ps, ok := t.parts[l]; ok {
				out = append(out, ps...)
			} else {
				out = append(out, l)
			}
		}
	}
	return out
}

// lineCells splits a line at gaps wide enough to separate table cells: a
// gap of at least a font size, and well over the line's ordinary spaces.
func lineCells(f *frag) []cell {
	var ordinary float32 = math.MaxFloat32
	for i := 1; i < len(f.words); i++ {
		a, b := f.words[i-1], f.words[i]
		if g := b.u0 - a.u1; !endsSentence(a.text) && g < ordinary {
			ordinary = g
		}
	}
	wide := max(1.0*f.size, 2.5*min(ordinary, 0.5*f.size))
	var cells []cell
	start := 0
	for i := 1; i <= len(f.words); i++ {
		if i < len(f.words) && f.words[i].u0-f.words[i-1].u1 < wide {
			continue
		}
		ws := f.words[start:i]
		cells = append(cells, cell{u0: ws[0].u0, u1: ws[len(ws)-1].u1, words: ws})
		start = i
	}
	return cells
}

// candidate is a table being grown down the page.
type candidate struct {
	t     table
	lines []*frag
	bands []column // column bands seen so far, by u0
	multi int      // lines with cells in two bands or more
	lastV float32
	// above is a line with cells apart just above the candidate's first
	// that no table holds: perhaps a header line whose words are centred
	// over the columns (headLine)
	above  *frag
	closed bool
}

// findTables finds the tables among a page's fragments, sorted by v and
// u0, and marks their fragments as cells. A table starts with a line of
// text (not code) with cells apart, or with a line of code a gutter tore;
// lines of code may be its rows.
func findTables(order []*frag) []*table {
	lines, parts, weak := tableLines(order)
	var open []*candidate
	var out []*table
	closeCand := func(c *candidate) {
		c.t.weak = weak
		c.closed = true
		if t := c.finish(); t != nil {
			t.parts = parts
			out = append(out, t)
		}
	}
	// the line before, with cells apart, when no table holds it: taken
	// by no candidate, or the first of one closed alone
	var prev *frag
	var prevCand *candidate
	prevFree := false
	for _, f := range lines {
		cells := lineCells(f)
		taken := false
		for i := 0; i < len(open); i++ {
			c := open[i]
			if f.v-c.lastV > 3.2*f.size || c.t.size > 0 && max(f.size, c.t.size) > 1.3*min(f.size, c.t.size) {
				if f.v-c.lastV > 3.2*f.size {
					closeCand(c)
					open = slices.Delete(open, i, i+1)
					i--
				}
				continue
			}
			if min(f.u1, c.t.u1)-max(f.u0, c.t.u0) <= 0 {
				continue
			}
			if !taken && c.take(f, cells) {
				taken = true
				continue
			}
			// a line across the candidate that does not fit ends it
			closeCand(c)
			open = slices.Delete(open, i, i+1)
			i--
		}
		// code torn at a gutter is a table set in the typewriter face
		// (a memory table in a manual's preformatted text): left as
		// code, its columns would be read one after the other
		_, torn := parts[f]
		if !taken && len(cells) >= 2 && (!f.mono || torn && !weak[f]) {
			c := &candidate{}
			c.t.size = f.size
			if prevFree && (prevCand == nil || prevCand.closed && len(prevCand.lines) == 1) && justAbove(prev, f) {
				c.above = prev
			}
			c.take(f, cells)
			open = append(open, c)
			prevCand = c
		} else {
			prevCand = nil
		}
		prev, prevFree = f, !taken && len(cells) >= 2
	}
	for _, c := range open {
		closeCand(c)
	}
	for _, t := range out {
		for _, f := range t.frags() {
			f.cell = true
		}
	}
	slices.SortFunc(out, func(a, b *table) int { return cmp.Compare(a.top, b.top) })
	return out
}

// justAbove reports whether line a stands a line above line b, in the
// same type size.
func justAbove(a, b *frag) bool {
	dv := b.v - a.v
	return dv > 0.3*b.size && dv <= 1.8*b.size && a.size == b.size
}

// tol is how far apart two edges may be and still line up.
func (c *candidate) tol() float32 { return max(0.8*c.t.size, 3) }

// take adds line f with cells to the candidate if it fits: a line with
// cells on at least two of its column edges, a line continuing a cell of
// the row above (its text starts on a later column's edge), or a label
// line in the first column.
func (c *candidate) take(f *frag, cells []cell) bool {
	if len(c.lines) == 0 {
		c.addRow(f, cells, true)
		return true
	}
	last := c.lines[len(c.lines)-1]
	dv := f.v - last.v
	tol := c.tol()
	if len(cells) >= 2 {
		aligned := 0
		for _, x := range cells {
			if c.aligned(x) >= 0 {
				aligned++
			}
		}
		if aligned < 2 || aligned < len(cells)-1 {
			return false
		}
		c.addRow(f, cells, true)
		return true
	}
	x := cells[0]
	b := c.aligned(x)
	// the last column's text may run on past the table's right edge (a
	// description wider than those above it, or than its heading) once
	// the table is one: two rows with cells apart, or a bold header row
	wider := b >= 1 && b == len(c.bands)-1 && (c.multi >= 2 || len(c.t.rows) == 1 && c.lines[0].bold)
	if dv > 2.5*f.size || x.u1 > c.t.u1+2*f.size && !wider {
		return false
	}
	switch {
	case b > 0 && abs32(x.u0-c.bands[b].u0) <= tol && len(c.t.rows) > 0 && dv <= 1.8*f.size:
		// continues the cell of band b in the row above
		c.t.rows[len(c.t.rows)-1].lines = append(c.t.rows[len(c.t.rows)-1].lines, f)
		c.lines = append(c.lines, f)
		c.lastV = f.v
		c.extend(f)
		return true
	case b == 0 && abs32(x.u0-c.bands[0].u0) <= tol && (x.u1 <= c.bands[min(1, len(c.bands)-1)].u0+tol || x.u1-x.u0 <= 0.4*(c.t.u1-c.t.u0)):
		// a label in the first column: a group of rows, a label wrapped
		// onto the next line, or a term too long to leave room for its
		// description, which starts on the next line
		c.addRow(f, cells, false)
		return true
	}
	return false
}

// aligned returns the band whose left, right or centre x lines up with
// cell x, or -1.
func (c *candidate) aligned(x cell) int {
	tol := c.tol()
	mid := (x.u0 + x.u1) / 2
	for i, b := range c.bands {
		if abs32(x.u0-b.u0) <= tol || abs32(x.u1-b.u1) <= tol || abs32(mid-(b.u0+b.u1)/2) <= 1.5*tol {
			return i
		}
	}
	return -1
}

func (c *candidate) addRow(f *frag, cells []cell, multi bool) {
	c.t.rows = append(c.t.rows, &tableRow{lines: []*frag{f}, multi: multi && len(cells) >= 2})
	if multi && len(cells) >= 2 {
		c.multi++
		for _, x := range cells {
			c.addBand(x)
		}
	}
	c.lines = append(c.lines, f)
	c.lastV = f.v
	c.extend(f)
}

func (c *candidate) extend(f *frag) {
	if len(c.lines) == 1 {
		c.t.u0, c.t.u1, c.t.top, c.t.bot = f.u0, f.u1, f.top, f.bot
		return
	}
	c.t.u0, c.t.u1 = min(c.t.u0, f.u0), max(c.t.u1, f.u1)
	c.t.top, c.t.bot = min(c.t.top, f.top), max(c.t.bot, f.bot)
}

// addBand widens the band cell x lines up with, or adds one.
func (c *candidate) addBand(x cell) {
	if i := c.aligned(x); i >= 0 {
		c.bands[i].u0, c.bands[i].u1 = min(c.bands[i].u0, x.u0), max(c.bands[i].u1, x.u1)
		return
	}
	c.bands = append(c.bands, column{u0: x.u0, u1: x.u1})
	slices.SortFunc(c.bands, func(a, b column) int { return cmp.Compare(a.u0, b.u0) })
}

var captionRE = regexp.MustCompile(`^(Table|TABLE|Tab\.)\s+([0-9]+|[IVXLC]+|[A-Z])([.:-]\d+)?\b`)

// finish checks that the candidate is a table and settles its columns,
// cells and header; nil if it is not a table.
func (c *candidate) finish() *table {
	// a trailing label row belongs to what follows
	for n := len(c.t.rows); n > 0 && !c.t.rows[n-1].multi && len(c.t.rows[n-1].lines) == 1; n = len(c.t.rows) {
		c.t.rows = c.t.rows[:n-1]
	}
	if c.multi < 2 || len(c.t.rows) < 2 || len(c.bands) < 2 {
		return nil
	}
	c.t.rows = centreRows(c.t.rows, c.t.size)
	var lines []*frag
	for _, r := range c.t.rows {
		lines = append(lines, r.lines...)
	}
	t := &c.t
	t.cols = mergeBands(c.bands)
	if len(t.cols) < 2 {
		return nil
	}
	// Not tables: a bulleted or numbered list set with a hanging indent,
	// a table of contents or an index (leaders), code with comments
	// lined up.
	items, leaders, code := 0, 0, 0
	for _, r := range t.rows {
		first := r.lines[0]
		if itemStart(first.words[0].text) {
			items++
		}
		if leaderLine(first.text()) {
			leaders++
		}
		if first.words[0].mono > 0 && commentedCode(first) {
			code++
		}
	}
	if max(items, leaders, code)*2 >= len(t.rows) {
		return nil
	}
	t.u0, t.u1, t.top, t.bot = lines[0].u0, lines[0].u1, lines[0].top, lines[0].bot
	for _, f := range lines {
		t.u0, t.u1 = min(t.u0, f.u0), max(t.u1, f.u1)
		t.top, t.bot = min(t.top, f.top), max(t.bot, f.bot)
	}
	t.fillCells()
	// every column must hold text in at least two rows
	for i := range t.cols {
		n := 0
		for _, r := range t.rows {
			if r.cells[i] != "" {
				n++
			}
		}
		if n < 2 {
			return nil
		}
	}
	if t.pageColumns(lines) {
		return nil
	}
	t.rows = mergeLabels(t.rows)
	t.alignColumns(lines)
	t.header = t.headerRows()
	t.headLine(c.above)
	return t
}

// headLine takes line f, just above the table, as the top of its header
// when each of its cells lies over one of the table's columns: the upper
// line of a header set on two lines, its words centred over the columns
// rather than on their edges ("Compress" over "usage"). Over a first row
// of words above rows with figures it joins that row, cell by cell, as
// one header row; otherwise it is a header row of its own.
func (t *table) headLine(f *frag) {
	if f == nil || len(t.rows) < 2 {
		return
	}
	cells := lineCells(f)
	used := make([]bool, len(t.cols))
	for _, x := range cells {
		i := t.column(x)
		if used[i] || min(x.u1, t.cols[i].u1)-max(x.u0, t.cols[i].u0) <= 0 {
			return
		}
		used[i] = true
	}
	first := t.rows[0]
	if t.header <= 1 && !hasDigits(first.cells) && hasDigits(t.rows[1].cells) {
		first.lines = slices.Concat([]*frag{f}, first.lines)
		t.fillRow(first)
		t.header = max(t.header, 1)
	} else {
		r := &tableRow{lines: []*frag{f}, multi: true}
		t.fillRow(r)
		t.rows = slices.Concat([]*tableRow{r}, t.rows)
		t.header++
	}
	t.u0, t.u1, t.top = min(t.u0, f.u0), max(t.u1, f.u1), min(t.top, f.top)
}

// hasDigits reports whether any of cells holds a digit.
func hasDigits(cells []string) bool {
	for _, c := range cells {
		if strings.ContainsFunc(c, unicode.IsDigit) {
			return true
		}
	}
	return false
}

// centreRows regroups the lines of a table whose cells are centred
// vertically on their row: a short cell (a row's label) stands level
// with the middle of the longer cells beside it, so a row's first lines
// come before its label, where take put them in the row above. The sign
// is a label line half a line from the cell lines above and below it,
// which a table of cells set from the top of the row never has. Each
// row then takes as many lines after its label as it has before it; the
// rows are left as they were unless every row so regrouped is centred
// on its label.
func centreRows(rows []*tableRow, size float32) (out []*tableRow) {
	offPitch := func(a, b *frag) bool { return b.v-a.v > 0.1*size && b.v-a.v <= 0.8*size }
	defer func() { out = joinRaisedLabels(out, offPitch) }()
	centred := false
	for i := 1; i < len(rows) && !centred; i++ {
		prev, r := rows[i-1], rows[i]
		centred = len(prev.lines) > 1 && len(r.lines) > 1 &&
			offPitch(prev.lines[len(prev.lines)-1], r.lines[0]) && offPitch(r.lines[0], r.lines[1])
	}
	if !centred {
		return rows
	}
	out = make([]*tableRow, len(rows))
	var up []*frag // the lines of the next row before its label
	for i, r := range rows {
		label, after := r.lines[0], r.lines[1:]
		down := min(len(up), len(after))
		if i == len(rows)-1 {
			down = len(after)
		}
		nr := *r
		nr.lines = slices.Concat(up, []*frag{label}, after[:down])
		up = slices.Clone(after[down:])
		if mid := (nr.lines[0].v + nr.lines[len(nr.lines)-1].v) / 2; abs32(mid-label.v) > 0.4*size {
			return rows
		}
		out[i] = &nr
	}
	return out
}

// joinRaisedLabels joins a label alone on its line to the cells that
// follow it less than a line lower, starting right of its start: a row whose
// label stands higher than its other cells (set from the top of a
// two-line cell whose second line is blank, the others centred).
func joinRaisedLabels(rows []*tableRow, offPitch func(a, b *frag) bool) []*tableRow {
	out := make([]*tableRow, 0, len(rows))
	for i := 0; i < len(rows); i++ {
		r := rows[i]
		if i+1 < len(rows) && !r.multi && len(r.lines) == 1 && rows[i+1].multi {
			label, next := r.lines[0], rows[i+1].lines[0]
			if offPitch(label, next) && next.u0 > label.u0+2*label.size {
				nr := *rows[i+1]
				nr.lines = slices.Concat(r.lines, nr.lines)
				out = append(out, &nr)
				i++
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// tableLines joins the fragments of one baseline that a column gutter
// split (a table's row torn at a gap as wide as a gutter), and maps each
// joined line to its fragments. Joined lines none of whose fragments has
// cells apart are weak: they may be the rows of a two-column table (a
// command and its description) or the lines of two columns of prose side
// by side, which finish tells apart.
func tableLines(order []*frag) ([]*frag, map[*frag][]*frag, map[*frag]bool) {
	var lines []*frag
	var parts map[*frag][]*frag
	var weak map[*frag]bool
	for i := 0; i < len(order); {
		f := order[i]
		j := i + 1
		for j < len(order) && abs32(order[j].v-f.v) < 0.3*f.size && max(order[j].size, f.size) <= 1.3*min(order[j].size, f.size) {
			j++
		}
		group := order[i:j]
		i = j
		if len(group) == 1 {
			lines = append(lines, group...)
			continue
		}
		split := false
		for _, g := range group {
			split = split || len(lineCells(g)) > 1
		}
		group = slices.Clone(group)
		slices.SortFunc(group, func(a, b *frag) int { return cmp.Compare(a.u0, b.u0) })
		var ws []word
		for _, g := range group {
			ws = append(ws, g.words...)
		}
		joined := newFrag(ws)
		joined.mono, joined.bold = true, true
		for _, g := range group {
			joined.mono = joined.mono && g.mono
			joined.bold = joined.bold && g.bold
		}
		if parts == nil {
			parts, weak = map[*frag][]*frag{}, map[*frag]bool{}
		}
		parts[&joined] = group
		weak[&joined] = !split
		lines = append(lines, &joined)
	}
	return lines, parts, weak
}

// pageColumns reports whether a table found on weakly joined lines
// (tableLines) is rather columns of the page side by side: two columns of
// prose, whose lines mostly fill them, or of a list such as an index,
// whose columns look alike. A table's columns differ: short cells (its
// commands, names or keys) beside longer ones, or code beside prose.
func (t *table) pageColumns(lines []*frag) bool {
	weak := 0
	for _, l := range lines {
		if t.weak[l] {
			weak++
		}
	}
	if weak*2 <= len(lines) {
		return false
	}
	if len(t.rows) < 3 {
		return true
	}
	n := len(t.cols)
	full, all, mono := make([]int, n), make([]int, n), make([]int, n)
	widths := make([][]float32, n)
	for _, l := range lines {
		for _, x := range lineCells(l) {
			i := t.column(x)
			all[i]++
			w := x.u1 - x.u0
			widths[i] = append(widths[i], w)
			if w >= 0.7*(t.cols[i].u1-t.cols[i].u0) {
				full[i]++
			}
			if monoCell(x) {
				mono[i]++
			}
		}
	}
	prose := true
	for i := range n {
		prose = prose && full[i]*5 >= all[i]*3
	}
	if prose {
		return true
	}
	// columns that differ in width or face make a table
	for i := range n {
		for j := i + 1; j < n; j++ {
			if all[i] == 0 || all[j] == 0 {
				continue
			}
			a, b := median32(widths[i]), median32(widths[j])
			if max(a, b) >= 1.6*min(a, b) || abs32(float32(mono[i])/float32(all[i])-float32(mono[j])/float32(all[j])) >= 0.5 {
				return false
			}
		}
	}
	return true
}

// monoCell reports whether most of a cell's glyphs are in a typewriter
// face.
func monoCell(x cell) bool {
	var mono, n int32
	for _, w := range x.words {
		mono, n = mono+w.mono, n+w.n
	}
	return n > 0 && mono*5 >= n*4
}

// median32 is the median of xs, 0 for none.
func median32(xs []float32) float32 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// commentedCode reports whether a line's last cell is a comment (the code
// before it in another cell).
func commentedCode(f *frag) bool {
	cells := lineCells(f)
	last := cells[len(cells)-1].words[0].text
	for _, m := range []string{"#", "//", "--", ";", "%", "/*"} {
		if strings.HasPrefix(last, m) {
			return true
		}
	}
	return false
}

// mergeBands sorts the bands and joins those that overlap.
func mergeBands(bs []column) []column {
	slices.SortFunc(bs, func(a, b column) int { return cmp.Compare(a.u0, b.u0) })
	var out []column
	for _, b := range bs {
		if n := len(out); n > 0 && b.u0 < out[n-1].u1 {
			out[n-1].u1 = max(out[n-1].u1, b.u1)
			continue
		}
		out = append(out, b)
	}
	return out
}

// column returns the column a cell falls in: the one whose left edge it
// starts at, else the one it overlaps most, or the nearest.
func (t *table) column(x cell) int {
	for i, c := range t.cols {
		if abs32(x.u0-c.u0) <= max(0.8*t.size, 3) {
			return i
		}
	}
	best, bestOv := 0, float32(-math.MaxFloat32)
	for i, c := range t.cols {
		ov := min(x.u1, c.u1) - max(x.u0, c.u0)
		if ov > bestOv {
			best, bestOv = i, ov
		}
	}
	return best
}

// fillCells distributes each row's cells, its continuation lines'
// included, over the columns.
func (t *table) fillCells() {
	for _, r := range t.rows {
		t.fillRow(r)
	}
}

// fillRow distributes a row's cells over the columns.
func (t *table) fillRow(r *tableRow) {
	r.cells = make([]string, len(t.cols))
	r.parts = make([][]cellPart, len(t.cols))
	for _, l := range r.lines {
		for _, x := range lineCells(l) {
			i := t.column(x)
			text := x.text()
			r.cells[i] = joinCell(r.cells[i], text)
			r.parts[i] = append(r.parts[i], cellPart{f: l, words: x.words, at: len(r.cells[i]) - len(text)})
		}
	}
}

// joinCell appends a cell's next piece of text, as the lines of a
// paragraph are joined.
func joinCell(a, b string) string {
	if a == "" {
		return b
	}
	if sep, ok := hyphenSep(a, b); ok {
		return a + sep + b
	}
	return a + " " + b
}

// mergeLabels joins a label row (text in the first column only) to the
// row below when the label runs on there in lower case: a row label
// wrapped onto a second line.
func mergeLabels(rows []*tableRow) []*tableRow {
	out := rows[:0]
	for i := 0; i < len(rows); i++ {
		r := rows[i]
		if i+1 < len(rows) && !r.multi && len(r.lines) == 1 && rows[i+1].multi && startsLower(rows[i+1].cells[0]) {
			next := rows[i+1]
			joined := joinCell(r.cells[0], next.cells[0])
			for k := range next.parts[0] {
				next.parts[0][k].at += len(joined) - len(next.cells[0])
			}
			next.cells[0], next.parts[0] = joined, slices.Concat(r.parts[0], next.parts[0])
			next.lines = append([]*frag{r.lines[0]}, next.lines...)
			out = append(out, next)
			i++
			continue
		}
		out = append(out, r)
	}
	return out
}

// alignColumns decides which columns line up on the right: those whose
// cells' right edges agree better than their left edges.
func (t *table) alignColumns(lines []*frag) {
	left := make([][]float32, len(t.cols))
	right := make([][]float32, len(t.cols))
	for _, l := range lines {
		for _, x := range lineCells(l) {
			i := t.column(x)
			left[i] = append(left[i], x.u0)
			right[i] = append(right[i], x.u1)
		}
	}
	for i := range t.cols {
		t.cols[i].right = spread(right[i]) < spread(left[i])
	}
}

// spread is the mean absolute deviation from the median.
func spread(xs []float32) float32 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := s[len(s)/2]
	var d float32
	for _, x := range s {
		d += abs32(x - m)
	}
	return d / float32(len(s))
}

// headerRows counts the rows at the top of the table that are column
// headings: bold rows over rows that are not; a first row with no label
// over labelled rows; words over figures; rows set off by a gap.
func (t *table) headerRows() int {
	rows := t.rows
	if len(rows) < 3 {
		return 0
	}
	bold := func(r *tableRow) bool {
		for _, l := range r.lines {
			if !l.bold {
				return false
			}
		}
		return true
	}
	n := 0
	for n < min(3, len(rows)-2) && bold(rows[n]) {
		n++
	}
	if n > 0 && !bold(rows[n]) {
		return n
	}
	// in a grid of one-line rows, a gap under the first row wider than
	// the rows' pitch
	grid := true
	pitches := make([]float32, 0, len(rows))
	for i, r := range rows {
		grid = grid && len(r.lines) == 1
		if i > 0 {
			pitches = append(pitches, r.lines[0].v-rows[i-1].lines[0].v)
		}
	}
	if grid {
		med := slices.Clone(pitches)
		slices.Sort(med)
		if pitches[0] > 1.4*med[len(med)/2] {
			return 1
		}
	}
	labelled := 0
	figures := 0
	for _, r := range rows[1:] {
		if r.cells[0] != "" {
			labelled++
		}
		for _, c := range r.cells[1:] {
			if isFigure(c) {
				figures++
				break
			}
		}
	}
	first := rows[0]
	if first.cells[0] == "" && labelled*2 > len(rows)-1 {
		return 1
	}
	if figures*2 > len(rows)-1 {
		for _, c := range first.cells[1:] {
			if c != "" && isFigure(c) && !isYear(c) {
				return 0
			}
		}
		return 1
	}
	return 0
}

var yearRE = regexp.MustCompile(`^(19|20)\d\d$`)

func isYear(s string) bool { return yearRE.MatchString(s) }

// isFigure reports whether a cell is a number: digits with separators,
// signs, brackets, currency or percent signs.
func isFigure(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune(" .,()-−–+%$€£¥*", r):
		default:
			return false
		}
	}
	return digits > 0
}

// maxTableWidth is how far into a line, in characters, a table's last
// column may start for its rows to be padded to columns.
const maxTableWidth = 160

// render writes the table, one row a line, and returns the text, each
// row's byte range in it, and the cells' pieces. Cells are padded to their columns, as
// pdftotext -layout does, each column as wide as its widest cell and two
// spaces from the next, figures aligned on the right; in a table too wide
// for that the cells are only two spaces apart.
func (t *table) render() (string, [][2]int, []piece) {
	n := len(t.cols)
	width := make([]int, n)
	for _, r := range t.rows {
		for i, c := range r.cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	start := make([]int, n)
	for i := 1; i < n; i++ {
		start[i] = start[i-1] + width[i-1] + 2
	}
	// the last column's text may run on: only where it starts matters
	fits := start[n-1] <= maxTableWidth
	var b strings.Builder
	spans := make([][2]int, 0, len(t.rows))
	var pieces []piece
	for k, r := range t.rows {
		if k > 0 {
			b.WriteByte('\n')
		}
		lineStart := b.Len()
		col := 0 // characters written on this line
		for i, c := range r.cells {
			if c == "" {
				continue
			}
			cn := utf8.RuneCountInString(c)
			switch {
			case !fits:
				if col > 0 {
					b.WriteString("  ")
					col += 2
				}
			default:
				at := start[i]
				if t.cols[i].right {
					at += width[i] - cn
				}
				pad := at - col
				if col > 0 {
					pad = max(pad, 2)
				}
				b.WriteString(strings.Repeat(" ", max(pad, 0)))
				col += max(pad, 0)
			}
			for _, p := range r.parts[i] {
				pieces = append(pieces, piece{f: p.f, words: p.words, at: wordsAt(p.words, b.Len()+p.at)})
			}
			b.WriteString(c)
			col += cn
		}
		// a row starting with empty cells keeps its indentation; the
		// span starts at its first character
		s := lineStart
		for s < b.Len() && b.String()[s] == ' ' {
			s++
		}
		spans = append(spans, [2]int{s, b.Len()})
	}
	return b.String(), spans, pieces
}

// captionFor finds a table's caption: a line starting "Table N" just
// above or below it, across its columns.
func captionFor(t *table, order []*frag) *frag {
	var best *frag
	var bestD float32
	for _, f := range order {
		if f.cell || min(f.u1, t.u1)-max(f.u0, t.u0) <= 0 {
			continue
		}
		var d float32
		switch {
		case f.bot <= t.top+1:
			d = t.top - f.bot
		case f.top >= t.bot-1:
			d = f.top - t.bot
		default:
			continue
		}
		if d > 3*t.size || best != nil && d >= bestD || !captionRE.MatchString(f.text()) {
			continue
		}
		best, bestD = f, d
	}
	return best
}
