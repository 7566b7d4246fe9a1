// Package structure holds the shapes a loader reports about a document's
// text besides the text itself: its section headings and its tables. Every
// loader (PDF, text, Markdown, and the ones to come) fills them, and the
// library turns them into each sentence's heading path and index fields.
//
// All positions are byte offsets into the loader's stored text, so they
// stay exact when the text is cited.
package structure

// Span is a byte range [Start, End) of the stored text.
type Span struct {
	Start, End int32
}

// Len is the span's length in bytes.
func (s Span) Len() int32 { return s.End - s.Start }

// Valid reports whether the span is a non-empty range inside a text of
// n bytes.
func (s Span) Valid(n int) bool {
	return s.Start >= 0 && s.Start < s.End && int(s.End) <= n
}

// Heading is a section heading found by a loader.
type Heading struct {
	// Span is the heading's line (or lines) in the text.
	Span Span
	// Level is its depth: 1 for a chapter or top-level title, 2 for the
	// sections under it, and so on. 0 means the loader could not tell;
	// the library then infers it (from numbering, say).
	Level int
	// Source says how the loader knew: SourceOutline, SourceStyle,
	// SourceMarkup.
	Source Source
}

// Source says how a heading was recognised.
type Source uint8

// Heading sources, most trusted first.
const (
	// SourceMarkup: the format says so (Markdown #, HTML <h2>, a DOCX
	// heading style, an EPUB chapter title).
	SourceMarkup Source = iota
	// SourceOutline: the PDF's outline (bookmarks) names it.
	SourceOutline
	// SourceStyle: its line is set larger or bolder than the body text.
	SourceStyle
)

// Table is a table the loader kept as rows: each row is one line of the
// text with its cells in reading order.
type Table struct {
	// Caption is the table's caption or title line; zero if none.
	Caption Span
	// Header holds the header rows (column names), in order.
	Header []Span
	// Rows holds the body rows, in order.
	Rows []Span
}
