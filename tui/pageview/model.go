// Package pageview is the source pane's other face: the cited page of a
// PDF as it is printed, the cited lines highlighted on it, drawn with
// whatever the terminal speaks (tui/termimage): kitty graphics with
// Unicode placeholders, sixel or iTerm2 images, or a half-block page map.
//
// It keeps the panes' contract (tui/internal/pane). The root model
// drives it as it drives the text view:
//
//	pv := pageview.New(styles, src)       // src draws the pages (nil: none)
//	pv.SetGraphics(proto, cw, ch, tmux)   // once the terminal has answered
//	pv.SetOrigin(x, y)                    // where its View lands on screen
//	cmd := pv.SetActive(true)             // v in the text view
//	cmd = pv.Show(doc, primary, others)   // jump to a citation
//	cmd = pv.Refresh()                    // after a layout change
//	pv, cmd, act = pv.Update(msg)         // keys, and its own messages
//	pv.View(w, h)                         // exactly w×h cells
//
// Actions: TextMsg (v: back to the text view), StepMsg (n/N: the answers'
// next or previous citation), OpenMsg (o: open the file in the system's
// viewer), pane.Close (esc), pane.Notice.
//
// Pages are drawn in commands, never in Update: the first-ever use
// compiles the renderer (about 15 s, counted on screen), then a page
// takes tens of milliseconds.
package pageview

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/draw"
	"github.com/citelens/citelens/tui/internal/pane"
	"github.com/citelens/citelens/tui/termimage"
)

// Span is a byte range of a document's stored text.
type Span struct{ Start, End int }

// StepMsg asks for the answers' next (Delta 1) or previous (-1)
// citation: n or N, as in the text view.
type StepMsg struct{ Delta int }

// TextMsg asks for the text view back: v.
type TextMsg struct{}

// OpenMsg asks to open the document's file at a page in the system's
// viewer: o.
type OpenMsg struct {
	Path string
	Page int
}

// tickMsg redraws the first-use progress.
type tickMsg struct{ seq int }

// paintDueMsg says a frame has passed since the sixel or iTerm2 picture's
// cells were blanked: time to draw it over them.
type paintDueMsg struct{ gen int }

// paintedMsg carries an encoded sixel or iTerm2 picture to write.
type paintedMsg struct {
	gen int
	raw string
}

// paintDelay is how long after a frame blanks the picture's cells the
// picture is written over them: two frames at bubbletea's 60 a second,
// so the blank frame is on screen first.
const paintDelay = 35 * time.Millisecond

// firstUse is said while the renderer compiles on its first-ever start.
const firstUse = "Preparing the page renderer (first use only, about 15 s)"

// defaultCell is the cell size assumed when the terminal gives none.
var defaultCell = [2]int{10, 20}

// Model is the page view.
type Model struct {
	// KeyMap is the view's keys; replace bindings to rebind.
	KeyMap KeyMap

	styles *themes.Styles
	colors termimage.MapColors
	// profile is the terminal's colours (bubbletea's ColorProfileMsg;
	// Unknown until it comes, drawn as truecolor): the page map picks
	// 256-colour entries itself, or draws in shades.
	profile colorprofile.Profile
	src     *pageimage.Source

	proto        termimage.Protocol
	cellW, cellH int
	tmux         bool
	x, y         int // the screen cell of View's top-left

	width, height int
	active        bool
	// covered: something is drawn over the view (the help screen, a
	// dialog), so a sixel or iTerm2 picture is not written.
	covered bool

	doc    *docstore.Document
	span   Span
	others []Span
	page   int // the page asked for (0: the span's first)
	zoom   bool
	// version names the version of doc shown when the citation's
	// document has a newer one (versions.go).
	version string

	cur      *picture
	top      int
	seq      int // the drawing asked for last; older results are dropped
	pending  bool
	starting time.Time // when a first-ever start began (zero: none)
	err      error
	paintGen int
	lastID   uint8

	// cache keeps drawn pages for going back and for pages drawn ahead
	// (Prefetch); shared by the model's copies.
	cache *pageCache
}

// The page view keeps the panes' contract.
var _ pane.Model[Model] = Model{}

// New returns a page view drawing with src (nil: no renderer, the view
// says so), in blocks until SetGraphics says more.
func New(styles *themes.Styles, src *pageimage.Source) Model {
	m := Model{KeyMap: DefaultKeyMap(), src: src, proto: termimage.Blocks, cellW: defaultCell[0], cellH: defaultCell[1], cache: &pageCache{}}
	m.SetStyles(styles)
	return m
}

// SetStyles switches the view to another theme.
func (m *Model) SetStyles(s *themes.Styles) {
	m.styles = s
	m.colors = mapColors(s, m.profile)
}

// mapColors are the page map's colours in theme s on a terminal of
// profile: its page paper and ink, the highlight's background for the
// cited lines (their ink a dark shade of it); none in a theme without
// colour or a terminal of 16 colours or fewer, where the map is shades.
func mapColors(s *themes.Styles, profile colorprofile.Profile) termimage.MapColors {
	p := s.Palette
	if s.Plain || p.PagePaper == "" || p.PageInk == "" || p.HighlightBg == "" ||
		profile == colorprofile.ANSI || profile == colorprofile.ASCII || profile == colorprofile.NoTTY {
		return termimage.MapColors{}
	}
	rgba := func(c string) color.RGBA {
		r, g, b, _ := lipgloss.Color(c).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
	}
	mark := rgba(p.HighlightBg)
	dark := color.RGBA{mark.R / 3, mark.G / 3, mark.B / 3, 255}
	return termimage.MapColors{Paper: rgba(p.PagePaper), Ink: rgba(p.PageInk), MarkPaper: mark, MarkInk: dark,
		Palette256: profile == colorprofile.ANSI256}
}

// SetGraphics sets how pages are drawn: the protocol (Auto is taken as
// Blocks), the cell size in pixels (0: the usual 10×20) and whether the
// pictures go through tmux's passthrough. It redraws what is shown.
func (m *Model) SetGraphics(p termimage.Protocol, cellW, cellH int, tmux bool) tea.Cmd {
	if p == termimage.Auto {
		p = termimage.Blocks
	}
	if cellW <= 0 || cellH <= 0 {
		cellW, cellH = defaultCell[0], defaultCell[1]
	}
	m.proto, m.cellW, m.cellH, m.tmux = p, cellW, cellH, tmux
	return m.Refresh()
}

// Graphics is the protocol pages are drawn with.
func (m Model) Graphics() termimage.Protocol { return m.proto }

// SetOrigin says where on the screen View's top-left cell lands, for
// sixel and iTerm2 pictures, which are written at a place on the screen.
func (m *Model) SetOrigin(x, y int) tea.Cmd {
	if m.x == x && m.y == y {
		return nil
	}
	m.x, m.y = x, y
	return m.repaint()
}

// SetSize sets the view's size in cells, header and footer included.
func (m *Model) SetSize(w, h int) { m.width, m.height = max(w, 0), max(h, 0) }

// Active reports whether the view is shown.
func (m Model) Active() bool { return m.active }

// SetActive shows the view (drawing what it must) or hides it.
func (m *Model) SetActive(on bool) tea.Cmd {
	m.active = on
	if !on {
		m.paintGen++ // a picture on its way is not written
		return nil
	}
	return m.Refresh()
}

// SetCovered says whether something is drawn over the view (the help
// screen, a dialog) or the pane is out of sight: a sixel or iTerm2
// picture is not written while covered — it would land over what covers
// it — and is written again once uncovered. The caller clears the
// screen when covering, as the terminal keeps pixels that bubbletea,
// which wrote blank cells there, does not know to write over.
func (m *Model) SetCovered(on bool) tea.Cmd {
	if m.covered == on {
		return nil
	}
	m.covered = on
	if on {
		m.paintGen++ // a picture on its way is not written
		return nil
	}
	return m.repaint()
}

// Covered reports whether the view is covered (SetCovered).
func (m Model) Covered() bool { return m.covered }

// Repaint writes the sixel or iTerm2 picture again after the next frame
// (nothing for the other protocols, whose pictures are cells): for when
// the screen around the view was redrawn, as a change of focus restyles
// the pane's border, which the renderer may write as the whole row,
// wiping the pixels between.
func (m *Model) Repaint() tea.Cmd { return m.repaint() }

// Show shows doc's page with primary highlighted (the page primary
// begins on) and others marked faintly; an empty primary shows the
// document's first page.
func (m *Model) Show(doc *docstore.Document, primary Span, others []Span) tea.Cmd {
	m.doc, m.span, m.others, m.page, m.err = doc, primary, others, 0, nil
	if doc == nil {
		m.cur = nil
		return nil
	}
	return m.draw()
}

// Refresh draws again if what is shown no longer matches the pane, the
// cell size or the protocol.
func (m *Model) Refresh() tea.Cmd {
	if !m.active || m.doc == nil {
		return nil
	}
	if c := m.cur; c != nil && c.req.doc == m.doc && c.req.span == m.span && c.req.zoom == m.zoom &&
		c.req.cols == m.width && c.req.cellW == m.cellW && c.req.cellH == m.cellH && c.req.proto == m.proto &&
		c.req.colors == m.colors &&
		(m.page == 0 || c.page == m.page) {
		return m.repaint()
	}
	if m.pending {
		return nil // when the drawing under way is in, it is checked again
	}
	return m.draw()
}

// draw asks for the page to be drawn for the current size.
func (m *Model) draw() tea.Cmd {
	if !m.active || m.doc == nil || m.width <= 0 {
		return nil
	}
	m.err = nil
	if err := pageimage.Available(m.doc); err != nil {
		m.err, m.cur = err, nil
		return nil
	}
	if m.src == nil {
		m.err = errors.New("no page renderer in this program")
		return nil
	}
	if m.proto == termimage.Off {
		return nil
	}
	m.seq++
	m.pending = true
	m.lastID = m.lastID%254 + 1 // kitty image ids 1-255, one per picture
	req := m.request(m.doc, m.span, m.others, m.page)
	req.seq, req.id = m.seq, m.lastID
	cmds := []tea.Cmd{render(m.src, req, m.cache)}
	if !m.src.Renderer().Warm() && m.starting.IsZero() {
		m.starting = time.Now()
		cmds = append(cmds, tick(m.seq))
	}
	return tea.Batch(cmds...)
}

// request is what drawing page (0: the span's first) of doc with span
// highlighted takes in the view as it is now.
func (m *Model) request(doc *docstore.Document, span Span, others []Span, page int) request {
	return request{
		doc: doc, span: span, others: others, page: page, zoom: m.zoom,
		cols: m.width, cellW: m.cellW, cellH: m.cellH, proto: m.proto, tmux: m.tmux, colors: m.colors,
		body: m.bodyHeight(),
	}
}

// Prefetch draws the page of doc that span begins on ahead of time, into
// the view's cache, for the citation the reader is likely to ask for
// next (the answers' next one): showing it then costs no rendering.
// Nothing is shown, and nothing is done when the view is hidden, the
// document has no pages or the renderer is not compiled yet.
func (m *Model) Prefetch(doc *docstore.Document, span Span) tea.Cmd {
	if !m.active || doc == nil || m.src == nil || m.width <= 0 || m.proto == termimage.Off ||
		pageimage.Available(doc) != nil || !m.src.Renderer().Warm() {
		return nil
	}
	req := m.request(doc, span, nil, 0)
	req.ahead = true
	src, cache := m.src, m.cache
	return func() tea.Msg {
		req.runWith(context.Background(), src, cache) // a failure shows when the page is asked for
		return prefetchedMsg{}
	}
}

func tick(seq int) tea.Cmd {
	return tea.Tick(500*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{seq} })
}

// bodyHeight is the rows the picture has: all but the header and footer.
func (m Model) bodyHeight() int { return max(m.height-2, 0) }

// Update handles keys and the view's own messages.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd, pane.Action) {
	switch msg := msg.(type) {
	case renderedMsg:
		if msg.seq != m.seq {
			return m, nil, nil
		}
		return m.rendered(msg)
	case tickMsg:
		if m.pending && !m.starting.IsZero() {
			return m, tick(msg.seq), nil
		}
		return m, nil, nil
	case paintDueMsg:
		if msg.gen != m.paintGen || !m.active || m.covered || m.cur == nil || m.cur.img == nil {
			return m, nil, nil
		}
		return m, m.encodePaint(), nil
	case paintedMsg:
		if msg.gen != m.paintGen || !m.active || m.covered {
			return m, nil, nil
		}
		return m, tea.Raw(msg.raw), nil
	case tea.ColorProfileMsg:
		if msg.Profile != m.profile {
			m.profile = msg.Profile
			m.colors = mapColors(m.styles, m.profile)
			return m, m.Refresh(), nil
		}
		return m, nil, nil
	case tea.KeyPressMsg:
		return m.updateKey(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			return m, m.scroll(3), nil
		case tea.MouseWheelUp:
			return m, m.scroll(-3), nil
		}
	}
	return m, nil, nil
}

func (m Model) rendered(msg renderedMsg) (Model, tea.Cmd, pane.Action) {
	m.pending, m.starting = false, time.Time{}
	if msg.err != nil {
		m.err = msg.err
		return m, nil, nil
	}
	old := m.cur
	m.cur, m.err = msg.pic, nil
	var cmds []tea.Cmd
	if old != nil && old.req.proto == termimage.Kitty {
		cmds = append(cmds, tea.Raw(termimage.KittyDelete(old.req.id, old.req.tmux)))
	}
	if m.cur.transmit != "" {
		cmds = append(cmds, tea.Raw(m.cur.transmit))
		m.cur.transmit = "" // sent; the picture keeps no copy
	}
	// The same citation drawn again (a resize, another protocol) keeps
	// its place; a new one is brought into view.
	if old == nil || old.req.span != m.cur.req.span || old.page != m.cur.page || old.req.zoom != m.cur.req.zoom || old.req.doc != m.cur.req.doc {
		m.top = m.revealTop()
	}
	m.top = m.clampTop(m.top)
	cmds = append(cmds, m.repaint())
	// The pane may have changed while this was drawn.
	cmds = append(cmds, m.Refresh())
	return m, tea.Batch(cmds...), nil
}

// revealTop is the top row that shows the cited lines with a little of
// the page above them: at the top of the page when they fit there.
func (m Model) revealTop() int { return m.cur.revealTop(m.bodyHeight()) }

func (m Model) clampTop(top int) int {
	if m.cur == nil {
		return 0
	}
	return min(max(top, 0), max(m.cur.rows-m.bodyHeight(), 0))
}

// scroll moves the picture n rows, down if n > 0.
func (m *Model) scroll(n int) tea.Cmd {
	top := m.clampTop(m.top + n)
	if top == m.top {
		return nil
	}
	m.top = top
	return m.repaint()
}

// repaint schedules the sixel or iTerm2 picture for after the next frame.
func (m *Model) repaint() tea.Cmd {
	m.paintGen++
	if !m.active || m.covered || m.cur == nil || m.cur.img == nil {
		return nil
	}
	gen := m.paintGen
	return tea.Tick(paintDelay, func(time.Time) tea.Msg { return paintDueMsg{gen} })
}

// encodePaint encodes the visible window of the picture, in a command;
// the window encoded with the drawing is written as it is.
func (m Model) encodePaint() tea.Cmd {
	c, top, n, gen := m.cur, m.top, m.bodyHeight(), m.paintGen
	x, y := m.x, m.y+1
	if p := c.paint; p.raw != "" && p.top == top && p.rows == n {
		return tea.Raw(termimage.At(x, y, p.raw))
	}
	return func() tea.Msg {
		return paintedMsg{gen: gen, raw: termimage.At(x, y, c.encode(top, n))}
	}
}

func (m Model) updateKey(msg tea.KeyPressMsg) (Model, tea.Cmd, pane.Action) {
	k := m.KeyMap
	bh := m.bodyHeight()
	switch {
	case key.Matches(msg, k.LineDown):
		return m, m.scroll(1), nil
	case key.Matches(msg, k.LineUp):
		return m, m.scroll(-1), nil
	case key.Matches(msg, k.PageDown):
		return m, m.scroll(max(bh-1, 1)), nil
	case key.Matches(msg, k.PageUp):
		return m, m.scroll(-max(bh-1, 1)), nil
	case key.Matches(msg, k.Top):
		return m, m.scroll(-m.top), nil
	case key.Matches(msg, k.Bottom):
		if m.cur != nil {
			return m, m.scroll(m.cur.rows), nil
		}
	case key.Matches(msg, k.Zoom):
		if m.cur == nil || m.cur.focus < 0 {
			return m, nil, pane.Notice{Text: "No cited lines on this page to zoom to."}
		}
		m.zoom = !m.zoom
		return m, m.draw(), nil
	case key.Matches(msg, k.NextPage), key.Matches(msg, k.PrevPage):
		if m.cur == nil {
			return m, nil, nil
		}
		d := 1
		if key.Matches(msg, k.PrevPage) {
			d = -1
		}
		p := m.cur.page + d
		if p < 1 || p > m.cur.pages {
			return m, nil, pane.Notice{Text: fmt.Sprintf("%s has pages 1 to %d.", textproc.OneLine(m.doc.DisplayName()), m.cur.pages)}
		}
		m.page = p
		return m, m.draw(), nil
	case key.Matches(msg, k.Next):
		return m, nil, StepMsg{Delta: 1}
	case key.Matches(msg, k.Prev):
		return m, nil, StepMsg{Delta: -1}
	case key.Matches(msg, k.Open):
		if m.doc == nil {
			return m, nil, pane.Notice{Text: "No document is shown to open."}
		}
		page := 0
		if m.cur != nil {
			page = m.cur.page
		}
		return m, nil, OpenMsg{Path: m.doc.Path, Page: page}
	case key.Matches(msg, k.Text):
		return m, nil, TextMsg{}
	case key.Matches(msg, k.Version):
		return m, nil, m.switchVersion()
	case key.Matches(msg, k.Back):
		return m, nil, pane.Close{}
	}
	return m, nil, nil
}

// View draws the view in exactly w × h cells: a header (document, page,
// how it is drawn), the page, and a footer with the keys.
func (m Model) View(w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if w != m.width || h != m.height {
		m.SetSize(w, h)
	}
	if h < 3 || w < 20 {
		return draw.Block([]string{m.styles.Warning.Render(draw.Truncate("window too small", w))}, w, h)
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header())
	bh := m.bodyHeight()
	body := m.body(bh)
	for _, l := range body {
		lines = append(lines, draw.Fit(l, w))
	}
	for len(lines) < h-1 {
		lines = append(lines, draw.Pad(w))
	}
	return append(lines[:h-1], m.footer())
}

// body is the page's rows, or a message in its place.
func (m Model) body(bh int) []string {
	say := func(st lipgloss.Style, text string) []string {
		var out []string
		for _, l := range draw.Wrap(text, m.width) {
			out = append(out, st.Render(l))
		}
		return out
	}
	switch {
	case m.doc == nil:
		return say(m.styles.Muted, "No document shown. Open a citation (enter on a statement) or a document (enter in the library).")
	case m.err != nil:
		text := textproc.OneLine(m.err.Error())
		if errors.Is(m.err, pageimage.ErrNotPDF) {
			return say(m.styles.Muted, "No page view: "+text+". Pages exist for PDFs only; v shows the text.")
		}
		return say(m.styles.Warning, "Cannot draw the page: "+text)
	case m.proto == termimage.Off:
		return say(m.styles.Muted, "Pictures are off (--graphics off, or graphics = \"off\" in the config). v shows the text.")
	case m.cur == nil && !m.starting.IsZero():
		return say(m.styles.Stage, fmt.Sprintf("%s… %d s", firstUse, int(time.Since(m.starting).Seconds())))
	case m.cur == nil:
		return say(m.styles.Stage, "Drawing the page…")
	}
	c := m.cur
	n := min(bh, c.rows-m.top)
	switch c.req.proto {
	case termimage.Kitty:
		return termimage.KittyPlaceholders(c.req.id, m.top, n, c.req.cols)
	case termimage.Blocks:
		return c.lines[m.top : m.top+n]
	}
	// Sixel and iTerm2: blank cells the picture is written over.
	blank := make([]string, bh)
	for i := range blank {
		blank[i] = draw.Pad(m.width)
	}
	return blank
}

// header names the document and page on the left; on the right the
// page, where the cited lines continue, how the page is drawn and the
// zoom, the least needed dropped first when the pane is narrow.
func (m Model) header() string {
	w := m.width
	if m.doc == nil {
		return draw.Fit(m.styles.Title.Render("page"), w)
	}
	name := textproc.OneLine(m.doc.DisplayName())
	if m.version != "" {
		name += " · " + m.version
	}
	parts := []string{drawnWith(m.proto)}
	if c := m.cur; c != nil {
		parts = []string{c.describe(m.doc)}
		if more := c.continues(m.doc); more != "" {
			parts = append(parts, more)
		}
		parts = append(parts, drawnWith(c.req.proto))
		if c.zoomed {
			// Said of the picture shown, not of the setting: a page
			// without the cited lines is shown whole.
			parts = append(parts, "zoom")
		}
	}
	if m.pending {
		parts = append([]string{"drawing…"}, parts...)
	}
	right := strings.Join(parts, " · ")
	for ansi.StringWidth(right)+8 > w && len(parts) > 1 {
		parts = parts[:len(parts)-1]
		right = strings.Join(parts, " · ")
	}
	rw := ansi.StringWidth(right)
	if rw+8 > w {
		return draw.Fit(m.styles.Title.Render(draw.Truncate(name, w)), w)
	}
	left := m.styles.Title.Render(ansi.Truncate(name, w-rw-2, "…"))
	return draw.Spread(left, m.styles.Muted.Render(right), w)
}

// drawnWith names how pages are drawn, for the header: the graphics
// protocol, or for the half-block map what it is to a reader.
func drawnWith(p termimage.Protocol) string {
	if p == termimage.Blocks {
		return "preview"
	}
	return p.String()
}

// footer shows where the view is and the keys.
func (m Model) footer() string {
	k := m.KeyMap
	keys := []string{}
	shown := []key.Binding{k.Text, k.Zoom, k.Next, k.Open}
	if m.version != "" {
		shown = append(shown, k.Version) // only a changed citation has another version
	}
	for _, b := range shown {
		keys = append(keys, b.Help().Key+" "+b.Help().Desc)
	}
	right := strings.Join(keys, " · ")
	left := ""
	if c := m.cur; c != nil && c.rows > m.bodyHeight() {
		left = fmt.Sprintf("rows %d–%d of %d", m.top+1, min(m.top+m.bodyHeight(), c.rows), c.rows)
	}
	if ansi.StringWidth(left)+ansi.StringWidth(right)+2 > m.width {
		right = k.Text.Help().Key + " " + k.Text.Help().Desc
	}
	return draw.Spread(m.styles.Status.Render(left), m.styles.Muted.Render(right), m.width)
}

// Cleanup returns what frees the terminal's copy of the shown picture
// (kitty keeps images until told), for when the program ends.
func (m Model) Cleanup() string {
	if m.cur != nil && m.cur.req.proto == termimage.Kitty {
		return termimage.KittyDelete(m.cur.req.id, m.cur.req.tmux)
	}
	return ""
}
