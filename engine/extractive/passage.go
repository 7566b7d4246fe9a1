package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
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
	selectedLast := g.last
	// Forward: what a lead-in introduces — the list items, code lines or
	// steps under it — as long as each line taken is such an item. A
	// sentence after a lead-in that is itself a statement (a capitalised
	// clause ending in "." or ":") is a sibling, not what the lead-in
	// introduces: a prose list of grievances or clauses stays one per
	// statement.
	for leadIn(d, g.last) || (g.last > g.first && item(d, g.last) && item(d, g.last+1)) {
		j := g.last + 1
		if j >= n || !sameSection(g.last, j) || !item(d, j) || !take(j) {
			break
		}
		g.last = j
		if !item(d, j+1) {
			break
		}
	}
	// A term alone — a glossary's entry, a bulleted name — takes the
	// sentence that defines it, and the sentences after that refer back
	// to it ("This means…").
	if g.last == selectedLast && term(d, g.last) {
		if j := g.last + 1; j < n && sameSection(g.last, j) && !item(d, j) && !introduces(d.SentenceText(j)) && take(j) {
			g.last = j
			for j := g.last + 1; j < n && sameParagraph(d, g.last, j) && refersBack(d.SentenceText(j)) && take(j); j++ {
				g.last = j
			}
		}
	}
	// A sentence that announces what follows ("…the following function
	// is used instead.") with prose after it rather than a list takes
	// the next sentence of its paragraph: that is what it announced.
	if g.last == selectedLast && announces(d.SentenceText(g.last)) && !leadIn(d, g.last) {
		if j := g.last + 1; j < n && sameParagraph(d, g.last, j) && !introduces(d.SentenceText(j)) && take(j) {
			g.last = j
		}
	}
	// A paragraph that ends by leading in to a command ("The locales
	// package does not come with pre-compiled locale data. You need to
	// configure it as:") takes the lead-in and what it introduces, from
	// its selected sentence one or two before.
	if g.last == selectedLast && !leadIn(d, g.last) {
		for j := g.last + 1; j < n && j <= selectedLast+2 && sameParagraph(d, j-1, j); j++ {
			if !leadIn(d, j) {
				continue
			}
			last, ok := g.last, true
			for k := g.last + 1; k <= j && ok; k++ {
				ok = take(k)
			}
			if !ok {
				g.last = last
				break
			}
			g.last = j
			for k := j + 1; k < n && sameSection(j, k) && item(d, k) && take(k); k++ {
				g.last = k
				if !item(d, k+1) {
					break
				}
			}
			break
		}
	}
	// A statement that names a command takes the example under it: a
	// paragraph that explains git-stash(1) and then shows "$ git stash
	// push …" is answered by the command line, not by the prose alone.
	if g.last == selectedLast && !leadIn(d, g.last) {
		prose := d.SentenceText(g.last)
		for j := g.last + 1; j < n && sameSection(g.last, j) && example(d, j) && (j > selectedLast+1 || sharesName(prose, d.SentenceText(j))) && take(j); j++ {
			g.last = j
		}
	}
	// A short lead-in right after the items taken ("Use this command
	// line:") continues the passage: it says nothing on its own, and the
	// items under it are the answer.
	if g.last > selectedLast {
		for j := g.last + 1; j+1 < n && sameSection(g.last, j) && len(strings.TrimSpace(d.SentenceText(j))) <= maxBareLeadIn && leadIn(d, j) && item(d, j+1); j = g.last + 1 {
			if !take(j) {
				break
			}
			g.last = j
			if !take(j + 1) {
				break
			}
			g.last = j + 1
		}
	}
	// The sentence that completes it: a default or a limit, told next in
	// the same paragraph, or the one after with a short remark between
	// ("…digits to print. It is a suggestion only. Valid values are
	// 1...22 with default 7.").
	if j := g.last + 1; j < n && sameParagraph(d, g.last, j) && completes(d.SentenceText(j)) && take(j) {
		g.last = j
	} else if k := j + 1; k < n && sameParagraph(d, g.last, j) && sameParagraph(d, j, k) && len(d.SentenceText(j)) <= maxRemark && completes(d.SentenceText(k)) && take(j) && take(k) {
		g.last = k
	}
	// Forward: the next sentence of the paragraph that goes on about what
	// this one names ("ChaCha-Poly1305 is a combination of … It
	// originates from the NaCl library…"): the answer is often there.
	if j := g.last + 1; j < n && sameParagraph(d, g.last, j) && goesOn(d.SentenceText(j)) && take(j) {
		g.last = j
	}
	// Backward: a first sentence that refers to the one before it — by a
	// pronoun, or, being short or a definite description ("The most
	// common usage is for disk encryption.", "The winning design, also
	// known as RIJNDAEL, …"), to what its paragraph named before — takes
	// the sentences back to that name, within the budget.
	for i := g.first - 1; i >= 0 && sameParagraph(d, i, g.first) && needsBefore(d, i, g.first) && take(i); i-- {
		g.first = i
	}
	// Backward: a step of a procedure ("– Crash the program to produce a
	// core dump file.") takes the steps before it, within the budget: the
	// procedure is the answer, and its last step alone does nothing.
	if step(d.SentenceText(g.first)) {
		for i := g.first - 1; i >= 0 && sameSection(i, g.first) && (step(d.SentenceText(i)) || item(d, i) && !optionLine(d.SentenceText(i))) && take(i); i-- {
			g.first = i
		}
	}
	// Backward: the term a description defines — the option line of a
	// manual's option list ("-k --keep", "--track-origins=<yes|no>
	// [default: no]") over the paragraph the group is in — so the answer
	// names what it describes.
	if t := termAbove(d, g.first); t >= 0 {
		for i := g.first - 1; i >= t && take(i); i-- {
			g.first = i
		}
	}
	return g
}

// termAbove returns the sentence of the option line whose description
// holds sentence i (i itself or up to two sentences of its paragraph
// before it), or -1.
func termAbove(d *docstore.View, i int) int {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if d.Sentence(j).Section != d.Sentence(i).Section {
			return -1
		}
		if optionLine(d.SentenceText(j)) {
			return j
		}
		if !sameParagraph(d, j, j+1) {
			return -1
		}
	}
	return -1
}

// optionLine reports whether a sentence is an option's line in a list of
// options: it opens as an option ("-k", "--keep") and is short, with no
// closing mark of a sentence.
func optionLine(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 2 || len(t) > 100 || t[0] != '-' || !(t[1] == '-' || unicode.IsLetter(rune(t[1]))) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".!?:", last)
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

// announces reports whether a sentence announces what follows it
// anywhere in it ("the following function is used instead of …").
func announces(s string) bool {
	t := strings.ToLower(s)
	return introduces(s) || strings.Contains(t, "the following") || strings.Contains(t, "as follows")
}

// leadIn reports whether sentence i leads in to a list, steps or code
// under it: it introduces (see introduces), it is short enough to be a
// lead-in rather than a statement of its own, and what follows it is an
// item (see item). A sentence ending in ":" followed by another sentence
// of the same shape is one of a series of clauses, not a lead-in.
func leadIn(d *docstore.View, i int) bool {
	if i < 0 || i >= d.NumSentences() {
		return false
	}
	t := d.SentenceText(i)
	return len(strings.TrimSpace(t)) <= maxLeadIn && introduces(t) && item(d, i+1)
}

// maxLeadIn bounds a lead-in: a longer sentence ending in ":" is a
// statement of its own whose colon joins clauses.
const maxLeadIn = 200

// item reports whether sentence i is what a lead-in introduces rather
// than a sentence of its own: a code line or a table row, a bulleted,
// numbered or option line ("-v, --verbose"), or a short line that is no
// sentence — it neither opens as one (a capital letter) nor ends as one
// (".", "!", "?", ":") — such as a command, a value or a name.
func item(d *docstore.View, i int) bool {
	if i < 0 || i >= d.NumSentences() {
		return false
	}
	s := d.Sentence(i)
	if s.Flags&(structure.FlagHeading|structure.FlagFurniture|structure.FlagContents) != 0 {
		return false
	}
	if s.Flags&(structure.FlagCode|structure.FlagTableRow) != 0 {
		return true
	}
	return itemText(d.SentenceText(i))
}

// itemText is item's test on a sentence's text alone.
func itemText(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" {
		return false
	}
	if listMarker(t) {
		return true
	}
	if len(t) > maxItem {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(t, `"')]`))
	if strings.ContainsRune(".!?:", last) {
		return false
	}
	first, _ := utf8.DecodeRuneInString(t)
	// A short capitalised line with no closing mark is an item only
	// when it is a name or a value (a few words), not a clause.
	return !unicode.IsUpper(first) || len(strings.Fields(t)) <= 4
}

// maxItem bounds an unmarked item: a command line, a value, a name.
const maxItem = 120

// listMarker reports whether a line opens as a list item, a step or an
// option: a bullet, "1." / "2)" / "(a)", a prompt ("$ ", "# ", "% ",
// "> "), or an option ("-v", "--verbose").
func listMarker(t string) bool {
	for _, bullet := range []string{"•", "◦", "‣", "▪", "– ", "- ", "* ", "$ ", "# ", "% ", "> "} {
		if strings.HasPrefix(t, bullet) {
			return true
		}
	}
	if len(t) >= 2 && t[0] == '-' && (t[1] == '-' || unicode.IsLetter(rune(t[1]))) {
		return true
	}
	// "1." "12)" "(a)" "a)" followed by a space.
	j := 0
	if strings.HasPrefix(t, "(") {
		j = 1
	}
	k := j
	for k < len(t) && k-j < 3 && t[k] >= '0' && t[k] <= '9' {
		k++
	}
	if k == j && k < len(t) && t[k] >= 'a' && t[k] <= 'z' {
		k++ // one letter: "(a)", "a)"
		if k < len(t) && t[k] != ')' {
			return false
		}
	}
	if k == j || k+1 >= len(t) {
		return false
	}
	return (t[k] == '.' || t[k] == ')') && t[k+1] == ' '
}

// term reports whether sentence i is a term standing alone, as a
// glossary or a list of cases gives it before its definition: a short
// line of prose (not code, not a table row) that closes no sentence, or a
// bulleted name ("• "Definitely lost".").
func term(d *docstore.View, i int) bool {
	if d.Sentence(i).Flags&(structure.FlagCode|structure.FlagTableRow|structure.FlagHeading) != 0 {
		return false
	}
	t := strings.TrimSpace(d.SentenceText(i))
	if len(t) == 0 || len(t) > maxTerm || len(strings.Fields(t)) > 5 || t[0] == '-' {
		return false // an option line is an item of its list (see item)
	}
	for _, bullet := range []string{"•", "◦", "‣", "▪"} {
		if strings.HasPrefix(t, bullet) {
			return true
		}
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	return unicode.IsLetter(last) || last == '"' || last == '”' || last == ')'
}

// maxTerm bounds a term standing alone.
const maxTerm = 60

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

// step reports whether a sentence is a step of a procedure: a line that
// opens with a dash and reads as an instruction (a capital letter after
// the marker), not an option ("-k") or a name. A bullet ("• The xz
// archive uses…") lists facts more often than steps: each stands alone.
func step(s string) bool {
	t := strings.TrimSpace(s)
	for _, m := range []string{"– ", "- "} {
		if rest, ok := strings.CutPrefix(t, m); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			return unicode.IsUpper(r)
		}
	}
	return false
}

// needsBefore reports whether sentence j cannot stand alone and its
// paragraph's earlier sentences say what it is about: it refers back
// (see refersBack), it opens with a definite description ("The standard
// is…", "The most common usage…"), or it is short (at most shortSentence
// words: a comment on what came before).
//
// Only a pronoun reaches across a line break: a text that puts each
// sentence on a line of its own ("The board met eleven times.") writes
// sentences that stand alone.
func needsBefore(d *docstore.View, i, j int) bool {
	t := strings.TrimSpace(d.SentenceText(j))
	if refersBack(t) {
		return true
	}
	if strings.ContainsRune(d.Slice(int(d.Sentence(i).End), int(d.Sentence(j).Start)), '\n') {
		return false
	}
	return strings.HasPrefix(t, "The ") || len(strings.Fields(t)) <= shortSentence
}

// shortSentence is the most words a sentence has that needsBefore reads
// as a comment on the one before it.
const shortSentence = 8

// maxRemark bounds the sentence a completing one may come after.
const maxRemark = 80

// maxBareLeadIn bounds a lead-in that says nothing of its own ("Use this
// command line:", "Then run:").
const maxBareLeadIn = 40

// example reports whether sentence j is a code line or a command line a
// paragraph shows as its example: flagged code, or a line opening with a
// shell prompt ("$ ", "# ").
func example(d *docstore.View, j int) bool {
	s := d.Sentence(j)
	if s.Flags&(structure.FlagHeading|structure.FlagFurniture|structure.FlagContents) != 0 {
		return false
	}
	if s.Flags&structure.FlagCode != 0 {
		return true
	}
	t := strings.TrimSpace(d.SentenceText(j))
	return strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "# ")
}

// sharesName reports whether a code line uses a name the prose before it
// gives (a command, a function: "git-stash(1)" and "$ git stash push"),
// so the code is that prose's example and not the next topic's.
func sharesName(prose, code string) bool {
	names := map[string]bool{}
	for _, w := range nameWords(prose) {
		names[w] = true
	}
	for _, w := range nameWords(code) {
		if names[w] {
			return true
		}
	}
	return false
}

// nameWords splits text into lower-case words of letters, digits and "_"
// at least four long: the parts of names ("git-stash(1)" gives "stash";
// "git" is too short to tell one example from another).
func nameWords(s string) []string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
	})
	out := ws[:0]
	for _, w := range ws {
		if len(w) >= 4 && !textproc.IsStopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// goesOn reports whether a sentence goes on about what the one before it
// names, by a pronoun: "It originates from…", "They are objects that…".
// Unlike refersBack it leaves out "That" and "Such", which open a clause
// of their own as often ("That to secure these rights, …").
func goesOn(s string) bool {
	t := strings.TrimSpace(s)
	for _, w := range []string{"It ", "This ", "These ", "They ", "Its ", "Their "} {
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

// MaxHeaderBytes bounds the header rows a table row's statement quotes.
const MaxHeaderBytes = 300

// tableHeader returns the sentences that hold the header rows of the
// table sentence i is a row of, first..last, or -1, -1 when the table has
// none, they are longer than MaxHeaderBytes, or i is one of them.
func tableHeader(d *docstore.View, i int) (first, last int) {
	t := int(d.Sentence(i).Table)
	if d.Sentence(i).Flags&structure.FlagTableRow == 0 || t < 0 || t >= len(d.Tables()) {
		return -1, -1
	}
	h := d.Tables()[t].Header
	if len(h) == 0 || h[len(h)-1].End-h[0].Start > MaxHeaderBytes || h[len(h)-1].End > d.Sentence(i).Start {
		return -1, -1
	}
	first, last = -1, -1
	// The header is above its rows: look back for the sentences that
	// cover it, no further than the table's own rows reach.
	for j := i - 1; j >= 0 && i-j <= 200; j-- {
		s := d.Sentence(j)
		if s.End <= h[0].Start {
			break
		}
		if s.Start < h[len(h)-1].End {
			if last < 0 {
				last = j
			}
			first = j
		}
	}
	if first < 0 || d.Sentence(first).Start > h[0].Start || d.Sentence(last).End < h[len(h)-1].End {
		return -1, -1 // the header is no whole sentences of its own
	}
	return first, last
}

// underHeader writes a table row under its header: cell by cell when
// both are one line with as many cells ("Flag -9 · Compress usage 7600k
// · …": cells are set apart by two spaces or more), else the header's
// line, a colon and the rows.
func underHeader(head, rows string) string {
	hc, rc := cells(head), cells(rows)
	if len(hc) >= 2 && len(hc) == len(rc) && !strings.Contains(head, "\n") && !strings.Contains(rows, "\n") {
		var b strings.Builder
		for i := range hc {
			if i > 0 {
				b.WriteString(" · ")
			}
			b.WriteString(hc[i] + " " + rc[i])
		}
		return b.String()
	}
	return strings.Join(strings.Fields(head), " ") + ":\n" + rows
}

// cells splits a table line at its runs of two or more spaces.
func cells(line string) []string {
	var out []string
	for _, c := range strings.Split(strings.TrimSpace(line), "  ") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}
