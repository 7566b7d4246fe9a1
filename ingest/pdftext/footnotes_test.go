package pdftext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/pagegeom"
)

// run is text set at a size, raised above the baseline by rise (a
// superscript), in the proportional test font (every glyph half an em).
type run struct {
	text       string
	size, rise float64
}

// txt and sup are runs of body text and of a superscript mark in it.
func txt(s string) run { return run{text: s, size: 10} }
func sup(s string) run { return run{text: s, size: 6, rise: 4} }

// setLine shows runs one after another from (x, y), a space between
// them unless a run is a superscript (set against the word before it).
func setLine(x, y float64, runs ...run) string {
	var b strings.Builder
	for i, r := range runs {
		if i > 0 && r.rise == 0 {
			x += 0.5 * r.size // a space
		}
		fmt.Fprintf(&b, "BT /F1 %.1f Tf %.1f %.1f Td (%s) Tj ET\n", r.size, x, y+r.rise, r.text)
		x += 0.5 * r.size * float64(len(r.text))
	}
	return b.String()
}

// noteLine is a footnote's first line: its mark raised, its text at size.
func noteLine(y, size float64, mark, text string) string {
	return setLine(72, y, run{text: mark, size: 0.75 * size, rise: 0.4 * size}, run{text: text, size: size})
}

// crossingPages is a two-page document whose second paragraph runs on to
// the next page over the first page's footnote, set at noteSize (the
// body is 10 pt); marked sets the footnote's mark as a superscript in
// the text.
func crossingPages(noteSize float64, marked bool) []byte {
	mark := []run{txt("A reader meets the mark"), sup("1"), txt("in the text and looks down to the foot of the page for the")}
	if !marked {
		mark = []run{txt("A reader meets the mark in the text and looks down to the foot of the page for the")}
	}
	page1 := setLine(72, 720, txt("Footnotes stand at the foot of a page.")) +
		setLine(72, 696, mark...) +
		setLine(72, 684, txt("note, then goes back to the text; and the sentence that the page breaks in two goes")) +
		setLine(72, 672, txt("on over the break to the next page, where the text continues after the notes, and so")) +
		setLine(72, 660, txt("the reader who turns the page and reads on past the notes at the foot of this page")) +
		noteLine(100, noteSize, "1", "The note says where the text comes from, in smaller type.")
	page2 := setLine(72, 720, txt("finds the notes out of the way. The text goes on from here to its end."))
	return pagesPDF(testFonts(), page1, page2)
}

const crossingNote = "1 The note says where the text comes from, in smaller type."

func TestFootnoteOutOfTheSentence(t *testing.T) {
	t.Parallel()
	res := extractBytes(t, crossingPages(8, true))
	page1, page2 := res.Text[:res.PageStarts[1]], res.Text[res.PageStarts[1]:]
	// the sentence cut by the page break is one sentence again
	if want := "at the foot of this page finds the notes out of the way."; !strings.Contains(res.Text, want) {
		t.Errorf("the sentence across the page break is not joined: text %q", res.Text)
	}
	if !strings.HasPrefix(page2, "finds the notes") {
		t.Errorf("page 2 starts %q", page2)
	}
	// the note is kept, on its own page, before the paragraph that runs on
	want := "Footnotes stand at the foot of a page.\n\n" + crossingNote + "\n\nA reader meets the mark"
	if !strings.HasPrefix(page1, want) {
		t.Errorf("the note is not between the paragraphs of page 1: %q", page1)
	}
	checkGeometryFollowsText(t, res)
	// the note's line is where the note stands: at the foot of page 1,
	// under the paragraph it now comes before
	note := lineAt(t, res, 0, strings.Index(page1, crossingNote))
	last := lineAt(t, res, 0, strings.Index(page1, "the reader who turns"))
	if !(note.Box.Y0 > 0.8 && note.Box.Y0 > last.Box.Y1) {
		t.Errorf("the note's line %+v is not at the foot of the page, under the text's last %+v", note.Box, last.Box)
	}
	if first := lineAt(t, res, 1, int(res.PageStarts[1])); first.Box.Y0 > 0.2 {
		t.Errorf("the sentence's second half is not at the top of page 2: %+v", first.Box)
	}
}

// lineAt is the line part of page i's geometry that holds byte at.
func lineAt(t *testing.T, res *Result, i, at int) pagegeom.Line {
	t.Helper()
	for _, ln := range decodePage(t, res, i).Lines {
		if int(ln.Start) <= at && at < int(ln.End) {
			return ln
		}
	}
	t.Fatalf("no line of page %d's geometry holds byte %d", i+1, at)
	return pagegeom.Line{}
}

func TestNoFootnoteUnchanged(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		size   float64
		marked bool
	}{
		{"bottom line at the body's size", 10, true},
		{"no superscript mark in the text", 8, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res := extractBytes(t, crossingPages(c.size, c.marked))
			page1 := res.Text[:res.PageStarts[1]]
			// the last line stays where it stands, at the page's end, and
			// the page after does not run on from it
			if !strings.HasSuffix(strings.TrimRight(page1, "\n"), "this page\n\n"+crossingNote) {
				t.Errorf("page 1 changed: %q", page1)
			}
			if !strings.HasPrefix(page1, "Footnotes stand at the foot of a page.\n\nA reader meets") {
				t.Errorf("page 1 changed: %q", page1)
			}
			checkGeometryFollowsText(t, res)
		})
	}
}

// TestFootnoteBeforeLastSentence: a page whose one paragraph runs on
// from the page before and to the page after has its footnote put before
// its last sentence, which starts mid-line: both joins hold, and the
// line cut in two keeps its words' boxes.
func TestFootnoteBeforeLastSentence(t *testing.T) {
	t.Parallel()
	full := func(y float64, s string) string { return setLine(72, y, txt(s)) }
	page1 := full(720, "The first page has a paragraph whose lines all reach the right margin of the page, and") +
		full(708, "its last sentence is not over when the page ends, for it runs on to the next one, where")
	page2 := full(720, "it ends at last. That page has one paragraph, which has a mark for a note at its foot and") +
		setLine(72, 708, txt("goes on, line after line, up to the margin"), sup("7"), txt("and past it. Its last sentence starts mid-line")) +
		full(696, "and runs on to the next page as the sentence on the first page ran on to this one, and") +
		noteLine(100, 8, "7", "The seventh note.")
	page3 := full(720, "it ends on the third page. Nothing follows it.")
	res := extractBytes(t, pagesPDF(testFonts(), page1, page2, page3))
	for _, want := range []string{
		"to the next one, where it ends at last.",
		"up to the margin 7 and past it.\n\n7 The seventh note.\n\nIts last sentence starts mid-line and runs on",
		"this one, and it ends on the third page.",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q: %q", want, res.Text)
		}
	}
	if n := strings.Index(res.Text, "7 The seventh"); n < int(res.PageStarts[1]) || n >= int(res.PageStarts[2]) {
		t.Errorf("the note at %d is not on page 2 (%v)", n, res.PageStarts)
	}
	checkGeometryFollowsText(t, res)
	// the two parts of the cut line stand side by side on one line
	a := lineAt(t, res, 1, strings.Index(res.Text, "and past it."))
	b := lineAt(t, res, 1, strings.Index(res.Text, "Its last sentence"))
	if a.Start == b.Start || a.Box.X1 > b.Box.X0+0.01 || a.Box.Y0 != b.Box.Y0 {
		t.Errorf("the cut line's parts %+v and %+v", a, b)
	}
}

// TestFootnoteInColumn: a note at the foot of a page's left column, which
// reading order puts between the columns, goes to the page's end, and
// the sentence running from one column to the other is whole.
func TestFootnoteInColumn(t *testing.T) {
	t.Parallel()
	left := []string{
		"The left column of this page holds a few",
		"lines of text set in the body type, all",
		"of them running to the column's right",
		"edge as justified text does in print, and",
		"one of them has a mark for a note set at",
		"the foot of the column, under its last",
		"line, which ends without ending the last",
	}
	right := []string{
		"sentence of the column, for it runs on to",
		"the top of the right column, where it ends.",
		"The right column goes on from there with",
		"more lines of text, down to the foot of",
		"the page, past the place where the note",
		"stands in the left column, and so further",
		"on to the end of the page where it ends.",
		"Its last line is here at the page's foot.",
	}
	var page strings.Builder
	for k, l := range left {
		if k == 4 {
			page.WriteString(setLine(72, 720-12*float64(k), txt("one of them has a mark"), sup("2"), txt("for a note set at")))
			continue
		}
		page.WriteString(setLine(72, 720-12*float64(k), txt(l)))
	}
	for k, l := range right {
		page.WriteString(setLine(320, 720-12*float64(k), txt(l)))
	}
	page.WriteString(noteLine(620, 8, "2", "The note in the left column."))
	res := extractBytes(t, pagesPDF(testFonts(), page.String()))
	if want := "without ending the last sentence of the column, for it runs on"; !strings.Contains(res.Text, want) {
		t.Errorf("the sentence across the columns is cut: %q", res.Text)
	}
	if !strings.HasSuffix(res.Text, "at the page's foot.\n\n2 The note in the left column.") {
		t.Errorf("the note is not at the page's end: %q", res.Text)
	}
	checkGeometryFollowsText(t, res)
}

// TestNumberedFootnotesKept: notes numbered 1, 2, 3 at the foot of pages
// 1, 2, 3 count up with the pages as page numbers do, but open with a
// raised mark, as no page number does: they are text, not running feet.
func TestNumberedFootnotesKept(t *testing.T) {
	t.Parallel()
	var pages []string
	words := []string{"first", "second", "third"}
	for n := 1; n <= 3; n++ {
		m := fmt.Sprint(n)
		var lines strings.Builder
		for k := range 8 { // lines that differ from page to page
			fmt.Fprintf(&lines, "BT /F1 10 Tf 72 %d Td (Line %s of the %s page says something of its own.) Tj ET\n", 600-12*k, words[k%3], words[n-1])
		}
		pages = append(pages, setLine(72, 720, txt("The text of the "+words[n-1]+" page refers to a note"), sup(m), txt("below it."))+
			lines.String()+noteLine(80, 8, m, fmt.Sprintf("Note %s is text, though its number counts up with the pages.", m)))
	}
	res := extractBytes(t, pagesPDF(testFonts(), pages...))
	for n := 1; n <= 3; n++ {
		want := fmt.Sprintf("%d Note %d is text", n, n)
		if !strings.Contains(res.Text, want) {
			t.Errorf("note %d dropped: text %q", n, res.Text)
		}
	}
	checkGeometryFollowsText(t, res)
}

func TestIsMark(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"1": true, "12": true, "123": true, "1234": false, "*": true, "†": true, "‡‡": true, "a": false, "": false, "1a": false} {
		if got := isMark(s); got != want {
			t.Errorf("isMark(%q) = %v", s, got)
		}
	}
}

func decodePage(t *testing.T, res *Result, i int) pagegeom.Page {
	t.Helper()
	p, err := pagegeom.Decode(res.Geometry[i])
	if err != nil {
		t.Fatalf("page %d geometry: %v", i+1, err)
	}
	return p
}

// checkGeometryFollowsText checks that every page's line parts and words
// lie in that page's text, each word on a word of the text, in order.
func checkGeometryFollowsText(t *testing.T, res *Result) {
	t.Helper()
	for i := range res.Geometry {
		lo, hi := res.PageStarts[i], int32(len(res.Text))
		if i+1 < len(res.PageStarts) {
			hi = res.PageStarts[i+1]
		}
		p := decodePage(t, res, i)
		prev := int32(-1)
		for _, ln := range p.Lines {
			if ln.Start < lo || ln.End > hi || ln.Start < prev {
				t.Errorf("page %d: line %d-%d outside the page's text %d-%d or out of order", i+1, ln.Start, ln.End, lo, hi)
			}
			prev = ln.End
			for _, w := range ln.Words {
				word := res.Text[w.Start:w.End]
				if w.Start < ln.Start || w.End > ln.End || word == "" || strings.ContainsAny(word, " \n") {
					t.Errorf("page %d: word %d-%d %q is not a word of its line %d-%d", i+1, w.Start, w.End, word, ln.Start, ln.End)
				}
			}
		}
	}
}
