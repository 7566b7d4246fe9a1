package themes

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/glamour/v2"
)

// Theme names accepted by ThemeByName, --theme and the config file.
const (
	NameDark         = "dark"
	NameLight        = "light"
	NameHighContrast = "high-contrast"
	NameNoColor      = "no-color"
	// NameAuto picks dark or light from the terminal's background (and
	// no-color under NO_COLOR); see Selector.
	NameAuto = "auto"
)

// Names lists the theme names a user can ask for, NameAuto first.
func Names() []string {
	return []string{NameAuto, NameDark, NameLight, NameHighContrast, NameNoColor}
}

// Dark returns the theme for dark terminal backgrounds.
func Dark() *Styles { return build(NameDark, true, colour, darkPalette) }

// Light returns the theme for light terminal backgrounds.
func Light() *Styles { return build(NameLight, false, colour, lightPalette) }

// HighContrast returns the high-contrast theme: body text in the terminal's
// own colours, every mark in saturated colour backed by bold or underline.
func HighContrast() *Styles { return build(NameHighContrast, true, highContrast, highContrastPalette) }

// NoColor returns the theme without colour, for NO_COLOR: reverse video,
// underline and bold carry every mark.
func NoColor() *Styles { return build(NameNoColor, true, plain, noColorPalette) }

// ThemeByName returns the named theme. Names are case-insensitive; "auto"
// is not a theme but a choice, which a Selector makes.
func ThemeByName(name string) (*Styles, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case NameDark:
		return Dark(), nil
	case NameLight:
		return Light(), nil
	case NameHighContrast, "highcontrast", "hc":
		return HighContrast(), nil
	case NameNoColor, "nocolor", "none", "plain":
		return NoColor(), nil
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownTheme, name, strings.Join(Names(), ", "))
}

// NoColorRequested reports whether the environment asks for no colour:
// NO_COLOR set to anything but the empty string (https://no-color.org).
// getenv is os.Getenv in the program and a map lookup in tests.
func NoColorRequested(getenv func(string) string) bool {
	return getenv("NO_COLOR") != ""
}

// Selector decides the theme from the user's choice and, when that choice
// is "auto", from the terminal's background.
//
// An explicit theme (--theme or the config) wins over NO_COLOR, as
// no-color.org asks of per-invocation settings; "auto" under NO_COLOR is
// the no-colour theme whatever the background.
//
// The root model uses it like this:
//
//	sel, err := themes.NewSelector(cfg.Theme, themes.NoColorRequested(os.Getenv))
//	m.styles = sel.Initial()
//	// Init:   if sel.Auto() { return tea.RequestBackgroundColor }
//	// Update: case tea.BackgroundColorMsg:
//	//             m.styles = sel.ForBackground(msg.IsDark()); pass it to the panes
type Selector struct {
	fixed *Styles // nil when auto
	// noColor: auto resolves to the no-colour theme.
	noColor bool
	// light: the environment says the background is light (WithEnv),
	// the guess that stands until the terminal answers, if it does.
	light bool
}

// NewSelector returns a Selector for a theme name: one of Names(), or ""
// meaning auto.
func NewSelector(name string, noColor bool) (Selector, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == NameAuto {
		return Selector{noColor: noColor}, nil
	}
	s, err := ThemeByName(n)
	if err != nil {
		return Selector{}, err
	}
	return Selector{fixed: s}, nil
}

// Auto reports whether the theme depends on the terminal's background, so
// that asking the terminal for it (tea.RequestBackgroundColor) is worth it.
func (s Selector) Auto() bool { return s.fixed == nil && !s.noColor }

// Initial is the theme to draw with before the terminal has said what its
// background is, and when it never says (tmux before 3.4 answers no
// background query): light when the environment says so (WithEnv), else
// dark, which most terminals are.
func (s Selector) Initial() *Styles { return s.ForBackground(!s.light) }

// WithEnv returns s guessing the background from the environment until
// the terminal answers: COLORFGBG ("15;0": white on black), which rxvt,
// Konsole, xterm with colorFgBg and others set and tmux hands its panes
// from the environment it started in.
func (s Selector) WithEnv(getenv func(string) string) Selector {
	if dark, ok := BackgroundFromEnv(getenv); ok {
		s.light = !dark
	}
	return s
}

// BackgroundFromEnv reads COLORFGBG: whether the terminal's background
// is dark, ok false when the variable is unset or names no colour (its
// last field is the background, an ANSI colour number: 0-6 and 8 are
// dark, 7 and 9-15 light; "default" says nothing).
func BackgroundFromEnv(getenv func(string) string) (dark, ok bool) {
	v := strings.TrimSpace(getenv("COLORFGBG"))
	if v == "" {
		return false, false
	}
	fields := strings.Split(v, ";")
	n, err := strconv.Atoi(strings.TrimSpace(fields[len(fields)-1]))
	if err != nil || n < 0 || n > 15 {
		return false, false
	}
	return n <= 6 || n == 8, true
}

// ForBackground is the theme for a terminal background that is dark or
// not, as tea.BackgroundColorMsg.IsDark reports it.
func (s Selector) ForBackground(dark bool) *Styles {
	switch {
	case s.fixed != nil:
		return s.fixed
	case s.noColor:
		return NoColor()
	case dark:
		return Dark()
	default:
		return Light()
	}
}

// MarkdownRenderer returns a glamour renderer that draws Markdown in this
// theme, word-wrapped at width cells. Model output must go through
// textproc.Printable before it is rendered.
func (s *Styles) MarkdownRenderer(width int) (*glamour.TermRenderer, error) {
	return glamour.NewTermRenderer(glamour.WithStyles(s.Markdown), glamour.WithWordWrap(max(width, 1)))
}
