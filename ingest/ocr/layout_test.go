package ocr

import (
	"fmt"
	"strings"
	"testing"
)

// tsvOf writes Tesseract TSV for lines of words at the given tops and
// heights (pixels), each word 100 px wide.
func tsvOf(lines []struct {
	top, height int
	words       string
}) []byte {
	var sb strings.Builder
	sb.WriteString("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n")
	sb.WriteString("1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n")
	for i, l := range lines {
		for j, w := range strings.Fields(l.words) {
			fmt.Fprintf(&sb, "5\t1\t1\t1\t%d\t%d\t%d\t%d\t100\t%d\t96.5\t%s\n", i+1, j+1, 300+110*j, l.top, l.height, w)
		}
	}
	return []byte(sb.String())
}

func TestLayoutLinesParagraphsHeadings(t *testing.T) {
	t.Parallel()
	words, err := parseTSV(tsvOf([]struct {
		top, height int
		words       string
	}{
		{300, 60, "Findings"},                         // a heading: taller than the body
		{420, 40, "The survey found the wall recog-"}, // pitch 58 px from here on
		{478, 40, "nised as sound, and well-"},
		{536, 40, "Kept records."},
		{652, 40, "A new paragraph after a blank line."}, // 116 px: a gap
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := layout(words)
	want := "Findings\n\nThe survey found the wall recognised as sound, and well- Kept records.\n\nA new paragraph after a blank line."
	if p.Text != want {
		t.Errorf("text\n%q\nwant\n%q", p.Text, want)
	}
	if len(p.Headings) != 1 || p.Text[p.Headings[0].Span.Start:p.Headings[0].Span.End] != "Findings" {
		t.Errorf("headings %+v", p.Headings)
	}
	if len(p.Words) != len(words) {
		t.Fatalf("%d word places for %d words", len(p.Words), len(words))
	}
	for i, w := range p.Words {
		got := p.Text[w.Span.Start:w.Span.End]
		if want := strings.TrimSuffix(words[i].text, "-"); got != want && got != words[i].text {
			t.Errorf("word %d spans %q, want %q", i, got, words[i].text)
		}
		if w.Box != words[i].box || w.Conf != 96.5 {
			t.Errorf("word %d lost its box or confidence: %+v", i, w)
		}
	}
}

func TestParseTSVRejectsOtherOutput(t *testing.T) {
	t.Parallel()
	if _, err := parseTSV([]byte("Tesseract Open Source OCR Engine\n")); err == nil {
		t.Error("text that is not TSV parsed")
	}
	if _, err := parseTSV([]byte("level\tpage_num\n5\t1\t1\t1\t1\t1\tx\t0\t1\t1\t90\tword\n")); err == nil {
		t.Error("a row with a bad number parsed")
	}
}
