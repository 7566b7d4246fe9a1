package pagerender_test

import (
	"image"
	"image/color"
	"testing"

	"github.com/citelens/citelens/citations/pagerender"
)

// paper is a 100×50 white picture of a whole page with a black bar of
// ink across rows 20-29.
func paper() *pagerender.Picture {
	img := image.NewRGBA(image.Rect(0, 0, 100, 50))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 20; y < 30; y++ {
		for x := 0; x < 100; x++ {
			img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
		}
	}
	return &pagerender.Picture{Image: img, Page: 1, Region: pagerender.WholePage}
}

func TestHighlight(t *testing.T) {
	t.Parallel()
	p := paper()
	line := pagerender.Rect{X0: 0.1, Y0: 0.3, X1: 0.5, Y1: 0.7} // pixels x 10-49, y 15-34
	// The same line twice, and a box overlapping it: marked once.
	p.Highlight([]pagerender.Rect{line, line, {X0: 0.4, Y0: 0.3, X1: 0.6, Y1: 0.7}}, pagerender.Marker)
	marked := color.RGBA{255, 231, 95, 255} // white × Marker at its alpha: 255·(1 − a + a·c)
	for y := 0; y < 50; y++ {
		for x := 0; x < 100; x++ {
			got := p.Image.RGBAAt(x, y)
			inside := x >= 10 && x < 60 && y >= 15 && y < 35
			ink := y >= 20 && y < 30
			var want color.RGBA
			switch {
			case ink:
				want = color.RGBA{0, 0, 0, 255} // ink stays ink
			case inside:
				want = marked
			default:
				want = color.RGBA{255, 255, 255, 255} // untouched
			}
			if got != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func TestHighlightCrop(t *testing.T) {
	t.Parallel()
	p := paper()
	// The right half of the page, then a box on the page's right quarter:
	// in the crop's own pixels it is the crop's right half.
	half := p.Crop(pagerender.Rect{X0: 0.5, Y0: 0, X1: 1, Y1: 1})
	if b := half.Image.Bounds(); b.Dx() != 50 || b.Dy() != 50 {
		t.Fatalf("crop is %v, want 50×50", b)
	}
	if px := half.Pixels(pagerender.Rect{X0: 0.75, Y0: 0, X1: 1, Y1: 0.2}); px != image.Rect(75, 0, 100, 10) {
		t.Fatalf("the page's right quarter is pixels %v of the crop, want (75,0)-(100,10)", px)
	}
	half.Highlight([]pagerender.Rect{{X0: 0.75, Y0: 0, X1: 1, Y1: 0.2}}, color.NRGBA{0, 0, 255, 255})
	if got := p.Image.RGBAAt(80, 5); got != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("marked pixel = %v, want blue (the crop shares the page's pixels)", got)
	}
	if got := p.Image.RGBAAt(70, 5); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("pixel left of the box = %v, want white", got)
	}
	// Boxes off the picture mark nothing.
	half.Highlight([]pagerender.Rect{{X0: 0, Y0: 0, X1: 0.4, Y1: 1}, {}}, pagerender.Marker)
	if got := p.Image.RGBAAt(10, 5); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("pixel outside the crop = %v, want white", got)
	}
}

func TestRectOps(t *testing.T) {
	t.Parallel()
	a := pagerender.Rect{X0: 0.1, Y0: 0.1, X1: 0.5, Y1: 0.2}
	b := pagerender.Rect{X0: 0.3, Y0: 0.15, X1: 0.7, Y1: 0.4}
	if got := pagerender.Bounds([]pagerender.Rect{a, {}, b}); got != (pagerender.Rect{X0: 0.1, Y0: 0.1, X1: 0.7, Y1: 0.4}) {
		t.Errorf("Bounds = %v", got)
	}
	if got := a.Intersect(b); got != (pagerender.Rect{X0: 0.3, Y0: 0.15, X1: 0.5, Y1: 0.2}) {
		t.Errorf("Intersect = %v", got)
	}
	if got := a.Intersect(pagerender.Rect{X0: 0.6, Y0: 0.6, X1: 1, Y1: 1}); !got.Empty() {
		t.Errorf("disjoint Intersect = %v, want empty", got)
	}
}
