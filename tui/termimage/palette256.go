package termimage

import (
	"image/color"
	"math"
)

// The page map in a terminal of 256 colours (tmux without truecolor,
// TERM=xterm-256color alone). Left to the renderer, each of the map's
// truecolor cells is sent to the nearest palette entry by RGB distance:
// the dark theme's paper, 229,233,240, becomes colour 189, a lavender,
// and the faint ink of antialiased text lands by turns on the colour
// cube and the grey ramp, a speckle over flat paper. The map instead
// picks its colours itself: a few ink levels only, each the entry
// nearest in OKLab, a space where distance is difference as seen.

// inkLevels256 are the ink shares a 256-colour map draws with: paper,
// three shades, ink. Fewer levels leave flat paper flat.
const inkLevels256 = 4

// Nearest256 is the xterm 256-colour palette entry nearest c as the eye
// sees it (OKLab distance), among entries 16–255: the colour cube and the
// grey ramp, whose colours are fixed, unlike 0–15, which each terminal's
// theme sets.
func Nearest256(c color.RGBA) uint8 {
	l, a, b := oklab(c)
	best, bestD := uint8(16), math.Inf(1)
	for i := 16; i < 256; i++ {
		pl, pa, pb := palette256Lab[i-16][0], palette256Lab[i-16][1], palette256Lab[i-16][2]
		d := (l-pl)*(l-pl) + (a-pa)*(a-pa) + (b-pb)*(b-pb)
		if d < bestD {
			best, bestD = uint8(i), d
		}
	}
	return best
}

// Palette256 is the RGB colour of xterm's palette entry i (16–255).
func Palette256(i uint8) color.RGBA {
	if i >= 232 {
		v := uint8(8 + 10*(int(i)-232))
		return color.RGBA{v, v, v, 255}
	}
	n := int(i) - 16
	steps := [6]uint8{0, 95, 135, 175, 215, 255}
	return color.RGBA{steps[n/36], steps[n/6%6], steps[n%6], 255}
}

// palette256Lab is entries 16–255 in OKLab.
var palette256Lab = func() (out [240][3]float64) {
	for i := range out {
		l, a, b := oklab(Palette256(uint8(i + 16)))
		out[i] = [3]float64{l, a, b}
	}
	return out
}()

// oklab converts an sRGB colour to OKLab (Björn Ottosson's).
func oklab(c color.RGBA) (l, a, b float64) {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, bl := lin(c.R), lin(c.G), lin(c.B)
	lm := math.Cbrt(0.4122214708*r + 0.5363329763*g + 0.0514459929*bl)
	mm := math.Cbrt(0.2119034982*r + 0.6806995451*g + 0.1073969566*bl)
	sm := math.Cbrt(0.0883024619*r + 0.2817188376*g + 0.6299787005*bl)
	return 0.2104542553*lm + 0.7936177850*mm - 0.0040720403*sm,
		1.9779984951*lm - 2.4285922050*mm + 0.4505937099*sm,
		0.0259040371*lm + 0.7827717662*mm - 0.8086757660*sm
}
