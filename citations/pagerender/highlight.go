package pagerender

import (
	"image"
	"image/color"
	"math"

	"github.com/klippa-app/go-pdfium/enums"
)

// renderFlags draw annotations (a form's filled fields, a reviewer's
// notes) as a viewer does; no LCD text, whose colour fringes a terminal
// would show as noise.
const renderFlags = enums.FPDF_RENDER_FLAG_ANNOT

// Rect is a rectangle on a page in fractions of the page as shown (0..1,
// from its top-left corner; X grows right, Y down).
type Rect struct{ X0, Y0, X1, Y1 float64 }

// WholePage is the Rect of a whole page.
var WholePage = Rect{0, 0, 1, 1}

// Width is r's width.
func (r Rect) Width() float64 { return r.X1 - r.X0 }

// Height is r's height.
func (r Rect) Height() float64 { return r.Y1 - r.Y0 }

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return !(r.X1 > r.X0 && r.Y1 > r.Y0) }

// Intersect is the part of r inside s.
func (r Rect) Intersect(s Rect) Rect {
	r = Rect{max(r.X0, s.X0), max(r.Y0, s.Y0), min(r.X1, s.X1), min(r.Y1, s.Y1)}
	if r.Empty() {
		return Rect{}
	}
	return r
}

// Union is the smallest Rect that holds r and s; an empty one adds nothing.
func (r Rect) Union(s Rect) Rect {
	switch {
	case r.Empty():
		return s
	case s.Empty():
		return r
	}
	return Rect{min(r.X0, s.X0), min(r.Y0, s.Y0), max(r.X1, s.X1), max(r.Y1, s.Y1)}
}

// Inset grows r by dx and dy on each side (shrinks it for negative ones).
func (r Rect) Inset(dx, dy float64) Rect {
	return Rect{r.X0 - dx, r.Y0 - dy, r.X1 + dx, r.Y1 + dy}
}

// Bounds is the union of rects.
func Bounds(rects []Rect) Rect {
	var u Rect
	for _, r := range rects {
		u = u.Union(r)
	}
	return u
}

// Pixels returns the pixels of p that cover the page rectangle r, whole
// pixels outward, clipped to the picture.
func (p *Picture) Pixels(r Rect) image.Rectangle {
	b := p.Image.Bounds()
	fx := float64(b.Dx()) / p.Region.Width()
	fy := float64(b.Dy()) / p.Region.Height()
	px := image.Rect(
		int(math.Floor((r.X0-p.Region.X0)*fx)), int(math.Floor((r.Y0-p.Region.Y0)*fy)),
		int(math.Ceil((r.X1-p.Region.X0)*fx)), int(math.Ceil((r.Y1-p.Region.Y0)*fy)),
	)
	return px.Add(b.Min).Intersect(b)
}

// Marker is the default highlight: a marker-pen yellow.
var Marker = color.NRGBA{R: 0xff, G: 0xd8, B: 0x00, A: 0xa0}

// Highlight marks the page rectangles rects on p the way a highlighter
// pen does: each covered pixel is multiplied by c, with c's alpha as the
// strength, so white paper takes c's colour, black ink stays black and a
// figure's colours stay recognisable. Pixels covered twice (rects that
// overlap) are marked once; everything outside the rects is untouched.
func (p *Picture) Highlight(rects []Rect, c color.NRGBA) {
	area := image.Rectangle{}
	boxes := make([]image.Rectangle, 0, len(rects))
	for _, r := range rects {
		if px := p.Pixels(r); !px.Empty() {
			boxes = append(boxes, px)
			area = area.Union(px)
		}
	}
	if area.Empty() {
		return
	}
	// One mark per pixel, so overlapping line boxes do not darken twice.
	marked := make([]bool, area.Dx()*area.Dy())
	for _, b := range boxes {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := marked[(y-area.Min.Y)*area.Dx():]
			for x := b.Min.X; x < b.Max.X; x++ {
				row[x-area.Min.X] = true
			}
		}
	}
	// out = in × (1 − a + a·c): a lookup table a channel.
	var lut [3][256]uint8
	a := float64(c.A) / 255
	for ch, v := range [3]uint8{c.R, c.G, c.B} {
		f := 1 - a + a*float64(v)/255
		for i := range 256 {
			lut[ch][i] = uint8(math.Round(float64(i) * f))
		}
	}
	img := p.Image
	for y := area.Min.Y; y < area.Max.Y; y++ {
		row := marked[(y-area.Min.Y)*area.Dx():]
		for x := area.Min.X; x < area.Max.X; x++ {
			if !row[x-area.Min.X] {
				continue
			}
			i := img.PixOffset(x, y)
			img.Pix[i] = lut[0][img.Pix[i]]
			img.Pix[i+1] = lut[1][img.Pix[i+1]]
			img.Pix[i+2] = lut[2][img.Pix[i+2]]
		}
	}
}

// Crop returns the part of p that shows the page rectangle r, sharing
// p's pixels.
func (p *Picture) Crop(r Rect) *Picture {
	r = r.Intersect(p.Region)
	px := p.Pixels(r)
	if px.Empty() {
		return &Picture{Image: image.NewRGBA(image.Rect(0, 0, 0, 0)), Page: p.Page, Region: r}
	}
	sub := p.Image.SubImage(px).(*image.RGBA)
	// The region a pixel-aligned crop really shows.
	b := p.Image.Bounds()
	fx := p.Region.Width() / float64(b.Dx())
	fy := p.Region.Height() / float64(b.Dy())
	shown := Rect{
		p.Region.X0 + float64(px.Min.X-b.Min.X)*fx, p.Region.Y0 + float64(px.Min.Y-b.Min.Y)*fy,
		p.Region.X0 + float64(px.Max.X-b.Min.X)*fx, p.Region.Y0 + float64(px.Max.Y-b.Min.Y)*fy,
	}
	return &Picture{Image: sub, Page: p.Page, Region: shown}
}
