package pdftext

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/ingest/split"
)

// Footnotes. A page's footnotes stand at the foot of its text, after its
// last line of body text, so in reading order they fall between the two
// halves of a sentence that runs on to the next page ("…but it can" /
// "4 of unlimited length." / "be quite hard to decide…"), and read as
// body text. The reader finds them (markNotes), writes them apart from
// the body (renderPage), and once the next page is known puts them where
// they cut nothing (placeNotes): before the page's last paragraph when
// that paragraph runs on to the next page (before its last sentence when
// the paragraph also began on the page before), at the page's end
// otherwise. They are content, never dropped, and stay inside their
// page's text, so their page and their geometry are still theirs; only
// their place among the page's paragraphs changes. (After the sentence's
// end on the next page, where a reader turns to them, they would stand
// in the next page's text: cited as on that page, and drawn there.)
//
// A footnote is found conservatively, by what sets it apart in print: a
// line at the bottom of its column's text, set smaller than the body,
// below a gap (where the rule stands), opening with a mark that the
// page's body text sets as a superscript (a raised, smaller "4", "*",
// "†"), with nothing below it in its column but more lines of the same
// small type. A page whose bottom lines are set at the body's size is
// left as it is.

// Footnote tuning, as fractions of the type size.
const (
	noteSize  = 0.9  // a note is set smaller than this times the body size
	supSize   = 0.85 // a superscript mark is smaller than this times its line
	supRaise  = 0.2  // and raised above the line's baseline by more than this
	noteGap   = 1.5  // a note's first line stands this far (baseline to baseline) below the line above
	maxMarkLn = 3    // the runes of a footnote mark: "12", "**", "†"
)

// maxNoteTries bounds the lines of a page tried as a footnote's first.
const maxNoteTries = 32

// markNotes marks the page's footnote lines (note) and the lines that
// open a footnote (noteHead). body is the document's body type size.
//
// A footnote at the foot of the page may have been dropped as a running
// foot, its number taken for a page number counting up with the pages
// ("3 In general…" on one page, "4 A different style…" on the next); one
// that opens with its mark raised, as no page number is, is text again.
func markNotes(frags []frag, body float32) {
	marks := superscriptMarks(frags, body)
	if len(marks) == 0 {
		return
	}
	order := make([]*frag, 0, len(frags))
	for i := range frags {
		order = append(order, &frags[i])
	}
	slices.SortStableFunc(order, func(a, b *frag) int { return cmp.Compare(a.v, b.v) })
	tries := 0
	for i, f := range order {
		if f.note || !opensNote(f, marks, body) || f.drop && !raisedMark(f) {
			continue
		}
		// each try reads the page's lines again: a page of small lines
		// that open with marks is not read once for each
		if tries++; tries > maxNoteTries {
			break
		}
		if !belowGap(order, i, body) {
			continue
		}
		below := noteColumn(order, i)
		if !allSmall(below, body) {
			continue
		}
		f.note, f.noteHead, f.drop = true, true, false
		for _, g := range below {
			head := opensNote(g, marks, body)
			if g.drop && !(head && raisedMark(g)) {
				continue // the page's number under its notes
			}
			g.note, g.noteHead, g.drop = true, g.noteHead || head, false
		}
	}
}

// raisedMark reports whether a line opens with a word set smaller than
// the line and raised above it: a footnote's mark as the note sets it.
func raisedMark(f *frag) bool {
	if len(f.words) < 2 {
		return false
	}
	w := f.words[0]
	return w.size <= supSize*f.size && w.v <= f.v-supRaise*f.size
}

// superscriptMarks collects the footnote marks the page's body lines set
// as superscripts: a word of digits or note symbols, smaller than its
// line and raised above it.
func superscriptMarks(frags []frag, body float32) map[string]bool {
	var marks map[string]bool
	for i := range frags {
		f := &frags[i]
		if f.drop || f.size < noteSize*body {
			continue
		}
		for k, w := range f.words {
			if k == 0 || w.size > supSize*f.size || w.v > f.v-supRaise*f.size || !isMark(w.text) {
				continue
			}
			if marks == nil {
				marks = map[string]bool{}
			}
			marks[w.text] = true
		}
	}
	return marks
}

// isMark reports whether s is a footnote mark: up to three digits, or up
// to three of the symbols that mark notes.
func isMark(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxMarkLn {
		return false
	}
	digits := strings.Trim(s, "0123456789") == ""
	symbols := strings.Trim(s, "*†‡§¶‖#") == ""
	return digits || symbols
}

// opensNote reports whether line f is set small and opens with one of
// the page's superscript marks ("4", "4.", "4)"), followed by text.
func opensNote(f *frag, marks map[string]bool, body float32) bool {
	if f.size >= noteSize*body || len(f.words) < 2 {
		return false
	}
	first := f.words[0].text
	return marks[first] || marks[strings.TrimRight(first, ".)")]
}

// belowGap reports whether line order[i] stands well below the nearest
// line above it in its column, and that line is body text: the gap (or
// rule) that sets footnotes apart from the text above them.
func belowGap(order []*frag, i int, body float32) bool {
	f := order[i]
	for j := i - 1; j >= 0; j-- {
		g := order[j]
		if g.drop || !overlaps(f, g) || g.v >= f.v-0.3*f.size {
			continue // another column, or the same row
		}
		return f.v-g.v >= noteGap*f.size && g.size >= noteSize*body
	}
	return false // nothing above: the top of a column is not its foot
}

// noteColumn is the lines below order[i] that share its column.
func noteColumn(order []*frag, i int) []*frag {
	f := order[i]
	var out []*frag
	for _, g := range order[i+1:] {
		if overlaps(f, g) && g.top >= f.top {
			out = append(out, g)
		}
	}
	return out
}

// allSmall reports whether every line is set smaller than the body.
func allSmall(fs []*frag, body float32) bool {
	for _, f := range fs {
		if !f.drop && f.size >= noteSize*body {
			return false
		}
	}
	return true
}

// overlaps reports whether two lines overlap horizontally.
func overlaps(a, b *frag) bool { return min(a.u1, b.u1) > max(a.u0, b.u0) }

// splitNotes separates a page's footnote blocks from its other blocks,
// each in reading order.
func splitNotes(blocks []*block) (body, notes []*block) {
	for _, bl := range blocks {
		if isNoteBlock(bl) {
			notes = append(notes, bl)
		} else {
			body = append(body, bl)
		}
	}
	return body, notes
}

// isNoteBlock reports whether a block is footnote text.
func isNoteBlock(bl *block) bool {
	if bl.table != nil || bl.head != nil || len(bl.lines) == 0 {
		return false
	}
	for _, l := range bl.lines {
		if !l.note {
			return false
		}
	}
	return true
}

// pageNotes is a page's footnotes, written apart from its body text
// until they are placed.
type pageNotes struct {
	text   string
	pieces []piece
	size   float32 // the type size of their last line
}

// runsOn reports whether page p's text goes on from page prev's: prev
// ends in an open sentence, p opens as its continuation (in lower case,
// or after a word broken at a hyphen), in a like type size. The document
// assembly then joins them without a paragraph break.
func runsOn(prev, p *pageText) bool {
	return prev.endsOpen && p.startsOpen && (endsHyphen(prev.text) || startsLower(p.text)) &&
		max(prev.endSize, p.startSize) <= 1.1*min(prev.endSize, p.startSize)
}

// placeNotes writes page pt's footnotes into its text. When its text runs
// on to the next page (cont), they go before the last paragraph, so that
// the paragraph's sentence meets its continuation across the page break
// with nothing between; when that paragraph itself runs on from the page
// before (joined), before its last sentence instead; when that sentence
// is the whole of the page, or nothing runs on, they go at the page's
// end. Its pieces, headings and tables move with the text.
func placeNotes(pt *pageText, cont, joined bool) {
	n := pt.notes
	if n == nil {
		return
	}
	pt.notes = nil
	if pt.text == "" {
		pt.text, pt.pieces = n.text, n.pieces
		pt.startsOpen, pt.endsOpen, pt.endSize = false, false, n.size
		return
	}
	at := -1
	if cont {
		at = notesAt(pt.text, joined)
	}
	if at < 0 {
		pt.pieces = append(pt.pieces, shiftPieces(n.pieces, len(pt.text)+2)...)
		pt.text += "\n\n" + n.text
		pt.endsOpen, pt.endSize = false, n.size
		return
	}
	insertNotes(pt, n, at)
}

// notesAt is where in a page's text its footnotes go so as to cut no
// sentence that runs on to the next page: the start of its last
// paragraph, or, when that paragraph is the page's first and runs on from
// the page before (joined), the start of its last sentence; -1 when that
// is the page's start too.
func notesAt(text string, joined bool) int {
	at := strings.LastIndex(text, "\n\n")
	if at >= 0 {
		return at + 2
	}
	if !joined {
		return 0
	}
	spans := split.Sentences(text)
	if len(spans) < 2 {
		return -1
	}
	return spans[len(spans)-1].Start
}

// insertNotes writes notes into pt's text at byte at (a paragraph's or a
// sentence's start), as a paragraph of their own: the space before at
// becomes a blank line, and a blank line follows them.
func insertNotes(pt *pageText, n *pageNotes, at int) {
	ws := at // where the space before at starts
	for ws > 0 && (pt.text[ws-1] == ' ' || pt.text[ws-1] == '\n') {
		ws--
	}
	pre := ""
	if ws > 0 {
		pre = "\n\n"
	}
	notes := pre + n.text + "\n\n"
	by := ws + len(notes) - at // how far the text from at moves
	var pieces []piece
	for _, pc := range pt.pieces {
		k := len(pc.at)
		for k > 0 && pc.at[k-1] >= int32(at) {
			k--
		}
		// a line whose words lie on both sides of at (a sentence
		// starting mid-line) becomes two parts, so that neither's
		// bytes take in the notes
		if k > 0 && k < len(pc.at) {
			pieces = append(pieces, piece{f: pc.f, words: pc.words[:k], at: pc.at[:k]})
			pc = piece{f: pc.f, words: pc.words[k:], at: pc.at[k:]}
			k = 0
		}
		if k == 0 && len(pc.at) > 0 {
			shiftAt(pc.at, by)
		}
		pieces = append(pieces, pc)
	}
	pieces = append(pieces, shiftPieces(n.pieces, ws+len(pre))...)
	slices.SortStableFunc(pieces, func(a, b piece) int { return cmp.Compare(firstAt(a), firstAt(b)) })
	pt.pieces = pieces
	move := func(s span) span {
		for k := range s {
			switch {
			case s[k] >= at:
				s[k] += by
			case s[k] > ws:
				s[k] = ws
			}
		}
		return s
	}
	for i := range pt.heads {
		pt.heads[i].span = move(pt.heads[i].span)
	}
	for i := range pt.tables {
		t := &pt.tables[i]
		if t.caption != (span{}) {
			t.caption = move(t.caption)
		}
		for k := range t.rows {
			t.rows[k] = move(t.rows[k])
		}
	}
	pt.text = pt.text[:ws] + notes + pt.text[at:]
	if ws == 0 {
		pt.startsOpen = false
	}
}

// firstAt is where a piece's first word starts.
func firstAt(p piece) int32 {
	if len(p.at) == 0 {
		return -1
	}
	return p.at[0]
}
