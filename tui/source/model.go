// Package source is the TUI's document viewer: a pane that shows a
// document's text wrapped to its width, scrolled to a citation with the
// cited bytes highlighted, and searchable.
//
// It stays smooth on a million-token document by never wrapping the whole
// text: the text is indexed into lines once per document, and a frame
// wraps and draws only the lines it shows (see layout.go). Search runs in
// a tea.Cmd over a case-folded copy of the text (see search.go).
//
// It keeps the panes' contract (tui/internal/pane). The parent (the root
// model) drives it like this:
//
//	src := source.New(styles)             // once
//	src.SetSize(w, h)                     // on every layout change
//	src.Show(doc, primary, others)        // jump to a citation
//	src, cmd, act = src.Update(msg)       // keys while the pane is focused,
//	                                      // and every message the parent
//	                                      // does not own (search results)
//	src.View(w, h)                        // exactly w×h cells
//	src.SetStyles(s)                      // when the theme changes
//
// The actions it returns: pane.Close (esc with nothing to clear: back to
// the conversation), StepMsg (n or N with no search in force: the next or
// previous citation of the answers), PageViewMsg (v: the page view) and
// pane.Notice.
//
// While Searching() is true the pane owns every key (the user is typing a
// query): the parent should not act on global keys then.
package source

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
)

// The smallest pane the viewer draws in; smaller shows "window too small".
const (
	minWidth  = 20
	minHeight = 3 // header, one row of text, status line
)

// wheelRows is how far one mouse wheel step scrolls.
const wheelRows = 3

// PageViewMsg asks for the page view in the pane's place: v.
type PageViewMsg struct{}

// StepMsg asks for the next (Delta 1) or previous (Delta -1) citation of
// the answers: n or N with no search in force, which step through the
// citations here as in the answers (tui/KEYS.md, rule 4).
type StepMsg struct{ Delta int }

// searchDoneMsg carries a finished search back to Update.
type searchDoneMsg struct {
	ds      *docState
	seq     int
	matches []int32
	qlen    int
}

// docState is what the pane keeps per document, shared by copies of the
// Model: the line index, and the folded text for search, built on the
// first search (from the search Cmd's goroutine, hence the Once).
type docState struct {
	doc   *docstore.Document
	idx   *lineIndex
	pages int

	foldOnce sync.Once
	folded   string
}

func newDocState(doc *docstore.Document) *docState {
	return &docState{doc: doc, idx: newLineIndex(doc.Text, doc.PageStarts), pages: max(doc.Pages, len(doc.PageStarts))}
}

func (d *docState) foldedText() string {
	d.foldOnce.Do(func() { d.folded = fold(d.doc.Text) })
	return d.folded
}

// sameDoc reports whether b is the document a is showing. IDs are content
// hashes, so a document loaded again is still the same one.
func sameDoc(a, b *docstore.Document) bool {
	return a == b || a.ID != "" && a.ID == b.ID && len(a.Text) == len(b.Text)
}

// wrapCache holds the wrapped rows of the blocks drawn lately, for one
// width. It is shared by copies of the Model (View has a value receiver)
// and replaced, not cleared, when the width or document changes.
type wrapCache struct {
	width int
	rows  map[int][]int32
}

// maxCachedBlocks bounds the cache; past it the cache starts over, which
// costs one re-wrap of the visible blocks.
const maxCachedBlocks = 1 << 14

// pos is a scroll position: a block and a wrapped row within it.
type pos struct{ blk, row int }

func (p pos) less(q pos) bool { return p.blk < q.blk || p.blk == q.blk && p.row < q.row }

// Model is the source pane.
type Model struct {
	// KeyMap is the pane's keys; replace bindings to rebind.
	KeyMap KeyMap

	styles *themes.Styles
	paints [numClasses]draw.Paint

	width, height int

	ds    *docState
	wraps *wrapCache
	top   pos

	primary Range
	others  []Range
	// reveal is set by Show before the pane has a size: the range to
	// scroll to once it has one.
	reveal *Range

	// change is what became of the citation in a newer version of its
	// document, shown above the text in changeRows (compare.go).
	change     *Change
	changeRows []string

	input  textinput.Model
	prompt bool // the search prompt is open

	query   string  // the last search run, as typed
	qlen    int     // its length in bytes, folded (the same as in the text)
	matches []int32 // match starts
	current int     // index into matches of the current match
	seq     int     // search generation; stale results are dropped
	pending bool    // a search is running
}

// The source pane keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns an empty source pane drawn in the given theme.
func New(styles *themes.Styles) Model {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "search the document"
	in.CharLimit = 256
	m := Model{KeyMap: DefaultKeyMap(), input: in}
	m.SetStyles(styles)
	return m
}

// SetStyles switches the pane to another theme, for instance when the
// terminal's background colour arrives.
func (m *Model) SetStyles(s *themes.Styles) {
	m.styles = s
	// Painted by concatenation rather than by a lipgloss Render per run
	// (which, for underlined styles, styles every character apart).
	m.paints = [numClasses]draw.Paint{
		clsText:      draw.PaintOf(s.Text),
		clsFaint:     draw.PaintOf(s.FaintHighlight),
		clsHighlight: draw.PaintOf(s.Highlight),
		clsMatch:     draw.PaintOf(s.Match),
		clsCurrent:   draw.PaintOf(s.CurrentMatch),
	}
	m.input.SetStyles(s.TextInput)
	m.layoutChange()
}

// SetSize sets the pane's size in cells, header and status line included.
// The top line stays at the top across a change of width.
func (m *Model) SetSize(width, height int) {
	width, height = max(width, 0), max(height, 0)
	// top was laid out at the cache's width, whatever has happened to the
	// size since: turn it into a byte offset while that cache is at hand.
	anchor := -1
	if m.ds != nil && m.wraps != nil && m.wraps.width != width {
		anchor = m.offsetOf(m.top)
	}
	m.width, m.height = width, height
	m.input.SetWidth(max(width-2, 1))
	m.layoutChange()
	if m.ds == nil || !m.drawable() {
		return
	}
	if m.wraps == nil || m.wraps.width != width {
		m.wraps = &wrapCache{width: width, rows: map[int][]int32{}}
	}
	if anchor >= 0 {
		m.top = m.posOf(anchor)
	}
	if m.reveal != nil {
		r := *m.reveal
		m.reveal = nil
		m.scrollTo(r)
	}
	m.top = m.clampTop(m.top)
}

// Show shows doc scrolled so that primary is in view with a few lines of
// context above it (unless it already is in view), primary highlighted and
// others marked more faintly. Ranges are byte ranges into doc.Text;
// out-of-range ones are clipped. Showing another document clears the
// search.
func (m *Model) Show(doc *docstore.Document, primary Range, others []Range) {
	if doc == nil {
		m.ds, m.wraps, m.reveal = nil, nil, nil
		m.clearSearch()
		return
	}
	if m.ds == nil || !sameDoc(m.ds.doc, doc) {
		m.ds = newDocState(doc)
		m.wraps = &wrapCache{width: m.width, rows: map[int][]int32{}}
		m.top = pos{}
		m.clearSearch()
	}
	n := len(doc.Text)
	m.primary = primary.clip(n)
	m.others = m.others[:0:0]
	for _, r := range others {
		m.others = append(m.others, r.clip(n))
	}
	m.scrollTo(m.primary)
}

// clip returns r within [0, n], Start ≤ End.
func (r Range) clip(n int) Range {
	r.Start = min(max(r.Start, 0), n)
	r.End = min(max(r.End, r.Start), n)
	return r
}

// Searching reports whether the search prompt is open. The pane then owns
// every key, esc included.
func (m Model) Searching() bool { return m.prompt }

// HasSearch reports whether a search is in force (run, its matches
// shown): n and N step through its matches, and esc clears it. Without
// one the parent gives n and N to the citations.
func (m Model) HasSearch() bool { return m.query != "" }

// Offset returns the byte offset of the first character in view.
func (m Model) Offset() int {
	if m.ds == nil || !m.drawable() {
		return 0
	}
	return m.offsetOf(m.top)
}

// Match returns the current search match (1-based) and the number of
// matches; 0, 0 without a search.
func (m Model) Match() (current, total int) {
	if len(m.matches) == 0 {
		return 0, 0
	}
	return m.current + 1, len(m.matches)
}

// ShortHelp returns the keys that apply now, for bubbles/help.
func (m Model) ShortHelp() []key.Binding { return m.helpKeys().ShortHelp() }

// FullHelp returns all the keys that apply now, for bubbles/help.
func (m Model) FullHelp() [][]key.Binding { return m.helpKeys().FullHelp() }

func (m Model) helpKeys() help.KeyMap {
	if m.prompt {
		return promptHelp{m.KeyMap}
	}
	var h help.KeyMap = m.KeyMap
	if m.ds != nil && m.ds.doc.Kind == "pdf" {
		h = pdfHelp{m.KeyMap}
	}
	if m.change != nil {
		h = versionHelp{h, m.KeyMap.Version}
	}
	return h
}

// Update handles keys, mouse wheel and the pane's own messages; what it
// asks of the parent comes back as an action.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case searchDoneMsg:
		if msg.ds == m.ds && msg.seq == m.seq {
			m.searchDone(msg)
		}
		return m, nil, nil
	case tea.KeyPressMsg:
		if m.prompt {
			return m.updatePrompt(msg)
		}
		return m.updateKey(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			m.scroll(wheelRows)
		case tea.MouseWheelUp:
			m.scroll(-wheelRows)
		}
		return m, nil, nil
	}
	if m.prompt {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg) // paste, cursor
		return m, cmd, nil
	}
	return m, nil, nil
}

func (m Model) updateKey(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	k := m.KeyMap
	switch {
	case key.Matches(msg, k.Scroll.LineDown):
		m.scroll(1)
	case key.Matches(msg, k.Scroll.LineUp):
		m.scroll(-1)
	case key.Matches(msg, k.Scroll.PageDown):
		m.scroll(max(m.bodyHeight()-1, 1))
	case key.Matches(msg, k.Scroll.PageUp):
		m.scroll(-max(m.bodyHeight()-1, 1))
	case key.Matches(msg, k.Scroll.Top):
		m.top = pos{}
	case key.Matches(msg, k.Scroll.Bottom):
		if m.ds != nil && m.drawable() {
			m.top = m.maxTop()
		}
	case key.Matches(msg, k.Search.Open):
		// Always a prompt, even with nothing to search: what is typed
		// next is the query, never keys.
		m.prompt = true
		m.input.Reset()
		return m, m.input.Focus(), nil
	case key.Matches(msg, k.Search.Next), key.Matches(msg, k.Search.Prev):
		d := 1
		if key.Matches(msg, k.Search.Prev) {
			d = -1
		}
		if !m.HasSearch() {
			return m, nil, StepMsg{Delta: d}
		}
		if m.stepMatch(d) {
			// Wrapping round is said, never silent.
			if d > 0 {
				return m, nil, pane.Notice{Text: "Past the last match: back to the first."}
			}
			return m, nil, pane.Notice{Text: "Before the first match: on to the last."}
		}
	case key.Matches(msg, k.Page):
		return m, nil, PageViewMsg{}
	case key.Matches(msg, k.Version):
		return m, nil, m.switchVersion()
	case key.Matches(msg, k.Search.Back):
		if m.HasSearch() {
			m.clearSearch()
			return m, nil, nil
		}
		return m, nil, pane.Close{}
	}
	return m, nil, nil
}

func (m Model) updatePrompt(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	switch {
	case key.Matches(msg, m.KeyMap.Prompt.Run):
		m.prompt = false
		m.input.Blur()
		q := m.input.Value()
		if strings.TrimSpace(q) == "" {
			m.clearSearch()
			return m, nil, nil
		}
		if m.ds == nil {
			return m, nil, pane.Notice{Text: "No document is shown to search: open one with enter in the library, or a citation with enter on a statement."}
		}
		m.clearSearch()
		m.query, m.pending = q, true
		return m, searchCmd(m.ds, q, m.seq), nil
	case key.Matches(msg, m.KeyMap.Prompt.Cancel):
		m.prompt = false
		m.input.Blur()
		return m, nil, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd, nil
}

// searchCmd finds every match of q in ds's text, off the Update loop.
func searchCmd(ds *docState, q string, seq int) tea.Cmd {
	return func() tea.Msg {
		fq := fold(q)
		return searchDoneMsg{ds: ds, seq: seq, matches: findAll(ds.foldedText(), fq), qlen: len(fq)}
	}
}

// clearSearch forgets the search and drops any still running.
func (m *Model) clearSearch() {
	m.seq++
	m.query, m.qlen, m.matches, m.current, m.pending = "", 0, nil, 0, false
}

// searchDone takes a finished search's matches and goes to the first one
// at or after the top of the view, as less does.
func (m *Model) searchDone(msg searchDoneMsg) {
	m.pending = false
	m.matches, m.qlen = msg.matches, msg.qlen
	if len(m.matches) == 0 {
		return
	}
	top := m.Offset()
	m.current = sort.Search(len(m.matches), func(i int) bool { return int(m.matches[i]) >= top })
	if m.current == len(m.matches) {
		m.current = 0
	}
	m.revealMatch()
}

// stepMatch goes to the next (d = 1) or previous (d = -1) match and
// reports whether it wrapped round the document's end to get there.
func (m *Model) stepMatch(d int) (wrapped bool) {
	n := len(m.matches)
	if n == 0 {
		return false
	}
	next := m.current + d
	m.current = (next%n + n) % n
	m.revealMatch()
	return next != m.current
}

func (m *Model) revealMatch() {
	s := int(m.matches[m.current])
	m.scrollTo(Range{s, s + m.qlen})
}

// drawable reports whether the pane is big enough to lay text out.
func (m *Model) drawable() bool { return m.width >= minWidth && m.height >= minHeight }

func (m *Model) bodyHeight() int { return m.height - 2 - len(m.changeRows) }

// rows returns the start offsets, relative to the block, of block i's
// wrapped rows.
func (m *Model) rows(i int) []int32 {
	if r, ok := m.wraps.rows[i]; ok {
		return r
	}
	if len(m.wraps.rows) >= maxCachedBlocks {
		m.wraps.rows = map[int][]int32{}
	}
	s, _ := m.ds.idx.block(i)
	var r []int32
	if _, ok := m.ds.idx.pageOf[i]; ok {
		r = append(r, pageBreakRow)
	}
	r = wrapBlock(r, s, m.width)
	m.wraps.rows[i] = r
	return r
}

// pageBreakRow is the row offset of a page break: a row of its own
// before the first row of a block that begins a page, drawn as a rule
// naming the page.
const pageBreakRow = -1

// posOf returns the position of the row holding byte offset off.
func (m *Model) posOf(off int) pos {
	b := m.ds.idx.blockAt(off)
	rel := off - int(m.ds.idx.starts[b])
	rows := m.rows(b)
	r := sort.Search(len(rows), func(i int) bool { return int(rows[i]) > rel }) - 1
	return pos{b, max(r, 0)}
}

// offsetOf returns the byte offset at which row p starts (a page break
// row: its block's).
func (m *Model) offsetOf(p pos) int {
	return int(m.ds.idx.starts[p.blk]) + max(int(m.rows(p.blk)[p.row]), 0)
}

// down moves p n rows down, stopping at the last row.
func (m *Model) down(p pos, n int) pos {
	last := m.ds.idx.blocks() - 1
	for n > 0 {
		nr := len(m.rows(p.blk))
		if p.row+n < nr {
			p.row += n
			return p
		}
		if p.blk == last {
			p.row = nr - 1
			return p
		}
		n -= nr - p.row
		p = pos{p.blk + 1, 0}
	}
	return p
}

// up moves p n rows up, stopping at the first row.
func (m *Model) up(p pos, n int) pos {
	for n > 0 {
		if p.row >= n {
			p.row -= n
			return p
		}
		if p.blk == 0 {
			p.row = 0
			return p
		}
		n -= p.row + 1
		p.blk--
		p.row = len(m.rows(p.blk)) - 1
	}
	return p
}

// maxTop is the lowest top position: the last row at the bottom.
func (m *Model) maxTop() pos {
	last := m.ds.idx.blocks() - 1
	return m.up(pos{last, len(m.rows(last)) - 1}, m.bodyHeight()-1)
}

func (m *Model) clampTop(p pos) pos {
	if mt := m.maxTop(); mt.less(p) {
		return mt
	}
	return p
}

// scroll moves the view n rows, down if n > 0.
func (m *Model) scroll(n int) {
	if m.ds == nil || !m.drawable() {
		return
	}
	if n > 0 {
		m.top = m.clampTop(m.down(m.top, n))
	} else {
		m.top = m.up(m.top, -n)
	}
}

// rowsFrom counts the rows from a down to b, giving up at limit.
func (m *Model) rowsFrom(a, b pos, limit int) int {
	n := 0
	for a.less(b) && n < limit {
		nr := len(m.rows(a.blk))
		if a.blk == b.blk {
			return n + b.row - a.row
		}
		n += nr - a.row
		a = pos{a.blk + 1, 0}
	}
	return n
}

// inView reports whether row p is on screen.
func (m *Model) inView(p pos) bool {
	return !p.less(m.top) && m.rowsFrom(m.top, p, m.bodyHeight()) < m.bodyHeight()
}

// scrollTo brings r into view: not at all if it is in view already,
// otherwise with its first row a few rows below the top.
func (m *Model) scrollTo(r Range) {
	if !m.drawable() {
		m.reveal = &r // once the pane has a size
		return
	}
	first := m.posOf(r.Start)
	last := m.posOf(max(r.End-1, r.Start))
	if m.inView(first) && m.inView(last) {
		return
	}
	context := min(3, m.bodyHeight()/4)
	m.top = m.clampTop(m.up(first, context))
}

// View draws the pane in exactly w × h cells: a header line (document
// name, page, position), the text, and a status line (search prompt or
// results, keys). w × h is the size given to SetSize, which Update
// scrolls by; another is laid out afresh for this frame.
func (m Model) View(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if w != m.width || h != m.height {
		m.SetSize(w, h)
	}
	if !m.drawable() {
		return m.tooSmall()
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header())
	lines = append(lines, m.changeRows...)
	bh := m.bodyHeight() + len(m.changeRows) // the rows below the header
	if m.ds == nil {
		lines = append(lines, draw.Fit(m.styles.Muted.Render("no document shown"), w))
	} else {
		mk := marks{primary: m.primary, others: m.others, matches: m.matches, matchLen: m.qlen, current: -1}
		if len(m.matches) > 0 {
			mk.current = m.current
			top := m.offsetOf(m.top)
			mk.next = sort.Search(len(m.matches), func(i int) bool { return int(m.matches[i])+m.qlen > top })
		}
		ix := m.ds.idx
		var b strings.Builder
		for p := m.top; len(lines) <= bh && p.blk < ix.blocks(); p = (pos{p.blk + 1, 0}) {
			rows := m.rows(p.blk)
			s, base := ix.block(p.blk)
			for r := p.row; r < len(rows) && len(lines) <= bh; r++ {
				if rows[r] == pageBreakRow {
					lines = append(lines, m.pageBreak(ix.pageOf[p.blk]))
					continue
				}
				to := len(s)
				if r+1 < len(rows) {
					to = int(rows[r+1])
				}
				b.Reset()
				b.Grow(w + 16)
				renderRow(&b, s, base, int(rows[r]), to, w, &mk, &m.paints)
				lines = append(lines, b.String())
			}
		}
	}
	for len(lines) <= bh {
		lines = append(lines, draw.Pad(w))
	}
	return append(lines, m.footer())
}

// pageBreak is the rule drawn where page n begins: "╌╌ p. 316 (PDF p.
// 347) ╌╌╌…", the width of the pane.
func (m Model) pageBreak(n int) string {
	label := "╌╌ " + textproc.OneLine(m.ds.doc.PageName(n)) + " "
	w := ansi.StringWidth(label)
	if w > m.width {
		return draw.Fit(m.styles.Muted.Render(ansi.Truncate(label, m.width, "")), m.width)
	}
	return m.styles.Muted.Render(label + strings.Repeat("╌", m.width-w))
}

// tooSmall is the whole view when the pane cannot hold the text.
func (m Model) tooSmall() []string {
	return draw.Block([]string{m.styles.Warning.Render(draw.Truncate("window too small", m.width))}, m.width, m.height)
}

// header is the document's name and the heading path of the text at the
// top of the pane on the left, the page and position on the right:
// "manual.pdf › 7 Data import › 7.1 Spreadsheets     p. 37/2415 · 12%".
func (m Model) header() string {
	w := m.width
	if m.ds == nil {
		return draw.Fit(m.styles.Title.Render("source"), w)
	}
	d := m.ds.doc
	name := d.Name
	if name == "" {
		name = d.Title
	}
	if name == "" {
		name = string(d.ID)
	}
	name = textproc.OneLine(name)

	top := m.offsetOf(m.top)
	pct := 100
	if n := len(d.Text); n > 0 && m.top.less(m.maxTop()) {
		pct = int(int64(top) * 100 / int64(n))
	}
	where := fmt.Sprintf("%d%%", pct)
	if m.ds.pages > 1 {
		pg := d.PageOf(top)
		if printed := d.PrintedPage(pg); printed != "" {
			where = fmt.Sprintf("p. %s (%d/%d) · %s", textproc.OneLine(printed), pg, m.ds.pages, where)
		} else {
			where = fmt.Sprintf("p. %d/%d · %s", pg, m.ds.pages, where)
		}
	}
	ww := ansi.StringWidth(where)
	if ww+8 > w {
		return draw.Fit(m.styles.Title.Render(draw.Truncate(name, w)), w)
	}
	room := w - ww - 2
	left := m.styles.Title.Render(ansi.Truncate(name, room, "…"))
	if path := headingAt(d, top); path != "" && ansi.StringWidth(name)+4 < room {
		trail := ansi.Truncate(" › "+path, room-ansi.StringWidth(name), "…")
		left += m.styles.Muted.Render(trail)
	}
	return left + draw.Pad(w-ansi.StringWidth(left)-ww) + m.styles.Muted.Render(where)
}

// headingAt is the heading path, joined with " › ", of the sentence at or
// after byte offset off of d.
func headingAt(d *docstore.Document, off int) string {
	i := sort.Search(len(d.Sentences), func(i int) bool { return int(d.Sentences[i].End) > off })
	if i >= len(d.Sentences) {
		return ""
	}
	return textproc.OneLine(strings.Join(d.HeadingPath(i), " › "))
}

// footer is the search prompt while it is open; otherwise the search's
// state on the left and a reminder of the keys on the right.
func (m Model) footer() string {
	w := m.width
	if m.prompt {
		return draw.Fit(m.input.View(), w)
	}
	var left string
	q := ansi.Truncate(textproc.OneLine(m.query), max(w/3, 8), "…")
	switch {
	case m.pending:
		left = m.styles.Stage.Render(fmt.Sprintf("searching “%s”…", q))
	case m.query != "" && len(m.matches) == 0:
		left = m.styles.Warning.Render(fmt.Sprintf("no match for “%s”", q))
	case len(m.matches) > 0:
		left = m.styles.Status.Render(fmt.Sprintf("match %d/%d", m.current+1, len(m.matches))) +
			m.styles.Muted.Render(fmt.Sprintf(" · “%s”", q))
	}
	k := m.KeyMap.Search
	step, back := "citation", "back"
	if m.HasSearch() {
		step, back = "match", "clear search"
	}
	right := fmt.Sprintf("%s %s · %s/%s %s · %s %s", k.Open.Help().Key, k.Open.Help().Desc,
		k.Next.Help().Key, k.Prev.Help().Key, step, k.Back.Help().Key, back)

	if ansi.StringWidth(left)+ansi.StringWidth(right)+2 > w {
		return draw.Fit(left, w)
	}
	return draw.Spread(left, m.styles.Muted.Render(right), w)
}
