package split

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// JoinPageBreaks joins the two halves of a sentence that a page break cut
// in two: a span that ends without closing its sentence (its last rune a
// lowercase letter, a digit, a comma or a hyphen, as in "in the region of"
// or "year-on-"), followed across a page start, with nothing but
// whitespace between (the loader having dropped the page's furniture and
// put its footnotes where they cut no sentence), by a span that opens as
// a continuation (a lowercase letter, a digit or an opening parenthesis,
// as in "50 bytes." or "(but the digest is different)."). The joined
// span stays within MaxSentenceBytes. Spans
// that do not meet at a page start are left as they are: a paragraph
// break within a page is the author's.
//
// pageStarts holds the byte offset of each page's first byte, as
// docstore.Document.PageStarts does; spans must be in order. The result
// reuses spans' array.
func JoinPageBreaks(text string, spans []Span, pageStarts []int32) []Span {
	if len(pageStarts) < 2 || len(spans) < 2 {
		return spans
	}
	out := spans[:1]
	p := 1 // index of the first page start after out's last span's start
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		for p < len(pageStarts) && int(pageStarts[p]) <= last.Start {
			p++
		}
		// A page starts between the two spans (at the gap, or at the
		// second span's first byte).
		broken := p < len(pageStarts) && int(pageStarts[p]) >= last.End && int(pageStarts[p]) <= sp.Start
		if broken && sp.End-last.Start <= MaxSentenceBytes &&
			strings.TrimSpace(text[last.End:sp.Start]) == "" &&
			endsOpen(text[last.Start:last.End]) && opensAsContinuation(text[sp.Start:sp.End]) {
			last.End = sp.End
			continue
		}
		out = append(out, sp)
	}
	return out
}

// endsOpen reports whether a sentence's last rune leaves it unfinished:
// a lowercase letter, a digit, a comma or a hyphen.
func endsOpen(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLower(r) || unicode.IsDigit(r) || r == ',' || r == '-'
}

// opensAsContinuation reports whether a span's first rune continues a
// sentence rather than starting one: a lowercase letter, a digit or "(".
// A list item or a numbered heading ("1. Introduction", "2) Then")
// starts afresh.
func opensAsContinuation(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if unicode.IsDigit(r) {
		i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) })
		return i < 0 || !(strings.HasPrefix(s[i:], ". ") || strings.HasPrefix(s[i:], ") "))
	}
	return unicode.IsLower(r) || r == '('
}
