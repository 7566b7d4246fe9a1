package extractive

import (
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
)

// Bounds of what a statement takes beyond its selected sentences (see
// passageOf): a statement is the passage a person needs, never a padding.
const (
	// MaxExtra is how many sentences a statement may take beyond its
	// selected ones.
	MaxExtra = 3
	// MaxExtraBytes bounds the bytes those sentences add.
	MaxExtraBytes = 500
)

// passageOf widens a group to the passage a reader needs, within MaxExtra
// sentences and MaxExtraBytes: what its last sentence introduces (a
// sentence ending in ":" or "…the following." takes the code line or the
// list items under it), the sentence that completes it (the next one of
// its paragraph when it gives a default or a limit: "The default value is
// twenty million bytes."), and, for a first sentence that opens with a
// pronoun ("It is controlled by…", "This means…"), the sentence it refers
// to. It never crosses a heading or leaves the section.
func passageOf(d *docstore.View, g group) group {
	n := d.NumSentences()
	budget, left := MaxExtraBytes, MaxExtra
	take := func(i int) bool {
		if i < 0 || i >= n || left == 0 {
			return false
		}
		s := d.Sentence(i)
		size := int(s.End - s.Start)
		if size > budget || s.Flags&(structure.FlagHeading|structure.FlagFurniture|structure.FlagContents) != 0 {
			return false
		}
		budget -= size
		left--
		return true
	}
	sameSection := func(i, j int) bool { return d.Sentence(i).Section == d.Sentence(j).Section }
	// Forward: what a lead-in introduces, as long as each line taken
	// introduces or lists more.
	for introduces(d.SentenceText(g.last)) || (g.last > g.first && listed(d, g.last) && listed(d, g.last+1)) {
		j := g.last + 1
		if j >= n || !sameSection(g.last, j) || !take(j) {
			break
		}
		g.last = j
		if !introduces(d.SentenceText(j)) && !listed(d, j+1) && !(j+1 < n && introduces(d.SentenceText(j+1))) {
			break
		}
	}
	// The sentence that completes it: a default or a limit, told next in
	// the same paragraph.
	if j := g.last + 1; j < n && sameParagraph(d, g.last, j) && completes(d.SentenceText(j)) && take(j) {
		g.last = j
	}
	// Backward: a first sentence that refers to the one before it.
	if i := g.first - 1; i >= 0 && refersBack(d.SentenceText(g.first)) && sameParagraph(d, i, g.first) && take(i) {
		g.first = i
	}
	return g
}

// introduces reports whether a sentence leads in to what follows it: it
// ends in a colon, or in "the following", "as follows", "like this".
func introduces(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, ":") {
		return true
	}
	t = strings.ToLower(strings.TrimRight(t, ".;"))
	for _, end := range []string{"the following", "as follows", "like this", "for example", "e.g", "such as"} {
		if strings.HasSuffix(t, end) {
			return true
		}
	}
	return strings.HasPrefix(t, "the following ") && len(t) < 120
}

// listed reports whether sentence i is a list item or a code line: what
// a lead-in introduces.
func listed(d *docstore.View, i int) bool {
	if i < 0 || i >= d.NumSentences() {
		return false
	}
	if d.Sentence(i).Flags&structure.FlagCode != 0 {
		return true
	}
	t := strings.TrimSpace(d.SentenceText(i))
	for _, bullet := range []string{"•", "◦", "‣", "– ", "- ", "* ", "$ ", "# ", "% "} {
		if strings.HasPrefix(t, bullet) {
			return true
		}
	}
	return false
}

// completes reports whether a sentence completes the one before it with
// a value: a default, a limit, the values allowed.
func completes(s string) bool {
	if len(s) > 200 {
		return false
	}
	t := strings.ToLower(s)
	for _, w := range []string{"default", "maximum value", "minimum value", "valid values", "allowed values", "possible values"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// refersBack reports whether a sentence opens with a word that refers to
// the sentence before it: "It", "This", "These", "They", "Such".
func refersBack(s string) bool {
	t := strings.TrimSpace(s)
	for _, w := range []string{"It ", "This ", "These ", "They ", "Such ", "Its ", "Their ", "That "} {
		if strings.HasPrefix(t, w) {
			return true
		}
	}
	return false
}

// sameParagraph reports whether sentences i and j (i < j, adjacent) are
// in one paragraph: one section, no blank line or page break between.
func sameParagraph(d *docstore.View, i, j int) bool {
	if d.Sentence(i).Section != d.Sentence(j).Section {
		return false
	}
	a, b := d.Sentence(i), d.Sentence(j)
	if a.Flags.Noise() || b.Flags.Noise() {
		return false
	}
	gap := d.Slice(int(a.End), int(b.Start))
	return strings.Count(gap, "\n") <= 1 && !strings.ContainsRune(gap, '\f')
}
