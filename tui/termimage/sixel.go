package termimage

import (
	"cmp"
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
)

// sixelColors is the palette size every sixel terminal supports.
const sixelColors = 256

// SixelImage returns img as a DEC sixel image. Colours are those sixel
// can name (percent steps), the 256 most used of them kept and every
// other pixel drawn in the nearest one: a page's paper, ink, antialiasing
// greys and highlight never need more. The output is the same for the
// same picture, byte for byte.
func SixelImage(img *image.RGBA, tmux bool) string {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	// Each pixel's colour index, from a palette of percent colours.
	pal, index := sixelPalette(img)
	var sb strings.Builder
	sb.Grow(w * h / 3)
	// p2 = 1: pixels the image leaves out keep what is under them.
	sb.WriteString("\x1bP0;1q")
	fmt.Fprintf(&sb, "\"1;1;%d;%d", w, h)
	for i, c := range pal {
		fmt.Fprintf(&sb, "#%d;2;%d;%d;%d", i, c>>16, c>>8&0xff, c&0xff)
	}
	// bits[ci*w+x]: the band's six pixels of column x in colour ci.
	bits := make([]byte, len(pal)*w)
	last := make([]int, len(pal)) // the band's last column in each colour, -1 for none
	for band := 0; band < h; band += 6 {
		rows := min(6, h-band)
		for i := range last {
			last[i] = -1
		}
		for dy := range rows {
			for x, ci := range index[(band+dy)*w : (band+dy)*w+w] {
				bits[int(ci)*w+x] |= 1 << dy
				last[ci] = max(last[ci], x)
			}
		}
		first := true
		for ci := range pal {
			if last[ci] < 0 {
				continue
			}
			if !first {
				sb.WriteByte('$') // back to the band's start for the next colour
			}
			first = false
			sb.WriteByte('#')
			sb.WriteString(strconv.Itoa(ci))
			cols := bits[ci*w : ci*w+w]
			writeSixels(&sb, cols[:last[ci]+1])
			clear(cols)
		}
		sb.WriteByte('-')
	}
	sb.WriteString("\x1b\\")
	return wrap(sb.String(), tmux)
}

// writeSixels writes a band's columns for one colour, runs of four or
// more as repeats.
func writeSixels(sb *strings.Builder, bits []byte) {
	for i := 0; i < len(bits); {
		j := i + 1
		for j < len(bits) && bits[j] == bits[i] {
			j++
		}
		ch := byte('?' + bits[i])
		if n := j - i; n >= 4 {
			sb.WriteByte('!')
			sb.WriteString(strconv.Itoa(n))
			sb.WriteByte(ch)
		} else {
			for range n {
				sb.WriteByte(ch)
			}
		}
		i = j
	}
}

// sixelPalette returns the palette (colours as percent R<<16|G<<8|B) and
// each pixel's index in it.
func sixelPalette(img *image.RGBA) ([]uint32, []uint8) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	pct := func(v uint8) uint32 { return (uint32(v)*100 + 127) / 255 }
	colors := make([]uint32, w*h)
	count := map[uint32]int{}
	for y := range h {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := range w {
			p := row[4*x : 4*x+3]
			c := pct(p[0])<<16 | pct(p[1])<<8 | pct(p[2])
			colors[y*w+x] = c
			count[c]++
		}
	}
	pal := make([]uint32, 0, len(count))
	for c := range count {
		pal = append(pal, c)
	}
	// Most used first; equal counts by value, so the order is the same
	// every time.
	slices.SortFunc(pal, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b))
	})
	pal = pal[:min(len(pal), sixelColors)]
	slot := make(map[uint32]uint8, len(count))
	for i, c := range pal {
		slot[c] = uint8(i)
	}
	index := make([]uint8, w*h)
	for i, c := range colors {
		s, ok := slot[c]
		if !ok {
			s = nearest(pal, c)
			slot[c] = s
		}
		index[i] = s
	}
	return pal, index
}

// nearest is the index of the palette colour closest to c.
func nearest(pal []uint32, c uint32) uint8 {
	best, bestD := 0, 1<<31
	for i, p := range pal {
		d := 0
		for shift := 0; shift <= 16; shift += 8 {
			v := int(p>>shift&0xff) - int(c>>shift&0xff)
			d += v * v
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return uint8(best)
}
