package termimage

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strconv"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/iterm2"
)

// ITerm2Image returns img as an iTerm2 inline image filling cols × rows cells,
// the cursor left where it was.
func ITerm2Image(img image.Image, cols, rows int, tmux bool) string {
	var p bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	enc.Encode(&p, img) // writes to memory cannot fail
	return wrap(ansi.ITerm2(iterm2.File{
		Name:              "page.png",
		Size:              int64(p.Len()),
		Width:             iterm2.Cells(cols),
		Height:            iterm2.Cells(rows),
		IgnoreAspectRatio: true,
		Inline:            true,
		DoNotMoveCursor:   true,
		Content:           []byte(base64.StdEncoding.EncodeToString(p.Bytes())),
	}), tmux)
}

// At returns seq drawn with the cursor at column x, row y (0-based, the
// screen's top-left is 0, 0), the cursor saved before and put back after,
// so a frame drawn next starts where it expects.
func At(x, y int, seq string) string {
	return ansi.SaveCursor + "\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1) + "H" + seq + ansi.RestoreCursor
}
