package retrieve

import (
	"strings"

	"github.com/citelens/citelens/docstore"
)

// Document structure the re-ranker reads from the sentence table and the
// text between sentences: paragraph breaks (a blank line between two
// sentences) and heading lines (a short line on its own with no
// sentence-final punctuation: a section title in a manual, an article
// title in a collection such as HotpotQA's paragraphs).

// headingLookback bounds the walk back from a sentence to its heading.
const headingLookback = 40

// breakBefore reports whether a paragraph break (a blank line) separates
// sentence i from sentence i-1.
func breakBefore(d *docstore.Document, i int) bool {
	if i <= 0 || i >= len(d.Sentences) {
		return true
	}
	gap := d.Text[d.Sentences[i-1].End:d.Sentences[i].Start]
	first := strings.IndexByte(gap, '\n')
	return first >= 0 && strings.IndexByte(gap[first+1:], '\n') >= 0 || strings.IndexByte(gap, '\f') >= 0
}

// lineAlone reports whether sentence i stands on a line of its own.
func lineAlone(d *docstore.Document, i int) bool {
	s := d.Sentences[i]
	before := d.Text[:s.Start]
	if j := strings.LastIndexByte(before, '\n'); strings.TrimSpace(before[j+1:]) != "" {
		return false
	}
	after := d.Text[s.End:]
	if j := strings.IndexByte(after, '\n'); j >= 0 {
		after = after[:j]
	}
	return strings.TrimSpace(after) == ""
}

// headingLine returns the byte range of sentence i's heading line, if it is
// one: the whole sentence when it is a heading line alone on its line, or
// its first line when that line is a heading the segmenter ran into the
// following sentence.
func headingLine(d *docstore.Document, i int) (start, end int, ok bool) {
	s := d.Sentences[i]
	text := d.Text[s.Start:s.End]
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		if nl > 0 && isHeadingLine(text[:nl]) && breakBefore(d, i) {
			return int(s.Start), int(s.Start) + nl, true
		}
		return 0, 0, false
	}
	if isHeadingLine(text) && lineAlone(d, i) && breakBefore(d, i) {
		return int(s.Start), int(s.End), true
	}
	return 0, 0, false
}

// isHeading reports whether sentence i is entirely a heading line.
func isHeading(d *docstore.Document, i int) bool {
	start, end, ok := headingLine(d, i)
	return ok && start == int(d.Sentences[i].Start) && end == int(d.Sentences[i].End)
}

// headingOf finds the heading above sentence i: the nearest heading line
// before it, within headingLookback sentences. A sentence that is itself a
// heading has none.
func headingOf(d *docstore.Document, i int) (start, end int, ok bool) {
	if isHeading(d, i) {
		return 0, 0, false
	}
	if start, end, ok := headingLine(d, i); ok {
		// The heading runs into this sentence: its terms are the
		// sentence's own already.
		_ = start
		_ = end
		return 0, 0, false
	}
	for j := i - 1; j >= 0 && j >= i-headingLookback; j-- {
		if start, end, ok := headingLine(d, j); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}

// isLead reports whether sentence i opens a section: it follows a heading
// line directly, or a heading line runs into it.
func isLead(d *docstore.Document, i int) bool {
	if _, _, ok := headingLine(d, i); ok {
		return !isHeading(d, i)
	}
	return i > 0 && isHeading(d, i-1)
}

// paragraph returns the first and last sentence of sentence i's paragraph,
// at most radius sentences either side, heading lines excluded.
func paragraph(d *docstore.Document, i, radius int) (first, last int) {
	first, last = i, i
	for first > 0 && first > i-radius && !breakBefore(d, first) && !isHeading(d, first-1) {
		first--
	}
	for last+1 < len(d.Sentences) && last < i+radius && !breakBefore(d, last+1) && !isHeading(d, last+1) {
		last++
	}
	return first, last
}
