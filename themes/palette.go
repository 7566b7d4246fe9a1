// Package themes holds every colour citelens draws with: a few palettes of
// semantic colour names (dark, light, high-contrast, and a no-colour one for
// NO_COLOR) and the one function that turns a palette into the lipgloss
// styles and glamour Markdown style the program uses.
//
// Nothing else in the program names a colour: a pane asks for
// Styles.Highlight, never for "yellow". A theme that is drawn without colour
// still shows every mark through text attributes (reverse video, underline,
// bold), so nothing the reader needs depends on colour alone.
package themes

// Palette names a theme's colours by what they mean. Each value is a colour
// lipgloss.Color understands ("#rrggbb", or an ANSI index such as "11"); the
// empty string means "the terminal's own default", which is what a theme
// without colour uses throughout.
type Palette struct {
	Foreground string // body text
	Muted      string // secondary text: status lines, help, positions
	Accent     string // titles, prompts, links, headings

	Border        string // pane borders
	FocusedBorder string // the border of the pane that has the keyboard

	// The cited sentences of the statement being shown.
	HighlightFg, HighlightBg string
	// The other citations of the same statement, shown more quietly.
	FaintHighlightFg, FaintHighlightBg string
	// Every search match, and the current one.
	MatchFg, MatchBg               string
	CurrentMatchFg, CurrentMatchBg string
	// The selected row of a list.
	SelectionFg, SelectionBg string

	Error   string
	Warning string
	Stage   string // stage messages and the spinner while an answer is worked on

	// A page drawn as a map of half blocks (the page view where the
	// terminal shows no pictures): its paper and its darkest ink. Its
	// cited lines take the highlight's background.
	PagePaper, PageInk string
}

// darkPalette is for terminals with a dark background: light text, amber
// for what is cited, blue for what was searched.
var darkPalette = Palette{
	Foreground: "#D8DEE9",
	Muted:      "#8A93A5",
	Accent:     "#88C0D0",

	Border:        "#4C566A",
	FocusedBorder: "#88C0D0",

	HighlightFg: "#1D2128", HighlightBg: "#EBCB8B",
	FaintHighlightFg: "#E5E9F0", FaintHighlightBg: "#4F4A36",
	MatchFg: "#ECEFF4", MatchBg: "#3E5F8A",
	CurrentMatchFg: "#1D2128", CurrentMatchBg: "#D08770",
	SelectionFg: "#ECEFF4", SelectionBg: "#3B4252",

	Error:     "#E06C75",
	Warning:   "#EBCB8B",
	Stage:     "#B48EAD",
	PagePaper: "#E5E9F0", PageInk: "#2E3440",
}

// lightPalette is for terminals with a light background.
var lightPalette = Palette{
	Foreground: "#24292F",
	Muted:      "#6E7781",
	Accent:     "#0969DA",

	Border:        "#C8D1DA",
	FocusedBorder: "#0969DA",

	HighlightFg: "#24292F", HighlightBg: "#FFD866",
	FaintHighlightFg: "#24292F", FaintHighlightBg: "#FFF3C4",
	MatchFg: "#24292F", MatchBg: "#B6E3FF",
	CurrentMatchFg: "#000000", CurrentMatchBg: "#FB8F44",
	SelectionFg: "#0A3069", SelectionBg: "#DDF4FF",

	Error:     "#CF222E",
	Warning:   "#9A6700",
	Stage:     "#8250DF",
	PagePaper: "#FFFFFF", PageInk: "#24292F",
}

// highContrastPalette leaves body text in the terminal's own foreground (so
// it reads on any background) and draws every mark as black or white on a
// saturated ANSI colour, which the terminal's palette keeps strong. Its
// styles add bold and underline on top, see build.
var highContrastPalette = Palette{
	Foreground: "",
	Muted:      "",
	Accent:     "12", // bright blue

	Border:        "",
	FocusedBorder: "11", // bright yellow

	HighlightFg: "0", HighlightBg: "11",
	FaintHighlightFg: "", FaintHighlightBg: "",
	MatchFg: "0", MatchBg: "14",
	CurrentMatchFg: "0", CurrentMatchBg: "13",
	SelectionFg: "0", SelectionBg: "15",

	Error:     "9",
	Warning:   "11",
	Stage:     "13",
	PagePaper: "15", PageInk: "0",
}

// noColorPalette is empty on purpose: with NO_COLOR every mark is drawn
// with attributes alone.
var noColorPalette = Palette{}
