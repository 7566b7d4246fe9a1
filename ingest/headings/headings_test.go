package headings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
)

// sentences splits text into one sentence per non-blank line: enough to
// test the analysis apart from the sentence splitter (ingest/split).
func sentences(text string) []structure.Span {
	return nonBlankLines(text, 0, len(text))
}

func analyse(text string, in Input) (*Analysis, []structure.Span) {
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
	t.Parallel()
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
	t.Parallel()
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
	if a.Flags[0]&structure.FlagHeading == 0 {
		t.Errorf("ARTICLE VII is not a heading")
	}
}

// TestPeriodTitledSections: "8. Termination." on a line of its own heads
// the paragraph under it, as a contract sets its sections; a numbered
// step that is a sentence, or a title-case step with no paragraph under
// it, does not.
func TestPeriodTitledSections(t *testing.T) {
	t.Parallel()
	text := `0. Definitions.

"This License" refers to version 3 of the License.

1. Source Code.

The source code for a work means the preferred form for making changes.

2. Interpretation of Sections 15 and 16.

Reviewing courts shall apply local law that most closely approximates a waiver.

To install it:

1. Open the file.

2. Click Save.

3. Restart Now.
`
	a, s := analyse(text, Input{})
	want := map[string]string{
		`"This License" refers to version 3 of the License.`:                              "0. Definitions.",
		"The source code for a work means the preferred form for making changes.":         "1. Source Code.",
		"Reviewing courts shall apply local law that most closely approximates a waiver.": "2. Interpretation of Sections 15 and 16.",
	}
	headings := 0
	for i, sp := range s {
		line := text[sp.Start:sp.End]
		if w, ok := want[line]; ok {
			if got := trail(a, text, i); got != w {
				t.Errorf("%q is under %q, want %q", line, got, w)
			}
		}
		if a.Flags[i]&structure.FlagHeading != 0 {
			headings++
			if strings.Contains(line, "Open") || strings.Contains(line, "Click") || strings.Contains(line, "Restart") {
				t.Errorf("the step %q is a heading", line)
			}
		}
	}
	if headings != 3 {
		t.Errorf("%d headings, want 3", headings)
	}
}

// TestFilingItems: a 10-K's items nest under its parts, an item known
// by its keyword even where no blank line sets it apart.
func TestFilingItems(t *testing.T) {
	t.Parallel()
	text := `PART I

Item 1. Business

We sell software to small businesses in the Americas.
Item 1A. Risk Factors

Our business depends on renewals by our customers.

PART II

ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS

Net revenue increased 12% in fiscal 2024.
`
	a, s := analyse(text, Input{})
	want := map[string]string{
		"Our business depends on renewals by our customers.": "PART I > Item 1A. Risk Factors",
		"Net revenue increased 12% in fiscal 2024.":          "PART II > ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS",
	}
	for i, sp := range s {
		if w, ok := want[text[sp.Start:sp.End]]; ok {
			if got := trail(a, text, i); got != w {
				t.Errorf("%q is under %q, want %q", text[sp.Start:sp.End], got, w)
			}
		}
	}
}

func TestMarkdownHeadingsAndPipeTables(t *testing.T) {
	t.Parallel()
	text := "# Report\n\nIntro text here for the report.\n\n## Cash flows\n\n| Item | 2019 | 2018 |\n|---|---|---|\n| Purchases of property, plant and equipment | 12 | 10 |\n| Dividends paid | 3 | 2 |\n| -9 | 76k | 37k |\n"
	sents := sentences(text)
	tables := PipeTables(text)
	if len(tables) != 1 || len(tables[0].Header) != 1 || len(tables[0].Rows) != 3 {
		t.Fatalf("pipe tables: %+v", tables)
	}
	sents = SplitRows(text, sents, tables)
	a := Analyse(text, sents, Input{Markdown: true, Tables: tables})
	for i, sp := range sents {
		line := text[sp.Start:sp.End]
		if strings.HasPrefix(line, "| Purchases") {
			if a.Flags[i]&structure.FlagTableRow == 0 || a.Table[i] != 0 {
				t.Errorf("row %q: flags %v table %d", line, a.Flags[i], a.Table[i])
			}
			if got := trail(a, text, i); got != "Report > Cash flows" {
				t.Errorf("row under %q", got)
			}
		}
		// a row of figures is no fragment: its header says what they are
		if strings.HasPrefix(line, "| -9") && a.Flags[i]&structure.FlagFragment != 0 {
			t.Errorf("row %q: flags %v, a fragment", line, a.Flags[i])
		}
	}
}

func TestNoiseFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want structure.Flags
	}{
		{"Imports . . . . . . . . . . . . . . . . 3", structure.FlagContents},
		{"xn <- scan(\"ints.dat\", what=numeric(0), n=1e6)", structure.FlagCode},
		{"# read the listing of the current directory", structure.FlagCode},
		{"</mime-type>", structure.FlagCode | structure.FlagFragment},
		{"14", structure.FlagFragment},
		{"Use asn1_der_decoding() instead of the old function.", 0},
		{"See https://cran.r-project.org/package=foreign for details.", 0},
	}
	for _, c := range cases {
		a, _ := analyse(c.text, Input{})
		if got := a.Flags[0] &^ structure.FlagHeading; got != c.want {
			t.Errorf("%q: flags %q, want %q", c.text, got, c.want)
		}
	}
}

func TestRunningHeadsAreFurniture(t *testing.T) {
	t.Parallel()
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
		furniture := a.Flags[i]&structure.FlagFurniture != 0
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
	t.Parallel()
	text := "Pointsize\nThe set pointsize command scales the size of the points used in plots.\n"
	s := SplitHeadings(text, []structure.Span{{Start: 0, End: int32(len(text) - 1)}})
	if len(s) != 2 || text[s[0].Start:s[0].End] != "Pointsize" {
		t.Fatalf("split %v", s)
	}
	// Wrapped prose stays whole.
	prose := "The quick brown fox jumped over\nthe lazy dog."
	if s := SplitHeadings(prose, []structure.Span{{Start: 0, End: int32(len(prose))}}); len(s) != 1 {
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
	// reference topics: man pages, and title lines over R help sections
	f.Add(strings.Repeat("NAME\n  ls - list\n\nSYNOPSIS\n  ls [OPTION]\n\nDESCRIPTION\n  Lists the files in a directory.\n\n", 3), false)
	f.Add(strings.Repeat("t.test Student's t-Test\n\nDescription\n\nPerforms the test on data.\n\nValue\n\nA list is returned with the values.\n\n", 4), false)
	f.Fuzz(func(t *testing.T, text string, md bool) {
		sents := SplitHeadings(text, sentences(text))
		var tables []structure.Table
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

// outline is the sections as "level text" lines, indented by level.
func outline(a *Analysis, text string) string {
	var b strings.Builder
	for _, s := range a.Sections {
		b.WriteString(strings.Repeat("  ", s.Level-1) + text[s.Heading.Start:s.Heading.End] + "\n")
	}
	return b.String()
}

// loaderHeading is a loader's heading over the first line of text that
// starts with prefix.
func loaderHeading(t *testing.T, text, prefix string, level int, src structure.Source) structure.Heading {
	t.Helper()
	for start := 0; start < len(text); {
		end := start + strings.IndexAny(text[start:]+"\n", "\n\f")
		if strings.HasPrefix(text[start:]+"\n", prefix) {
			return structure.Heading{Span: structure.Span{Start: int32(start), End: int32(end)}, Level: level, Source: src}
		}
		start = end + 1
	}
	t.Fatalf("no line %q", prefix)
	return structure.Heading{}
}

// rdPages is R help pages as a PDF loader renders them: a package
// heading, each topic's name and title on one line, and its sections.
func rdPages() string {
	var b strings.Builder
	b.WriteString("The stats package\n\n")
	for _, tp := range []struct{ name, title string }{{"t.test", "Student's t-Test"}, {"var.test", "F Test to Compare Two Variances"}, {"wilcox.test", "Wilcoxon Rank Sum and Signed Rank Tests"}} {
		b.WriteString(tp.name + " " + tp.title + "\n\n")
		b.WriteString("Description\n\nPerforms the " + tp.name + " test on vectors of data.\n\n")
		b.WriteString("Usage\n\n" + tp.name + "(x, y)\n\n")
		b.WriteString("Arguments\n\nx a numeric vector of data values for the " + tp.name + " test.\n\n")
		b.WriteString("Value\n\nA list with class htest from the " + tp.name + " test.\n\n")
	}
	return b.String()
}

func rdHeadings(t *testing.T, text string, topicLevel int, topics bool) []structure.Heading {
	hs := []structure.Heading{loaderHeading(t, text, "The stats package", 1, structure.SourceOutline)}
	for _, name := range []string{"t.test", "var.test", "wilcox.test"} {
		from := strings.Index(text, "\n"+name+" ")
		if topics {
			hs = append(hs, loaderHeading(t, text[:from]+"\n"+text[from+1:], name+" ", topicLevel, structure.SourceOutline))
		}
		for _, sec := range []string{"Description", "Usage", "Arguments", "Value"} {
			h := loaderHeading(t, text[from:], sec, 2, structure.SourceStyle)
			h.Span.Start += int32(from)
			h.Span.End += int32(from)
			hs = append(hs, h)
		}
	}
	return hs
}

// A reference manual's sections lie under their topic: whether the
// loader set the topic's line (from the outline) beside its sections or
// above them, or did not find it at all (the line is in body type).
func TestReferenceTopics(t *testing.T) {
	t.Parallel()
	text := rdPages()
	want := "The stats package\n  t.test Student's t-Test\n    Description\n    Usage\n    Arguments\n    Value\n" +
		"  var.test F Test to Compare Two Variances\n    Description\n    Usage\n    Arguments\n    Value\n" +
		"  wilcox.test Wilcoxon Rank Sum and Signed Rank Tests\n    Description\n    Usage\n    Arguments\n    Value\n"
	for _, c := range []struct {
		name         string
		topicLevel   int
		topics, want bool
	}{
		{"beside", 2, true, true},
		{"above", 1, true, true}, // level 1 below a level-1 package: nested as the loader says
		{"not found", 0, false, true},
	} {
		hs := rdHeadings(t, text, c.topicLevel, c.topics)
		if c.name == "above" {
			for i := range hs {
				if hs[i].Source == structure.SourceStyle {
					hs[i].Level = 3
				} else if hs[i].Level == 1 && i > 0 {
					hs[i].Level = 2
				}
			}
		}
		a, s := analyse(text, Input{Headings: hs})
		if got := outline(a, text); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, want)
		}
		for i, sp := range s {
			if line := text[sp.Start:sp.End]; strings.HasPrefix(line, "x a numeric vector of data values for the var.test") {
				if got := trail(a, text, i); got != "The stats package > var.test F Test to Compare Two Variances > Arguments" {
					t.Errorf("%s: var.test's argument is under %q", c.name, got)
				}
			}
		}
	}
}

// A man page's NAME line names its topic, the NAME heading included, and
// the sections come under it; a document whose headings do not recur is
// left alone.
func TestManPageTopicsFromText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, m := range [][2]string{{"ls", "list directory contents"}, {"cp", "copy files and directories"}, {"mv", "move (rename) files"}} {
		fmt.Fprintf(&b, "NAME\n       %s - %s\n\nSYNOPSIS\n       %s [OPTION]... FILE...\n\n", m[0], m[1], m[0])
		fmt.Fprintf(&b, "DESCRIPTION\n       The %s command does what its name says it does.\n\nSEE ALSO\n       The full documentation is in the Texinfo manual.\n\n", m[0])
	}
	text := b.String()
	a, s := analyse(text, Input{})
	want := "ls - list directory contents\n  SYNOPSIS\n  DESCRIPTION\n  SEE ALSO\ncp - copy files and directories\n  SYNOPSIS\n  DESCRIPTION\n  SEE ALSO\nmv - move (rename) files\n  SYNOPSIS\n  DESCRIPTION\n  SEE ALSO\n"
	if got := outline(a, text); got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	if a.Section[0] != 0 || a.Flags[0]&structure.FlagHeading == 0 || int(a.Sections[0].Sentence) != 1 {
		t.Errorf("NAME: section %d, flags %v; the topic's heading is sentence %d", a.Section[0], a.Flags[0], a.Sections[0].Sentence)
	}
	for i, sp := range s {
		if strings.HasPrefix(text[sp.Start:sp.End], "The cp command") {
			if got := trail(a, text, i); got != "cp - copy files and directories > DESCRIPTION" {
				t.Errorf("cp's description is under %q", got)
			}
		}
	}

	plain := "SUMMARY\n\nThe company grew this year across all of its segments.\n\nRISK FACTORS\n\nDemand may fall in any of the markets we serve.\n\nSUMMARY\n\nThe second segment grew less than the first one did.\n"
	a, _ = analyse(plain, Input{})
	if got := outline(a, plain); got != "SUMMARY\nRISK FACTORS\nSUMMARY\n" {
		t.Errorf("a report's outline changed:\n%s", got)
	}
}

// Lines of a table of contents, table rows and references to chapters
// are no headings; the chapter after the contents is.
func TestNoHeadingsFromContentsRowsOrReferences(t *testing.T) {
	t.Parallel()
	text := "1 The base package 1\nabs . . . . . . . . . . . . . . . . 2\nall . . . . . . . . . . . . . . . . 3\n" +
		"7.34 How can I save the result of each iteration in\na loop into a separate file? . . . . . . 38\n" +
		"2 Simple manipulations; numbers and vectors . . 8\n" +
		"\fChapter 1\n\nThe base package\n\nThe base package holds the basic functions of the language.\n\n" +
		"Function and Data Index\nabs . . . . . . . . . . . . . . . . 2\n\n" +
		"1 Colorado      7.9\n2 Arizona       8.1\n3 California    9.0\n\n1. Education 0 = 0-5 years\n1 = 6-11 years\n\n" +
		"Chapter 5 of Paul Murrell's Ph.D. thesis.\n\nChapter 6: Gamma and Related Functions.\n\n3 Results\n\nThe results are these.\n"
	pages := []int32{0, int32(strings.IndexByte(text, '\f') + 1)}
	hs := []structure.Heading{
		loaderHeading(t, text, "Chapter 1", 1, structure.SourceStyle),
		loaderHeading(t, text, "The base package\n", 1, structure.SourceOutline),
		loaderHeading(t, text, "Function and Data Index", 1, structure.SourceOutline),
	}
	a, s := analyse(text, Input{Headings: hs, PageStarts: pages})
	got := outline(a, text)
	want := "Chapter 1\nThe base package\nFunction and Data Index\n  3 Results\n"
	if got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	for i, sp := range s {
		line := text[sp.Start:sp.End]
		if (strings.HasPrefix(line, "1 The base") || strings.HasPrefix(line, "7.34") || strings.HasPrefix(line, "2 Simple")) && a.Flags[i]&structure.FlagContents == 0 {
			t.Errorf("%q is not flagged as contents: %v", line, a.Flags[i])
		}
	}
	// Without an outline, "Chapter 6: …" is a chapter as before.
	a, _ = analyse("Chapter 6: Gamma and Related Functions\n\nText of the chapter follows here.\n", Input{})
	if len(a.Sections) != 1 || a.Sections[0].Level != 1 {
		t.Errorf("a chapter line without an outline: %+v", a.Sections)
	}
}
