package pdftext

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
)

// tableRows returns the text of every row of every table, header rows
// first, and fails unless each is a line of its own.
func tableRows(t *testing.T, res *Result) []string {
	t.Helper()
	var out []string
	for _, tb := range res.Tables {
		for _, s := range append(append([]structure.Span{}, tb.Header...), tb.Rows...) {
			checkLine(t, res.Text, s, "row")
			out = append(out, spanText(res.Text, s))
		}
	}
	return out
}

// hasRow reports whether one of rows is the cells given, in order, at
// least two spaces apart.
func hasRow(rows []string, cells ...string) bool {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = regexp.QuoteMeta(c)
	}
	re := regexp.MustCompile("^" + strings.Join(parts, " {2,}") + "$")
	for _, r := range rows {
		if re.MatchString(r) {
			return true
		}
	}
	return false
}

// commandRows are a manual's table of commands (in the typewriter face)
// and what they do; the descriptions of some run onto a second line.
var commandRows = [][]string{
	{"tar -xvf foo.tar", "extract files from the archive foo.tar", "into the current directory"},
	{"tar -xvzf foo.tar.gz", "extract files from gzipped foo.tar.gz archive"},
	{"tar -xvjf foo.tar.bz2", "extract files from foo.tar.bz2 archive"},
	{"tar -xvJf foo.tar.xz", "extract files from foo.tar.xz archive"},
	{"tar -cvf foo.tar bar/", "archive contents of folder bar/ in", "foo.tar archive, made anew"},
	{"tar -cvzf foo.tar.gz bar/", "archive contents of folder bar/ in", "compressed foo.tar.gz archive"},
	{"zcat README.gz | pager", "display contents of compressed README.gz"},
	{"zcat README.gz > foo", "create a file foo with the decompressed", "content of README.gz"},
	{"zcat README.gz >> foo", "append the decompressed content of", "README.gz to the end of the file foo"},
}

// commandTable draws commandRows from baseline y down, a header row in
// bold above them: commands in the typewriter face on the left, their
// descriptions from x = 300, a description of two lines centred on its
// command (half a line above and below it); the first, right under the
// header, runs on past the header's right edge.
func commandTable(y float64) string {
	var c strings.Builder
	c.WriteString(show("F3", 10, 72, y, "command") + show("F3", 10, 300, y, "description"))
	y -= 12
	for _, r := range commandRows {
		if len(r) == 2 {
			c.WriteString(show("F2", 10, 72, y, r[0]) + show("F1", 10, 300, y, r[1]))
			y -= 12
			continue
		}
		c.WriteString(show("F1", 10, 300, y, r[1]) + show("F2", 10, 72, y-6, r[0]) + show("F1", 10, 300, y-12, r[2]))
		y -= 24
	}
	return c.String()
}

// A table of commands and what they do, whose column gap the layout takes
// for a gutter between columns of the page, keeps each command on one
// line with its whole description: "tar -xvJf foo.tar.xz" beside
// "extract files from foo.tar.xz archive", not a run of commands and then
// a run of descriptions. A description set on two lines centred on its
// command is joined whole into its row, not split between the rows above
// and below.
func TestTornCommandTable(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	c.WriteString(body(72, 740, 4))
	c.WriteString(commandTable(680))
	c.WriteString(body(72, 480, 4))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(res.Tables), res.Text)
	}
	rows := tableRows(t, res)
	if len(rows) != len(commandRows)+1 || !hasRow(rows, "command", "description") {
		t.Errorf("rows %q, want the header and %d rows", rows, len(commandRows))
	}
	for _, r := range commandRows {
		if !hasRow(rows, r[0], strings.Join(r[1:], " ")) {
			t.Errorf("no row %q in\n%s", r, strings.Join(rows, "\n"))
		}
	}
}

// A table whose narrow column wraps over several lines, every row's other
// cells centred on them (a signal's number and name level with the middle
// of its action), keeps each row whole.
func TestCentredTableRows(t *testing.T) {
	t.Parallel()
	rows := []struct {
		num, name string
		action    []string
		note      string
	}{
		{"0", "---", []string{"no", "signal", "is sent"}, "check if process is running"},
		{"1", "SIGHUP", []string{"terminate", "the", "process"}, "disconnected terminal"},
		{"3", "SIGQUIT", []string{"terminate", "the", "process", "and dump", "core"}, "quit from keyboard"},
		{"9", "SIGKILL", []string{"terminate", "the pro-", "cess", "now"}, "unblockable kill signal"},
		{"15", "SIGTERM", []string{"terminate", "the"}, "blockable termination signal"},
	}
	var c strings.Builder
	c.WriteString(body(72, 740, 4))
	y := 680.0
	c.WriteString(show("F3", 10, 72, y, "value") + show("F3", 10, 130, y, "name") + show("F3", 10, 200, y, "action") + show("F3", 10, 280, y, "note"))
	y -= 12
	for _, r := range rows {
		mid := y - 6*float64(len(r.action)-1)
		for i, a := range r.action {
			c.WriteString(show("F1", 10, 200, y-12*float64(i), a))
		}
		c.WriteString(show("F1", 10, 72, mid, r.num) + show("F1", 10, 130, mid, r.name) + show("F1", 10, 280, mid, r.note))
		y -= 12 * float64(len(r.action))
	}
	c.WriteString(body(72, y-30, 3))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(res.Tables), res.Text)
	}
	got := tableRows(t, res)
	if !hasRow(got, "value", "name", "action", "note") {
		t.Errorf("no header row in\n%s", strings.Join(got, "\n"))
	}
	for _, want := range [][]string{
		{"0", "---", "no signal is sent", "check if process is running"},
		{"1", "SIGHUP", "terminate the process", "disconnected terminal"},
		{"3", "SIGQUIT", "terminate the process and dump core", "quit from keyboard"},
		{"9", "SIGKILL", "terminate the process now", "unblockable kill signal"},
		{"15", "SIGTERM", "terminate the", "blockable termination signal"},
	} {
		if !hasRow(got, want...) {
			t.Errorf("no row %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
}

// A table set in the typewriter face, as preformatted text, whose columns
// the layout tears apart at a gutter, is read row by row, and its header
// set on two lines, the upper one's words centred over the columns, is one
// header row: "-9" beside the 7600k it needs to compress.
func TestTornTypewriterTable(t *testing.T) {
	t.Parallel()
	var c strings.Builder
	c.WriteString(body(72, 740, 4))
	mono := func(x, y float64, s string) string { return show("F2", 10, x, y, s) }
	right := func(x, y float64, s string) string { return mono(x-6*float64(len(s)), y, s) }
	y := 680.0
	c.WriteString(mono(124, y, "Compress") + mono(185, y, "Decompress") + mono(259, y, "Decompress") + mono(333, y, "Corpus"))
	y -= 12
	c.WriteString(mono(90, y, "Flag") + mono(135, y, "usage") + mono(190, y, "usage") + mono(250, y, "-s usage") + mono(317, y, "Size"))
	y -= 24
	for i := 1; i <= 9; i++ {
		c.WriteString(mono(94, y, fmt.Sprintf("-%d", i)) + right(162, y, fmt.Sprintf("%dk", 400+800*i)) +
			right(215, y, fmt.Sprintf("%dk", 100+400*i)) + right(279, y, fmt.Sprintf("%dk", 100+250*i)) +
			right(339, y, fmt.Sprintf("%d", 900000-9000*i)))
		y -= 12
	}
	c.WriteString(body(72, y-30, 4))
	res := extractBytes(t, pagesPDF(structureFonts(), c.String()))
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables, want 1:\n%s", len(res.Tables), res.Text)
	}
	rows := tableRows(t, res)
	if len(res.Tables[0].Header) != 1 || !hasRow(rows, "Flag", "Compress usage", "Decompress usage", "Decompress -s usage", "Corpus Size") {
		t.Errorf("header %v, want one row of two lines:\n%s", res.Tables[0].Header, strings.Join(rows, "\n"))
	}
	if !hasRow(rows, "-9", "7600k", "3700k", "2350k", "819000") {
		t.Errorf("no row for -9 in\n%s", strings.Join(rows, "\n"))
	}
}

// A table running over several pages repeats its header row at the top
// of each, under the running head: the header is kept on every page, the
// running head dropped.
func TestRepeatedTableHeaderKept(t *testing.T) {
	t.Parallel()
	var pages []string
	for p := 1; p <= 4; p++ {
		var c strings.Builder
		c.WriteString(show("F1", 10, 72, 760, "A Test Manual") + show("F1", 10, 500, 760, fmt.Sprintf("%d / 9", p)))
		c.WriteString(show("F3", 10, 72, 720, "key") + show("F3", 10, 200, 720, "meaning of the key"))
		for i := range 6 {
			y := 708 - 12*float64(i)
			c.WriteString(show("F1", 10, 72, y, fmt.Sprintf("Ctrl-%c", 'A'+rune(p*6+i))) + show("F1", 10, 200, y, fmt.Sprintf("does thing %d of page %d", i, p)))
		}
		c.WriteString(body(72, 600, 5))
		pages = append(pages, c.String())
	}
	res := extractBytes(t, pagesPDF(structureFonts(), pages...))
	if n := strings.Count(res.Text, "A Test Manual"); n != 0 {
		t.Errorf("running head kept %d times", n)
	}
	if n := len(regexp.MustCompile(`(?m)^key {2,}meaning of the key$`).FindAllString(res.Text, -1)); n != 4 {
		t.Errorf("header row kept on %d pages, want 4:\n%s", n, res.Text)
	}
}

// Two columns of an index side by side, entries alike in both, are no
// table, though their lines share baselines.
func TestIndexColumnsNoTable(t *testing.T) {
	t.Parallel()
	var left, right []string
	names := []string{"abs", "all.equal", "apply", "as.character.Date", "body", "browser", "c", "call.graph", "dim", "do.call.list", "eval", "format.Date"}
	for i, n := range names {
		left = append(left, fmt.Sprintf("%s, %d", n, 100+7*i))
		right = append(right, fmt.Sprintf("%s, %d", names[(i+5)%len(names)], 900+3*i))
	}
	res := extractBytes(t, pagesPDF(structureFonts(), textLines("F1", 72, 700, left...)+textLines("F1", 330, 700, right...)))
	if len(res.Tables) != 0 {
		t.Errorf("an index's columns read as %d tables:\n%s", len(res.Tables), res.Text)
	}
}
