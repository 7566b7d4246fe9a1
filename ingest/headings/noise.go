package headings

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
)

// spanSet is a sorted list of non-overlapping spans.
type spanSet []structure.Span

// covers reports whether s lies inside one of the set's spans.
func (ss spanSet) covers(s structure.Span) bool {
	i := sort.Search(len(ss), func(i int) bool { return ss[i].End > s.Start })
	return i < len(ss) && ss[i].Start <= s.Start && s.End <= ss[i].End
}

// edgeLines is how many non-blank lines at each end of a page can be
// running heads, footers or page numbers.
const edgeLines = 3

// findFurniture finds the page headers, footers and page numbers left in
// a text: at the top or bottom of a page, a line that is only a page
// number, or a line that recurs (digits aside) at page edges — on at least
// three pages and a fifth of them, or on two when a page number stands
// beside it, as running heads that change by chapter do. Extractors that
// drop running heads leave nothing for it; pdftotext's output and pasted
// PDF text keep them.
func findFurniture(text string, pageStarts []int32) spanSet {
	if len(pageStarts) < 3 {
		return nil
	}
	type edge struct {
		span     structure.Span
		key      string
		numbered bool // a page number is on the same edge of its page
	}
	var edges []edge
	count := map[string]int{}
	for p, start := range pageStarts {
		end := len(text)
		if p+1 < len(pageStarts) {
			end = int(pageStarts[p+1])
		}
		if int(start) >= end || end > len(text) {
			continue
		}
		lines := nonBlankLines(text, int(start), end)
		seen := map[string]bool{}
		for side := range 2 {
			lo, hi := 0, min(edgeLines, len(lines))
			if side == 1 {
				lo, hi = max(hi, len(lines)-edgeLines), len(lines)
			}
			numbered := false
			for _, ln := range lines[lo:hi] {
				numbered = numbered || isPageNumber(text[ln.Start:ln.End])
			}
			for _, ln := range lines[lo:hi] {
				k := furnitureKey(text[ln.Start:ln.End])
				edges = append(edges, edge{span: ln, key: k, numbered: numbered})
				if !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	often := max(3, len(pageStarts)/5)
	titles := lineKeys(text, edges, func(e edge) structure.Span { return e.span })
	var out spanSet
	for _, e := range edges {
		t := text[e.span.Start:e.span.End]
		n := count[e.key]
		repeated := n >= often || (e.numbered && (n >= 2 || titles[untitled(e.key)]))
		if isPageNumber(t) || (repeated && len(t) <= 100 && e.key != "" && !endsSentence(t)) {
			out = append(out, e.span)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return slices.Compact(out)
}

// lineKeys returns the furniture keys, without a leading "chapter"-like
// word, of the short lines of text that are not page edges: the titles a
// running head may repeat ("Chapter 3: Importing…" over "3 Importing…").
func lineKeys[E any](text string, edges []E, span func(E) structure.Span) map[string]bool {
	edge := make(map[int32]bool, len(edges))
	for _, e := range edges {
		edge[span(e).Start] = true
	}
	out := map[string]bool{}
	for _, ln := range nonBlankLines(text, 0, len(text)) {
		if !edge[ln.Start] && ln.End-ln.Start <= 100 {
			out[untitled(furnitureKey(text[ln.Start:ln.End]))] = true
		}
	}
	return out
}

// untitled drops a leading structural word and punctuation from a key:
// "chapter : importing data" → "importing data".
func untitled(key string) string {
	w, rest, ok := strings.Cut(key, " ")
	switch w {
	case "chapter", "section", "part", "appendix", "article", "chapter:", "section:":
		if ok {
			key = rest
		}
	}
	return strings.TrimLeft(key, ":.-–— ")
}

// nonBlankLines returns the spans of the non-blank lines of text[start:end],
// trimmed of surrounding whitespace.
func nonBlankLines(text string, start, end int) []structure.Span {
	var out []structure.Span
	for pos := start; pos < end; {
		e := end
		if nl := strings.IndexAny(text[pos:end], "\n\f"); nl >= 0 {
			e = pos + nl
		}
		s, t := pos, e
		for s < t && isBlankByte(text[s]) {
			s++
		}
		for t > s && isBlankByte(text[t-1]) {
			t--
		}
		if s < t {
			out = append(out, structure.Span{Start: int32(s), End: int32(t)})
		}
		pos = e + 1
	}
	return out
}

func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\n' }

// furnitureKey folds a line so a running head matches itself on every
// page: digits go (page numbers), case and spacing too.
func furnitureKey(t string) string {
	var b strings.Builder
	space := false
	for _, r := range t {
		switch {
		case unicode.IsDigit(r):
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// isPageNumber reads "12", "- 12 -", "Page 12", "12 of 40", "xiv".
func isPageNumber(t string) bool {
	t = strings.Trim(strings.TrimSpace(t), "-–— ")
	if l := strings.ToLower(t); strings.HasPrefix(l, "page ") {
		t = strings.TrimSpace(t[5:])
	}
	if a, b, ok := strings.Cut(t, " of "); ok {
		return textproc.IsDigits(a) && textproc.IsDigits(b)
	}
	if textproc.IsDigits(t) {
		return len(t) <= 4
	}
	return len(t) <= 6 && t != "" && strings.Trim(t, "ivxlc") == ""
}

// isContentsLine reads a table-of-contents or index line: a run of dot
// leaders (". . . ." or "....") before a page number, or a title that ends
// in a page number after a wide gap.
func isContentsLine(t string) bool {
	if !strings.Contains(t, "..") && !strings.Contains(t, ". .") && !strings.ContainsRune(t, '\n') {
		return false // no leader, one line: the common case, decided cheaply
	}
	lines := strings.Split(t, "\n")
	n := 0
	for _, ln := range lines {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		if hasLeader(ln) || (isPageNumber(ln) && len(lines) > 1) {
			n++
		}
	}
	return n > 0 && 2*n >= len(lines)
}

// markContentsEntries flags as contents the lines beside contents lines
// that end in a page number without leaders: the chapter entries of a
// table of contents ("1 The base package 1" over "base-package . . . 1"),
// set in bold with no dots, which would otherwise read as numbered
// headings. An entry is on its contents line's page (pageStarts), so
// "Chapter 1" opening the page after the contents stays a heading.
func markContentsEntries(text string, sents []structure.Span, flags []structure.Flags, pageStarts []int32) {
	page := func(i int) int {
		n, _ := slices.BinarySearch(pageStarts, sents[i].Start+1)
		return n
	}
	entry := func(i, beside int) bool {
		if flags[i]&(structure.FlagContents|structure.FlagTableRow|structure.FlagFurniture) != 0 || page(i) != page(beside) {
			return false
		}
		s := sents[i]
		t := text[s.Start:s.End]
		return len(t) <= 120 && !strings.ContainsRune(t, '\n') && startsLine(text, int(s.Start)) && endsLine(text, int(s.End)) && endsInPageNumber(t)
	}
	// forward, then back, so a run of entries next to one leader line is
	// flagged whichever side it is on
	for i := 1; i < len(sents); i++ {
		if flags[i-1]&structure.FlagContents != 0 && entry(i, i-1) {
			flags[i] |= structure.FlagContents
		}
	}
	// an entry wrapped onto the contents line under it: "7.34 How can I
	// save the result of each iteration in" over "a loop into a separate
	// file? . . . 38", numbered or among entries (not an index's title
	// over its first entry)
	wraps := func(i int) bool {
		t := text[sents[i].Start:sents[i].End]
		gap := text[sents[i].End:sents[i+1].Start]
		next, _ := utf8.DecodeRuneInString(text[sents[i+1].Start:sents[i+1].End])
		first, _ := utf8.DecodeRuneInString(t)
		among := unicode.IsDigit(first) || i > 0 && flags[i-1]&structure.FlagContents != 0
		return among && flags[i]&(structure.FlagContents|structure.FlagTableRow|structure.FlagFurniture) == 0 && strings.TrimSpace(gap) == "" && strings.Count(gap, "\n") == 1 &&
			unicode.IsLower(next) && !strings.ContainsRune(t, '\n') && !endsSentence(t)
	}
	for i := len(sents) - 2; i >= 0; i-- {
		if flags[i+1]&structure.FlagContents != 0 && (entry(i, i+1) || wraps(i)) {
			flags[i] |= structure.FlagContents
		}
	}
}

// endsInPageNumber reads a title followed by a page number: "1 The base
// package 1", "Appendix A Scripts xiv".
func endsInPageNumber(t string) bool {
	f := strings.Fields(t)
	if len(f) < 2 || !isPageNumber(f[len(f)-1]) {
		return false
	}
	rest := strings.Join(f[:len(f)-1], " ")
	return !endsSentence(rest) && strings.IndexFunc(rest, unicode.IsLetter) >= 0
}

// hasLeader reports whether ln has dot leaders: four or more dots, spaced
// or not, running to the end of the line or to a page number there, or two
// spaced dots before a page number where the title left room for no more
// ("2 Simple manipulations; numbers and vectors . . 8").
func hasLeader(ln string) bool {
	if body := strings.TrimRight(ln, " 0123456789ivxlc"); len(body) < len(ln) && strings.HasSuffix(body, " . .") {
		return true
	}
	i := strings.Index(ln, ". . .")
	if i < 0 {
		i = strings.Index(ln, "....")
	}
	if i < 0 {
		return false
	}
	tail := strings.TrimRight(ln[i:], " 0123456789ivxlc")
	return strings.Trim(tail, ". ") == ""
}

// isCode reads a sentence that is code, markup, or shell or REPL lines:
// most of its lines are comments, prompts or markup, or most of its words
// are code tokens.
func isCode(t string, markdown bool) bool {
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return true
	}
	if !strings.ContainsAny(t, codeMarks) && !strings.Contains(t, "::") {
		return false // no mark of code at all: prose, decided cheaply
	}
	lines := strings.Split(t, "\n")
	marked := 0
	for _, ln := range lines {
		if markedLine(strings.TrimSpace(ln), markdown) {
			marked++
		}
	}
	if 2*marked >= len(lines) && marked > 0 {
		return true
	}
	var code, prose, words int
	for _, w := range strings.Fields(t) {
		if strings.Contains(w, "://") || strings.HasPrefix(w, "www.") {
			continue
		}
		words++
		switch {
		case codeToken(w):
			code++
		case proseWord(w):
			prose++
		}
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	if (last == ';' || last == '{' || last == '}') && code >= 1 && prose < 2*code {
		return true
	}
	return code >= 1 && (3*code >= words || 2*prose < words)
}

// codeMarks are the characters without which a text cannot be code by
// isCode's tests.
const codeMarks = "#/$>%<={};\\|&+*"

// markedLine reads a line that says it is code or markup: a comment, a
// prompt, a tag.
func markedLine(ln string, markdown bool) bool {
	switch {
	case ln == "":
		return false
	case !markdown && strings.HasPrefix(ln, "#"),
		strings.HasPrefix(ln, "//"), strings.HasPrefix(ln, "/*"),
		strings.HasPrefix(ln, "$ "), strings.HasPrefix(ln, "> "), strings.HasPrefix(ln, "% "),
		strings.HasPrefix(ln, ">>> "):
		return true
	}
	return strings.HasPrefix(ln, "<") && strings.HasSuffix(ln, ">") // <mime-type type="…">
}

// codeToken reads a word of a program: an operator, an assignment, a
// brace, a statement end.
func codeToken(w string) bool {
	if t := strings.TrimRight(w, ".,;:"); t != "" {
		w = t
	}
	if strings.ContainsAny(w, "={};$\\|") || (strings.Contains(w, "&") && w != "&") || strings.Contains(w, "->") || strings.Contains(w, "::") || strings.Contains(w, "<-") {
		return true
	}
	return w == "<" || w == ">" || w == "+" || w == "*" || w == "-" || w == "&&"
}

// proseWord reads a word of running text: letters, perhaps closed by
// punctuation.
func proseWord(w string) bool {
	w = strings.TrimRight(strings.TrimLeft(w, "(“\"'‘"), ".,;:!?)”\"'’")
	if w == "" {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' && r != '’' && r != '\'' {
			return false
		}
	}
	return true
}

// fragment reports whether t has too few words to say anything: a bare
// number, a lone word, a symbol.
func fragment(t string) bool {
	words, letters := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsSpace(r):
			letters = 0
		case unicode.IsLetter(r):
			if letters++; letters == 2 {
				if words++; words >= 2 {
					return false
				}
			}
		}
	}
	return true
}

// markTables records the tables and flags their rows.
func markTables(a *Analysis, sents []structure.Span, tables []structure.Table) {
	for _, tb := range tables {
		ti := int32(len(a.Tables))
		used := false
		for _, row := range append(tb.Header[:len(tb.Header):len(tb.Header)], tb.Rows...) {
			for _, i := range sentencesIn(sents, row) {
				if a.Table[i] < 0 {
					a.Table[i] = ti
					a.Flags[i] |= structure.FlagTableRow
					used = true
				}
			}
		}
		if used {
			a.Tables = append(a.Tables, tb)
		}
	}
}

// sentencesIn returns the sentences that start inside s.
func sentencesIn(sents []structure.Span, s structure.Span) []int {
	i := sort.Search(len(sents), func(i int) bool { return sents[i].Start >= s.Start })
	var out []int
	for ; i < len(sents) && sents[i].Start < s.End; i++ {
		out = append(out, i)
	}
	return out
}

// PipeTables finds Markdown pipe tables: a header row, a delimiter row of
// dashes (|---|:--:|) and body rows, each a line starting with '|'.
func PipeTables(text string) []structure.Table {
	var out []structure.Table
	lines := nonBlankLines(text, 0, len(text))
	for i := 0; i+1 < len(lines); i++ {
		h, d := lines[i], lines[i+1]
		if !pipeRow(text, h) || !delimiterRow(text[d.Start:d.End]) || d.Start-h.End > 2 {
			continue
		}
		tb := structure.Table{Header: []structure.Span{h}}
		j := i + 2
		for ; j < len(lines) && pipeRow(text, lines[j]) && lines[j].Start-lines[j-1].End <= 2; j++ {
			tb.Rows = append(tb.Rows, lines[j])
		}
		out = append(out, tb)
		i = j - 1
	}
	return out
}

func pipeRow(text string, s structure.Span) bool {
	t := text[s.Start:s.End]
	return strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2
}

func delimiterRow(t string) bool {
	if !strings.Contains(t, "-") || !strings.Contains(t, "|") {
		return false
	}
	return strings.Trim(t, "|-: \t") == ""
}

// SplitRows makes every table row exactly one sentence: sentences that
// run across a row's start or end are cut there, and the sentences inside
// one row are joined. sents must be in order and not overlap; so is the
// result. Rows are trimmed of surrounding whitespace.
func SplitRows(text string, sents []structure.Span, tables []structure.Table) []structure.Span {
	var rows []structure.Span
	for _, tb := range tables {
		for _, r := range tb.Header {
			rows = append(rows, trim(text, r))
		}
		for _, r := range tb.Rows {
			rows = append(rows, trim(text, r))
		}
	}
	if len(rows) == 0 {
		return sents
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Start < rows[j].Start })
	out := make([]structure.Span, 0, len(sents)+len(rows))
	r := 0
	for _, s := range sents {
		for s.Start < s.End {
			for r < len(rows) && (rows[r].End <= s.Start || !rows[r].Valid(len(text))) {
				r++
			}
			if r == len(rows) || rows[r].Start >= s.End {
				out = append(out, s)
				break
			}
			row := rows[r]
			if s.Start < row.Start { // text before the row
				out = appendTrimmed(out, text, structure.Span{Start: s.Start, End: row.Start})
			}
			// The row itself, once, however many sentences it spans.
			if n := len(out); n == 0 || out[n-1] != row {
				out = append(out, row)
			}
			if s.End <= row.End {
				break
			}
			s.Start = row.End
			s = trim(text, s)
		}
	}
	return out
}

func appendTrimmed(out []structure.Span, text string, s structure.Span) []structure.Span {
	if s = trim(text, s); s.Start < s.End {
		out = append(out, s)
	}
	return out
}

// trim shrinks s to exclude surrounding whitespace.
func trim(text string, s structure.Span) structure.Span {
	if !s.Valid(len(text)) {
		return structure.Span{Start: s.Start, End: s.Start}
	}
	for s.Start < s.End && isBlankByte(text[s.Start]) {
		s.Start++
	}
	for s.End > s.Start && isBlankByte(text[s.End-1]) {
		s.End--
	}
	return s
}
