package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
)

// Reference manuals: a topic's line heads the sections every topic has,
// whether an outline, the type or the text alone tells where topics begin,
// and no table-of-contents line, running head or table row becomes a
// heading.

// refTopic is a help page of a generated reference manual.
type refTopic struct {
	name, title string
	sections    [][2]string // heading, body line
}

var refTopics = []refTopic{
	{"t.test", "Student's t-Test", [][2]string{
		{"Description", "Performs one and two sample t-tests on vectors of data."},
		{"Usage", "t.test(x, y = NULL, paired = FALSE)"},
		{"Arguments", "paired a logical indicating whether you want a paired t-test."},
		{"Value", "A list with class htest containing the statistic and its p-value."},
	}},
	{"airquality", "New York Air Quality Measurements", [][2]string{
		{"Description", "Daily air quality measurements in New York, May to September 1973."},
		{"Format", "A data frame with 153 observations on 6 variables."},
		{"Source", "The data were obtained from the New York State Department of Conservation."},
	}},
	{"mean", "Arithmetic Mean", [][2]string{
		{"Description", "Generic function for the (trimmed) arithmetic mean."},
		{"Usage", "mean(x, trim = 0, na.rm = FALSE, ...)"},
		{"Arguments", "na.rm a logical evaluating to TRUE or FALSE indicating whether NA values should be stripped."},
		{"Value", "The mean of the values in x is computed, as a numeric or complex vector of length one."},
		{"Source", "The trimmed mean follows the S language of Becker, Chambers and Wilks."},
	}},
	{"quakes", "Locations of Earthquakes off Fiji", [][2]string{
		{"Description", "The data set give the locations of 1000 seismic events of MB > 4.0."},
		{"Format", "A data frame with 1000 observations on 5 variables."},
		{"Source", "Dr. John Woodhouse, Dept. of Geophysics, Harvard University."},
	}},
	{"options", "Options Settings", [][2]string{
		{"Description", "Allow the user to set and examine a variety of global options."},
		{"Usage", "options(...)"},
		{"Arguments", "digits controls the number of significant digits to print."},
		{"Value", "For options(), a list of all set options sorted by name."},
		{"Source", "Options from S, with additions for R."},
	}},
}

// refmanPDF sets the topics as R sets its reference manual: a contents
// page whose chapter line has no leaders, a chapter opening, each topic's
// name and title on one line in body type, bold section headings, code in
// Courier, and running heads that name the topic beside the page number.
// With outline, bookmarks name the package and each topic by name.
func refmanPDF(outline bool) []byte {
	mark := func(level int, name string) (int, string) {
		if !outline {
			return 0, ""
		}
		return level, name
	}
	contents := []doctest.Line{{Text: "1 The demo package", Face: doctest.Bold, Right: "1"}}
	for i, tp := range refTopics {
		contents = append(contents, doctest.Line{Text: tp.name + " . . . . . . . . . . . . . . . . . . . . . . . . . . .", Indent: 20, Right: fmt.Sprint(i + 1)})
	}
	pages := []doctest.StyledPage{
		{Lines: []doctest.Line{{Text: "The Demo Reference Manual", Face: doctest.Bold, Size: 24}}},
		{Head: "\ti", Lines: contents},
	}
	var lines []doctest.Line
	lv, m := mark(1, "The demo package")
	lines = append(lines, doctest.Line{Text: "Chapter 1", Face: doctest.Bold, Size: 20}, doctest.Line{Text: "The demo package", Face: doctest.Bold, Size: 24, Gap: 20, Bookmark: lv, Mark: m})
	page, head := 1, "The demo package"
	flush := func() {
		pages = append(pages, doctest.StyledPage{Head: fmt.Sprintf("%s\t%d", head, page), Lines: lines})
		lines = nil
		page++
	}
	for i, tp := range refTopics {
		lv, m := mark(2, tp.name)
		lines = append(lines, doctest.Line{Text: tp.name, Indent: 8, Right: tp.title, Gap: 24, Bookmark: lv, Mark: m})
		for j, s := range tp.sections {
			// airquality's and quakes' Source sections open a page
			if s[0] == "Source" && (i == 1 || i == 3) {
				flush()
			}
			head = tp.name
			face := doctest.Regular
			if s[0] == "Usage" {
				face = doctest.Mono
			}
			gap := 8.0
			if j == 0 {
				gap = 14
			}
			if len(lines) == 0 {
				gap = 0
			}
			lines = append(lines, doctest.Line{Text: s[0], Face: doctest.Bold, Gap: gap}, doctest.Line{Text: s[1], Face: face, Indent: 18, Gap: 4})
		}
		if i == 0 || i == 2 {
			flush()
		}
	}
	flush()
	return doctest.StyledPDF(pages...)
}

// sectionPath is the heading path of the first sentence that starts with
// prefix, or "no sentence …".
func sectionPath(d *Document, prefix string) string {
	for i := range d.Sentences {
		if strings.HasPrefix(d.SentenceText(i), prefix) {
			return d.HeadingTrail(i)
		}
	}
	return "no sentence " + prefix
}

func checkRefman(t *testing.T, d *Document, pkg string) {
	t.Helper()
	for prefix, want := range map[string]string{
		"paired a logical":             "t.test Student's t-Test > Arguments",
		"The data were obtained":       "airquality New York Air Quality Measurements > Source",
		"Dr. John Woodhouse":           "quakes Locations of Earthquakes off Fiji > Source",
		"na.rm a logical":              "mean Arithmetic Mean > Arguments",
		"digits controls":              "options Options Settings > Arguments",
		"For options(), a list of all": "options Options Settings > Value",
	} {
		if pkg != "" {
			want = pkg + " > " + want
		}
		if got := sectionPath(d, prefix); got != want {
			t.Errorf("%q is under %q, want %q", prefix, got, want)
		}
	}
	for _, h := range headingTexts(d) {
		if strings.HasPrefix(h, "1 The demo") || strings.Contains(h, ". .") || h == "t.test" || strings.HasSuffix(h, "2") || strings.HasSuffix(h, "3") {
			t.Errorf("a contents line or running head is a heading: %q", h)
		}
	}
	if n := strings.Count(d.Text, "The demo package"); n != 2 {
		t.Errorf("the running heads are in the text (%d × the package's name)", n)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// With an outline naming the topics, each topic's sections lie under the
// line it names, not beside it.
func TestReferenceManualWithOutline(t *testing.T) {
	t.Parallel()
	d := loadFile(t, "refman.pdf", refmanPDF(true), LoadOptions{})
	checkRefman(t, d, "The demo package")
	if got := strings.Count(strings.Join(headingTexts(d), "|"), "Source"); got != 4 {
		t.Errorf("%d Source headings, want 4: %q", got, headingTexts(d))
	}
}

// Without one, the line standing over each topic's first section (set in
// body type) is taken for the topic's.
func TestReferenceManualWithoutOutline(t *testing.T) {
	t.Parallel()
	d := loadFile(t, "refman.pdf", refmanPDF(false), LoadOptions{})
	checkRefman(t, d, "The demo package")
}

// manPages are man pages as man(1) formats them for a terminal.
var manPages = []struct{ name, what, options string }{
	{"ls", "list directory contents", "-a, --all do not ignore entries starting with ."},
	{"cp", "copy files and directories", "-f, --force remove an existing destination file that cannot be opened."},
	{"mv", "move (rename) files", "-n, --no-clobber do not overwrite an existing file."},
	{"rm", "remove files or directories", "-r, --recursive remove directories and their contents recursively."},
}

func manText() string {
	var b strings.Builder
	for _, m := range manPages {
		up := strings.ToUpper(m.name) + "(1)"
		fmt.Fprintf(&b, "%s                    User Commands                    %s\n\n", up, up)
		fmt.Fprintf(&b, "NAME\n       %s - %s\n\n", m.name, m.what)
		fmt.Fprintf(&b, "SYNOPSIS\n       %s [OPTION]... FILE...\n\n", m.name)
		fmt.Fprintf(&b, "DESCRIPTION\n       The %s command is one of the core utilities of the system.\n\n       %s\n\n", m.name, m.options)
		fmt.Fprintf(&b, "SEE ALSO\n       Full documentation is in the Texinfo manual of the core utilities.\n\n")
		fmt.Fprintf(&b, "GNU coreutils 9.1                 September 2022                    %s\n\n", up)
	}
	return b.String()
}

// manPDF sets the man pages as groff does: a running head naming the page
// on every page, bold section names, body text indented; every man page
// starts a page and takes two.
func manPDF() []byte {
	var pages []doctest.StyledPage
	for _, m := range manPages {
		up := strings.ToUpper(m.name) + "(1)"
		lines := []doctest.Line{
			{Text: "NAME", Face: doctest.Bold, Size: 11},
			{Text: m.name + " - " + m.what, Indent: 36},
			{Text: "SYNOPSIS", Face: doctest.Bold, Size: 11, Gap: 6},
			{Text: m.name + " [OPTION]... FILE...", Indent: 36},
			{Text: "DESCRIPTION", Face: doctest.Bold, Size: 11, Gap: 6},
			{Text: fmt.Sprintf("The %s command is one of the core utilities of the system.", m.name), Indent: 36},
			{Text: m.options, Indent: 36, Gap: 6},
		}
		more := []doctest.Line{
			{Text: "SEE ALSO", Face: doctest.Bold, Size: 11, Gap: 6},
			{Text: "Full documentation is in the Texinfo manual of the core utilities.", Indent: 36},
		}
		head := up + " User Commands\t" + up
		pages = append(pages, doctest.StyledPage{Head: head, Lines: lines, Foot: fmt.Sprintf("GNU coreutils 9.1\t%d", len(pages)+1)},
			doctest.StyledPage{Head: head, Lines: more, Foot: fmt.Sprintf("GNU coreutils 9.1\t%d", len(pages)+2)})
	}
	return doctest.StyledPDF(pages...)
}

func checkManPages(t *testing.T, d *Document) {
	t.Helper()
	var topics []string
	for _, sec := range d.Sections {
		if sec.Parent < 0 {
			topics = append(topics, d.Text[sec.Heading.Start:sec.Heading.End])
		}
	}
	want := []string{"ls - list directory contents", "cp - copy files and directories", "mv - move (rename) files", "rm - remove files or directories"}
	if !slices.Equal(topics, want) {
		t.Errorf("topics %q, want %q", topics, want)
	}
	if got := sectionPath(d, "-n, --no-clobber"); got != "mv - move (rename) files > DESCRIPTION" {
		t.Errorf("mv's option is under %q", got)
	}
	if got := sectionPath(d, "NAME"); got != "ls - list directory contents" {
		t.Errorf("NAME is under %q", got)
	}
}

// A man page's NAME line names its topic, in text as in a PDF, where NAME
// opens a page under a running head of the page's own.
func TestManPageTopics(t *testing.T) {
	t.Parallel()
	checkManPages(t, loadFile(t, "coreutils.txt", []byte(manText()), LoadOptions{}))
	d := loadFile(t, "coreutils.pdf", manPDF(), LoadOptions{})
	checkManPages(t, d)
	if strings.Contains(d.Text, "User Commands") {
		t.Errorf("running heads kept:\n%s", d.Text)
	}
}
