package termimage

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
)

// MapColors are a page map's colours. The zero MapColors draws without
// colour: shades for ink, reverse video for what is marked.
type MapColors struct {
	Paper, Ink         color.RGBA // the page, and its darkest ink
	MarkPaper, MarkInk color.RGBA // the same under the highlight
	// Palette256: the terminal shows 256 colours, not truecolor; the map
	// picks palette entries itself (see Nearest256).
	Palette256 bool
}

// mono reports whether c asks for a map without colour.
func (c MapColors) mono() bool {
	return c.Paper == color.RGBA{} && c.Ink == color.RGBA{} && c.MarkPaper == color.RGBA{} && c.MarkInk == color.RGBA{}
}

// inkGain stretches a cell's share of ink: a line of text covers a fifth
// of its cells' area in ink, which drawn as is would be a faint grey.
// Stretched, text lines read as solid bars and margins stay paper.
const inkGain = 3.5

// PageMap draws img as cols × rows cells of half blocks, two pixels of
// map a cell: the page's text as bars of ink on paper (a cell's colour
// is its ink's share, stretched), and wherever more than half a map pixel
// lies inside the marked rectangles (img's pixels), in the marked colours.
// It is ordinary styled text: any terminal with colour shows it, tmux
// included. img fills the cells, stretched if its shape differs.
func PageMap(img *image.RGBA, marked []image.Rectangle, cols, rows int, c MapColors) []string {
	if cols <= 0 || rows <= 0 {
		return nil
	}
	b := img.Bounds()
	type pixel struct {
		ink  float64 // 0 paper .. 1 ink
		mark bool
	}
	// The map's pixels: cols wide, 2·rows high.
	grid := make([]pixel, cols*2*rows)
	for py := range 2 * rows {
		y0, y1 := b.Min.Y+py*b.Dy()/(2*rows), b.Min.Y+(py+1)*b.Dy()/(2*rows)
		for px := range cols {
			x0, x1 := b.Min.X+px*b.Dx()/cols, b.Min.X+(px+1)*b.Dx()/cols
			area := image.Rect(x0, y0, max(x1, x0+1), max(y1, y0+1)).Intersect(b)
			if area.Empty() {
				continue
			}
			grid[py*cols+px] = pixel{ink(img, area), covered(area, marked)}
		}
	}
	lines := make([]string, rows)
	var sb strings.Builder
	for r := range rows {
		sb.Reset()
		last := ""
		for col := range cols {
			top, bot := grid[2*r*cols+col], grid[(2*r+1)*cols+col]
			var style, glyph string
			switch {
			case c.mono():
				style, glyph = monoCell(top.ink, bot.ink, top.mark || bot.mark)
			case c.Palette256:
				fg, bg := c.entry(top.ink, top.mark), c.entry(bot.ink, bot.mark)
				style = fmt.Sprintf("\x1b[38;5;%d;48;5;%dm", fg, bg)
				glyph = "▀"
			default:
				fg, bg := c.color(top.ink, top.mark), c.color(bot.ink, bot.mark)
				style = fmt.Sprintf("\x1b[38;2;%d;%d;%d;48;2;%d;%d;%dm", fg.R, fg.G, fg.B, bg.R, bg.G, bg.B)
				glyph = "▀"
			}
			if style != last {
				if last != "" && style == "" {
					sb.WriteString("\x1b[m")
				}
				sb.WriteString(style)
				last = style
			}
			sb.WriteString(glyph)
		}
		if last != "" {
			sb.WriteString("\x1b[m")
		}
		lines[r] = sb.String()
	}
	return lines
}

// ink is the share of ink in area, stretched by inkGain: one minus the
// mean of its pixels' brightest channel, so that a highlight's tinted
// paper still counts as paper.
func ink(img *image.RGBA, area image.Rectangle) float64 {
	var sum int
	for y := area.Min.Y; y < area.Max.Y; y++ {
		row := img.Pix[img.PixOffset(area.Min.X, y):]
		for x := range area.Dx() {
			p := row[4*x : 4*x+3]
			sum += int(max(p[0], p[1], p[2]))
		}
	}
	value := float64(sum) / float64(255*area.Dx()*area.Dy())
	return min(1, (1-value)*inkGain)
}

// covered reports whether more than half of area lies inside the marked
// rectangles (which may overlap; the share is capped).
func covered(area image.Rectangle, marked []image.Rectangle) bool {
	in := 0
	for _, m := range marked {
		in += areaOf(area.Intersect(m))
	}
	return 2*in > areaOf(area)
}

func areaOf(r image.Rectangle) int { return r.Dx() * r.Dy() }

// color mixes paper and ink for a map pixel.
func (c MapColors) color(ink float64, mark bool) color.RGBA {
	paper, dark := c.Paper, c.Ink
	if mark {
		paper, dark = c.MarkPaper, c.MarkInk
	}
	mix := func(a, b uint8) uint8 { return uint8(float64(a) + (float64(b)-float64(a))*ink + 0.5) }
	return color.RGBA{mix(paper.R, dark.R), mix(paper.G, dark.G), mix(paper.B, dark.B), 255}
}

// entry is the 256-colour palette entry of a map pixel: its ink share
// rounded to one of a few levels, so that paper is one colour and text a
// few, each the nearest entry as seen.
func (c MapColors) entry(ink float64, mark bool) uint8 {
	q := math.Round(ink*inkLevels256) / inkLevels256
	return Nearest256(c.color(q, mark))
}

// shades are a cell's ink from none to full, for a map without colour.
var shades = []string{" ", "░", "▒", "▓", "█"}

// monoCell draws a cell without colour: its two pixels' mean ink as a
// shade, reverse video where it is marked.
func monoCell(top, bot float64, mark bool) (style, glyph string) {
	i := int((top+bot)/2*float64(len(shades)-1) + 0.5)
	if mark {
		return "\x1b[7m", shades[i]
	}
	return "", shades[i]
}
