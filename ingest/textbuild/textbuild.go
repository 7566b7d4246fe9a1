// Package textbuild writes the stored text of a structured document (a web
// page, a Word file, an e-book, an OCR'd page) block by block, and records
// where its headings, tables and pages fall in it.
//
// The loaders of those formats all produce the same shape of text, which
// the sentence segmenter and the structure index expect:
//
//   - blocks (paragraphs, headings, captions) are separated by a blank line;
//   - the lines of a group (list items, table rows, preformatted lines) by
//     one newline;
//   - a table row is one line with its cells in order, separated by two
//     spaces;
//   - whitespace inside a paragraph is one space, and the text holds no
//     control character but "\n" and no invalid UTF-8.
//
// Every span the Builder reports is a byte range of the text it returns.
package textbuild

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
)

// CellSeparator joins the cells of a table row.
const CellSeparator = "  "

// Result is a document's text with its structure.
type Result struct {
	// Text is the stored text (see the package comment for its shape).
	Text string
	// PageStarts[i] is the byte offset at which page i+1 begins; there is
	// always at least one page, starting at 0.
	PageStarts []int32
	Headings   []structure.Heading
	Tables     []structure.Table
	// Title is the document's title, if the format names one.
	Title string
	// Warnings say what of the file could not be read, one sentence each.
	Warnings []string
}

// Builder accumulates a document's text. The zero value is ready to use.
type Builder struct {
	b          strings.Builder
	pageStarts []int32
	headings   []structure.Heading
	tables     []structure.Table
	table      *structure.Table // the table being written, if any
	// inGroup is set after a line of a group: the next line of the
	// group follows after one newline, anything else after a blank line.
	inGroup bool
	// newPage is set by PageBreak: the next block starts a page.
	newPage bool
}

// Len is the length of the text written so far.
func (b *Builder) Len() int { return b.b.Len() }

// Paragraph writes a block of prose. Its whitespace runs become one space;
// an empty paragraph writes nothing. It returns the span written (zero if
// nothing was).
func (b *Builder) Paragraph(text string) structure.Span {
	return b.block(Clean(text), false)
}

// Heading writes text as a heading block of the given level (1 for the
// top, 0 if unknown) and records it with its source.
func (b *Builder) Heading(level int, source structure.Source, text string) {
	if sp := b.Paragraph(text); sp.Len() > 0 {
		b.headings = append(b.headings, structure.Heading{Span: sp, Level: level, Source: source})
	}
}

// Line writes one line of a group (a list item, say): it follows the
// group's previous line after one newline, and any other block after a
// blank line. Whitespace runs become one space.
func (b *Builder) Line(text string) structure.Span {
	return b.block(Clean(text), true)
}

// Preformatted writes text keeping its line breaks (code, poetry): each
// line is cleaned of control characters and tabs, its leading indentation
// kept; blank lines inside are dropped so the block stays one group.
func (b *Builder) Preformatted(text string) {
	for _, ln := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		ln = strings.TrimRight(cleanKeepIndent(ln), " ")
		if strings.TrimSpace(ln) != "" {
			b.block(ln, true)
		}
	}
	b.EndGroup()
}

// EndGroup ends the current group of lines: what follows starts after a
// blank line.
func (b *Builder) EndGroup() { b.inGroup = false }

// PageBreak makes the next block start a new page. Breaks before any text
// or repeated breaks make no empty pages.
func (b *Builder) PageBreak() {
	if b.b.Len() > 0 {
		b.newPage = true
	}
}

// BeginTable starts a table; caption may be empty.
func (b *Builder) BeginTable(caption string) {
	b.EndTable()
	b.table = &structure.Table{}
	b.EndGroup()
	b.table.Caption = b.Paragraph(caption)
	b.EndGroup()
}

// Row writes one table row: its cells cleaned to one line each and joined
// by CellSeparator. A row whose cells are all empty writes nothing.
// header marks a row of column names. Outside a table Row starts one.
func (b *Builder) Row(cells []string, header bool) {
	if b.table == nil {
		b.BeginTable("")
	}
	var sb strings.Builder
	empty := true
	for i, c := range cells {
		c = Clean(c)
		if c != "" {
			empty = false
		}
		if i > 0 {
			sb.WriteString(CellSeparator)
		}
		sb.WriteString(c)
	}
	if empty {
		return
	}
	sp := b.block(strings.TrimRight(sb.String(), " "), true)
	if header && len(b.table.Rows) == 0 {
		b.table.Header = append(b.table.Header, sp)
	} else {
		b.table.Rows = append(b.table.Rows, sp)
	}
}

// EndTable finishes the current table, recording it if it has rows.
func (b *Builder) EndTable() {
	t := b.table
	if t == nil {
		return
	}
	b.table = nil
	b.EndGroup()
	if len(t.Rows) > 0 || len(t.Header) > 0 {
		b.tables = append(b.tables, *t)
	}
}

// Result returns the text and its structure. The Builder must not be used
// afterwards.
func (b *Builder) Result() *Result {
	b.EndTable()
	starts := b.pageStarts
	if len(starts) == 0 || starts[0] != 0 {
		starts = append([]int32{0}, starts...)
	}
	return &Result{Text: b.b.String(), PageStarts: starts, Headings: b.headings, Tables: b.tables}
}

// block writes s (already clean) as a block, or as the next line of a
// group, and returns its span.
func (b *Builder) block(s string, line bool) structure.Span {
	if s == "" {
		return structure.Span{}
	}
	if b.b.Len() > 0 {
		if line && b.inGroup && !b.newPage {
			b.b.WriteByte('\n')
		} else {
			b.b.WriteString("\n\n")
		}
	}
	if b.newPage {
		b.pageStarts = append(b.pageStarts, int32(b.b.Len()))
		b.newPage = false
	}
	start := b.b.Len()
	b.b.WriteString(s)
	b.inGroup = line
	return structure.Span{Start: int32(start), End: int32(b.b.Len())}
}

// Clean makes s one line of stored text: runs of whitespace (any Unicode
// space, newlines and tabs included) become one space, leading and
// trailing space goes, control and format characters (soft hyphens,
// zero-width spaces, byte order marks, bidirectional overrides) are
// dropped, and invalid UTF-8 becomes U+FFFD.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			r = utf8.RuneError
		case unicode.IsSpace(r):
			space = sb.Len() > 0
			continue
		case dropped(r):
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// isClean reports whether Clean would return s unchanged: the common case
// of plain ASCII words with single spaces, checked without allocating.
func isClean(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c < 0x20 || c == 0x7f {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
	}
	return true
}

// cleanKeepIndent is Clean for a preformatted line: leading spaces and
// tabs (as four spaces) are kept so code keeps its shape.
func cleanKeepIndent(s string) string {
	indent := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			indent++
			continue
		case '\t':
			indent += 4
			continue
		}
		break
	}
	body := Clean(strings.ReplaceAll(s, "\t", "    "))
	if body == "" {
		return ""
	}
	return strings.Repeat(" ", min(indent, 40)) + body
}

// dropped reports whether r is left out of stored text: control
// characters and invisible format characters.
func dropped(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0xad, r == 0xfeff, r == 0xfffe, r == 0xffff:
		return true
	case r == 0x200b, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	}
	return false
}
