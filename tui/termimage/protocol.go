package termimage

import (
	"fmt"
	"strings"
)

// Protocol is a way of showing pictures in a terminal.
type Protocol int

// The protocols, and Auto, which asks the terminal.
const (
	Auto   Protocol = iota // find out by asking the terminal (Detector)
	Off                    // no pictures: the page view says so
	Blocks                 // a half-block page map: any terminal with colour
	Kitty                  // kitty graphics with Unicode placeholders
	Sixel                  // DEC sixel graphics
	ITerm2                 // iTerm2 inline images (iTerm2, WezTerm)
)

var names = [...]string{Auto: "auto", Off: "off", Blocks: "blocks", Kitty: "kitty", Sixel: "sixel", ITerm2: "iterm2"}

// Names lists what ParseProtocol accepts, for usage text.
func Names() []string { return names[:] }

// String is the protocol's name as ParseProtocol takes it.
func (p Protocol) String() string {
	if p < 0 || int(p) >= len(names) {
		return fmt.Sprintf("Protocol(%d)", int(p))
	}
	return names[p]
}

// Pixels reports whether the protocol draws the page's pixels (as
// opposed to a map of it, or nothing).
func (p Protocol) Pixels() bool { return p == Kitty || p == Sixel || p == ITerm2 }

// ParseProtocol reads a protocol's name, case-insensitively; "" is Auto.
func ParseProtocol(s string) (Protocol, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Auto, nil
	}
	for p, n := range names {
		if s == n {
			return Protocol(p), nil
		}
	}
	return Auto, fmt.Errorf("graphics %q: use one of %s", s, strings.Join(names[:], ", "))
}
