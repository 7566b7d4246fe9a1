package docstore

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citelens/citelens/internal/textproc/aliases"
)

// A manual's back-of-book index sends a reader's word to the page where
// the manual uses its own: nettle's "Triple-DES . . . 32" leads to page
// 32, headed "7.2.9 DES3", whose text says "DES3 has a key size of 168
// bits" and never "Triple-DES" there. MineAliases reads the index
// sections at the end of a document (aliases.ParseIndexLine), resolves
// each entry's printed page to the document's page, and pairs the entry
// with the name of the section headed there (its heading without its
// number) when that name is another: an alias whose sentence is the
// section's heading, so retrieval keeps it when a passage of that
// section is a candidate (engine/retrieve/alias.go). Cross-references
// ("Triple-DES, see DES3"; in the text, `“triple DES”, see DES3 below`)
// name the section directly.
//
// It is conservative, since a wrong alias moves answers: an entry that
// lists more than maxIndexPages pages names a topic, not a thing; an
// entry whose words the section's name holds already adds nothing; a
// program's name ("des3_set_key", "regexpr (grep)") whose section uses it
// already adds nothing either; a page on which more than
// maxSectionsOnPage sections begin is not one section's; and an index
// whose page numbers cannot be resolved (no page labels, and too few of
// its entries naming a section's heading to tell the offset) gives none.

const (
	// maxIndexPages is the most pages an entry used may list.
	maxIndexPages = 2
	// maxEntryTerms is the most terms of an entry used: each leads to
	// the section's name alone, and a longer entry is a description.
	maxEntryTerms = 2
	// maxTermEntries is the most index entries a term may be a word of
	// to lead to a section's name (commonTerms).
	maxTermEntries = 2
	// maxSectionsOnPage is the most sections beginning on an entry's page
	// for it to be paired with them.
	maxSectionsOnPage = 2
	// minOpenText is the text of the section a page opens in, before
	// the page's first heading, above which the entry may be that
	// section's (more than a running head's or a blank's).
	minOpenText = 40
	// minCalibration is how many of an index's entries must name a
	// section's heading, and agree on the offset from printed page
	// numbers to the document's pages, for a document without page
	// labels; the most common offset must be at least two thirds of them.
	minCalibration = 3
)

// indexAliases returns the aliases d's index sections and text
// cross-references give.
func indexAliases(d *Document) []Alias {
	ix := newSectionIndex(d)
	entries := ix.indexEntries()
	var out []Alias
	if len(entries) > 0 {
		ix.named()
		ix.common = commonTerms(entries)
		resolve := ix.pageResolver(entries) // nil: only cross-references are placed
		for _, e := range entries {
			out = append(out, ix.entryAliases(e, resolve)...)
		}
	}
	out = append(out, ix.textSees()...)
	return dedupeAliases(out)
}

// sectionIndex is what pairing index entries needs of a document: its
// sections' names as terms and the names' sections.
type sectionIndex struct {
	d      *Document
	names  [][]string       // per section: its name's terms
	byName map[string][]int // joined name terms → sections
	index  []bool           // per section: an index section
	common map[string]bool  // terms of more than maxTermEntries index entries
	// said and openings cache the terms of texts read (by start and end)
	// and the first terms of each page's sentences: an index of
	// thousands of entries reads few pages many times.
	said     map[[2]int]map[string]bool
	openings map[int][][]string
}

// commonTerms returns the terms more than maxTermEntries of an index's
// entries hold: a word of many entries ("mode" of "CBC mode", "CCM
// mode", …; "file", "line") is no name of one thing, and the entry is
// reached through its other words ("Triple-DES": "triple").
func commonTerms(entries []aliases.IndexEntry) map[string]bool {
	n := map[string]int{}
	for _, e := range entries {
		name, _ := aliases.SplitTopic(e.Entry)
		seen := map[string]bool{}
		for _, t := range aliases.Terms(name) {
			if !seen[t] {
				seen[t] = true
				n[t]++
			}
		}
	}
	out := map[string]bool{}
	for t, c := range n {
		if c > maxTermEntries {
			out[t] = true
		}
	}
	return out
}

func newSectionIndex(d *Document) *sectionIndex {
	ix := &sectionIndex{d: d, index: make([]bool, len(d.Sections)), said: map[[2]int]map[string]bool{}, openings: map[int][][]string{}}
	for i, s := range d.Sections {
		// An index is at the end: a title page's "Reference Index" is not one.
		ix.index[i] = int(s.Heading.Start) >= len(d.Text)/2 && aliases.IsIndexHeading(ix.heading(i))
	}
	return ix
}

// named fills the sections' names, once: only a document with an index
// or a cross-reference needs them, and a reference manual has tens of
// thousands of headings.
func (ix *sectionIndex) named() {
	if ix.names != nil {
		return
	}
	ix.names, ix.byName = make([][]string, len(ix.d.Sections)), map[string][]int{}
	for i := range ix.d.Sections {
		ix.names[i] = aliases.Terms(aliases.HeadingName(ix.heading(i)))
		if k := strings.Join(ix.names[i], " "); k != "" {
			ix.byName[k] = append(ix.byName[k], i)
		}
	}
}

// heading is section i's heading text, "" when its span is damaged.
func (ix *sectionIndex) heading(i int) string {
	sp := ix.d.Sections[i].Heading
	if !sp.Valid(len(ix.d.Text)) {
		return ""
	}
	return ix.d.Text[sp.Start:sp.End]
}

// end is where section i's text ends: the next heading of its level or
// above, or the text's end.
func (ix *sectionIndex) end(i int) int {
	for k := i + 1; k < len(ix.d.Sections); k++ {
		if ix.d.Sections[k].Level <= ix.d.Sections[i].Level {
			return int(ix.d.Sections[k].Heading.Start)
		}
	}
	return len(ix.d.Text)
}

// indexEntries parses the lines of d's index sections.
func (ix *sectionIndex) indexEntries() []aliases.IndexEntry {
	var out []aliases.IndexEntry
	done := 0
	for i := range ix.d.Sections {
		if !ix.index[i] {
			continue
		}
		start, end := max(int(ix.d.Sections[i].Heading.End), done), ix.end(i)
		if start >= end || end > len(ix.d.Text) {
			continue
		}
		done = end
		for _, line := range strings.Split(ix.d.Text[start:end], "\n") {
			if e, ok := aliases.ParseIndexLine(line); ok {
				out = append(out, e)
			}
		}
	}
	return out
}

// pageResolver returns how a printed page label becomes the document's
// page: through its page labels when it has them, else through the
// offset its index's entries that name a heading agree on. nil when
// neither tells.
func (ix *sectionIndex) pageResolver(entries []aliases.IndexEntry) func(label string) int {
	pages := len(ix.d.PageStarts)
	if pages < 2 {
		return nil
	}
	if len(ix.d.PageLabels) > 0 {
		at := map[string]int{}
		for p := pages; p >= 1; p-- { // the first page of a label wins
			at[ix.d.PageLabel(p)] = p
		}
		return func(label string) int { return at[label] }
	}
	off, ok := ix.calibrate(entries)
	if !ok {
		return nil
	}
	return func(label string) int {
		n, err := strconv.Atoi(label)
		if err != nil || n+off < 1 || n+off > pages {
			return 0
		}
		return n + off
	}
}

// calibrate finds the offset from printed page numbers to the
// document's pages that the index's entries naming one section's heading
// agree on ("DES3 . . . 32" and "7.2.9 DES3" on page 37: 5).
func (ix *sectionIndex) calibrate(entries []aliases.IndexEntry) (int, bool) {
	count := map[int]int{}
	points := 0
	for _, e := range entries {
		if len(e.Pages) != 1 {
			continue
		}
		n, err := strconv.Atoi(e.Pages[0])
		if err != nil {
			continue
		}
		secs := ix.byName[strings.Join(aliases.Terms(e.Entry), " ")]
		if len(secs) != 1 || ix.index[secs[0]] {
			continue
		}
		points++
		count[ix.pageOfSection(secs[0])-n]++
	}
	best, bestN := 0, 0
	for off, c := range count {
		if c > bestN || c == bestN && off < best {
			best, bestN = off, c
		}
	}
	return best, bestN >= minCalibration && 3*bestN >= 2*points
}

// pageOfSection is the page section i's heading is on.
func (ix *sectionIndex) pageOfSection(i int) int {
	return pageOf(ix.d.PageStarts, int(ix.d.Sections[i].Heading.Start))
}

// sectionsOn returns the sections an index's page leads to: those
// headed on it, and the one its text opens in when the page holds some
// of that one's text before its first heading; none when more than
// maxSectionsOnPage begin there. headed reports that the page's text
// opens with the one section returned.
func (ix *sectionIndex) sectionsOn(page int) (secs []int, headed bool) {
	starts := ix.d.PageStarts
	if page < 1 || page > len(starts) {
		return nil, false
	}
	from, to := int(starts[page-1]), len(ix.d.Text)
	if page < len(starts) {
		to = int(starts[page])
	}
	// Sections are in text order: those headed on the page follow the
	// one open at its start.
	secs = nil
	k := sort.Search(len(ix.d.Sections), func(i int) bool { return int(ix.d.Sections[i].Heading.Start) >= from })
	open := k - 1
	var on []int
	for i := k; i < len(ix.d.Sections) && int(ix.d.Sections[i].Heading.Start) < to; i++ {
		on = append(on, i)
	}
	if len(on) > maxSectionsOnPage {
		return nil, false
	}
	first := to
	if len(on) > 0 {
		first = int(ix.d.Sections[on[0]].Heading.Start)
	}
	if open >= 0 && from <= first && first <= len(ix.d.Text) && len(strings.TrimSpace(ix.d.Text[from:first])) > minOpenText {
		return append([]int{open}, on...), false
	}
	return on, len(on) == 1
}

// entryAliases pairs one entry with the sections its page leads to, or
// a cross-reference with the section its target names. An entry that is
// a section's name already names that section, whatever else its page
// holds; a program's name its page's text uses says nothing new; nor
// does an entry a sentence of its page opens with (a heading not found).
func (ix *sectionIndex) entryAliases(e aliases.IndexEntry, resolve func(string) int) []Alias {
	name, topic := aliases.SplitTopic(e.Entry)
	terms := aliases.Terms(name)
	if len(terms) == 0 || len(terms) > maxEntryTerms || len(ix.byName[strings.Join(terms, " ")]) > 0 {
		return nil
	}
	if e.See != "" {
		if s := ix.byName[strings.Join(aliases.Terms(e.See), " ")]; len(s) == 1 {
			return ix.aliasesTo(s[0], terms)
		}
		return nil
	}
	if resolve == nil || len(e.Pages) > maxIndexPages {
		return nil
	}
	code := topic != "" || aliases.IsIdentifier(name)
	var out []Alias
	for _, label := range e.Pages {
		page := resolve(label)
		secs, headed := ix.sectionsOn(page)
		as := ix.pageAliases(secs, headed, terms)
		// The page's text is read only for an entry that would give an
		// alias: most of a reference manual's lead to no name.
		if len(as) == 0 || code && ix.pageSays(page, terms) || ix.sentenceOpens(page, terms) {
			continue
		}
		out = append(out, as...)
	}
	return out
}

// pageAliases pairs an entry's terms with the sections its page leads
// to: none when one of them is named by the entry already (the page is
// that section's). The one section a page opens with is the entry's; of
// several, only those whose text uses every term are (an entry on a page
// where "EAX-AES128 interface" ends and "Galois counter mode" begins is
// GCM's).
func (ix *sectionIndex) pageAliases(secs []int, headed bool, terms []string) []Alias {
	for _, s := range secs {
		if holdsAll(ix.names[s], terms) {
			return nil
		}
	}
	var out []Alias
	for _, s := range secs {
		if as := ix.aliasesTo(s, terms); len(as) > 0 && (headed || ix.sectionSays(s, terms)) {
			out = append(out, as...)
		}
	}
	return out
}

// holdsAll reports whether have holds every one of terms.
func holdsAll(have, terms []string) bool {
	for _, t := range terms {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

// aliasesTo returns the aliases from each of terms that are not common
// to many index entries to section s's name, said at its heading; none
// when the name shares a term with the entry (the entry is a kind of
// the section's thing, or the section itself), is too long to be a name,
// or other sections share it.
func (ix *sectionIndex) aliasesTo(s int, terms []string) []Alias {
	name := ix.names[s]
	sent := ix.headingSentence(s)
	if len(name) == 0 || len(name) > aliases.MaxIndexWords || sent < 0 || len(ix.byName[strings.Join(name, " ")]) != 1 {
		return nil // no name, or one many sections share ("Details"): it names no thing
	}
	for _, t := range terms {
		if slices.Contains(name, t) {
			return nil // a kind of the section's thing ("Block cipher" at "Cipher functions"): its other word names nothing alone
		}
	}
	other := strings.Join(name, " ")
	var out []Alias
	for _, t := range terms {
		if len(t) >= 2 && !slices.Contains(name, t) && !ix.common[t] {
			out = append(out, Alias{Word: t, Other: other, Sentence: int32(sent)})
		}
	}
	return out
}

// headingSentence is the sentence that holds section s's heading, -1 if
// none does.
func (ix *sectionIndex) headingSentence(s int) int {
	if n := ix.d.Sections[s].Sentence; n >= 0 && int(n) < len(ix.d.Sentences) {
		return int(n)
	}
	at := ix.d.Sections[s].Heading.Start
	i, _ := slices.BinarySearchFunc(ix.d.Sentences, at, func(x Sentence, at int32) int {
		switch {
		case x.End <= at:
			return -1
		case x.Start > at:
			return 1
		}
		return 0
	})
	if i < len(ix.d.Sentences) && ix.d.Sentences[i].Start <= at && at < ix.d.Sentences[i].End {
		return i
	}
	return -1
}

// sectionSays reports whether section s's own text, up to its first
// subsection, holds every one of terms.
func (ix *sectionIndex) sectionSays(s int, terms []string) bool {
	start, end := int(ix.d.Sections[s].Heading.Start), len(ix.d.Text)
	if s+1 < len(ix.d.Sections) {
		end = int(ix.d.Sections[s+1].Heading.Start)
	}
	return ix.textSays(start, end, terms)
}

// pageSays reports whether page's text holds every one of terms.
func (ix *sectionIndex) pageSays(page int, terms []string) bool {
	starts := ix.d.PageStarts
	if page < 1 || page > len(starts) {
		return false
	}
	from, to := int(starts[page-1]), len(ix.d.Text)
	if page < len(starts) {
		to = int(starts[page])
	}
	return ix.textSays(from, to, terms)
}

// sentenceOpens reports whether a sentence on page opens with terms: a
// heading the document's structure did not find ("Practical guidelines
// If you have…"), whose text is the entry's own.
func (ix *sectionIndex) sentenceOpens(page int, terms []string) bool {
	if page < 1 || page > len(ix.d.PageStarts) {
		return false
	}
	openings, ok := ix.openings[page]
	if !ok {
		i, _ := slices.BinarySearchFunc(ix.d.Sentences, int32(page), func(s Sentence, p int32) int { return int(s.Page - p) })
		for ; i < len(ix.d.Sentences) && ix.d.Sentences[i].Page == int32(page); i++ {
			s := ix.d.Sentences[i]
			if s.Start < 0 || s.Start > s.End || s.End > int32(len(ix.d.Text)) {
				continue
			}
			got := aliases.Terms(ix.d.Text[s.Start:min(s.End, s.Start+80)])
			openings = append(openings, got[:min(len(got), maxEntryTerms)])
		}
		ix.openings[page] = openings
	}
	for _, got := range openings {
		if len(got) >= len(terms) && slices.Equal(got[:len(terms)], terms) {
			return true
		}
	}
	return false
}

// textSays reports whether the text from start to end holds every one of
// terms.
func (ix *sectionIndex) textSays(start, end int, terms []string) bool {
	if start < 0 || start > end || end > len(ix.d.Text) {
		return false
	}
	k := [2]int{start, end}
	w, ok := ix.said[k]
	if !ok {
		w = map[string]bool{}
		for _, t := range aliases.Terms(ix.d.Text[start:end]) {
			w[t] = true
		}
		ix.said[k] = w
	}
	for _, t := range terms {
		if !w[t] {
			return false
		}
	}
	return true
}

// textSees returns the aliases of the text's cross-references, `“triple
// DES”, see DES3 below`: said at the heading of the one section the
// target names, else in the sentence itself.
func (ix *sectionIndex) textSees() []Alias {
	var out []Alias
	for i, s := range ix.d.Sentences {
		if s.Start < 0 || s.End > int32(len(ix.d.Text)) || s.Start > s.End {
			continue
		}
		for _, pair := range aliases.SeeInText(ix.d.Text[s.Start:s.End]) {
			ix.named()
			if secs := ix.byName[strings.Join(pair[1], " ")]; len(secs) == 1 {
				out = append(out, ix.aliasesTo(secs[0], pair[0])...)
				continue
			}
			for _, t := range pair[0] {
				if len(t) >= 2 && !slices.Contains(pair[1], t) {
					out = append(out, Alias{Word: t, Other: strings.Join(pair[1], " "), Sentence: int32(i)})
				}
			}
		}
	}
	return out
}

// dedupeAliases keeps the first of each alias given twice (an index
// lists "3DES" and "Triple-DES" at one page).
func dedupeAliases(as []Alias) []Alias {
	seen := map[Alias]bool{}
	out := as[:0]
	for _, a := range as {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
