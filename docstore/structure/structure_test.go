package structure

import (
	"strings"
	"testing"
)

// sentences splits text into one sentence per non-blank line: enough to
// test the analysis apart from the segmenter.
func sentences(text string) []Span {
	return nonBlankLines(text, 0, len(text))
}

func analyse(text string, in Input) (*Analysis, []Span) {
	s := sentences(text)
	return Analyse(text, s, in), s
}

// trail is sentence i's heading path as text.
func trail(a *Analysis, text string, i int) string {
	var parts []string
	for s, n := a.Section[i], 0; s >= 0 && n < maxDepth; s, n = a.Sections[s].Parent, n+1 {
		h := a.Sections[s].Heading
		parts = append([]string{text[h.Start:h.End]}, parts...)
	}
	return strings.Join(parts, " > ")
}

func TestNumberedHeadingsNest(t *testing.T) {
	text := `7 Data import

Data comes in many shapes.

7.1 Spreadsheet-like data

Use read.csv for comma-separated files.

7.2 Fixed width

Use read.fwf for those.

8 Export

Write with write.table.
`
	a, s := analyse(text, Input{})
	want := map[string]string{
		"Data comes in many shapes.":              "7 Data import",
		"Use read.csv for comma-separated files.": "7 Data import > 7.1 Spreadsheet-like data",
		"Use read.fwf for those.":                 "7 Data import > 7.2 Fixed width",
		"Write with write.table.":                 "8 Export",
	}
	for i, sp := range s {
		line := text[sp.Start:sp.End]
		if w, ok := want[line]; ok {
			if got := trail(a, text, i); got != w {
				t.Errorf("%q is under %q, want %q", line, got, w)
			}
		}
	}
	if len(a.Sections) != 4 {
		t.Errorf("%d sections, want 4", len(a.Sections))
	}
}

func TestContractHeadings(t *testing.T) {
	text := `ARTICLE VII

MISCELLANEOUS

Section 7.1 Notices. All notices shall be in writing.

GOVERNING LAW

This Agreement shall be construed under the laws of the State of Delaware.
`
	a, s := analyse(text, Input{})
	last := len(s) - 1
	if got := trail(a, text, last); !strings.HasSuffix(got, "GOVERNING LAW") {
		t.Errorf("the Delaware sentence is under %q", got)
	}
	if a.Flags[0]&FlagHeading == 0 {
		t.Errorf("ARTICLE VII is not a heading")
	}
}

func TestMarkdownHeadingsAndPipeTables(t *testing.T) {
	text := "# Report\n\nIntro text here for the report.\n\n## Cash flows\n\n| Item | 2019 | 2018 |\n|---|---|---|\n| Purchases of property, plant and equipment | 12 | 10 |\n| Dividends paid | 3 | 2 |\n"
	sents := sentences(text)
	tables := PipeTables(text)
	if len(tables) != 1 || len(tables[0].Header) != 1 || len(tables[0].Rows) != 2 {
		t.Fatalf("pipe tables: %+v", tables)
	}
	sents = SplitRows(text, sents, tables)
	a := Analyse(text, sents, Input{Markdown: true, Tables: tables})
	for i, sp := range sents {
		line := text[sp.Start:sp.End]
		if strings.HasPrefix(line, "| Purchases") {
			if a.Flags[i]&FlagTableRow == 0 || a.Table[i] != 0 {
				t.Errorf("row %q: flags %v table %d", line, a.Flags[i], a.Table[i])
			}
			if got := trail(a, text, i); got != "Report > Cash flows" {
				t.Errorf("row under %q", got)
			}
		}
	}
}

func TestNoiseFlags(t *testing.T) {
	cases := []struct {
		text string
		want Flags
	}{
		{"Imports . . . . . . . . . . . . . . . . 3", FlagContents},
		{"xn <- scan(\"ints.dat\", what=numeric(0), n=1e6)", FlagCode},
		{"# read the listing of the current directory", FlagCode},
		{"</mime-type>", FlagCode | FlagFragment},
		{"14", FlagFragment},
		{"Use asn1_der_decoding() instead of the old function.", 0},
		{"See https://cran.r-project.org/package=foreign for details.", 0},
	}
	for _, c := range cases {
		a, _ := analyse(c.text, Input{})
		if got := a.Flags[0] &^ FlagHeading; got != c.want {
			t.Errorf("%q: flags %q, want %q", c.text, got, c.want)
		}
	}
}

func TestRunningHeadsAreFurniture(t *testing.T) {
	var b strings.Builder
	var starts []int32
	for p := 1; p <= 6; p++ {
		starts = append(starts, int32(b.Len()))
		chapter := "Chapter 1: Introduction"
		if p > 3 {
			chapter = "Chapter 2: Data"
		}
		b.WriteString(chapter + "\n\n")
		b.WriteString(strings.Repeat("Body text of the page that says something useful. ", 3) + "\n\n")
		b.WriteString("Page " + string(rune('0'+p)) + "\n\f")
	}
	text := b.String()
	a, s := analyse(text, Input{PageStarts: starts})
	for i, sp := range s {
		line := text[sp.Start:sp.End]
		furniture := a.Flags[i]&FlagFurniture != 0
		if strings.HasPrefix(line, "Chapter") || strings.HasPrefix(line, "Page") {
			if !furniture {
				t.Errorf("%q is not furniture", line)
			}
		} else if furniture {
			t.Errorf("body %q taken for furniture", line)
		}
	}
	if len(a.Sections) != 0 {
		t.Errorf("running heads became sections: %+v", a.Sections)
	}
}

func TestSplitHeadings(t *testing.T) {
	text := "Pointsize\nThe set pointsize command scales the size of the points used in plots.\n"
	s := SplitHeadings(text, []Span{{0, int32(len(text) - 1)}})
	if len(s) != 2 || text[s[0].Start:s[0].End] != "Pointsize" {
		t.Fatalf("split %v", s)
	}
	// Wrapped prose stays whole.
	prose := "The quick brown fox jumped over\nthe lazy dog."
	if s := SplitHeadings(prose, []Span{{0, int32(len(prose))}}); len(s) != 1 {
		t.Fatalf("prose split: %v", s)
	}
}

// FuzzAnalyse: whatever the text, the structure is well formed — sections
// point at text and parents before them, every sentence's section exists,
// and the split sentences stay in order inside the text.
func FuzzAnalyse(f *testing.F) {
	f.Add("# A\n\ntext.\n\n## B\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", true)
	f.Add("1 Intro\n\nText here.\n\n1.1 More\n\nText.\f2\n\nChapter 1: Intro\n\n3 Next\n", false)
	f.Add("ARTICLE I\n\nSection 1.1 Terms. Words.\n\nGOVERNING LAW\n\nDelaware.", false)
	// A found crash: a numbered line whose title is only a vertical tab
	// (white space, but not what the number's separator skips).
	f.Add("0.0 \v", false)
	f.Fuzz(func(t *testing.T, text string, md bool) {
		sents := SplitHeadings(text, sentences(text))
		var tables []Table
		if md {
			tables = PipeTables(text)
		}
		sents = SplitRows(text, sents, tables)
		prev := int32(0)
		for _, s := range sents {
			if s.Start < prev || s.End < s.Start || int(s.End) > len(text) {
				t.Fatalf("sentences out of order or outside the text: %v", sents)
			}
			prev = s.End
		}
		a := Analyse(text, sents, Input{Markdown: md, Tables: tables, PageStarts: []int32{0}})
		for i, sec := range a.Sections {
			if !sec.Heading.Valid(len(text)) || int(sec.Parent) >= i || sec.Parent < -1 {
				t.Fatalf("section %d: %+v", i, sec)
			}
		}
		for i, s := range a.Section {
			if int(s) >= len(a.Sections) || s < -1 {
				t.Fatalf("sentence %d in section %d of %d", i, s, len(a.Sections))
			}
			if tb := a.Table[i]; int(tb) >= len(a.Tables) || tb < -1 {
				t.Fatalf("sentence %d in table %d of %d", i, tb, len(a.Tables))
			}
		}
	})
}
