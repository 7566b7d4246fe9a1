package pageview

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/tui/termimage"
)

// Drawing a page: a request, run in a command, draws the page for one
// pane size, cell size and protocol, and comes back as a picture ready to
// show — the kitty image's commands, or the page map's lines, made off
// the Update loop.

// blockCell is the pixel size a page is drawn at for the half-block map,
// a map cell's width: fine enough for the averaging to see lines.
const blockCell = 4

// maxZoom bounds the zoom: the cited region's width fills the pane, but
// the page is never drawn more than this many times its fitted width.
const maxZoom = 3

// request is what to draw: the page of a span (0: its first) at a size.
type request struct {
	seq    int
	doc    *docstore.Document
	span   Span
	others []Span
	page   int
	zoom   bool

	cols         int // the pane's width in cells
	cellW, cellH int
	proto        termimage.Protocol
	id           uint8 // kitty image id
	tmux         bool
	colors       termimage.MapColors
	body         int // the view's body rows, for the first window encoded ahead (0: none)
	// ahead: drawn ahead of time (Prefetch), only into the cache.
	ahead bool
}

// picture is a drawn page, ready for the view.
type picture struct {
	req   request
	page  int   // the page shown
	pages int   // the document's page count
	span  []int // the pages the span stands on
	rows  int   // cell rows the picture fills
	// zoomed says the picture is the cited region, not the whole page.
	zoomed bool
	// focus is the first and last+1 row of the cited lines (-1 for
	// none on this page).
	focus, focusEnd int

	img      *image.RGBA // sixel and iTerm2 draw from it (a cols·cellW wide page)
	paint    paint       // sixel and iTerm2: the first window, encoded with the drawing
	transmit string      // kitty: the image's commands
	lines    []string    // blocks: the map's rows
}

// renderedMsg brings a drawn page (or why not) back to Update.
type renderedMsg struct {
	seq int
	pic *picture
	err error
}

// render draws req with src, in a command, through cache.
func render(src *pageimage.Source, req request, cache *pageCache) tea.Cmd {
	return func() tea.Msg {
		pic, err := req.runWith(context.Background(), src, cache)
		return renderedMsg{seq: req.seq, pic: pic, err: err}
	}
}

// prefetchedMsg says a page drawn ahead of time is in the cache; nothing
// is shown for it.
type prefetchedMsg struct{}

func (req request) run(ctx context.Context, src *pageimage.Source) (*picture, error) {
	return req.runWith(ctx, src, nil)
}

// runWith draws req, taking the page's pixels from cache when it holds
// them (nil: no cache) and leaving them there for the next time.
func (req request) runWith(ctx context.Context, src *pageimage.Source, cache *pageCache) (*picture, error) {
	if err := pageimage.Available(req.doc); err != nil {
		return nil, err
	}
	var spanPages []int
	var marks map[int][]pagerender.Rect
	if req.span.End > req.span.Start {
		var err error
		spanPages, marks, err = src.Marks(req.doc.ID, req.span.Start, req.span.End)
		if err != nil {
			return nil, err
		}
	}
	pd, err := src.Document(ctx, req.doc)
	if err != nil {
		return nil, err
	}
	page := req.page
	switch {
	case page > 0:
	case len(spanPages) > 0:
		page = spanPages[0]
	default:
		page = max(1, req.doc.PageOf(req.span.Start))
	}
	page = min(max(page, 1), pd.Pages())
	var faint []pagerender.Rect
	for _, o := range req.others {
		if o.End <= o.Start {
			continue
		}
		if _, rects, err := src.Marks(req.doc.ID, o.Start, o.End); err == nil {
			faint = append(faint, rects[page]...)
		}
	}
	mine := marks[page]

	cellW, cellH := req.cellW, req.cellH
	if req.proto == termimage.Blocks || req.proto == termimage.Off {
		// A map cell is blockCell pixels wide and as high as the
		// terminal's cell is for its width.
		cellH = int(math.Round(float64(blockCell) * float64(cellH) / float64(cellW)))
		cellW = blockCell
	}
	pxW := req.cols * cellW
	region := pagerender.WholePage
	if req.zoom && len(mine) > 0 {
		b := src.Crop(req.doc.ID, page, mine) // whole lines: no word cut at the sides
		// At least 1/maxZoom of the page wide, centred on the lines.
		if w := 1.0 / maxZoom; b.Width() < w {
			c := (b.X0 + b.X1) / 2
			b.X0, b.X1 = c-w/2, c+w/2
			if b.X0 < 0 {
				b.X0, b.X1 = 0, w
			} else if b.X1 > 1 {
				b.X0, b.X1 = 1-w, 1
			}
		}
		region = pagerender.Rect{X0: b.X0, Y0: 0, X1: b.X1, Y1: 1}
	}
	key := pageKey{doc: req.doc.ID, page: page, region: region, pxW: pxW, cellH: cellH}
	base, err := cache.get(key, func() (*pagerender.Picture, error) { return drawPage(ctx, pd, key) })
	if err != nil || req.ahead {
		return nil, err
	}
	// The highlight is burned into a copy: the cached page stays clean
	// for the other citations on it.
	img := image.NewRGBA(base.Image.Bounds())
	copy(img.Pix, base.Image.Pix)
	placed := &pagerender.Picture{Image: img, Page: page, Region: base.Region}
	pageimage.Mark(placed, mine, faint)
	rows := img.Bounds().Dy() / cellH
	if req.proto == termimage.Kitty && rows > termimage.MaxKittyCells {
		// Placeholders reach so many rows: the page is cut there, not
		// squeezed into them.
		rows = termimage.MaxKittyCells
		img = img.SubImage(image.Rect(0, 0, img.Bounds().Dx(), rows*cellH)).(*image.RGBA)
	}

	out := &picture{req: req, page: page, pages: pd.Pages(), span: spanPages, rows: rows, zoomed: region != pagerender.WholePage, focus: -1, focusEnd: -1, img: img}
	if len(mine) > 0 {
		fb := placed.Pixels(pagerender.Bounds(mine))
		out.focus, out.focusEnd = fb.Min.Y/cellH, (fb.Max.Y+cellH-1)/cellH
	}
	switch req.proto {
	case termimage.Kitty:
		out.transmit = termimage.KittyTransmit(img, req.id, req.cols, rows, req.tmux)
	case termimage.Blocks:
		var marked []image.Rectangle
		for _, r := range mine {
			marked = append(marked, placed.Pixels(r))
		}
		out.lines = termimage.PageMap(img, marked, req.cols, rows, req.colors)
	case termimage.Sixel, termimage.ITerm2:
		if req.body > 0 {
			// The window the view will show first, encoded here rather
			// than after the frame: the paint then only writes it.
			top := out.revealTop(req.body)
			out.paint = paint{top: top, rows: req.body, raw: out.encode(top, req.body)}
		}
	}
	if req.proto != termimage.Sixel && req.proto != termimage.ITerm2 {
		out.img = nil // only they draw from the pixels again
	}
	return out, nil
}

// drawPage renders the page k names, padded with paper to whole cells:
// exactly k.pxW wide, a multiple of k.cellH high. Its Region is what the
// padded picture shows of the page.
func drawPage(ctx context.Context, pd *pagerender.Document, k pageKey) (*pagerender.Picture, error) {
	wPt, _, err := pd.PageSize(ctx, k.page)
	if err != nil {
		return nil, err
	}
	dpi := float64(k.pxW) / (k.region.Width() * wPt) * 72
	pic, err := pd.Render(ctx, k.page, k.region, dpi)
	if err != nil {
		return nil, err
	}
	rows := (pic.Image.Bounds().Dy() + k.cellH - 1) / k.cellH
	img := image.NewRGBA(image.Rect(0, 0, k.pxW, rows*k.cellH))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(img, img.Bounds(), pic.Image, pic.Image.Bounds().Min, draw.Src)
	placed := &pagerender.Picture{Image: img, Page: k.page, Region: pic.Region}
	// The padded picture shows more of the page below: its region grows
	// by the padding, at the same scale.
	placed.Region.Y1 = pic.Region.Y0 + pic.Region.Height()*float64(img.Bounds().Dy())/float64(pic.Image.Bounds().Dy())
	return placed, nil
}

// pageKey names a drawn page: which page, which part of it, at which
// width and cell height.
type pageKey struct {
	doc        docstore.DocID
	page       int
	region     pagerender.Rect
	pxW, cellH int
}

// cachedPages is how many drawn pages a view keeps: the one shown, the
// one before (n then N), the next citation's and a page turned to — a
// few MB each at a pane's width.
const cachedPages = 6

// pageCache keeps the last pages drawn, without highlight, so that going
// back to a page, another citation on it and a page drawn ahead of time
// (Prefetch) cost no rendering. Safe for concurrent use: drawing runs in
// commands.
type pageCache struct {
	mu      sync.Mutex
	entries []*cacheEntry // most recently used first
	draws   int           // pages drawn rather than found, for the tests
}

// cacheEntry is a page drawn or being drawn: pic and err are set before
// done is closed, and read only after.
type cacheEntry struct {
	key  pageKey
	done chan struct{}
	pic  *pagerender.Picture
	err  error
}

// get returns the page k from the cache, or draws it with draw and keeps
// it; a drawing of k under way (a prefetch) is waited for, not repeated.
// A nil cache draws every time.
func (c *pageCache) get(k pageKey, draw func() (*pagerender.Picture, error)) (*pagerender.Picture, error) {
	if c == nil {
		return draw()
	}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == k {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			c.mu.Unlock()
			<-e.done
			return e.pic, e.err
		}
	}
	e := &cacheEntry{key: k, done: make(chan struct{})}
	c.entries = append([]*cacheEntry{e}, c.entries...)
	if len(c.entries) > cachedPages {
		c.entries = c.entries[:cachedPages]
	}
	c.draws++
	c.mu.Unlock()
	e.pic, e.err = draw()
	close(e.done)
	if e.err != nil {
		// Not kept: the next try draws again (a cancelled prefetch,
		// a timeout).
		c.mu.Lock()
		for i, x := range c.entries {
			if x == e {
				c.entries = append(c.entries[:i], c.entries[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}
	return e.pic, e.err
}

// paint is a window of a sixel or iTerm2 picture, encoded: rows
// [top, top+rows).
type paint struct {
	top, rows int
	raw       string
}

// encode is the window of rows [top, top+n) in the picture's protocol.
func (p *picture) encode(top, n int) string {
	win := p.window(top, n)
	if p.req.proto == termimage.ITerm2 {
		return termimage.ITerm2Image(win, p.req.cols, n, p.req.tmux)
	}
	return termimage.SixelImage(win, p.req.tmux)
}

// revealTop is the top row that shows the cited lines with a little of
// the page above them, in a body of bh rows: at the top of the page when
// they fit there.
func (p *picture) revealTop(bh int) int {
	if p.focus < 0 || p.focusEnd <= bh {
		return 0
	}
	return min(max(p.focus-min(3, bh/4), 0), max(p.rows-bh, 0))
}

// window is the part of p's picture rows [top, top+n) show, padded with
// paper to n rows, for sixel and iTerm2.
func (p *picture) window(top, n int) *image.RGBA {
	ch := p.req.cellH
	w := p.img.Bounds().Dx()
	out := image.NewRGBA(image.Rect(0, 0, w, n*ch))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(out, out.Bounds(), p.img, image.Pt(0, top*ch), draw.Src)
	return out
}

// continues says where the cited lines go on from the page shown, or
// come from: "continues on p. 38", "continued from p. 36"; "" when they
// stand on this page alone (or not on it).
func (p *picture) continues(doc *docstore.Document) string {
	for i, n := range p.span {
		if n != p.page {
			continue
		}
		if i+1 < len(p.span) {
			return "continues on p. " + printed(doc, p.span[i+1])
		}
		if i > 0 {
			return "continued from p. " + printed(doc, p.span[i-1])
		}
	}
	return ""
}

// printed is page n as the document prints it, else its number.
func printed(doc *docstore.Document, n int) string {
	if s := doc.PrintedPage(n); s != "" {
		return s
	}
	return fmt.Sprint(n)
}

// describe names what p shows, for the header: "p. 37/2415".
func (p *picture) describe(doc *docstore.Document) string {
	if printed := doc.PrintedPage(p.page); printed != "" {
		return fmt.Sprintf("p. %s (%d/%d)", printed, p.page, p.pages)
	}
	return fmt.Sprintf("p. %d/%d", p.page, p.pages)
}
