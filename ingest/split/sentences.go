// Package split splits stored text into sentences and sentences into
// chunks. Offsets are bytes into the text given, so citations built on them
// point at the document's exact bytes.
//
// Sentences works in two layers. The layout layer reads lines: blank lines,
// headings (Markdown's, and numbered ones such as "1.2 Scope"), list items,
// tables, fenced code and title lines (a short line over a paragraph) are
// hard boundaries, and so is the end of a line too long to have been
// hard-wrapped; the single newlines of hard-wrapped prose are not. The
// sentence layer then scans each run of joined lines for terminators:
// . ! ? … and the CJK 。！？； (LongCite splits on those too). A period
// ends a sentence only before a plausible sentence start, and not after
// abbreviations, initials or dotted acronyms unless a typical
// sentence-initial word follows, nor after a clause's number alone ("5.1.",
// "Item 7."), which stays with its clause; decimals, URLs and code such as
// os.path.join never end one because no space follows their dots. Runs
// that never reach a boundary (tables, code, index pages) are cut at
// MaxSentenceBytes so citations stay fine-grained.
package split

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// Span is a byte range [Start, End) of the text.
type Span struct{ Start, End int }

// MaxSentenceBytes bounds a sentence. A run of text longer than this with
// no sentence boundary (a table, code, an index page, a runaway sentence) is
// cut into near-equal pieces of at most this many bytes, preferring to cut
// at a newline in tables and code, after , ; : and their CJK forms in
// prose, then at a space, and never inside a UTF-8 sequence. 512 bytes is
// about 128 tokens, LongCite's chunk size, and above all but the rarest
// prose sentences (the longest HotpotQA supporting fact in the evaluation
// set is 418 bytes; 0.4% of the sentences of R's reference manual reach
// 400).
const MaxSentenceBytes = 512

// wrapWidth is the widest line a hard-wrapping editor or converter is
// assumed to produce. A line with a break opportunity (a space) beyond this
// column was not hard-wrapped, so the newline ending it is the author's.
const wrapWidth = 160

// Sentences splits text into sentences, in order and never overlapping.
// Every span is trimmed of surrounding whitespace (unicode.IsSpace), every
// byte that is not whitespace belongs to exactly one span, and spans start
// and end on UTF-8 rune boundaries. Whitespace between sentences belongs to
// none of them. The page of a sentence is the caller's business: it is the
// page on which its Start falls.
//
// Fenced code blocks (``` or ~~~ up to a matching fence) are kept whole,
// blank lines included, and cut only at MaxSentenceBytes.
func Sentences(text string) []Span {
	s := splitter{text: text, out: make([]Span, 0, len(text)/128+1)}
	s.run()
	return s.out
}

// lineKind is what a line is, as far as boundaries are concerned.
type lineKind uint8

const (
	lineText      lineKind = iota
	lineHeading            // "# Title" (ATX heading), "1.2 Title" (numbered)
	lineList               // "- item", "* item", "• item", "12. item", "3) item"
	lineTable              // "| a | b |", "+----+----+"
	lineUnderline          // "=====" or "-----" (setext heading underline)
	lineRule               // "***", "___" (thematic break)
)

// line is one non-blank line of the text.
type line struct {
	start int // first byte of the line
	body  int // first byte that is not whitespace
	end   int // end of the last rune that is not whitespace
	scan  int // where sentence scanning starts: body, or after a list marker
	kind  lineKind
	// unwrapped: the line runs on past any wrapping column (see unwrapped).
	unwrapped bool
}

type splitter struct {
	text  string
	out   []Span
	block []line // the non-blank lines of the current paragraph block
	// fences lists the candidate closing fences for ` and ~, built on
	// the first opener of each (see fenceLines).
	fences [2][]fenceLine
	// hist counts line lengths within a block (see flush).
	hist [wrapWidth + 2]int32
}

// run reads the text line by line, gathering blocks of non-blank lines.
func (s *splitter) run() {
	text := s.text
	block := s.block[:0]
	for pos := 0; pos < len(text); {
		lineEnd, next := len(text), len(text)
		if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
			lineEnd, next = pos+nl, pos+nl+1
		}
		body := skipSpace(text, pos, lineEnd)
		if body == lineEnd { // a blank line ends the block
			s.flush(block)
			block = block[:0]
			pos = next
			continue
		}
		end := trimSpaceEnd(text, body, lineEnd)
		if fc, fn := fenceOpen(text[body:end]); fn > 0 {
			if closeEnd, after, ok := s.fenceClose(next, fc, fn); ok {
				s.flush(block)
				block = block[:0]
				s.emit(body, closeEnd, true)
				pos = after
				continue
			}
		}
		ln := line{start: pos, body: body, end: end, scan: body}
		classify(text, &ln)
		block = append(block, ln)
		pos = next
	}
	s.flush(block)
	s.block = block
}

// fenceOpen reports the fence character and length if b (a trimmed line)
// opens a fenced code block: three or more backticks or tildes, and for
// backticks an info string without backticks.
func fenceOpen(b string) (c byte, n int) {
	if len(b) < 3 || (b[0] != '`' && b[0] != '~') {
		return 0, 0
	}
	c = b[0]
	for n < len(b) && b[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(b[n:], '`') >= 0) {
		return 0, 0
	}
	return c, n
}

// fenceClose finds the line closing a fence of n characters c, searching
// from byte from. It returns the end of the closer's last fence character
// and the start of the line after it. An opener with no closer is not a
// fence (a stray ``` in prose must not swallow the rest of the document).
func (s *splitter) fenceClose(from int, c byte, n int) (closeEnd, after int, ok bool) {
	k := 0
	if c == '~' {
		k = 1
	}
	if s.fences[k] == nil {
		s.fences[k] = fenceLines(s.text, c)
	}
	lines := s.fences[k]
	i, _ := slices.BinarySearchFunc(lines, from, func(f fenceLine, from int) int { return f.start - from })
	// Each jump lands on a strictly longer fence, so this takes at most n
	// steps however many short fences lie in between.
	for i < len(lines) && lines[i].n < n {
		i = lines[i].longer
	}
	if i == len(lines) {
		return 0, 0, false
	}
	return lines[i].end, lines[i].after, true
}

// fenceLine is a line made only of three or more fence characters: a
// possible closing fence.
type fenceLine struct {
	start, end, after int // line start, end of its fence, start of the next line
	n                 int // number of fence characters
	longer            int // index of the next fenceLine with more characters
}

// fenceLines lists the lines of text that consist only of three or more
// c (and surrounding whitespace), in order. The list is non-nil so that
// it is built once; finding each candidate with strings.Index keeps this
// far cheaper than a pass over every line.
func fenceLines(text string, c byte) []fenceLine {
	out := []fenceLine{}
	pat := strings.Repeat(string(c), 3)
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], pat)
		if i < 0 {
			break
		}
		i += pos
		start := strings.LastIndexByte(text[:i], '\n') + 1
		lineEnd, next := len(text), len(text)
		if nl := strings.IndexByte(text[i:], '\n'); nl >= 0 {
			lineEnd, next = i+nl, i+nl+1
		}
		body := skipSpace(text, start, lineEnd)
		end := trimSpaceEnd(text, body, lineEnd)
		if body == i && strings.Count(text[body:end], string(c)) == end-body {
			out = append(out, fenceLine{start: start, end: end, after: next, n: end - body})
		}
		pos = next
	}
	// longer pointers, from the right with a stack of ever longer fences.
	var stack []int
	for i := len(out) - 1; i >= 0; i-- {
		for len(stack) > 0 && out[stack[len(stack)-1]].n <= out[i].n {
			stack = stack[:len(stack)-1]
		}
		out[i].longer = len(out)
		if len(stack) > 0 {
			out[i].longer = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return out
}

// classify sets ln.kind, and ln.scan past a list marker.
func classify(text string, ln *line) {
	b := text[ln.body:ln.end]
	switch c := b[0]; {
	case c == '#':
		n := 1
		for n < len(b) && b[n] == '#' {
			n++
		}
		if n <= 6 && (n == len(b) || b[n] == ' ' || b[n] == '\t') {
			ln.kind = lineHeading
		}
	case c == '|':
		ln.kind = lineTable
	case c == '=' || c == '-' || c == '*' || c == '_':
		if isRule(b, c) {
			ln.kind = lineRule
			if c == '=' || c == '-' {
				ln.kind = lineUnderline
			}
			return
		}
		if c != '=' && c != '_' && len(b) > 1 && (b[1] == ' ' || b[1] == '\t') {
			ln.kind, ln.scan = lineList, ln.body+2
		}
	case c == '+':
		switch {
		case len(b) > 1 && (b[1] == ' ' || b[1] == '\t'):
			ln.kind, ln.scan = lineList, ln.body+2
		case len(b) > 1 && (b[1] == '-' || b[1] == '='):
			ln.kind = lineTable // the border of a grid table: +----+----+
		}
	case '0' <= c && c <= '9':
		n := 1
		for n < len(b) && n <= 3 && '0' <= b[n] && b[n] <= '9' {
			n++
		}
		switch {
		case n <= 3 && n+1 < len(b) && (b[n] == '.' || b[n] == ')') && (b[n+1] == ' ' || b[n+1] == '\t'):
			ln.kind, ln.scan = lineList, ln.body+n+2
		case isNumberedHeading(b):
			ln.kind = lineHeading
		}
	case c >= utf8.RuneSelf:
		r, n := utf8.DecodeRuneInString(b)
		if isBullet(r) && n < len(b) {
			if m := spaceLen(b, n); m > 0 {
				ln.kind, ln.scan = lineList, ln.body+n+m
			}
		}
	}
}

// maxNumberedHeading bounds the length of a numbered heading line.
const maxNumberedHeading = 72

// isNumberedHeading reports whether b (a trimmed line) is a section
// heading such as "1.2 Related software" or "10.6.3 Scope" as PDFs and
// RFCs number them: two or more dotted number groups, a space, a short
// title with no closing punctuation. The length limit keeps out the full
// lines of prose that happen to start with a decimal ("3.5 percent of…").
func isNumberedHeading(b string) bool {
	if len(b) > maxNumberedHeading {
		return false
	}
	i, groups := 0, 0
	for {
		d := i
		for i < len(b) && i-d < 3 && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
		groups++
		if i+1 < len(b) && b[i] == '.' && '0' <= b[i+1] && b[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	if i < len(b) && b[i] == '.' {
		i++
	}
	if groups < 2 || i >= len(b) || (b[i] != ' ' && b[i] != '\t') {
		return false
	}
	switch b[len(b)-1] {
	case '.', ',', ';', ':', '!', '?':
		return false
	}
	return strings.TrimLeft(b[i:], " \t") != ""
}

// isRule reports whether b is three or more c, optionally spaced: a setext
// underline or a thematic break.
func isRule(b string, c byte) bool {
	n := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// isBullet reports whether r is a bullet that starts a list item when
// followed by a space; PDF extractors emit these for itemize lists.
func isBullet(r rune) bool {
	switch r {
	case '•', '◦', '▪', '▫', '‣', '●', '○', '■', '□', '▸', '►', '➢', '✓', '✔', '·':
		return true
	}
	return false
}

// flush splits one block of non-blank lines: it decides which line
// breaks are boundaries, then scans each run of joined lines.
func (s *splitter) flush(block []line) {
	if len(block) == 0 {
		return
	}
	// width estimates the wrapping column: the 80th percentile of the
	// lengths of the lines that could have been wrapped. Unwrapped lines (a
	// title's paragraph) are left out, and the percentile ignores the odd
	// over-long line a PDF converter merged and the short lines of code.
	width := 0
	if len(block) > 1 {
		hist := &s.hist
		clear(hist[:])
		n := 0
		for i := range block {
			ln := &block[i]
			ln.unwrapped = s.unwrapped(*ln)
			if !ln.unwrapped {
				hist[min(ln.end-ln.start, wrapWidth+1)]++
				n++
			}
		}
		rank := (n*4 + 4) / 5 // ceil(0.8 n)
		for w, c := range hist {
			if rank -= int(c); rank <= 0 {
				width = w
				break
			}
		}
		// A block whose lines below the first are often short is a
		// table or code, one cell or statement a line, not prose with
		// the odd title line: it gets no title-line breaks.
		short := 0
		for _, ln := range block[1:] {
			if !ln.unwrapped && ln.end-ln.start <= width*3/5 {
				short++
			}
		}
		if short >= 3 && 3*short >= len(block)-1 {
			width = 0
		}
	}
	first := 0
	for i := range block {
		if i == len(block)-1 || s.breakAfter(block[i], block[i+1], width) {
			s.runLines(block[first : i+1])
			first = i + 1
		}
	}
}

// unwrapped reports whether ln has a space past wrapWidth, where any
// hard-wrapping editor or converter would have broken it: it comes from
// one-paragraph-per-line text, or PDF text whose paragraphs arrive joined.
func (s *splitter) unwrapped(ln line) bool {
	return ln.end-ln.start > wrapWidth && strings.ContainsAny(s.text[ln.start+wrapWidth:ln.end], " \t")
}

// breakAfter reports whether the newline between lines l and n is a
// sentence boundary. width is the wrapping column estimated for the block,
// or 0 to turn off title lines.
func (s *splitter) breakAfter(l, n line, width int) bool {
	switch {
	case l.kind == lineHeading || n.kind == lineHeading:
		return true
	case n.kind == lineUnderline:
		return false // a setext heading: the title and its underline
	case l.kind == lineUnderline || l.kind == lineRule || n.kind == lineRule:
		return true
	case n.kind == lineList:
		return true
	case l.kind == lineTable || n.kind == lineTable:
		return l.kind != n.kind
	case l.unwrapped || n.unwrapped:
		// Not hard-wrapped text, so the author ended the line: a
		// paragraph per line, or a title line over its paragraph.
		return true
	}
	// A title line: short, over the full first line of a paragraph, and
	// the next line's first word would have fitted on it with room to
	// spare, so no wrapper broke it here. In greedy hard-wrapped prose the
	// next word never fits (that is why the line was broken); the margins
	// absorb wrappers that are not greedy and justified PDF text, whose
	// lines vary in characters by ±15%. Requiring a full next line keeps
	// the short lines of code and tables together.
	text := s.text
	w := n.body
	for w < n.end && text[w] != ' ' && text[w] != '\t' {
		w++
	}
	ll := l.end - l.start
	return width > 0 && ll <= width*3/5 && ll+1+(w-n.body) <= width*4/5 && n.end-n.start >= width*3/4
}

// runLines splits a run of joined lines.
func (s *splitter) runLines(lines []line) {
	first, last := lines[0], lines[len(lines)-1]
	switch first.kind {
	case lineHeading, lineTable, lineUnderline, lineRule:
		// Headings are one sentence; tables are one run, cut at
		// MaxSentenceBytes between rows.
		s.emit(first.body, last.end, true)
		return
	}
	// Three or more short lines are code, a table or a list of terms
	// rather than wrapped prose, so cuts prefer their newlines.
	verbatim := len(lines) >= 3 && last.end-first.start < shortLine*len(lines)
	s.scan(first.body, first.scan, last.end, verbatim)
}

// shortLine is the mean line length below which a run of lines is taken
// for code or a table: wrapped prose averages 60 to 75 bytes a line.
const shortLine = 48

// special marks the bytes at which scan must look closer: the ASCII
// terminators and the lead bytes of … ‼ ⁇ ⁈ ⁉ (E2) and 。 ！ ？ ； ｡ (E3, EF).
var special = func() (t [256]bool) {
	for _, c := range []byte(".!?\xe2\xe3\xef") {
		t[c] = true
	}
	return t
}()

// Terminator flags, gathered over a run of terminators such as "?!" or "...".
const (
	termPeriods = 1 << iota // one or more '.'
	termBangQ               // '!' or '?'
	termOther               // …, ‼ and kin
	termCJK                 // 。！？；｡: ends a sentence whatever follows
)

// scan splits text[start:end] into sentences, looking for terminators from
// byte i on (after a list marker, whose period is not a terminator).
// verbatim is passed on to emit.
func (s *splitter) scan(start, i, end int, verbatim bool) {
	text := s.text
	for i < end {
		if !special[text[i]] {
			i++
			continue
		}
		flags, periods, j := terminators(text, i, end)
		if flags == 0 { // a multibyte rune that is not a terminator
			_, n := utf8.DecodeRuneInString(text[i:end])
			i += n
			continue
		}
		j = closers(text, j, end)
		if flags&termCJK == 0 {
			if j >= end {
				break // the run ends here anyway
			}
			r, n := utf8.DecodeRuneInString(text[j:end])
			if !isSpace(r) {
				// "真的吗?是的": ! and ? end a sentence before CJK
				// text even without a space. Otherwise no space
				// means no boundary: 3.5, x.foo(), a.b?c=d, Yahoo!7.
				if flags&termBangQ == 0 || !textproc.IsCJK(r) {
					i = j
					continue
				}
			} else {
				k := skipSpace(text, j+n, end)
				if k >= end {
					break
				}
				if !endsBefore(text, i, k, end, flags, periods) ||
					flags == termPeriods && clauseNumber(text[skipSpace(text, start, i):i]) {
					i = k
					continue
				}
			}
		}
		s.emit(start, j, verbatim)
		start, i = j, j
	}
	s.emit(start, end, verbatim)
}

// endsBefore decides a run of terminators at text[i] that is followed by
// whitespace and then text[k]: whether it ends the sentence.
func endsBefore(text string, i, k, end, flags, periods int) bool {
	switch {
	case !plausibleStart(text, k, end):
		return false // "e.g. in", "Yahoo! is", `"Stop." he said`
	case leader(text, i, k):
		return false
	case flags == termPeriods && periods == 1:
		return periodEnds(text, i, k, end)
	case flags&termBangQ == 0 && text[k] == '(':
		// An ellipsis before a bracket trails off inside the sentence:
		// "In a Perfect World..." (2009).
		return false
	}
	return true
}

// clauseNumber reports whether w, the text of a sentence up to its
// period, is nothing but the number of the clause or item it opens: "5.1"
// in "5.1. Either party may terminate…", "Item 7" in "Item 7. Management's
// Discussion", "Section 4(b)". Such a number belongs to what follows it,
// not to a sentence of its own, which would part a clause from its number
// and a filing's heading from its title.
func clauseNumber(w string) bool {
	if w == "" || len(w) > 24 {
		return false
	}
	if word, rest, ok := strings.Cut(w, " "); ok {
		if !clauseWord(word) {
			return false
		}
		// "Item 1A", "Article VII", "Section 4(b)", "Schedule B"
		w = strings.TrimLeft(rest, " ")
		if w == "" || len(w) > 10 || strings.Contains(w, "..") {
			return false
		}
		for i := 0; i < len(w); i++ {
			if c := w[i]; !isAlnum(c) && c != '.' && c != '(' && c != ')' {
				return false
			}
		}
		return true
	}
	// a bare number of up to four groups: "5", "5.1", "12.3.1"
	groups, digits := 1, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case '0' <= c && c <= '9':
			if digits++; digits > 3 {
				return false
			}
		case c == '.' && digits > 0 && groups < 4:
			groups, digits = groups+1, 0
		default:
			return false
		}
	}
	return digits > 0
}

// clauseWord reports whether word names a part of a contract, statute or
// filing that a number follows, in any case.
func clauseWord(word string) bool {
	if len(word) > len("paragraph") {
		return false
	}
	var lower [len("paragraph")]byte
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return clauseWords[string(lower[:len(word)])]
}

// clauseWords are the words clauseWord knows, in lower case.
var clauseWords = map[string]bool{
	"item": true, "section": true, "article": true, "clause": true, "part": true,
	"schedule": true, "exhibit": true, "annex": true, "appendix": true, "chapter": true,
	"rule": true, "§": true, "§§": true, "paragraph": true, "note": true,
}

// leader reports whether the period at text[i] ends a spaced run of dots
// before a number: the leader of a table of contents or index entry,
// "Vector arithmetic . . . . . 8", which ends no sentence.
func leader(text string, i, k int) bool {
	return i >= 2 && text[i-1] == ' ' && text[i-2] == '.' && '0' <= text[k] && text[k] <= '9'
}

// terminators reads the run of terminators at text[i:] and returns its
// flags, the number of periods in it and its end. flags is 0 if text[i] is
// not a terminator.
func terminators(text string, i, end int) (flags, periods, j int) {
	j = i
	for j < end {
		switch c := text[j]; c {
		case '.':
			flags |= termPeriods
			periods++
			j++
			continue
		case '!', '?':
			flags |= termBangQ
			j++
			continue
		}
		if text[j] < utf8.RuneSelf {
			return flags, periods, j
		}
		r, n := utf8.DecodeRuneInString(text[j:end])
		switch r {
		case '。', '！', '？', '；', '｡':
			flags |= termCJK
		case '…', '‼', '⁇', '⁈', '⁉':
			flags |= termOther
		default:
			return flags, periods, j
		}
		j += n
	}
	return flags, periods, j
}

// closers skips the closing quotes and brackets that belong to the
// sentence before them (He said "Stop." Then…), and a footnote reference
// such as [12] right after the terminator.
func closers(text string, j, end int) int {
	for j < end {
		c := text[j]
		switch c {
		case '"', '\'', ')', ']', '}':
			j++
			continue
		case '[':
			k := j + 1
			for k < end && k-j <= 4 && isAlnum(text[k]) {
				k++
			}
			if k > j+1 && k < end && text[k] == ']' {
				j = k + 1
				continue
			}
			return j
		}
		if c < utf8.RuneSelf {
			return j
		}
		r, n := utf8.DecodeRuneInString(text[j:end])
		switch r {
		case '”', '’', '»', '›', '」', '』', '）', '】', '〕', '〉', '》', '〗', '〙', '］', '＂', '＇':
			j += n
		default:
			return j
		}
	}
	return j
}

// plausibleStart reports whether the text at k can begin a sentence:
// anything but a lowercase letter or punctuation that continues one.
func plausibleStart(text string, k, end int) bool {
	c := text[k]
	if c < utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z':
			return false
		case c == ',' || c == ';' || c == ':' || c == ')' || c == ']' || c == '}' || c == '.' || c == '!' || c == '?':
			return false
		}
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[k:end])
	return !unicode.IsLower(r)
}

// periodEnds decides a single period at text[i] that is followed by
// whitespace and a plausible sentence start at k: it ends the sentence
// unless the word before it is an abbreviation, an initial or a dotted
// acronym, in which case it does only if a typical sentence-initial word
// follows.
func periodEnds(text string, i, k, end int) bool {
	switch wordBefore(text, i) {
	case abbrevNever:
		return false
	case abbrevMaybe:
		return startsWithStarter(text, k, end)
	}
	return true
}

// maxAbbrev bounds the backward scan for the word before a period; longer
// words are not abbreviations.
const maxAbbrev = 24

// wordBefore classifies the word that ends at the period text[i]: the
// bytes back to the previous whitespace, less any opening brackets and
// quotes ("(Dr." is "Dr"; "ninety's." is not the initial "s").
func wordBefore(text string, i int) abbrevKind {
	w := i
	for w > 0 && i-w <= maxAbbrev {
		c := text[w-1]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				break
			}
			w--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(text[:w])
		if isSpace(r) {
			break
		}
		w -= n
	}
	if i-w > maxAbbrev {
		return notAbbrev
	}
	word := text[w:i]
	for word != "" {
		r, n := utf8.DecodeRuneInString(word)
		if !isOpener(r) {
			break
		}
		word = word[n:]
	}
	if word == "" {
		return notAbbrev
	}
	if k, ok := abbrevs[word]; ok {
		return k
	}
	if r, n := utf8.DecodeRuneInString(word); n == len(word) && unicode.IsLetter(r) {
		return abbrevMaybe // an initial: J. R. R. Tolkien, K. A. Applegate
	}
	if isDottedAcronym(word) {
		return abbrevMaybe // U.S., Ph.D., a.m., D.C.
	}
	return notAbbrev
}

// isOpener reports whether r opens a bracket or quotation.
func isOpener(r rune) bool {
	switch r {
	case '(', '[', '{', '"', '\'', '“', '‘', '«', '‹', '（', '「', '『', '【', '—', '–':
		return true
	}
	return false
}

// isDottedAcronym reports whether w is letters in dot-separated groups of
// one or two, with at least one dot: U.S, Ph.D, a.m, U.S.A (the final
// period is not part of w). os.path.join and example.com are not.
func isDottedAcronym(w string) bool {
	dots, run := 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c == '.':
			if run == 0 {
				return false
			}
			dots, run = dots+1, 0
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			run++
			if run > 2 {
				return false
			}
		default:
			return false
		}
	}
	return dots > 0 && run > 0
}

// startsWithStarter reports whether the word at k is a typical
// sentence-initial word (see starters) and not itself an initial ("A." in
// "K. A. Applegate").
func startsWithStarter(text string, k, end int) bool {
	e := k
	for e < end && e-k <= 16 && ('a' <= text[e] && text[e] <= 'z' || 'A' <= text[e] && text[e] <= 'Z') {
		e++
	}
	if e == k || e-k > 16 || (e < end && text[e] == '.') {
		return false
	}
	return starters[text[k:e]]
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// spaceLen returns the length of the whitespace rune at b[i], or 0.
func spaceLen(b string, i int) int {
	if i >= len(b) {
		return 0
	}
	if c := b[i]; c < utf8.RuneSelf {
		if asciiSpace[c] {
			return 1
		}
		return 0
	}
	if r, n := utf8.DecodeRuneInString(b[i:]); unicode.IsSpace(r) {
		return n
	}
	return 0
}

// skipSpace returns the first byte at or after i, before end, that does
// not begin a whitespace rune, or end.
func skipSpace(text string, i, end int) int {
	for i < end {
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:end])
		if !unicode.IsSpace(r) {
			return i
		}
		i += n
	}
	return end
}

// trimSpaceEnd returns j moved back over whitespace runes, not before start.
func trimSpaceEnd(text string, start, j int) int {
	for j > start {
		c := text[j-1]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return j
			}
			j--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(text[start:j])
		if !unicode.IsSpace(r) {
			return j
		}
		j -= n
	}
	return start
}

// emit appends text[a:b], trimmed, cutting it if it is over-long.
// verbatim says the text's newlines are its structure (a table, code, a
// heading) rather than the soft breaks of wrapped prose.
func (s *splitter) emit(a, b int, verbatim bool) {
	text := s.text
	a = skipSpace(text, a, b)
	b = trimSpaceEnd(text, a, b)
	for b-a > MaxSentenceBytes {
		p := cutPoint(text, a, b, verbatim)
		s.out = append(s.out, Span{a, trimSpaceEnd(text, a, p)})
		a = skipSpace(text, p, b)
	}
	if a < b {
		s.out = append(s.out, Span{a, b})
	}
}

// cutPoint chooses where to cut text[a:b], which is longer than
// MaxSentenceBytes and starts with a non-space rune. It aims at pieces of
// equal length, so 600 bytes become two of about 300 rather than 512 and 88,
// and within a window around that target prefers the best kind of cut (see
// cutClass), then the one nearest the target.
func cutPoint(text string, a, b int, verbatim bool) int {
	n := b - a
	pieces := (n + MaxSentenceBytes - 1) / MaxSentenceBytes
	ideal := n / pieces
	lo, hi := a+ideal/2, a+min(MaxSentenceBytes, ideal+ideal/4)
	target := a + ideal
	best, bestScore := hi, math.MinInt
	for p := lo + 1; p <= hi; p++ {
		if !utf8.RuneStart(text[p]) {
			continue
		}
		// Scores go negative far from the target, hence MinInt above.
		score := cutClass(text, a, p, verbatim)<<20 - abs(p-target)
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	// With no rune start in the window, every byte in it is a stray
	// continuation byte, so hi does not split a valid sequence.
	return best
}

// cutClass ranks a cut before text[p]. In verbatim text a newline is best
// (between table rows or lines of code), then whitespace after a clause
// mark (, ; : or the CJK ， 、 ： ；), then other whitespace. In prose a
// newline is only a wrapped line's soft break, so clause marks come first.
// Anywhere else ranks 0: the cut still falls between runes.
func cutClass(text string, a, p int, verbatim bool) int {
	c := text[p-1]
	if c < utf8.RuneSelf && asciiSpace[c] {
		if verbatim && c == '\n' {
			return 4
		}
		q := p - 1
		for q > a && text[q-1] < utf8.RuneSelf && asciiSpace[text[q-1]] {
			q--
		}
		if q > a && (text[q-1] == ',' || text[q-1] == ';' || text[q-1] == ':') {
			return 3
		}
		if c == '\n' {
			return 2
		}
		return 1
	}
	if p-3 >= a {
		switch text[p-3 : p] {
		case "，", "、", "：", "；":
			return 3
		}
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
