//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// windowPixels is the terminal window's size in pixels as the terminal
// told the kernel (TIOCGWINSZ; xterm, VTE and others fill it in), or 0, 0.
// The page view divides it into cells when the terminal does not answer
// the cell size query (xterm, by default).
func windowPixels() (w, h int) {
	ws, err := unix.IoctlGetWinsize(int(os.Stdout.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Xpixel), int(ws.Ypixel)
}
