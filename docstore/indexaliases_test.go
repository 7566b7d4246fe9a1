package docstore

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
)

// indexDoc builds a document of pages of lines, one sentence a line; a
// line "# …" is a heading of level 1, "## …" of level 2.
func indexDoc(pages [][]string) *Document {
	d := &Document{}
	var text strings.Builder
	parents := map[int]int32{}
	for p, lines := range pages {
		d.PageStarts = append(d.PageStarts, int32(text.Len()))
		for _, line := range lines {
			level := 0
			for strings.HasPrefix(line, "#") {
				line = line[1:]
				level++
			}
			line = strings.TrimSpace(line)
			start := int32(text.Len())
			text.WriteString(line)
			end := int32(text.Len())
			text.WriteString("\n")
			sec := int32(len(d.Sections) - 1)
			if level > 0 {
				parent := int32(-1)
				if level > 1 {
					parent = parents[level-1]
				}
				sec = int32(len(d.Sections))
				parents[level] = sec
				d.Sections = append(d.Sections, structure.Section{Heading: structure.Span{Start: start, End: end},
					Level: level, Parent: parent, Sentence: int32(len(d.Sentences))})
			}
			d.Sentences = append(d.Sentences, Sentence{Start: start, End: end, Page: int32(p + 1), Section: sec})
		}
	}
	d.Text = text.String()
	return d
}

// manual is a small manual whose printed page numbers are its pages' less
// two, with an index at its end.
func manual(index ...string) [][]string {
	return [][]string{
		{"Contents", "Ciphers 1", "AES 2"},
		{"Preface", "This manual is about ciphers."},
		{"# 1 Ciphers", "Block ciphers are discussed here."},
		{"## 1.1 AES", "AES is the standard."},
		{"## 1.2 DES3", "DES3 has a key size of 168 bits.", "des3_set_key sets the key."},
		{"## 1.3 Arcfour", "Arcfour is a stream cipher."},
		{"# 2 Modes", "## Details", "Parity bits are ignored."},
		{"# 3 Hashes", "## Details", "Hashes are long."},
		append([]string{"# Index", "A"}, index...),
	}
}

var fullIndex = []string{
	"3DES . . . . . . . . 3",
	"AES . . . . . . . . . 2",
	"Arcfour . . . . . . . 4",
	"Ciphers . . . . . . . 1",
	"DES3 . . . . . . . . 3",
	"des3_set_key . . . . 3",
	"RC4, 4",
	"Rijndael, see AES",
	"stream cipher, 1, 2, 3, 4",
	"parity . . . . . . . 5",
	"Triple-DES . . . . . 3",
}

// aliasSet is as's aliases as "word>other@sentence".
func aliasSet(as []Alias) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Word+">"+a.Other+"@"+strconv.Itoa(int(a.Sentence)))
	}
	slices.Sort(out)
	return out
}

// A back-of-book index's entries become aliases of the sections their
// pages lead to, said at the section's heading: its printed pages
// resolved by the offset its entries naming headings agree on, or by the
// document's page labels. Entries that name a heading, list many pages,
// are a program's name the page uses, or lead to a name many sections
// share ("Details") give none; nor does an index whose pages cannot be
// resolved.
func TestIndexAliases(t *testing.T) {
	term := textproc.Term
	des3, aes, arcfour := "9", "7", "12" // the headings' sentences
	want := []string{
		term("3des") + ">" + term("des3") + "@" + des3,
		term("des") + ">" + term("des3") + "@" + des3,
		term("rc4") + ">" + term("arcfour") + "@" + arcfour,
		term("rijndael") + ">" + term("aes") + "@" + aes,
		term("triple") + ">" + term("des3") + "@" + des3,
	}
	slices.Sort(want)

	d := indexDoc(manual(fullIndex...))
	if got := aliasSet(indexAliases(d)); !slices.Equal(got, want) {
		t.Errorf("calibrated: got %v, want %v", got, want)
	}
	if got := aliasSet(MineAliases(d)); !slices.Equal(got, want) {
		t.Errorf("MineAliases: got %v, want %v", got, want)
	}

	// The same through page labels: i, ii, then 1, 2, …; with them, an
	// index needs no entry naming a heading.
	var plain []string
	for _, e := range fullIndex {
		if !strings.HasPrefix(e, "AES") && !strings.HasPrefix(e, "Arcfour") && !strings.HasPrefix(e, "Ciphers") && !strings.HasPrefix(e, "DES3") {
			plain = append(plain, e)
		}
	}
	d = indexDoc(manual(plain...))
	d.PageLabels = []PageLabelRange{{First: 1, Style: "r", Start: 1}, {First: 3, Style: "D", Start: 1}}
	if got := aliasSet(indexAliases(d)); !slices.Equal(got, want) {
		t.Errorf("labelled: got %v, want %v", got, want)
	}
	// Without labels those entries cannot be placed: only the
	// cross-reference, which names its section, is.
	d.PageLabels = nil
	seeOnly := []string{term("rijndael") + ">" + term("aes") + "@" + aes}
	if got := aliasSet(indexAliases(d)); !slices.Equal(got, seeOnly) {
		t.Errorf("unresolved: got %v, want %v", got, seeOnly)
	}
}

// An "Index" heading in the first half of a document (a title page's
// "Reference Index") is no index.
func TestIndexAliasesOnlyAtTheEnd(t *testing.T) {
	pages := manual()
	pages = append([][]string{append([]string{"# Index"}, fullIndex...)}, pages[:len(pages)-1]...)
	for i := range 6 {
		pages = append(pages, []string{"# Appendix " + strconv.Itoa(i), "More text here about nothing in particular."})
	}
	d := indexDoc(pages)
	if got := indexAliases(d); len(got) != 0 {
		t.Errorf("got %v, want none", aliasSet(got))
	}
}

// A cross-reference in the text, `“triple DES”, see DES3 below`, is an
// alias of the section its target names.
func TestSeeInTextAliases(t *testing.T) {
	term := textproc.Term
	pages := manual()
	pages[3] = append(pages[3], "One should be using “triple DES”, see DES3 below.")
	d := indexDoc(pages)
	want := []string{term("des") + ">" + term("des3") + "@10", term("triple") + ">" + term("des3") + "@10"}
	if got := aliasSet(indexAliases(d)); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Damaged layout (spans past the text, pages out of order, a heading
// sentence past the sentences) gives no alias rather than a panic.
func TestIndexAliasesDamaged(t *testing.T) {
	d := indexDoc(manual(fullIndex...))
	d.PageStarts[3], d.PageStarts[4] = d.PageStarts[4], d.PageStarts[3]
	d.Sections[1].Heading.End = int32(len(d.Text) + 10)
	d.Sections[2].Sentence = 1 << 30
	d.Sections[3].Heading.Start = -5
	last := len(d.Sections) - 1
	d.Sections[last].Heading.Start = int32(len(d.Text) - 1)
	_ = indexAliases(d)
	d.Text = d.Text[:len(d.Text)/3]
	_ = indexAliases(d)
}
