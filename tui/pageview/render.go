package pageview

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

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
	transmit string      // kitty: the image's commands
	lines    []string    // blocks: the map's rows
}

// renderedMsg brings a drawn page (or why not) back to Update.
type renderedMsg struct {
	seq int
	pic *picture
	err error
}

// render draws req with src, in a command.
func render(src *pageimage.Source, req request) tea.Cmd {
	return func() tea.Msg {
		pic, err := req.run(context.Background(), src)
		return renderedMsg{seq: req.seq, pic: pic, err: err}
	}
}

func (req request) run(ctx context.Context, src *pageimage.Source) (*picture, error) {
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
	wPt, _, err := pd.PageSize(ctx, page)
	if err != nil {
		return nil, err
	}
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
	dpi := float64(pxW) / (region.Width() * wPt) * 72
	pic, err := pd.Render(ctx, page, region, dpi)
	if err != nil {
		return nil, err
	}
	pageimage.Mark(pic, mine, faint)

	// Whole cells: the picture padded with paper to a multiple of the
	// cell height, exactly the pane's width.
	rows := (pic.Image.Bounds().Dy() + cellH - 1) / cellH
	if req.proto == termimage.Kitty {
		rows = min(rows, termimage.MaxKittyCells)
	}
	img := image.NewRGBA(image.Rect(0, 0, pxW, rows*cellH))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(img, img.Bounds(), pic.Image, pic.Image.Bounds().Min, draw.Src)
	placed := &pagerender.Picture{Image: img, Page: page, Region: pic.Region}
	// The padded picture shows more of the page below: its region grows
	// by the padding, at the same scale.
	placed.Region.Y1 = pic.Region.Y0 + pic.Region.Height()*float64(img.Bounds().Dy())/float64(pic.Image.Bounds().Dy())

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
	}
	if req.proto != termimage.Sixel && req.proto != termimage.ITerm2 {
		out.img = nil // only they draw from the pixels again
	}
	return out, nil
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
