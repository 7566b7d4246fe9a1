// Package structure holds the shapes of a document's text besides the
// text itself that the library records: spans, section headings and
// sections, tables, and the kind of text each sentence is (Flags). The
// loaders (ingest/…) report headings and tables in these shapes, the
// analysis (ingest/headings) turns them into sections and flags, and the
// library stores them and reads them back for each sentence's heading
// path and index fields.
//
// All positions are byte offsets into the stored text, so they stay exact
// when the text is cited.
package structure

import "strings"

// Span is a byte range [Start, End) of the stored text.
type Span struct {
	Start, End int32
}

// Len is the span's length in bytes.
func (s Span) Len() int32 { return s.End - s.Start }

// Shift returns s moved by bytes, as when a piece of text is placed after
// others; an empty span (none) stays empty.
func (s Span) Shift(by int32) Span {
	if s.Len() == 0 {
		return s
	}
	return Span{Start: s.Start + by, End: s.End + by}
}

// ShiftSpans returns a copy of ss with every span shifted by bytes.
func ShiftSpans(ss []Span, by int32) []Span {
	out := make([]Span, len(ss))
	for i, s := range ss {
		out[i] = s.Shift(by)
	}
	return out
}

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
	// the analysis then infers it (from numbering, say).
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

// Flags say what kind of text a sentence is, beyond plain body text. The
// index keeps every sentence searchable and citable; ranking demotes the
// noise kinds so they never outrank body text with the same terms.
type Flags uint8

// Sentence flags.
const (
	// FlagHeading: the sentence is a section heading.
	FlagHeading Flags = 1 << iota
	// FlagContents: a table-of-contents or index line ("Imports . . . 3").
	FlagContents
	// FlagFurniture: a page header, footer or page number that survived
	// extraction.
	FlagFurniture
	// FlagCode: code, a command line, markup, or an argument-list line.
	FlagCode
	// FlagFragment: too little text to be a statement ("14", "Record").
	FlagFragment
	// FlagTableRow: one row of a table (see Table).
	FlagTableRow
)

// noiseFlags are the kinds ranking demotes.
const noiseFlags = FlagHeading | FlagContents | FlagFurniture | FlagCode | FlagFragment

// Noise reports whether the sentence is of a kind ranking demotes.
func (f Flags) Noise() bool { return f&noiseFlags != 0 }

// String names the flags, for tools and tests: "heading+code", "" for body.
func (f Flags) String() string {
	names := []string{"heading", "contents", "furniture", "code", "fragment", "table-row"}
	var parts []string
	for i, n := range names {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "+")
}

// Section is a heading and the text under it, up to the next heading of
// the same or a higher level.
type Section struct {
	// Heading is the heading's text in the document.
	Heading Span
	// Level is the section's depth, 1 for the top.
	Level int
	// Parent is the enclosing section's index, -1 at the top.
	Parent int32
	// Sentence is the heading's sentence index, -1 when the heading is
	// not a sentence of its own (a PDF outline title run into a line).
	Sentence int32
}
