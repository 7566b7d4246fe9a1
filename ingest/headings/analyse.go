package headings

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
)

// Input is what Analyse knows about a document besides its text and
// sentences.
type Input struct {
	// Markdown: the text is Markdown (# headings, pipe tables).
	Markdown bool
	// Headings and Tables are the loader's, trusted over the text's
	// appearance.
	Headings []structure.Heading
	Tables   []structure.Table
	// PageStarts are the byte offsets at which pages begin (PDF pages, or
	// form feeds in text), for page furniture.
	PageStarts []int32
	// NoFurniture: the loader already dropped running heads and page
	// numbers (pdftext does), so none are looked for.
	NoFurniture bool
}

// Analysis is a document's structure, per sentence.
type Analysis struct {
	// Sections in text order; a section's parent comes before it.
	Sections []structure.Section
	// Section[i] is the innermost section sentence i lies in, -1 for
	// text before the first heading. A heading sentence lies in its own
	// section.
	Section []int32
	// Flags[i] are sentence i's flags.
	Flags []structure.Flags
	// Tables are the document's tables; Table[i] is the table sentence i
	// is a row of (-1 for none).
	Tables []structure.Table
	Table  []int32
}

// maxDepth bounds heading paths (and walks up a damaged parent chain).
const maxDepth = 12

// Analyse finds the sections, the noise and the table rows of a document
// whose text is split into sentences (in order, not overlapping).
func Analyse(text string, sents []structure.Span, in Input) *Analysis {
	a := &Analysis{
		Section: make([]int32, len(sents)),
		Flags:   make([]structure.Flags, len(sents)),
		Table:   make([]int32, len(sents)),
	}
	for i := range a.Table {
		a.Table[i] = -1
	}
	var furniture spanSet
	if !in.NoFurniture {
		furniture = findFurniture(text, in.PageStarts)
	}
	markTables(a, sents, in.Tables)
	for i, s := range sents {
		t := text[s.Start:s.End]
		switch {
		case furniture.covers(s):
			a.Flags[i] |= structure.FlagFurniture
		case isContentsLine(t):
			a.Flags[i] |= structure.FlagContents
		case a.Flags[i]&structure.FlagTableRow == 0 && isCode(t, in.Markdown):
			a.Flags[i] |= structure.FlagCode
		}
		// a table row of figures ("-9  7600k  3700k") is no fragment:
		// its header says what the figures are
		if a.Flags[i]&(structure.FlagFurniture|structure.FlagContents|structure.FlagTableRow) == 0 && fragment(t) {
			a.Flags[i] |= structure.FlagFragment
		}
	}
	markContentsEntries(text, sents, a.Flags, in.PageStarts)
	a.buildSections(text, sents, in)
	return a
}

// heading is a heading candidate: a sentence and its level (0: unknown),
// and its section number when it has one.
type heading struct {
	sent  int
	span  structure.Span
	level int
	nums  []int
	// topic: it heads a reference topic (see referenceTopics); sub: it is
	// a section of one, of unknown level, nested one below the topic.
	topic, sub bool
	// nameSent, when above 0, is the sentence span lies in: a topic named
	// by the one line of its opening section, which starts at sent.
	nameSent int
}

// buildSections finds the heading sentences and nests them.
func (a *Analysis) buildSections(text string, sents []structure.Span, in Input) {
	loader := loaderHeadings(sents, in.Headings)
	outlined := outlineChapters(in.Headings)
	var hs []heading
	for i, s := range sents {
		if a.Flags[i]&(structure.FlagFurniture|structure.FlagContents|structure.FlagTableRow) != 0 {
			continue
		}
		if h, ok := loader[i]; ok {
			hs = append(hs, heading{sent: i, span: h.Span, level: h.Level})
			continue
		}
		if h, ok := textHeading(text, sents, i, in.Markdown, len(in.Headings) > 0, outlined); ok {
			h.sent = i
			if h.span.Len() == 0 {
				h.span = s
			}
			hs = append(hs, h)
		}
	}
	// A section number takes its level from its groups only where it
	// continues the document's numbering, and a one-group number only in
	// the document's own style ("2 Title" or "2. Title", whichever comes
	// first): "2. Header line" inside "1.2", or "1 Colorado" in an
	// example, is a numbered paragraph, nested like an unnumbered heading.
	// Where an outline gives the chapters' levels, a numbered line it
	// does not name is such a paragraph too ("3. If we find a method, we
	// use it.").
	var numbering []int
	style := -1 // 0: "2 Title", 1: "2. Title"
	for i := range hs {
		h := &hs[i]
		if h.nums == nil {
			continue
		}
		if outlined {
			h.level = 0
			continue
		}
		if len(h.nums) == 1 {
			dotted := 0
			if t := text[h.span.Start:h.span.End]; strings.IndexByte(t, '.') >= 0 && strings.IndexByte(t, '.') < strings.IndexByte(t+" ", ' ') {
				dotted = 1
			}
			if style < 0 {
				style = dotted
			}
			if dotted != style {
				h.level = 0
				continue
			}
		}
		if follows(numbering, h.nums) {
			h.level, numbering = len(h.nums), h.nums
		} else {
			h.level = 0
		}
	}
	hs = referenceTopics(text, sents, a.Flags, hs)
	// Nest: a stack of open sections. A heading of unknown level goes one
	// below the deepest open heading of known level and is a sibling of
	// other unknown-level headings there; a reference topic's section of
	// unknown level goes one below its topic.
	type open struct {
		sec   int32
		level int  // effective level
		known bool // the heading had a level of its own
		topic bool
	}
	var stack []open
	next := 0
	cur := int32(-1)
	for i := range sents {
		if next < len(hs) && hs[next].sent == i {
			h := hs[next]
			next++
			level := h.level
			if level <= 0 {
				// One below the deepest known level still open, or below
				// its topic.
				base := 0
				for j := len(stack) - 1; j >= 0; j-- {
					if stack[j].known && !h.sub || stack[j].topic && h.sub {
						base = stack[j].level
						break
					}
				}
				level = base + 1
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			parent := int32(-1)
			if len(stack) > 0 {
				parent = stack[len(stack)-1].sec
			}
			if len(stack) >= maxDepth {
				stack = stack[:maxDepth-1]
			}
			sec := int32(len(a.Sections))
			at := i
			if h.nameSent > 0 {
				at = h.nameSent
				a.Flags[at] |= structure.FlagHeading
				a.Flags[at] &^= structure.FlagFragment | structure.FlagCode
			}
			a.Sections = append(a.Sections, structure.Section{Heading: trimmedHeading(text, h.span), Level: level, Parent: parent, Sentence: int32(at)})
			stack = append(stack, open{sec: sec, level: level, known: h.level > 0, topic: h.topic})
			cur = sec
			a.Flags[i] |= structure.FlagHeading
			a.Flags[i] &^= structure.FlagFragment | structure.FlagCode
		}
		a.Section[i] = cur
	}
}

// trimmedHeading drops a Markdown heading's #s and closing #s from its span.
func trimmedHeading(text string, s structure.Span) structure.Span {
	t := text[s.Start:s.End]
	if strings.HasPrefix(t, "#") {
		n := len(t) - len(strings.TrimLeft(t, "#"))
		rest := t[n:]
		lead := len(rest) - len(strings.TrimLeft(rest, " \t"))
		s.Start += int32(n + lead)
		t = text[s.Start:s.End]
		if trimmed := strings.TrimRight(strings.TrimRight(t, "#"), " \t"); len(trimmed) > 0 && len(trimmed) < len(t) && strings.HasSuffix(strings.TrimRight(t, "#"), " ") {
			s.End = s.Start + int32(len(trimmed))
		}
	}
	return s
}

// loaderHeadings maps the sentences that a loader's headings start in to
// the heading (a heading with no level has level 0).
func loaderHeadings(sents []structure.Span, hs []structure.Heading) map[int]structure.Heading {
	out := map[int]structure.Heading{}
	j := 0
	for _, h := range hs {
		for j < len(sents) && sents[j].End <= h.Span.Start {
			j++
		}
		// Every sentence starting inside the heading's span is part of it;
		// the first one carries the heading.
		if j < len(sents) && sents[j].Start < h.Span.End {
			if _, dup := out[j]; !dup {
				out[j] = h
			}
		}
	}
	return out
}

// textHeading reports whether sentence i looks like a heading by its text
// alone, with its level if the text tells (numbering, Markdown #s).
// trustLoader: the loader reported headings, so only explicit markers
// (Markdown, numbering, keywords) count, not the appearance of a line.
// outlined: the loader's outline names the document's chapters, so a line
// such as "Chapter 6: Gamma and Related Functions." that it does not name
// is a citation, not a chapter.
func textHeading(text string, sents []structure.Span, i int, markdown, trustLoader, outlined bool) (heading, bool) {
	s := sents[i]
	t := text[s.Start:s.End]
	if markdown {
		if n := atxLevel(t); n > 0 {
			return heading{level: n}, true
		}
		if n := setextLevel(text, s); n > 0 {
			title := trim(text, structure.Span{Start: s.Start, End: s.Start + int32(strings.IndexByte(t, '\n'))})
			return heading{level: n, span: title}, true
		}
	}
	if !startsLine(text, int(s.Start)) {
		return heading{}, false
	}
	runIn := !endsLine(text, int(s.End))
	if nums, ok := headingNumber(t, runIn); ok {
		return heading{level: len(nums), nums: nums}, true
	}
	// "8. Termination." on a line of its own: a contract's sections end
	// their titles with a period, which a numbered step ("3. If we find a
	// method, we use it.") shares; a title has its words capitalised and
	// a paragraph under it.
	if !runIn && periodTitle(t) && followedByBody(text, sents, i) {
		if nums, ok := headingNumber(strings.TrimSuffix(t, "."), false); ok {
			return heading{level: len(nums), nums: nums}, true
		}
	}
	if lv, ok := keywordHeading(t); ok && (!runIn || strings.HasSuffix(t, ".")) {
		if outlined && lv == 1 {
			return heading{}, false
		}
		return heading{level: lv}, true
	}
	if runIn || trustLoader || strings.ContainsRune(t, '\n') {
		return heading{}, false
	}
	if !blankBefore(text, int(s.Start)) {
		return heading{}, false
	}
	if isCapsHeading(t) || (isTitleLine(t) && followedByBody(text, sents, i)) {
		return heading{}, true
	}
	return heading{}, false
}

// atxLevel is the level of a Markdown "## Title" heading, 0 if t is none.
func atxLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(t) || (t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

// setextLevel is the level of a Markdown title underlined with = (1) or -
// (2), 0 if s is none.
func setextLevel(text string, s structure.Span) int {
	t := text[s.Start:s.End]
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return 0
	}
	under := strings.TrimSpace(t[nl+1:])
	if len(under) < 3 || strings.ContainsRune(under, '\n') {
		return 0
	}
	switch strings.Trim(under, "=") {
	case "":
		return 1
	}
	if strings.Trim(under, "-") == "" {
		return 2
	}
	return 0
}

// headingNumber reads "2 Spreadsheet-like data", "7.1 Governing Law",
// "12. Termination", "4.1.2 Scope": a section number and a short title.
// It returns the number's groups: [7 1] for "7.1 Governing Law". runIn: the sentence continues on its
// line, as in "7.1 Governing Law. This Agreement…", where the title must
// end in a period.
func headingNumber(t string, runIn bool) ([]int, bool) {
	if len(t) > 90 || strings.ContainsRune(t, '\n') {
		return nil, false
	}
	i, groups := 0, 0
	var nums []int
	for {
		d := i
		n := 0
		for i < len(t) && i-d < 3 && '0' <= t[i] && t[i] <= '9' {
			n = 10*n + int(t[i]-'0')
			i++
		}
		if i == d {
			return nil, false
		}
		nums = append(nums, n)
		groups++
		if i+1 < len(t) && t[i] == '.' && '0' <= t[i+1] && t[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	if i < len(t) && (t[i] == '.' || t[i] == ')') {
		if t[i] == ')' && groups == 1 {
			return nil, false // "3) item": a list
		}
		i++
	}
	if i >= len(t) || (t[i] != ' ' && t[i] != '\t') {
		return nil, false
	}
	title := strings.TrimLeft(t[i:], " \t")
	fields := strings.Fields(title)
	words := len(fields)
	if words == 0 || groups > 6 { // nothing but white space ("0.0 \v") is no title
		return nil, false
	}
	if strings.Contains(title, "   ") || strings.ContainsAny(title, "\t=") {
		return nil, false // cells apart, or a value: a table row ("1 Colorado      7.9", "1. Education 0 = 0-5 years") or a contents line
	}
	r, _ := utf8.DecodeRuneInString(title)
	// A title starts with a capital; "5.2 dBase files" shows a deeper
	// number may start with a lower-case name.
	if !unicode.IsUpper(r) && !(len(nums) >= 2 && words <= 8 && hasUpper(fields[0])) {
		return nil, false
	}
	if runIn {
		return nums, strings.HasSuffix(title, ".") && words <= 8 && !strings.HasSuffix(title, "..")
	}
	if words > 12 || (endsSentence(title) && !strings.HasSuffix(title, "?")) {
		return nil, false
	}
	return nums, true
}

// follows reports whether section number n can come after cur in a
// document's numbering: its first child (cur.1), the next sibling of cur
// or of one of its ancestors (a gap of a few allowed for headings the
// text lost), or the first number at all.
func follows(cur, n []int) bool {
	if len(cur) == 0 {
		return true
	}
	if len(n) == len(cur)+1 && slices.Equal(n[:len(cur)], cur) {
		return n[len(n)-1] <= 1
	}
	if len(n) > len(cur) {
		return false
	}
	k := len(n) - 1
	return slices.Equal(n[:k], cur[:k]) && n[k] > cur[k] && n[k] <= cur[k]+3
}

// keywordHeading reads "ARTICLE VII", "Article 7 Termination", "Section
// 4(b)", "SECTION 12. Notices", "Chapter 3: Data", "Part II", "Appendix
// A", "Schedule 1", "Exhibit B", "Item 7. Management's Discussion": a
// structural keyword and a number.
func keywordHeading(t string) (int, bool) {
	if len(t) > 100 || strings.ContainsRune(t, '\n') {
		return 0, false
	}
	word, rest, _ := strings.Cut(t, " ")
	level := 0
	switch strings.ToLower(word) {
	case "part", "book":
		level = 1
	case "chapter", "article", "appendix", "schedule", "exhibit", "annex":
		level = 1
	case "section", "§", "item": // a filing's "Item 1A. Risk Factors", under "PART I"
		level = 2
	default:
		return 0, false
	}
	if word != strings.ToUpper(word) && word != strings.ToUpper(word[:1])+strings.ToLower(word[1:]) {
		return 0, false
	}
	num, title, _ := strings.Cut(strings.TrimSpace(rest), " ")
	num = strings.TrimRight(num, ".:")
	if !isSectionNumber(num) {
		return 0, false
	}
	if r, _ := utf8.DecodeRuneInString(title); unicode.IsLower(r) {
		return 0, false // "Chapter 5 of Murrell's thesis", "Section 4 of this Agreement": a reference
	}
	if len(strings.Fields(title)) > 12 {
		return 0, false
	}
	return level, true
}

// isSectionNumber accepts "7", "4.2", "4(b)", "VII", "A", "12.3(a)(ii)".
func isSectionNumber(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	if strings.Trim(s, "IVXLCivxlc") == "" {
		return true
	}
	if len(s) == 1 && 'A' <= s[0] && s[0] <= 'Z' {
		return true
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			digits = true
		case c == '.' || c == '(' || c == ')' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
		default:
			return false
		}
	}
	return digits && '0' <= s[0] && s[0] <= '9'
}

// isCapsHeading reads a short line in capitals: "GOVERNING LAW", "RISK
// FACTORS". Identifiers ("FIRST_OFFSET", "CARD32") and code are not.
func isCapsHeading(t string) bool {
	if len(t) > 80 || endsSentence(t) || strings.ContainsAny(t, "_{}[]<>=;|\\$@") {
		return false
	}
	letters, words, long := 0, 0, false
	for _, w := range strings.Fields(t) {
		words++
		n, digits := 0, false
		for _, r := range w {
			switch {
			case unicode.IsLetter(r):
				if !unicode.IsUpper(r) {
					return false
				}
				n++
			case unicode.IsDigit(r):
				digits = true
			}
		}
		if n > 0 && digits {
			return false
		}
		letters += n
		long = long || n >= 3
	}
	return long && letters >= 4 && words <= 10
}

// isTitleLine reads a short line that could title what follows: it starts
// with a capital or a digit, has letters, and no sentence punctuation
// closes it.
func isTitleLine(t string) bool {
	if t == "" || len(t) > 100 || (endsSentence(t) && !strings.HasSuffix(t, "?")) || strings.HasSuffix(t, ",") || strings.HasSuffix(t, ":") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	if !(unicode.IsUpper(r) || unicode.IsDigit(r)) {
		return false
	}
	words, letters := 0, 0
	for _, w := range strings.Fields(t) {
		words++
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
	}
	if words > 12 || letters < 3 {
		return false
	}
	// Code and markup are not titles, nor is the tail of a parenthesis.
	return !strings.ContainsAny(t, "{}[]<>=;|\\$@") && strings.Count(t, "(") == strings.Count(t, ")")
}

// followedByBody reports whether the sentence after i starts a paragraph
// of prose on the next line: what a title line titles.
func followedByBody(text string, sents []structure.Span, i int) bool {
	if i+1 >= len(sents) {
		return false
	}
	n := sents[i+1]
	gap := text[sents[i].End:n.Start]
	if strings.Count(gap, "\n") > 2 || strings.ContainsRune(gap, '\f') {
		return false
	}
	t := text[n.Start:n.End]
	return len(strings.Fields(t)) >= 4 && !isTitleLine(firstLine(t))
}

func firstLine(t string) string {
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		return t[:nl]
	}
	return t
}

// endsSentence reports whether t closes with sentence punctuation.
func endsSentence(t string) bool {
	t = strings.TrimRight(t, "\"'’”)")
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case '.', '!', '?', ';':
		return true
	}
	return false
}

// startsLine reports whether only spaces stand between the line's start
// and at.
func startsLine(text string, at int) bool {
	for j := at - 1; j >= 0; j-- {
		switch text[j] {
		case '\n', '\f':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// endsLine reports whether only spaces stand between at and the line's end.
func endsLine(text string, at int) bool {
	for j := at; j < len(text); j++ {
		switch text[j] {
		case '\n', '\f', '\r':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// blankBefore reports whether the line holding at follows a blank line, a
// page break or the start of the text.
func blankBefore(text string, at int) bool {
	j := at - 1
	for j >= 0 && (text[j] == ' ' || text[j] == '\t') {
		j--
	}
	if j < 0 || text[j] == '\f' {
		return true
	}
	if text[j] != '\n' {
		return false
	}
	j--
	for j >= 0 && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
		j--
	}
	return j < 0 || text[j] == '\n' || text[j] == '\f'
}

// SplitHeadings cuts heading lines off the sentences they were run into:
// a sentence that starts a paragraph with a line such as "4 Relational
// databases", "ARTICLE VII" or a short title over a line of prose
// ("Pointsize" over "The set pointsize command scales…") becomes the
// heading and the rest. sents must be in order; so is the result.
func SplitHeadings(text string, sents []structure.Span) []structure.Span {
	out := make([]structure.Span, 0, len(sents))
	for _, s := range sents {
		lead := blankBefore(text, int(s.Start))
		for lead && s.End-s.Start > 0 {
			t := text[s.Start:s.End]
			nl := strings.IndexByte(t, '\n')
			if nl < 0 {
				break
			}
			first := strings.TrimRight(t[:nl], " \t\r")
			rest := trim(text, structure.Span{Start: s.Start + int32(nl), End: s.End})
			if rest.Start >= rest.End || !headingOver(first, firstLine(text[rest.Start:rest.End])) {
				break
			}
			out = append(out, structure.Span{Start: s.Start, End: s.Start + int32(len(first))})
			s = rest
		}
		out = append(out, s)
	}
	return out
}

// headingOver reports whether line, standing first in a paragraph, is a
// heading over next rather than the first line of wrapped prose.
func headingOver(line, next string) bool {
	if line == "" {
		return false
	}
	if _, ok := headingNumber(line, false); ok {
		return true
	}
	if _, ok := keywordHeading(line); ok {
		return true
	}
	if isCapsHeading(line) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(next)
	// A title is short and the prose under it starts a sentence; a
	// wrapped line of prose is as long as the lines after it.
	return isTitleLine(line) && len(line) <= 60 && len(next) >= len(line)+12 && (unicode.IsUpper(r) || unicode.IsDigit(r))
}

// hasUpper reports whether w has a capital letter: "dBase", "macOS".
// periodTitle reports whether t is a numbered title closed by one period,
// "12. Governing Law.", "17. Interpretation of Sections 15 and 16.": up to
// eight words after the number, each capitalised but the short words
// that join a title's.
func periodTitle(t string) bool {
	if !strings.HasSuffix(t, ".") || strings.HasSuffix(t, "..") {
		return false
	}
	fields := strings.Fields(strings.TrimSuffix(t, "."))
	if len(fields) < 2 || len(fields) > 9 {
		return false
	}
	for _, w := range fields[1:] {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLetter(r) && !unicode.IsUpper(r) && !titleJoiners[w] {
			return false
		}
	}
	return true
}

// titleJoiners are the lower-case words a title in title case keeps.
var titleJoiners = map[string]bool{
	"a": true, "an": true, "and": true, "as": true, "at": true, "by": true, "for": true, "from": true,
	"in": true, "into": true, "of": true, "on": true, "or": true, "the": true, "this": true, "to": true,
	"under": true, "upon": true, "with": true, "without": true, "not": true, "nor": true,
}

func hasUpper(w string) bool {
	return strings.IndexFunc(w, unicode.IsUpper) >= 0
}

// outlineChapters reports whether the loader's headings include a PDF
// outline's top level, two items or more: the document's chapters.
func outlineChapters(hs []structure.Heading) bool {
	n := 0
	for _, h := range hs {
		if h.Source == structure.SourceOutline && h.Level == 1 {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}
