package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

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

// asksHow reports whether a question asks how to do something — "how do
// I…", "how can I…", "how to…", "what command…", "what should X look
// like?" — which manuals answer
// with a lead-in and the command under it ("You need to configure it
// as:" over "# dpkg-reconfigure locales").
func asksHow(question string) bool {
	words := foldedWords(question)
	if looksLike(words) {
		return true // what a file or a command looks like is shown under a lead-in
	}
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "how" && (next == "do" || next == "can" || next == "should" || next == "to" || next == "would" || next == "could"):
			return true
		case (w == "what" || w == "which") && (next == "command" || next == "commands"):
			return true
		}
	}
	return false
}

// leadsToCommand reports whether sentence i, or one of the next two of
// its paragraph, leads in to a command or code line: it ends in ":" (or
// "as follows", "like this") and the sentence after it is code, a prompt
// line ("$ ", "# ") or a short line that is no sentence.
func leadsToCommand(d *docstore.View, i int) bool {
	for j := i; j < d.NumSentences()-1 && j <= i+2; j++ {
		if j > i && breakBefore(d, j) {
			return false
		}
		if endsLeadIn(d.SentenceText(j)) && commandLine(d, j+1) {
			return true
		}
	}
	return false
}

// endsLeadIn reports whether a sentence ends as a lead-in to what follows.
func endsLeadIn(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, ":") {
		return true
	}
	t = strings.ToLower(strings.TrimRight(t, "."))
	return strings.HasSuffix(t, "as follows") || strings.HasSuffix(t, "like this") || strings.HasSuffix(t, "the following")
}

// commandLine reports whether sentence i reads as a command or code
// line: flagged code, a prompt line, or a short line with no closing mark
// of a sentence that does not open as one.
func commandLine(d *docstore.View, i int) bool {
	f := flags(d, i)
	if f&(structure.FlagHeading|structure.FlagContents|structure.FlagFurniture) != 0 {
		return false
	}
	if f&structure.FlagCode != 0 {
		return true
	}
	t := strings.TrimSpace(d.SentenceText(i))
	if strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "# ") {
		return true
	}
	if t == "" || len(t) > 120 || strings.ContainsRune(".!?:", rune(t[len(t)-1])) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return !unicode.IsUpper(r)
}

// namesOption reports whether a sentence names a long command-line
// option ("If --leak-check=full is specified, …"): in a manual, how to
// make a tool do something is most often an option to give it.
func namesOption(s string) bool {
	return anyAt(s, "--", func(i int) bool {
		return (i == 0 || strings.ContainsRune(" (\"'", rune(s[i-1]))) && i+2 < len(s) && isLetterByte(s[i+2])
	})
}

// labels reports whether sentence i is a table row, code or a
// fragment: its capitalised words are labels ("MEMORY", "CONFIG"), not
// the names of what a question is about, so the second hop takes none.
func labels(d *docstore.View, i int) bool {
	return flags(d, i)&(structure.FlagTableRow|structure.FlagCode|structure.FlagFragment|structure.FlagContents) != 0
}
