package termimage

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"image"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"
)

// kittyChunk is the most base64 one kitty graphics command may carry.
const kittyChunk = kitty.MaxChunkSize

// KittyTransmit returns the commands that send img to a kitty-graphics
// terminal as image id (1-255) with a virtual placement of cols × rows
// cells, for KittyPlaceholders to show: RGB pixels, zlib-compressed,
// base64 in chunks, every answer from the terminal suppressed (q=2). With
// tmux, each chunk is wrapped for tmux's passthrough.
func KittyTransmit(img *image.RGBA, id uint8, cols, rows int, tmux bool) string {
	b := img.Bounds()
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed) // a valid level: no error
	row := make([]byte, 3*b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		px := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := range b.Dx() {
			copy(row[3*x:3*x+3], px[4*x:4*x+3])
		}
		zw.Write(row) // writes to memory cannot fail
	}
	zw.Close()
	payload := base64.StdEncoding.EncodeToString(z.Bytes())

	var out strings.Builder
	first := fmt.Sprintf("a=T,U=1,f=24,o=z,s=%d,v=%d,i=%d,c=%d,r=%d,q=2", b.Dx(), b.Dy(), id, cols, rows)
	for i := 0; i < len(payload) || i == 0; i += kittyChunk {
		end := min(i+kittyChunk, len(payload))
		more := 0
		if end < len(payload) {
			more = 1
		}
		keys := fmt.Sprintf("m=%d", more)
		if i == 0 {
			keys = first + "," + keys
		}
		out.WriteString(wrap(ansi.KittyGraphics([]byte(payload[i:end]), keys), tmux))
	}
	return out.String()
}

// KittyDelete returns the command that deletes image id and frees its
// data in the terminal.
func KittyDelete(id uint8, tmux bool) string {
	return wrap(ansi.KittyGraphics(nil, fmt.Sprintf("a=d,d=I,i=%d,q=2", id)), tmux)
}

// KittyPlaceholders returns rows lines of cols cells that show rows
// first to first+rows-1 of image id's virtual placement (KittyTransmit):
// each cell is U+10EEEE with its row and column as diacritics, coloured
// with the image id (a 256-colour index, which survives a renderer's
// colour downsampling). Rows past the placement's 297th cannot be named
// and are left blank.
func KittyPlaceholders(id uint8, first, rows, cols int) []string {
	lines := make([]string, rows)
	var sb strings.Builder
	for r := range rows {
		sb.Reset()
		row := first + r
		if row < 0 || row >= maxDiacritics || cols > maxDiacritics {
			lines[r] = strings.Repeat(" ", cols)
			continue
		}
		fmt.Fprintf(&sb, "\x1b[38;5;%dm", id)
		for c := range cols {
			sb.WriteRune(kitty.Placeholder)
			sb.WriteRune(kitty.Diacritic(row))
			sb.WriteRune(kitty.Diacritic(c))
		}
		sb.WriteString("\x1b[39m")
		lines[r] = sb.String()
	}
	return lines
}

// maxDiacritics is how many rows or columns a placeholder can name: the
// length of kitty's table of row and column diacritics.
const maxDiacritics = 297

// MaxKittyCells is the most rows (or columns) one kitty placement can
// have: taller pictures are cut into several.
const MaxKittyCells = maxDiacritics

// wrap wraps seq for tmux's passthrough when tmux is set.
func wrap(seq string, tmux bool) string {
	if tmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}
