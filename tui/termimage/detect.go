package termimage

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// kittyQueryID is the image id of the kitty graphics query: a query
// stores nothing, and the answer names it.
const kittyQueryID = 31

// Queries returns the questions Detector reads the answers to: kitty's
// graphics query (answered only by terminals that speak it), the
// terminal's name and version (XTVERSION), its cell size in pixels, and
// last the primary device attributes (DA1), which every terminal
// answers: terminals answer in order, so DA1's answer means every other
// answer has come or never will. Send it once, out of band (tea.Raw).
func Queries() string {
	return ansi.KittyGraphics([]byte("AAAA"), "i=31", "s=1", "v=1", "a=q", "t=d", "f=24") +
		ansi.RequestNameVersion +
		"\x1b[16t" + // XTWINOPS: report the cell size in pixels
		"\x1b[14t" + // and the window's, for terminals that give only that
		ansi.RequestPrimaryDeviceAttributes
}

// Detector reads a terminal's answers to Queries and says which protocol
// it speaks. The zero Detector is ready to use.
type Detector struct {
	// Getenv, when set, is asked for KONSOLE_VERSION: Konsole answers
	// the kitty query but draws placeholders as boxes, and not every
	// version gives its name.
	Getenv func(string) string

	kitty, sixel bool
	name         string
	cellW, cellH int
	winW, winH   int
	done         bool
}

// Update reads msg if it is an answer to Queries and reports whether it
// was one (the caller need not pass it on).
func (d *Detector) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case uv.KittyGraphicsEvent:
		if msg.Options.ID != kittyQueryID {
			return false
		}
		d.kitty = string(msg.Payload) == "OK"
	case tea.TerminalVersionMsg:
		d.name = msg.Name
	case uv.CellSizeEvent:
		d.cellW, d.cellH = msg.Width, msg.Height
	case uv.PixelSizeEvent:
		d.winW, d.winH = msg.Width, msg.Height
	case uv.PrimaryDeviceAttributesEvent:
		// Attribute 4: sixel graphics.
		d.sixel = slices.Contains(msg, 4)
		d.done = true
	default:
		return false
	}
	return true
}

// Done reports whether the terminal has answered (DA1 came).
func (d *Detector) Done() bool { return d.done }

// GiveUp ends detection without DA1's answer, for a terminal that never
// answers: what has come is all there is.
func (d *Detector) GiveUp() { d.done = true }

// Name is the terminal's name and version as it gave them ("" if it
// did not).
func (d *Detector) Name() string { return d.name }

// CellSize is a cell's size in pixels: as the terminal gave it, else its
// window's size in pixels over cols × rows cells, else 0, 0.
func (d *Detector) CellSize(cols, rows int) (w, h int) {
	if d.cellW > 0 && d.cellH > 0 {
		return d.cellW, d.cellH
	}
	if d.winW > 0 && d.winH > 0 && cols > 0 && rows > 0 {
		return d.winW / cols, d.winH / rows
	}
	return 0, 0
}

// kittyBeforePlaceholders reports whether name (lower case, as XTVERSION
// gave it) is a kitty that cannot draw an image through Unicode
// placeholder cells: one older than 0.28, which added them (Debian 12
// ships 0.26.5), or 0.29.0, which broke them. It answers the graphics
// query, then shows the placeholders as boxes.
func kittyBeforePlaceholders(name string) bool {
	v, ok := strings.CutPrefix(name, "kitty(")
	if !ok {
		return false
	}
	v, _, _ = strings.Cut(v, ")")
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && ma == 0 && (mi < 28 || v == "0.29.0")
}

// Protocol is the best protocol the terminal speaks by its answers:
// kitty with placeholders, then iTerm2 where the terminal is iTerm2 or
// WezTerm, then sixel, then the half-block map.
func (d *Detector) Protocol() Protocol {
	name := strings.ToLower(d.name)
	konsole := strings.Contains(name, "konsole") || d.Getenv != nil && d.Getenv("KONSOLE_VERSION") != ""
	wezterm := strings.Contains(name, "wezterm")
	switch {
	case wezterm:
		// WezTerm speaks kitty graphics but draws placeholders as
		// boxes; its iTerm2 images are solid.
		return ITerm2
	case d.kitty && !konsole && !kittyBeforePlaceholders(name):
		return Kitty
	case strings.Contains(name, "iterm2"):
		return ITerm2
	case d.sixel:
		return Sixel
	}
	return Blocks
}
