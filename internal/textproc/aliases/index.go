package aliases

import (
	"regexp"
	"strings"
)

// A back-of-book index names a manual's things in a reader's words and
// sends each to a page: "Triple-DES . . . . 32", "regular expression,
// 10, 267", "Triple-DES, see DES3". Its lines are parsed here, as pure
// text; the library resolves the pages and pairs each entry with the
// sections headed there (docstore's indexaliases.go).

// IndexEntry is one parsed line of an index.
type IndexEntry struct {
	// Entry is the entry's text as printed, its spaces collapsed.
	Entry string
	// Pages are the page labels it lists ("32", "xii"), in order; none
	// for a cross-reference.
	Pages []string
	// See is the entry a cross-reference sends the reader to ("Triple-DES,
	// see DES3"), "" for an entry with pages.
	See string
}

// MaxIndexWords is the most words an index entry or heading may have: a
// longer line is prose or two columns run together.
const MaxIndexWords = 6

var (
	// indexHeadingRE: "Index", "Concept Index", "Function and Concept
	// Index", "Index of Functions", a number before perhaps ("A.3 Index").
	indexHeadingRE = regexp.MustCompile(`(?i)^(?:[\dA-Z]+(?:\.\d+)*\.?\s+)?(?:(?:[\p{L}-]+\s+){0,4}index(?:es)?|index\s+of\s+[\p{L}-]+(?:\s+[\p{L}-]+){0,2})$`)
	// pageListRE: the page labels at a line's end, after a dot leader or
	// a comma: "32", "10, 267, 268", "xii". Arabic or lowercase roman.
	pageListRE = regexp.MustCompile(`(?:\s*\.(?:\s*\.){2,}\s*|,\s+)((?:\d{1,5}|[ivxlc]{1,7})(?:,\s*(?:\d{1,5}|[ivxlc]{1,7}))*)\s*$`)
	// seeRE: "Triple-DES, see DES3", "Triple-DES (see DES3)", "see also"
	// excluded: it adds a topic, it names nothing the same.
	seeRE = regexp.MustCompile(`^(.+?)(?:,\s*|\s+\(\s*)see\s+([^()]+?)\)?\.?$`)
)

// IsIndexHeading reports whether a heading's text names an index: "Index",
// "Concept Index", "Function and Concept Index", "Index of Functions".
func IsIndexHeading(heading string) bool {
	if len(heading) > 200 || !strings.Contains(strings.ToLower(heading), "index") {
		return false // most headings, without the expression
	}
	h := strings.Join(strings.Fields(heading), " ")
	return len(h) <= 80 && indexHeadingRE.MatchString(h)
}

// ParseIndexLine parses one line of an index: an entry with its page
// labels after a dot leader or a comma, or a cross-reference. It reports
// false for a line that is neither (a letter's heading "D", a line of
// two columns run together, a continuation), and for an entry of more
// than MaxIndexWords words or one that holds a page list itself.
func ParseIndexLine(line string) (IndexEntry, bool) {
	line = strings.Join(strings.Fields(line), " ")
	if line == "" || len(line) > 200 {
		return IndexEntry{}, false
	}
	if m := pageListRE.FindStringSubmatchIndex(line); m != nil {
		entry := strings.TrimRight(line[:m[0]], " .,")
		pages := splitPages(line[m[2]:m[3]])
		if !plausibleEntry(entry) || pages == nil {
			return IndexEntry{}, false
		}
		return IndexEntry{Entry: entry, Pages: pages}, true
	}
	if m := seeRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.ToLower(m[2]), "also ") {
		entry, see := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		if plausibleEntry(entry) && plausibleEntry(see) && !strings.EqualFold(entry, see) {
			return IndexEntry{Entry: entry, See: see}, true
		}
	}
	return IndexEntry{}, false
}

// splitPages splits a page list; nil when a label is repeated (two
// columns' numbers run together, "40 40", come through as one list).
func splitPages(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil
		}
		out = append(out, p)
	}
	return out
}

// plausibleEntry reports whether text can be one index entry: a few
// words, with a letter, no dot leader and no number after a comma (a
// second column's entry run into the first: "! (Logic), 348 princomp").
func plausibleEntry(text string) bool {
	if text == "" || strings.Contains(text, ". .") || strings.Contains(text, "..") {
		return false
	}
	words := strings.Fields(text)
	if len(words) > MaxIndexWords {
		return false
	}
	hasLetter := false
	for _, r := range text {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
			hasLetter = true
			break
		}
	}
	return hasLetter && !numberAfterComma.MatchString(text)
}

var numberAfterComma = regexp.MustCompile(`,\s*\d`)

// IsIdentifier reports whether an index entry is a program's name rather
// than words: a word of it has an underscore, a dot between letters,
// "::", "()" or "<-" ("des3_set_key", "struct des3_ctx", "read.table",
// "std::sort", "free()"). The index lists every function where it is
// documented, and the page there uses the name already: it adds nothing
// the text does not say.
func IsIdentifier(entry string) bool {
	words := strings.Fields(entry)
	if len(words) == 1 && (lowerWord(words[0]) || camelCase(words[0])) {
		return true
	}
	for _, w := range words {
		if strings.Contains(w, "_") || strings.Contains(w, "::") || strings.Contains(w, "()") || strings.Contains(w, "<-") {
			return true
		}
		if dotted(w) {
			return true
		}
	}
	return false
}

// lowerWord reports whether w is lower-case letters and digits, with a
// letter.
func lowerWord(w string) bool {
	letter := false
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z':
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
}

// camelCase reports whether w has a lower-case letter followed by a
// capital, as programs' names do ("askYesNo", "setValidity") and words
// do not.
func camelCase(w string) bool {
	for i := 1; i < len(w); i++ {
		if w[i-1] >= 'a' && w[i-1] <= 'z' && w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

// dotted reports whether w is names joined by dots, one after the first
// longer than a letter: "read.table", "Extract.factor", but not "e.g.".
func dotted(w string) bool {
	parts := strings.Split(strings.TrimRight(w, "."), ".")
	if len(parts) < 2 || parts[0] == "" {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) >= 2 {
			return true
		}
	}
	return false
}

// seeInTextRE: a quoted name sent elsewhere in running text: `one should
// be using “triple DES”, see DES3 below`.
var seeInTextRE = regexp.MustCompile(`["“]([\p{L}\p{N}][\p{L}\p{N}\- ]{0,40})["”],?\s+see\s+(?:the\s+)?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)`)

// SeeInText returns the names a sentence sends elsewhere: `“triple
// DES”, see DES3 below` gives ("triple DES", "DES3"), each side as its
// index terms. The quotes are what make the first a name.
func SeeInText(text string) [][2][]string {
	if !strings.Contains(text, "see ") || !strings.Contains(text, "\", see") && !strings.Contains(text, "”, see") &&
		!strings.Contains(text, "\" see") && !strings.Contains(text, "” see") {
		return nil // most sentences, without the expression
	}
	var out [][2][]string
	for _, m := range seeInTextRE.FindAllStringSubmatch(text, 4) {
		a, b := Terms(m[1]), Terms(strings.TrimRight(m[2], "."))
		if len(a) == 0 || len(a) > 3 || len(b) == 0 || same(a, b) {
			continue
		}
		out = append(out, [2][]string{a, b})
	}
	return out
}

// headingNumberRE: a heading's number, "7.2.9 ", "A.3 ", "12. ".
var headingNumberRE = regexp.MustCompile(`^(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+`)

// HeadingName is a heading's text on one line without its number: "7.2.9
// DES3" is "DES3". An index sends a reader to a page; the sections
// headed there are named by it.
func HeadingName(heading string) string {
	h := strings.Join(strings.Fields(heading), " ")
	return headingNumberRE.ReplaceAllString(h, "")
}

// SplitTopic splits an entry "regexpr (grep)" into the name and the
// topic it is documented under; topic is "" for an entry without one.
func SplitTopic(entry string) (name, topic string) {
	if strings.HasSuffix(entry, ")") {
		if i := strings.LastIndex(entry, " ("); i > 0 {
			return entry[:i], entry[i+2 : len(entry)-1]
		}
	}
	return entry, ""
}
