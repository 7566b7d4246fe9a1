package themes

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// Styles is a theme made concrete: every lipgloss style the TUI draws with,
// the styles handed to bubbles components, and the glamour style for
// Markdown answers. Build one with ThemeByName or a Selector and treat it
// as read-only; switching theme means swapping the pointer.
type Styles struct {
	Name  string // "dark", "light", "high-contrast" or "no-color"
	Dark  bool   // drawn for a dark background
	Plain bool   // carries no colour at all; marks are attributes only

	Palette Palette

	Text   lipgloss.Style // body text
	Muted  lipgloss.Style // secondary text
	Accent lipgloss.Style // prompts, keys, emphasis
	Title  lipgloss.Style // pane titles and document names

	// Pane and PaneFocused are pane frames (border only); callers add the
	// size. The focused frame differs in border shape as well as colour,
	// so focus shows without colour.
	Pane        lipgloss.Style
	PaneFocused lipgloss.Style

	Header lipgloss.Style // a pane's header line
	Status lipgloss.Style // a pane's status line

	Highlight      lipgloss.Style // the cited sentences
	FaintHighlight lipgloss.Style // other citations of the same statement
	Match          lipgloss.Style // a search match
	CurrentMatch   lipgloss.Style // the search match n/N is on
	Selection      lipgloss.Style // the selected row of a list

	Error   lipgloss.Style
	Warning lipgloss.Style
	Stage   lipgloss.Style // stage messages and spinner

	Help      help.Styles      // for bubbles/help
	TextInput textinput.Styles // for bubbles/textinput
	TextArea  textarea.Styles  // for bubbles/textarea: the same look as TextInput, over several lines

	// Markdown is the glamour style for rendering answers; see
	// MarkdownRenderer. Its document margin is zero: panes bring their own.
	Markdown ansi.StyleConfig
}

// kind is how a palette becomes styles.
type kind int

const (
	colour       kind = iota // colours carry the marks
	highContrast             // colours plus bold/underline, thick focus border
	plain                    // attributes only
)

// fgbg is a style with the given foreground and background, each left to
// the terminal when empty.
func fgbg(fg, bg string) lipgloss.Style {
	s := lipgloss.NewStyle()
	if fg != "" {
		s = s.Foreground(lipgloss.Color(fg))
	}
	if bg != "" {
		s = s.Background(lipgloss.Color(bg))
	}
	return s
}

// fg is fgbg without a background.
func fg(c string) lipgloss.Style { return fgbg(c, "") }

func build(name string, dark bool, k kind, p Palette) *Styles {
	s := &Styles{Name: name, Dark: dark, Plain: k == plain, Palette: p}

	s.Text = fg(p.Foreground)
	s.Muted = fg(p.Muted)
	s.Accent = fg(p.Accent)
	s.Title = fg(p.Accent).Bold(true)
	s.Header = fg(p.Foreground)
	s.Status = fg(p.Muted)

	// lipgloss.Color("") is NoColor: the terminal's default.
	s.Pane = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color(p.Border))
	s.PaneFocused = lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(lipgloss.Color(p.FocusedBorder))

	s.Highlight = fgbg(p.HighlightFg, p.HighlightBg)
	s.FaintHighlight = fgbg(p.FaintHighlightFg, p.FaintHighlightBg)
	s.Match = fgbg(p.MatchFg, p.MatchBg)
	s.CurrentMatch = fgbg(p.CurrentMatchFg, p.CurrentMatchBg).Bold(true)
	s.Selection = fgbg(p.SelectionFg, p.SelectionBg)

	s.Error = fg(p.Error).Bold(true)
	s.Warning = fg(p.Warning)
	s.Stage = fg(p.Stage)

	switch k {
	case highContrast:
		// Colour is backed by attributes: bold marks, underlined quieter
		// marks, and the focused pane's thick border in bright yellow.
		s.Highlight = s.Highlight.Bold(true)
		s.FaintHighlight = s.FaintHighlight.Underline(true).Bold(true)
		s.Match = s.Match.Bold(true)
		s.CurrentMatch = s.CurrentMatch.Underline(true)
		s.Selection = s.Selection.Bold(true)
		s.Title = s.Title.Underline(true)
		s.Error = s.Error.Underline(true)
		s.Warning = s.Warning.Bold(true)
	case plain:
		// Every mark must read without colour: the cited sentences in
		// reverse video, other citations underlined, search matches bold
		// and underlined, the current match reverse and bold and
		// underlined (so it stands out even inside a highlight), the
		// selection in reverse video.
		s.Highlight = lipgloss.NewStyle().Reverse(true)
		s.FaintHighlight = lipgloss.NewStyle().Underline(true)
		s.Match = lipgloss.NewStyle().Bold(true).Underline(true)
		s.CurrentMatch = lipgloss.NewStyle().Reverse(true).Bold(true).Underline(true)
		s.Selection = lipgloss.NewStyle().Reverse(true)
		s.Title = lipgloss.NewStyle().Bold(true)
		s.Error = lipgloss.NewStyle().Bold(true)
		s.Warning = lipgloss.NewStyle().Bold(true)
		s.Stage = lipgloss.NewStyle().Italic(true)
	}

	s.Help = help.Styles{
		Ellipsis:       s.Muted,
		ShortKey:       s.Accent,
		ShortDesc:      s.Muted,
		ShortSeparator: s.Muted,
		FullKey:        s.Accent,
		FullDesc:       s.Muted,
		FullSeparator:  s.Muted,
	}
	if k == plain {
		s.Help.ShortKey = lipgloss.NewStyle().Bold(true)
		s.Help.FullKey = lipgloss.NewStyle().Bold(true)
	}

	state := textinput.StyleState{
		Text:        s.Text,
		Placeholder: s.Muted,
		Suggestion:  s.Muted,
		Prompt:      s.Accent.Bold(true),
	}
	s.TextInput = textinput.Styles{
		Focused: state,
		Blurred: state,
		Cursor: textinput.CursorStyle{
			Color: lipgloss.Color(p.Accent),
			Shape: tea.CursorBlock,
			// A steady cursor: no timer ticking while the user reads,
			// and frames that do not depend on when they were drawn.
			Blink: false,
		},
	}
	area := textarea.StyleState{
		Text:        s.Text,
		Placeholder: s.Muted,
		Prompt:      s.Accent.Bold(true),
		EndOfBuffer: s.Muted,
		// No line is marked: the input reads as the one-line input does.
		CursorLine: lipgloss.NewStyle(),
	}
	s.TextArea = textarea.Styles{
		Focused: area,
		Blurred: area,
		Cursor: textarea.CursorStyle{
			Color: lipgloss.Color(p.Accent),
			Shape: tea.CursorBlock,
			Blink: false, // as the one-line input's
		},
	}

	s.Markdown = markdownStyle(k, dark, p)
	return s
}

// markdownStyle derives a glamour style from glamour's own dark, light or
// ASCII style, recoloured from the palette. glamour's style values hold
// pointers shared with its package variables: fields are replaced, never
// written through.
func markdownStyle(k kind, dark bool, p Palette) ansi.StyleConfig {
	var c ansi.StyleConfig
	switch {
	case k == plain:
		c = styles.ASCIIStyleConfig
	case dark || k == highContrast:
		c = styles.DarkStyleConfig
	default:
		c = styles.LightStyleConfig
	}
	zero := uint(0)
	c.Document.Margin = &zero
	c.Document.BlockPrefix = ""
	c.Document.BlockSuffix = ""
	if k == plain {
		return c
	}

	t := true
	c.Document.Color = strp(p.Foreground)
	c.Heading.Color = strp(p.Accent)
	c.H1.Color = strp(p.HighlightFg)
	c.H1.BackgroundColor = strp(p.Accent)
	c.H6.Color = strp(p.Muted)
	c.HorizontalRule.Color = strp(p.Muted)
	c.Link.Color = strp(p.Accent)
	c.Link.Underline = &t
	c.LinkText.Color = strp(p.Accent)
	c.Image.Color = strp(p.Accent)
	c.ImageText.Color = strp(p.Muted)
	c.Code.Color = strp(p.Warning)
	c.Code.BackgroundColor = strp(p.SelectionBg)
	c.CodeBlock.Color = strp(p.Muted)
	if k == highContrast {
		// Syntax colours tuned for one background would fight a
		// high-contrast palette meant for any background.
		c.CodeBlock.Chroma = nil
		c.Code.BackgroundColor = nil
		c.Code.Bold = &t
	}
	return c
}

// strp returns a pointer to s, or nil for the terminal default.
func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
