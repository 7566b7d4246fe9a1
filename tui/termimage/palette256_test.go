package termimage_test

import (
	"image"
	"image/color"
	"regexp"
	"strings"
	"testing"

	"github.com/citelens/citelens/tui/termimage"
)

// TestNearest256: the dark theme's paper (229,233,240) is a light grey of
// the ramp, not colour 189's lavender, which RGB distance picks; exact
// palette colours map to themselves.
func TestNearest256(t *testing.T) {
	t.Parallel()
	paper := termimage.Nearest256(color.RGBA{229, 233, 240, 255})
	if paper == 189 {
		t.Fatal("the dark theme's paper is lavender (189) in 256 colours")
	}
	if p := termimage.Palette256(paper); max(p.R, p.G, p.B)-min(p.R, p.G, p.B) > 12 {
		t.Errorf("the dark theme's paper is colour %d %v, not a grey", paper, p)
	}
	for _, i := range []uint8{16, 21, 46, 189, 196, 226, 231, 232, 244, 255} {
		if got := termimage.Nearest256(termimage.Palette256(i)); termimage.Palette256(got) != termimage.Palette256(i) {
			t.Errorf("colour %d %v maps to %d", i, termimage.Palette256(i), got)
		}
	}
}

// TestPageMap256: a page map in 256 colours uses palette entries only
// (no truecolor sequence for the terminal to map), its flat paper one
// colour whatever faint antialiasing lies on it, and few colours in all.
func TestPageMap256(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 200, 200))
	for y := range 200 {
		for x := range 200 {
			v := uint8(255)
			switch {
			case y >= 60 && y < 70 && x >= 20 && x < 180: // a line of text
				v = uint8(40 + (x*37)%120)
			default: // paper, faintly speckled by antialiasing
				v = uint8(255 - (x*7+y*13)%16)
			}
			img.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	colors := termimage.MapColors{
		Paper: color.RGBA{229, 233, 240, 255}, Ink: color.RGBA{46, 52, 64, 255},
		MarkPaper: color.RGBA{235, 203, 139, 255}, MarkInk: color.RGBA{78, 67, 46, 255},
		Palette256: true,
	}
	lines := termimage.PageMap(img, []image.Rectangle{image.Rect(20, 60, 100, 70)}, 40, 20, colors)
	all := strings.Join(lines, "\n")
	if strings.Contains(all, "38;2;") || strings.Contains(all, "48;2;") {
		t.Fatal("truecolor sequences in a 256-colour map")
	}
	seq := regexp.MustCompile(`\x1b\[38;5;(\d+);48;5;(\d+)m`)
	used := map[string]bool{}
	for _, m := range seq.FindAllStringSubmatch(all, -1) {
		used[m[1]], used[m[2]] = true, true
	}
	paper := termimage.Nearest256(colors.Paper)
	// The paper rows (the top 12 of 20: map rows cover 10 pixels each)
	// are one colour.
	for r, l := range lines[:5] {
		for _, m := range seq.FindAllStringSubmatch(l, -1) {
			if m[1] != m[2] || m[1] != itoa(paper) {
				t.Fatalf("paper row %d is speckled: %q", r, l)
			}
		}
	}
	if len(used) > 2*5 {
		t.Errorf("%d colours in the map, want a few levels of paper and mark", len(used))
	}
}

func itoa(n uint8) string {
	return strings.TrimLeft(string([]byte{'0' + n/100, '0' + n/10%10, '0' + n%10}), "0")
}
