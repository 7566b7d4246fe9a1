package structure

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// spanSet is a sorted list of non-overlapping spans.
type spanSet []Span

// covers reports whether s lies inside one of the set's spans.
func (ss spanSet) covers(s Span) bool {
	i := sort.Search(len(ss), func(i int) bool { return ss[i].End > s.Start })
	return i < len(ss) && ss[i].Start <= s.Start && s.End <= ss[i].End
}

// edgeLines is how many non-blank lines at each end of a page can be
// running heads, footers or page numbers.
const edgeLines = 3

// findFurniture finds the page headers, footers and page numbers left in
// a text: at the top or bottom of a page, a line that is only a page
// number, or a line that recurs (digits aside) at the edges of at least
// three pages and a fifth of them. Extractors that drop running heads
// leave nothing for it; pdftotext's output and pasted PDF text keep them.
func findFurniture(text string, pageStarts []int32) spanSet {
	if len(pageStarts) < 3 {
		return nil
	}
	type edge struct {
		span Span
		key  string
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
		for j, ln := range lines {
			if j >= edgeLines && j < len(lines)-edgeLines {
				continue
			}
			t := strings.TrimSpace(text[ln.Start:ln.End])
			k := furnitureKey(t)
			edges = append(edges, edge{span: ln, key: k})
			if !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	min := max(3, len(pageStarts)/5)
	var out spanSet
	for _, e := range edges {
		t := strings.TrimSpace(text[e.span.Start:e.span.End])
		if isPageNumber(t) || (count[e.key] >= min && len(t) <= 100) {
			out = append(out, e.span)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// nonBlankLines returns the spans of the non-blank lines of text[start:end],
// trimmed of surrounding whitespace.
func nonBlankLines(text string, start, end int) []Span {
	var out []Span
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
			out = append(out, Span{int32(s), int32(t)})
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
		return allDigits(a) && allDigits(b)
	}
	if allDigits(t) {
		return len(t) <= 4
	}
	return len(t) <= 6 && t != "" && strings.Trim(t, "ivxlc") == ""
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isContentsLine reads a table-of-contents or index line: a run of dot
// leaders (". . . ." or "....") before a page number, or a title that ends
// in a page number after a wide gap.
func isContentsLine(t string) bool {
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

// hasLeader reports whether ln has dot leaders: four or more dots, spaced
// or not, running to the end of the line or to a page number there.
func hasLeader(ln string) bool {
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

// isCode reads a sentence that is code, markup, a shell or REPL line, or a
// run of such lines: at least half its lines look like code.
func isCode(t string, markdown bool) bool {
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return true
	}
	lines := strings.Split(t, "\n")
	code := 0
	for _, ln := range lines {
		if codeLine(strings.TrimSpace(ln), markdown) {
			code++
		}
	}
	return 2*code >= len(lines) && code > 0
}

// codeLine reads one line of code: a comment or prompt line, markup, or a
// line dense with the punctuation of programs.
func codeLine(ln string, markdown bool) bool {
	if ln == "" {
		return false
	}
	switch {
	case !markdown && strings.HasPrefix(ln, "#"),
		strings.HasPrefix(ln, "//"), strings.HasPrefix(ln, "/*"),
		strings.HasPrefix(ln, "$ "), strings.HasPrefix(ln, "> "), strings.HasPrefix(ln, "% "),
		strings.HasPrefix(ln, ">>> "):
		return true
	case strings.HasPrefix(ln, "<") && strings.HasSuffix(ln, ">"):
		return true // markup: <mime-type type="…">
	}
	var letters, marks, words int
	for _, r := range ln {
		switch {
		case unicode.IsLetter(r):
			letters++
		case strings.ContainsRune("{}[]()=;<>$\\|&*_/\"'`~^", r):
			marks++
		case r == ' ':
			words++
		}
	}
	words++
	last, _ := utf8.DecodeLastRuneInString(ln)
	if (last == ';' || last == '{' || last == '}') && marks >= 2 {
		return true
	}
	// Prose has a mark every few words at most; code one or more a word.
	return marks >= 3 && float64(marks) >= 0.6*float64(words) && letters < 12*marks
}

// fragment reports whether t has too few words to say anything: a bare
// number, a lone word, a symbol.
func fragment(t string) bool {
	words := 0
	for _, w := range strings.Fields(t) {
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 {
			words++
		}
		if words >= 2 {
			return false
		}
	}
	return true
}

// markTables records the tables and flags their rows.
func markTables(a *Analysis, sents []Span, tables []Table) {
	for _, tb := range tables {
		ti := int32(len(a.Tables))
		used := false
		for _, row := range append(tb.Header[:len(tb.Header):len(tb.Header)], tb.Rows...) {
			for _, i := range sentencesIn(sents, row) {
				if a.Table[i] < 0 {
					a.Table[i] = ti
					a.Flags[i] |= FlagTableRow
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
func sentencesIn(sents []Span, s Span) []int {
	i := sort.Search(len(sents), func(i int) bool { return sents[i].Start >= s.Start })
	var out []int
	for ; i < len(sents) && sents[i].Start < s.End; i++ {
		out = append(out, i)
	}
	return out
}

// PipeTables finds Markdown pipe tables: a header row, a delimiter row of
// dashes (|---|:--:|) and body rows, each a line starting with '|'.
func PipeTables(text string) []Table {
	var out []Table
	lines := nonBlankLines(text, 0, len(text))
	for i := 0; i+1 < len(lines); i++ {
		h, d := lines[i], lines[i+1]
		if !pipeRow(text, h) || !delimiterRow(text[d.Start:d.End]) || d.Start-h.End > 2 {
			continue
		}
		tb := Table{Header: []Span{h}}
		j := i + 2
		for ; j < len(lines) && pipeRow(text, lines[j]) && lines[j].Start-lines[j-1].End <= 2; j++ {
			tb.Rows = append(tb.Rows, lines[j])
		}
		out = append(out, tb)
		i = j - 1
	}
	return out
}

func pipeRow(text string, s Span) bool {
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
func SplitRows(text string, sents []Span, tables []Table) []Span {
	var rows []Span
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
	out := make([]Span, 0, len(sents)+len(rows))
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
				out = appendTrimmed(out, text, Span{s.Start, row.Start})
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

func appendTrimmed(out []Span, text string, s Span) []Span {
	if s = trim(text, s); s.Start < s.End {
		out = append(out, s)
	}
	return out
}

// trim shrinks s to exclude surrounding whitespace.
func trim(text string, s Span) Span {
	if !s.Valid(len(text)) {
		return Span{s.Start, s.Start}
	}
	for s.Start < s.End && isBlankByte(text[s.Start]) {
		s.Start++
	}
	for s.End > s.Start && isBlankByte(text[s.End-1]) {
		s.End--
	}
	return s
}
