package retrieve

import (
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
)

// Document structure the re-ranker reads: the sections, heading paths and
// sentence flags the library found at ingest (docstore/structure), and
// paragraph breaks (a blank line between two sentences) from the text.

// breakBefore reports whether a paragraph break (a blank line) separates
// sentence i from sentence i-1.
func breakBefore(d *docstore.View, i int) bool {
	if i <= 0 || i >= d.NumSentences() {
		return true
	}
	gap := d.Slice(int(d.Sentence(i-1).End), int(d.Sentence(i).Start))
	first := strings.IndexByte(gap, '\n')
	return first >= 0 && strings.IndexByte(gap[first+1:], '\n') >= 0 || strings.IndexByte(gap, '\f') >= 0
}

// flags are sentence i's structure flags.
func flags(d *docstore.View, i int) structure.Flags {
	if i < 0 || i >= d.NumSentences() {
		return 0
	}
	return d.Sentence(i).Flags
}

// isHeading reports whether sentence i is a section heading.
func isHeading(d *docstore.View, i int) bool {
	return flags(d, i)&structure.FlagHeading != 0
}

// sectionOf is the innermost section sentence i lies in, -1 for none.
func sectionOf(d *docstore.View, i int) int {
	if i < 0 || i >= d.NumSentences() {
		return -1
	}
	s := int(d.Sentence(i).Section)
	if s >= len(d.Sections()) {
		return -1
	}
	return s
}

// headingSentence is the sentence holding section s's heading, -1 if its
// heading is no sentence of its own.
func headingSentence(d *docstore.View, s int) int {
	if s < 0 || s >= len(d.Sections()) {
		return -1
	}
	return int(d.Sections()[s].Sentence)
}

// isLead reports whether sentence i opens a section: the first sentence
// after its heading.
func isLead(d *docstore.View, i int) bool {
	if isHeading(d, i) {
		return false
	}
	h := headingSentence(d, sectionOf(d, i))
	if h < 0 || h >= i {
		return false
	}
	for j := h + 1; j < i; j++ {
		if flags(d, j)&(structure.FlagFurniture) == 0 {
			return false
		}
	}
	return true
}

// paragraph returns the first and last sentence of sentence i's paragraph,
// at most radius sentences either side, headings excluded.
func paragraph(d *docstore.View, i, radius int) (first, last int) {
	first, last = i, i
	for first > 0 && first > i-radius && !breakBefore(d, first) && !isHeading(d, first-1) {
		first--
	}
	for last+1 < d.NumSentences() && last < i+radius && !breakBefore(d, last+1) && !isHeading(d, last+1) {
		last++
	}
	return first, last
}
