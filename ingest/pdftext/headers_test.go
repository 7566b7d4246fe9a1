package pdftext

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// edgePages builds the pages of a document for dropRunning from the lines
// at their top edges (first the running head, then the line under it) and
// the lines elsewhere on them: a line is "top|under|body…" per page.
func edgePages(pages ...string) ([][]edgeLine, [][]frag) {
	edges := make([][]edgeLine, len(pages))
	frags := make([][]frag, len(pages))
	for p, spec := range pages {
		parts := strings.Split(spec, "|")
		for _, t := range parts {
			f := frag{size: 10}
			for _, w := range strings.Fields(t) {
				f.words = append(f.words, word{text: w, size: 10, n: int32(len(w))})
			}
			frags[p] = append(frags[p], f)
		}
		for i := range min(2, len(parts)) {
			if parts[i] != "" {
				edges[p] = append(edges[p], newEdgeLine(p, []*frag{&frags[p][i]}, true))
			}
		}
	}
	return edges, frags
}

func kept(edges [][]edgeLine) string {
	var out []string
	for p, es := range edges {
		for _, e := range es {
			if !e.frags[0].drop {
				out = append(out, fmt.Sprintf("%d:%s", p+1, e.text()))
			}
		}
	}
	return strings.Join(out, " ")
}

// A heading that opens pages near each other is no running head when it
// stands mid-page more often ("Source" in a reference manual), when the
// line over it says the same (a topic's line under the running head that
// names it), or when it comes under a different running head each time
// ("NAME" opening each man page); a second line of running head that
// comes with the same first line is dropped with it.
func TestRunningHeadsAndHeadingsAtPageTops(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		pages []string
		want  string
	}{
		{"mid-page more often", []string{
			"12 airquality|Source|body", "airquality 13|Examples|body", "14 quakes|Source|body",
			"quakes 15|Format|Source|body", "16 women|Format|Source|body", "women 17|Format|Source|body"},
			"1:Source 2:Examples 3:Source"},
		{"at edges more often", []string{
			"12 airquality|Source|body", "airquality 13|Examples|body", "14 quakes|Source|body",
			"quakes 15|Format|Source|body", "16 women|Format|body", "women 17|Format|body"},
			"2:Examples"},
		{"says the same as the running head", []string{
			"1203 widthDetails|Description", "1204 Working with Viewports|Working with Viewports", "Working with Viewports 1205|Value"},
			"1:Description 2:Working with Viewports 3:Value"},
		{"under a running head of its own", []string{
			"LS(1) User Commands LS(1)|NAME", "LS(1) User Commands LS(1)|-l use a long listing format", "CP(1) User Commands CP(1)|NAME",
			"CP(1) User Commands CP(1)|-f remove the destination first", "MV(1) User Commands MV(1)|NAME", "MV(1) User Commands MV(1)|-n do not overwrite",
			"RM(1) User Commands RM(1)|NAME", "RM(1) User Commands RM(1)|-r remove directories"},
			"1:NAME 2:-l use a long listing format 3:NAME 4:-f remove the destination first 5:NAME 6:-n do not overwrite 7:NAME 8:-r remove directories"},
		{"two-line running head", []string{
			"Annual Report 2023|Management Discussion|body one", "Annual Report 2023|Management Discussion|body two",
			"Annual Report 2023|Management Discussion|body three", "Annual Report 2023|Financial Statements|body four",
			"Annual Report 2023|Financial Statements|body five", "Annual Report 2023|Financial Statements|body six"},
			""},
	} {
		edges, frags := edgePages(c.pages...)
		dropRunning(edges, awayFromEdges(edges, func(i int) []string { return awayCores(frags[i], edges[i]) }))
		if got := kept(edges); got != c.want {
			t.Errorf("%s: kept %q, want %q", c.name, got, c.want)
		}
	}
}

// A running head over a page of code set smaller than the prose is a
// running head, not a title set larger than the page's text.
func TestRunningHeadOverCode(t *testing.T) {
	t.Parallel()
	var pages []string
	for n := 20; n < 24; n++ {
		head := textLines("F1", 72, 760, fmt.Sprintf("Chapter 4: Relational databases %d", n))
		prose := textLines("F1", 72, 700, fmt.Sprintf("Page %d has a line of prose about databases.", n))
		var code []string
		for i := range 12 {
			code = append(code, fmt.Sprintf("> dbGetQuery(con, \"select %d from arrests\")", n*100+i))
		}
		pages = append(pages, head+prose+strings.ReplaceAll(textLines("F2", 72, 660, code...), "/F2 10 Tf", "/F2 8 Tf"))
	}
	res := extractBytes(t, pagesPDF(testFonts(), pages...))
	if strings.Contains(res.Text, "Chapter 4") {
		t.Errorf("running heads kept:\n%s", res.Text)
	}
}

// leadNum and trailNum match what the regular expressions they replace
// matched, on lines built from the pieces a running head is made of.
func TestLeadTrailNum(t *testing.T) {
	t.Parallel()
	leadRE, trailRE := regexp.MustCompile(`^\d{1,5}\b`), regexp.MustCompile(`\b\d{1,5}$`)
	pieces := []string{"", "1", "12", "12345", "123456", "a", "Z", "_", " ", ".", "é", "x1", "1x", "-", "Chapter", "٣"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				s := a + b + c
				if got, want := leadNum(s), leadRE.FindString(s); got != want {
					t.Errorf("leadNum(%q) = %q, want %q", s, got, want)
				}
				if got, want := trailNum(s), trailRE.FindString(s); got != want {
					t.Errorf("trailNum(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}
