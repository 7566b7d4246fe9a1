package pdftext

import (
	"fmt"
	"strings"
	"testing"
)

// propFont is a proportional test font: every glyph 500 units wide except
// "W" (so it is not taken for a typewriter font).
var propFont = func() string {
	w := make([]string, 95)
	for i := range w {
		w[i] = "500"
	}
	w['W'-32] = "900"
	return "<< /Type /Font /Subtype /Type1 /BaseFont /TestSerif /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" + strings.Join(w, " ") + "] >>"
}()

const monoFont = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>"

func testFonts() string { return "<< /F1 " + propFont + " /F2 " + monoFont + " >>" }

// textLines shows each line with font f at size 10 from (x, y) down a 12 pt
// pitch.
func textLines(f string, x, y float64, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "BT /%s 10 Tf %.1f %.1f Td (%s) Tj ET\n", f, x, y-12*float64(i), l)
	}
	return b.String()
}

func TestParagraphsAndHyphens(t *testing.T) {
	t.Parallel()
	content := textLines("F1", 72, 700,
		"Lines of one paragraph are ab",
		"joined with a space, and docu-",
		"ments broken by the line end,",
		"and well-known things as well-",
		"known things; all in one para-",
		"graph that ends here.",
		"A new paragraph starts at the",
		"margin after a short line.")
	res := extractBytes(t, pagesPDF(testFonts(), content))
	want := "Lines of one paragraph are ab joined with a space, and documents broken by the line end, and well-known things as well-known things; all in one paragraph that ends here.\n\nA new paragraph starts at the margin after a short line."
	if res.Text != want {
		t.Errorf("got\n%q\nwant\n%q", res.Text, want)
	}
}

func TestCodeKeepsLineBreaks(t *testing.T) {
	t.Parallel()
	content := textLines("F1", 72, 700, "Run these commands, in order:") +
		textLines("F2", 90, 676, "mkdir work", "cd work", "  R --vanilla") +
		textLines("F1", 72, 628, "and then quit.")
	res := extractBytes(t, pagesPDF(testFonts(), content))
	want := "Run these commands, in order:\n\nmkdir work\ncd work\n  R --vanilla\n\nand then quit."
	if res.Text != want {
		t.Errorf("got\n%q\nwant\n%q", res.Text, want)
	}
}

func TestTwoColumns(t *testing.T) {
	t.Parallel()
	var left, right []string
	for i := range 10 {
		left = append(left, fmt.Sprintf("left column line number %02d of", i))
		right = append(right, fmt.Sprintf("right column line number %02d of", i))
	}
	left[9] = "the left column ends here and"
	right[0] = "continues in the right column."
	content := textLines("F1", 72, 700, left...) + textLines("F1", 330, 700, right...)
	res := extractBytes(t, pagesPDF(testFonts(), content))
	l := strings.Index(res.Text, "left column line number 08")
	r := strings.Index(res.Text, "right column line number 01")
	if l < 0 || r < 0 || l > r {
		t.Fatalf("columns out of order:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, "the left column ends here and continues in the right column.") {
		t.Errorf("the sentence across the column break is split:\n%s", res.Text)
	}
	if strings.Contains(res.Text, "of right column line number 00") || strings.Contains(res.Text, "00 of right") {
		t.Errorf("lines of the two columns are joined:\n%s", res.Text)
	}
}

func TestRunningHeadersAndPageBreaks(t *testing.T) {
	t.Parallel()
	page := func(n int, body ...string) string {
		return textLines("F1", 72, 760, fmt.Sprintf("A Study of Headers %d", n)) +
			textLines("F1", 72, 700, body...) +
			textLines("F1", 300, 40, fmt.Sprintf("%d", n))
	}
	p1 := page(1, "The first page has a sentence", "that runs on to the next page,", "which it then continues on the")
	p2 := page(2, "second page. End.", "Another paragraph comes next.")
	p3 := page(3, "Third page text stands alone.")
	res := extractBytes(t, pagesPDF(testFonts(), p1, p2, p3))
	want := "The first page has a sentence that runs on to the next page, which it then continues on the second page. End.\n\nAnother paragraph comes next.\n\nThird page text stands alone."
	if res.Text != want {
		t.Errorf("got\n%q\nwant\n%q", res.Text, want)
	}
	if len(res.PageStarts) != 3 || !strings.HasPrefix(res.Text[res.PageStarts[1]:], "second page") || !strings.HasPrefix(res.Text[res.PageStarts[2]:], "Third page") {
		t.Errorf("page starts %v wrong in %q", res.PageStarts, res.Text)
	}
}

func TestEdgeLineRules(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"12": true, "- 12 -": true, "Page 3 of 10": true, "xiv": true, "[7]": true,
		"Chapter 2": false, "12 apples": false,
	} {
		if got := pageNumRE.MatchString(text); got != want {
			t.Errorf("pageNumRE(%q) = %v", text, got)
		}
	}
}

func TestKeepHyphen(t *testing.T) {
	t.Parallel()
	vocab := map[string]int{"document": 3, "known": 2}
	compounds := map[string]int{"well-known": 2}
	for _, c := range []struct {
		pre, suf string
		keep     bool
	}{
		{"docu", "ment", false}, {"well", "known", true}, {"unseen", "word", false}, {"state-of-the", "art", true},
	} {
		if got := keepHyphen(c.pre, c.suf, vocab, compounds); got != c.keep {
			t.Errorf("keepHyphen(%q, %q) = %v", c.pre, c.suf, got)
		}
	}
}

func TestRotatedPage(t *testing.T) {
	t.Parallel()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 /Resources << /Font " + testFonts() + " >> /Contents 4 0 R >>")
	// Text drawn bottom-to-top, as a landscape page stored in portrait.
	p.add(stream("", "BT /F1 10 Tf 0 1 -1 0 100 100 Tm (First line of the page) Tj ET BT /F1 10 Tf 0 1 -1 0 112 100 Tm (and the second line.) Tj ET"))
	res := extractBytes(t, p.bytes())
	if res.Text != "First line of the page and the second line." {
		t.Errorf("got %q", res.Text)
	}
}

func TestFormXObjectAndInlineImage(t *testing.T) {
	t.Parallel()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font " + testFonts() + " /XObject << /X1 5 0 R >> >> /Contents 4 0 R >>")
	p.add(stream("", "q BI /W 4 /H 1 /BPC 8 /CS /G ID (x) Tj )) EI Q\nBT /F1 10 Tf 72 700 Td (Before the form.) Tj ET\n/X1 Do\nq 1 0 0 1 0 -24 cm /X1 Do Q"))
	p.add(stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [1 0 0 1 0 -12]", "BT /F1 10 Tf 72 700 Td (Inside the form.) Tj ET"))
	res := extractBytes(t, p.bytes())
	if !strings.HasPrefix(res.Text, "Before the form.") || strings.Count(res.Text, "Inside the form.") != 2 || strings.Contains(res.Text, "x") {
		t.Errorf("got %q", res.Text)
	}
}

func TestLeaderLine(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"1.1 The R environment . . . . . . . 2": true, "anova . . . . . . 58, 60": true, "? ..................... 4": true,
		"Preface . . . . . . . . xiv": true, "It ends. Then 3": false, "a plain line of prose": false,
	} {
		if got := leaderLine(s); got != want {
			t.Errorf("leaderLine(%q) = %v", s, got)
		}
	}
}

// The library's lexer loops forever on a hex string left open at the end
// of a content stream; the content is cut before it.
func TestUnterminatedHexString(t *testing.T) {
	t.Parallel()
	content := textLines("F1", 72, 700, "Text before the damage.") + "BT /F1 10 Tf 72 600 Td <41424"
	res := extractBytes(t, pagesPDF(testFonts(), content))
	if res.Text != "Text before the damage." {
		t.Errorf("text %q", res.Text)
	}
}

// Table rows keep their line breaks, cells padded to their columns; a
// definition list's description runs on under its first line.
func TestTableRowsAndDefinitions(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i, row := range [][3]string{{"Name", "Pages", "Producer"}, {"a.pdf", "12", "pdfTeX 1.40"}, {"b.pdf", "240", "Skia PDF"}} {
		y := 700 - 12*i
		for j, cell := range row {
			fmt.Fprintf(&b, "BT /F1 10 Tf %d %d Td (%s) Tj ET\n", 72+120*j, y, cell)
		}
	}
	b.WriteString("BT /F1 10 Tf 72 640 Td (FLIBS) Tj ET BT /F1 10 Tf 160 640 Td (A macro holding the libraries that are) Tj ET\n")
	b.WriteString("BT /F1 10 Tf 160 628 Td (needed to link Fortran code.) Tj ET\n")
	res := extractBytes(t, pagesPDF(testFonts(), b.String()))
	want := "Name   Pages  Producer\na.pdf  12     pdfTeX 1.40\nb.pdf  240    Skia PDF\n\nFLIBS A macro holding the libraries that are needed to link Fortran code."
	if res.Text != want {
		t.Errorf("got\n%q\nwant\n%q", res.Text, want)
	}
}

func TestItemStart(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"•": true, "•Item": true, "2.": true, "b)": true, "(iv)": true, "(3)": true, "–": false, "1990.": false, "word": false} {
		if got := itemStart(s); got != want {
			t.Errorf("itemStart(%q) = %v", s, got)
		}
	}
}

// Text at another angle (a margin stamp) is placed where it stands and does
// not cut the sentence that runs on to the next page.
func TestRotatedTextKeepsPageContinuation(t *testing.T) {
	t.Parallel()
	p1 := textLines("F1", 72, 700, "The first page has a sentence", "that goes on and on until the") +
		"BT /F1 8 Tf 0 1 -1 0 40 400 Tm (A stamp in the margin) Tj ET\n"
	p2 := textLines("F1", 72, 700, "second page, where it ends.")
	res := extractBytes(t, pagesPDF(testFonts(), p1, p2))
	if !strings.Contains(res.Text, "on until the second page, where it ends.") || !strings.Contains(res.Text, "A stamp in the margin") {
		t.Errorf("got %q", res.Text)
	}
}
