package pdftext

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// boldTestFont is propFont's bold face.
var boldTestFont = strings.Replace(propFont, "/TestSerif", "/TestSerif-Bold", 1)

func structureFonts() string {
	return "<< /F1 " + propFont + " /F2 " + monoFont + " /F3 " + boldTestFont + " >>"
}

// show places text in font f at size pt with its left edge at x on
// baseline y.
func show(f string, pt, x, y float64, text string) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	return fmt.Sprintf("BT /%s %g Tf %g %g Td (%s) Tj ET\n", f, pt, x, y, r.Replace(text))
}

// showRight places text in font F1 at 10 pt with its right edge at x (every
// glyph of the test font but "W" is 5 pt wide at 10 pt).
func showRight(x, y float64, text string) string {
	return show("F1", 10, x-5*float64(utf8.RuneCountInString(text)), y, text)
}

// body is a paragraph of full lines from baseline y down, so that the
// document's body size is 10 pt. Its words depend on y, so that no two
// paragraphs look like a running header.
func body(x, y float64, n int) string {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}
	var lines []string
	for i := range n {
		w := words[(int(y)/12+i)%len(words)]
		lines = append(lines, fmt.Sprintf("body text %s line of a paragraph that runs on to the margin and", w))
	}
	lines[n-1] = "ends here."
	return textLines("F1", x, y, lines...)
}

func spanText(text string, s structure.Span) string {
	if !s.Valid(len(text)) {
		return fmt.Sprintf("<invalid span %v>", s)
	}
	return text[s.Start:s.End]
}

// checkLine fails unless span s is exactly one line of text.
func checkLine(t *testing.T, text string, s structure.Span, what string) {
	t.Helper()
	if !s.Valid(len(text)) {
		t.Fatalf("%s: invalid span %v", what, s)
	}
	if strings.Contains(text[s.Start:s.End], "\n") || s.End < int32(len(text)) && text[s.End] != '\n' ||
		s.Start > 0 && strings.TrimLeft(text[:s.Start], " ") != "" && !strings.HasSuffix(strings.TrimRight(text[:s.Start], " "), "\n") {
		t.Errorf("%s %q is not a line of its own", what, text[s.Start:s.End])
	}
}

// A financial statement's table keeps each row on one line, label first
// and figures under their years, with the header row and the caption
// reported, so a question about 2018 capital expenditure can land on the
// row of purchases of property, plant and equipment.
func TestFinancialTable(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	c.WriteString(body(72, 700, 6))
	c.WriteString(show("F1", 10, 72, 600, "Table 3: Consolidated statements of cash flows (in millions)"))
	for i, year := range []string{"2019", "2018", "2017"} {
		c.WriteString(showRight(360+70*float64(i), 580, year))
	}
	rows := [][4]string{
		{"Net income", "55,256", "59,531", "48,351"},
		{"Depreciation and amortization", "12,547", "10,903", "10,157"},
		{"Purchases of property, plant and equipment", "(10,495)", "(13,313)", "(12,451)"},
		{"Proceeds from sales of marketable securities", "5,362", "4,200", "3,130"},
	}
	for i, r := range rows {
		y := 564 - 12*float64(i)
		c.WriteString(show("F1", 10, 72, y, r[0]))
		for j, v := range r[1:] {
			c.WriteString(showRight(360+70*float64(j), y, v))
		}
	}
	c.WriteString(body(72, 490, 3))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	checkStructure(t, res)
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(res.Tables), res.Text)
	}
	tb := res.Tables[0]
	if got := spanText(res.Text, tb.Caption); got != "Table 3: Consolidated statements of cash flows (in millions)" {
		t.Errorf("caption %q", got)
	}
	if len(tb.Header) != 1 || len(tb.Rows) != 4 {
		t.Fatalf("header %d rows %d, want 1 and 4:\n%s", len(tb.Header), len(tb.Rows), res.Text)
	}
	header := spanText(res.Text, tb.Header[0])
	if !regexp.MustCompile(`^2019 {2,}2018 {2,}2017$`).MatchString(header) {
		t.Errorf("header %q", header)
	}
	checkLine(t, res.Text, tb.Header[0], "header")
	for i, r := range rows {
		checkLine(t, res.Text, tb.Rows[i], "row")
		re := regexp.QuoteMeta(r[0]) + " {2,}" + regexp.QuoteMeta(r[1]) + " {2,}" + regexp.QuoteMeta(r[2]) + " {2,}" + regexp.QuoteMeta(r[3])
		if got := spanText(res.Text, tb.Rows[i]); !regexp.MustCompile("^" + re + "$").MatchString(got) {
			t.Errorf("row %d %q", i, got)
		}
	}
	// figures line up under their year: the 2018 column ends where "2018"
	// ends in the header line
	col := func(s structure.Span, sub string) int {
		lineStart := strings.LastIndexByte(res.Text[:s.Start], '\n') + 1
		line := res.Text[lineStart:s.End]
		return utf8.RuneCountInString(line[:strings.Index(line, sub)+len(sub)])
	}
	if a, b := col(tb.Header[0], "2018"), col(tb.Rows[2], "(13,313)"); a != b {
		t.Errorf("2018 ends at column %d, its figure at %d:\n%s", a, b, res.Text)
	}
	// the text around the table is untouched
	if !strings.Contains(res.Text, "ends here.\n\nTable 3: Consolidated") {
		t.Errorf("text before the table:\n%s", res.Text)
	}
}

// A manual's option list, the option and its description side by side,
// keeps each option on one line with its whole description, also when the
// option is too long and its description starts on the next line.
func TestOptionTable(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	c.WriteString(body(72, 720, 4))
	c.WriteString(show("F1", 10, 72, 660, "-p") + show("F1", 10, 130, 660, "tells the program to print the whole"))
	c.WriteString(show("F1", 10, 130, 648, "file, not only its first page."))
	c.WriteString(show("F1", 10, 72, 636, "-v") + show("F1", 10, 130, 636, "prints the version and exits."))
	c.WriteString(show("F1", 10, 72, 624, "-o FILE") + show("F1", 10, 130, 624, "writes the output to FILE instead of"))
	c.WriteString(show("F1", 10, 130, 612, "the standard output."))
	// a term too long for the column, its description below it
	c.WriteString(show("F1", 10, 72, 594, "--long-option-name"))
	c.WriteString(show("F1", 10, 130, 582, "is accepted and ignored."))
	c.WriteString(body(72, 550, 3))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(res.Tables), res.Text)
	}
	tb := res.Tables[0]
	want := []string{
		"-p                  tells the program to print the whole file, not only its first page.",
		"-v                  prints the version and exits.",
		"-o FILE             writes the output to FILE instead of the standard output.",
		"--long-option-name  is accepted and ignored.",
	}
	if len(tb.Header) != 0 || tb.Caption != (structure.Span{}) {
		t.Errorf("header %v caption %v, want none", tb.Header, tb.Caption)
	}
	if len(tb.Rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(tb.Rows), len(want), res.Text)
	}
	for i, w := range want {
		checkLine(t, res.Text, tb.Rows[i], "row")
		if got := spanText(res.Text, tb.Rows[i]); got != w {
			t.Errorf("row %d\n got %q\nwant %q", i, got, w)
		}
	}
}

// Lines that are not tables stay as they were: prose with one wide gap, a
// numbered list with a hanging indent, code with comments lined up.
func TestNotTables(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	c.WriteString(show("F1", 10, 72, 700, "1.") + show("F1", 10, 100, 700, "First item of a list set with a hanging"))
	c.WriteString(show("F1", 10, 100, 688, "indent, which runs on here."))
	c.WriteString(show("F1", 10, 72, 676, "2.") + show("F1", 10, 100, 676, "Second item of the list."))
	c.WriteString(show("F1", 10, 72, 664, "3.") + show("F1", 10, 100, 664, "Third item of the list."))
	c.WriteString(show("F2", 10, 72, 630, "x <- 1") + show("F1", 10, 200, 630, "# set x"))
	c.WriteString(show("F2", 10, 72, 618, "y <- x + 1") + show("F1", 10, 200, 618, "# and y"))
	c.WriteString(show("F2", 10, 72, 606, "print(y)") + show("F1", 10, 200, 606, "# show it"))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 0 {
		t.Errorf("%d tables, want none:\n%s", len(res.Tables), res.Text)
	}
}

// Headings set in larger or bold type are found, with levels by the rank
// of their type; bold words in a paragraph, a bold term opening a
// paragraph, a bold sentence, a line with all but its first word bold, a
// table's bold header row and a page number are not headings.
func TestStyleHeadings(t *testing.T) {
	t.Parallel()
	var p1, p2 strings.Builder
	p1.WriteString(show("F1", 20, 72, 740, "A Guide to Test Documents"))
	p1.WriteString(body(72, 700, 4))
	p1.WriteString(show("F3", 14, 72, 640, "1 Getting started"))
	p1.WriteString(body(72, 616, 3))
	// a bold word inside a paragraph
	p1.WriteString(show("F1", 10, 72, 570, "This paragraph has one") + show("F3", 10, 187, 570, "bold") + show("F1", 10, 212, 570, "word inside it, and it runs on to the"))
	p1.WriteString(show("F1", 10, 72, 558, "margin of the page where it ends."))
	// a subheading directly above its paragraph
	p1.WriteString(show("F3", 10, 72, 534, "1.1 Installing the parts"))
	p1.WriteString(body(72, 522, 3))
	// a bold term opening a paragraph
	p1.WriteString(show("F3", 10, 72, 480, "Spindle.") + show("F1", 10, 117, 480, "The spindle holds the reel in place while the"))
	p1.WriteString(show("F1", 10, 72, 468, "tape runs through the machine."))
	// a bold sentence standing alone
	p1.WriteString(show("F3", 10, 72, 444, "Do not remove the cover."))
	p1.WriteString(body(72, 420, 2))
	// a table with a bold header row
	for i, row := range [][3]string{{"Part", "Size", "Kind"}, {"spindle", "12", "steel"}, {"reel", "30", "plastic"}, {"cover", "40", "plastic"}} {
		f := "F1"
		if i == 0 {
			f = "F3"
		}
		y := 380 - 12*float64(i)
		p1.WriteString(show(f, 10, 72, y, row[0]) + show(f, 10, 200, y, row[1]) + show(f, 10, 300, y, row[2]))
	}
	p1.WriteString(body(72, 320, 2))
	p1.WriteString(show("F1", 10, 300, 60, "1"))
	p2.WriteString(show("F3", 14, 72, 740, "2 Going further"))
	p2.WriteString(body(72, 716, 4))
	// a subheading with code in it, set in the typewriter face
	p2.WriteString(show("F3", 10, 72, 660, "2.1 Calling") + show("F2", 10, 132, 660, ".Call"))
	p2.WriteString(body(72, 648, 3))
	// a cross-reference in bold, after a word that is not
	p2.WriteString(show("F1", 10, 72, 600, "See") + show("F3", 10, 92, 600, "set vxrange (p. 213)"))
	p2.WriteString(body(72, 580, 2))
	p2.WriteString(show("F1", 10, 300, 60, "2"))
	res := extractBytes(t, pagesPDF(structureFonts(), p1.String(), p2.String()))
	checkStructure(t, res)
	checkHeadings(t, res, structure.SourceStyle, []wantHeading{
		{"A Guide to Test Documents", 1},
		{"1 Getting started", 2},
		{"1.1 Installing the parts", 3},
		{"2 Going further", 2},
		{"2.1 Calling .Call", 3},
	})
	if len(res.Tables) != 1 || len(res.Tables[0].Header) != 1 || !strings.HasPrefix(spanText(res.Text, res.Tables[0].Header[0]), "Part") {
		t.Errorf("the bold-headed table: %+v", res.Tables)
	}
}

type wantHeading struct {
	text  string
	level int
}

// checkHeadings fails unless res has exactly the headings want, found
// from src, each standing apart.
func checkHeadings(t *testing.T, res *Result, src structure.Source, want []wantHeading) {
	t.Helper()
	var got []string
	for _, h := range res.Headings {
		got = append(got, fmt.Sprintf("%q L%d src%d", spanText(res.Text, h.Span), h.Level, h.Source))
	}
	if len(res.Headings) != len(want) {
		t.Fatalf("headings %v, want %v\n%s", got, want, res.Text)
	}
	for i, w := range want {
		h := res.Headings[i]
		if spanText(res.Text, h.Span) != w.text || h.Level != w.level || h.Source != src {
			t.Errorf("heading %d: %s, want %q L%d source %d", i, got[i], w.text, w.level, src)
		}
		checkHeadingLine(t, res.Text, h.Span)
	}
}

// checkHeadingLine fails unless a heading stands on a line of its own with
// a blank line after it (or ends the text).
func checkHeadingLine(t *testing.T, text string, s structure.Span) {
	t.Helper()
	if int(s.End) < len(text) && !strings.HasPrefix(text[s.End:], "\n\n") || s.Start > 0 && !strings.HasSuffix(text[:s.Start], "\n\n") {
		t.Errorf("heading %q does not stand apart:\n%s", text[s.Start:s.End], text)
	}
}

// outlinePDF builds a three-page document with an outline whose items
// reach their pages every way a PDF allows: an explicit destination, a
// GoTo action naming a destination in the /Names tree, a name in the
// catalog's /Dests, one pointing to the foot of the page before its
// heading, one whose heading is not in the text, and a /Next that loops.
func outlinePDF() []byte {
	p := &testPDF{}
	p.add("") // the catalog, below
	p1 := show("F1", 10, 72, 740, "1 Introduction") + body(72, 728, 4) +
		show("F1", 10, 72, 660, "1.1 Scope") + body(72, 648, 3) +
		show("F1", 10, 72, 600, "Introduction") + body(72, 588, 2)
	p2 := body(72, 740, 5)
	p3 := show("F3", 10, 72, 740, "2 Spreadsheet-like") + show("F3", 10, 72, 728, "data") + body(72, 710, 4)
	pages := p.addPages(structureFonts(), p1, p2, p3)
	dest := func(page int, top float64) string { return fmt.Sprintf("[%d 0 R /XYZ 0 %g null]", pages[page], top) }
	outlines := p.add("") // below
	intro := p.add("")    // below
	scope := p.add(fmt.Sprintf("<< /Title (Scope) /Parent %d 0 R /A << /S /GoTo /D (sec.scope) >> >>", intro))
	sheet := p.add("")   // below
	missing := p.add("") // below
	p.objs[intro-1] = fmt.Sprintf("<< /Title (Introduction) /Parent %d 0 R /Dest %s /First %d 0 R /Last %d 0 R /Next %d 0 R >>", outlines, dest(0, 750), scope, scope, sheet)
	// its destination is at the foot of page 2; the heading tops page 3
	p.objs[sheet-1] = fmt.Sprintf("<< /Title (Spreadsheet-like data) /Parent %d 0 R /Dest /sheet /Prev %d 0 R /Next %d 0 R >>", outlines, intro, missing)
	p.objs[missing-1] = fmt.Sprintf("<< /Title (Not in the text) /Parent %d 0 R /Dest %s /Next %d 0 R >>", outlines, dest(2, 700), intro)
	p.objs[outlines-1] = fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 4 >>", intro, missing)
	leaf := p.add(fmt.Sprintf("<< /Names [(sec.other) %s (sec.scope) %s] /Limits [(sec.other) (sec.scope)] >>", dest(1, 700), dest(0, 670)))
	names := p.add(fmt.Sprintf("<< /Kids [%d 0 R] >>", leaf))
	p.objs[0] = fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R /Names << /Dests %d 0 R >> /Dests << /sheet %s >> >>", outlines, names, dest(1, 90))
	return p.bytes()
}

// Outline items are found as lines of the pages they lead to, whatever
// their section numbers, type or line breaks, with the outline's depth as
// their level.
func TestOutlineHeadings(t *testing.T) {
	t.Parallel()
	res := extractBytes(t, outlinePDF())
	checkStructure(t, res)
	checkHeadings(t, res, structure.SourceOutline, []wantHeading{
		{"1 Introduction", 1},
		{"1.1 Scope", 2},
		{"2 Spreadsheet-like data", 1},
	})
}

// Headings the outline does not name take their levels from it: a
// smaller heading under an outline heading is one level below it, one set
// alike is its sibling, and one at its size in a type no outline heading
// has is below it — a reference manual's bold "Arguments" under the
// regular topic line its outline names.
func TestLevelsMergeWithOutline(t *testing.T) {
	t.Parallel()
	keys := []styleKey{{20, false}, {14, true}, {10, true}, {14, true}, {10, false}, {10, true}, {10, false}, {10, true}}
	entries := []*outlineEntry{nil, {level: 1}, nil, nil, {level: 2}, nil, nil, nil}
	heads := make([]structure.Heading, len(keys))
	setLevels(heads, keys, []int{0, 1, 1, 2, 3, 3, 4, 4}, entries)
	var got []int
	for _, h := range heads {
		got = append(got, h.Level)
	}
	if want := "[1 1 2 1 2 3 2 3]"; fmt.Sprint(got) != want {
		t.Errorf("levels %v, want %s", got, want)
	}
	if heads[1].Source != structure.SourceOutline || heads[2].Source != structure.SourceStyle {
		t.Errorf("sources %v %v", heads[1].Source, heads[2].Source)
	}
}

func TestTitleKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2 Spreadsheet-like data", "Spreadsheet-like data", true},
		{"Appendix A References", "A References", true},
		{"Appendix A A sample session", "A sample session", true},
		{"7.1 Types of connections", "TYPES OF CONNECTIONS", true},
		{"Section 4(b) Governing Law", "Governing law", true},
		{"2 Spreadsheet-like data", "Spreadsheet", false},
		{"...", "...", false},
	} {
		if got := newTitleKey(c.a).matches(newTitleKey(c.b)); got != c.want {
			t.Errorf("%q ~ %q = %v", c.a, c.b, got)
		}
	}
}

func TestBoldFontNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"CMBX12": true, "CMB10": true, "LMRoman10-Bold": true, "NimbusRomNo9L-Medi": true, "NimbusSanL-Bold": true,
		"Arial-BoldMT": true, "MinionPro-Semibold": true, "ptmb8r": true,
		"CMR10": false, "CMBR10": false, "NimbusRomNo9L-Regu": false, "Helvetica": false, "ptmr8r": false, "Roboto-Medium": false,
	} {
		if got := boldNameRE.MatchString(name); got != want {
			t.Errorf("bold(%q) = %v", name, got)
		}
	}
}

// A table whose last column is wide text is split by the layout as if it
// were a second column of the page; its rows are joined again. Two columns
// of prose side by side are no table.
func TestTornTableRows(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	for i := range 6 {
		y := 700 - 12*float64(i)
		c.WriteString(show("F1", 10, 72, y, fmt.Sprintf("name%d", i)) + show("F1", 10, 150, y, fmt.Sprintf("type%d", i)) +
			show("F1", 10, 300, y, fmt.Sprintf("a description of item %d that is wide", i)))
	}
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 1 || len(res.Tables[0].Rows) != 6 {
		t.Fatalf("tables %+v:\n%s", res.Tables, res.Text)
	}
	if got := spanText(res.Text, res.Tables[0].Rows[3]); got != "name3  type3  a description of item 3 that is wide" {
		t.Errorf("row %q", got)
	}
	var left, right []string
	for i := range 10 {
		left = append(left, fmt.Sprintf("left column line number %02d of", i))
		right = append(right, fmt.Sprintf("right column line number %02d of", i))
	}
	res = extractBytes(t, pagesPDF(structureFonts(), textLines("F1", 72, 700, left...)+textLines("F1", 330, 700, right...)))
	if len(res.Tables) != 0 {
		t.Errorf("two columns of prose read as %d tables:\n%s", len(res.Tables), res.Text)
	}
}

// refKeys reads a dictionary's own references, past nested arrays holding
// a null (which the PDF reader prints as "<nil>") and nested dictionaries.
func TestRefKeysTopLevel(t *testing.T) {
	t.Parallel()
	b := outlinePDF()
	rd, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	intro := rd.Trailer().Key("Root").Key("Outlines").Key("First")
	got := pdffile.RefKeys(intro)
	if got["First"] == "" || got["Next"] == "" || got["Parent"] == "" || len(got) != 4 {
		t.Errorf("refKeys(%s) = %v", intro.String(), got)
	}
}
