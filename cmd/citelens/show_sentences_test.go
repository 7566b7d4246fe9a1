package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// show ID --sentences A-B prints the text a citation "sentences A-B"
// quotes, without a picture; a number alone after --sentences is still a
// document.
func TestShowSentenceRange(t *testing.T) {
	c := newCLI(t)
	c.ok("add", sample)
	lines := strings.Split(strings.TrimSpace(c.ok("show", "--sentences", "declaration.txt")), "\n")
	want := func(i int) string { return strings.SplitN(lines[i], "\t", 5)[4] }
	for _, args := range [][]string{
		{"show", "declaration.txt", "--sentences", "2-4"},
		{"show", "--sentences", "2-4", "declaration.txt"},
		{"show", "--sentences=2-4", "declaration.txt"},
	} {
		got := strings.Split(strings.TrimSuffix(c.ok(args...), "\n"), "\n")
		if len(got) != 3 || got[0] != want(2) || got[1] != want(3) || got[2] != want(4) {
			t.Errorf("%v printed %q; want sentences 2 to 4: %q %q %q", args, got, want(2), want(3), want(4))
		}
	}
	if got := strings.TrimSpace(c.ok("show", "declaration.txt", "--sentences", "5")); got != want(5) {
		t.Errorf("--sentences 5 printed %q, want %q", got, want(5))
	}
	if _, errs, code := c.run("show", "declaration.txt", "--sentences", "2-99999"); code == 0 || !strings.Contains(errs, "has sentences 0 to") {
		t.Errorf("a range past the end: status %d, %q", code, errs)
	}
}

// ask --context N and search --context N print N sentences around each
// cited one, marked as grep -n -C marks them.
func TestContextAroundCitations(t *testing.T) {
	c := newCLI(t)
	c.ok("add", sample)
	lines := strings.Split(strings.TrimSpace(c.ok("show", "--sentences", "declaration.txt")), "\n")
	sentence := func(i int) string { return strings.SplitN(lines[i], "\t", 5)[4] }
	var hit int
	for i := range lines {
		if sentence(i) == "For imposing Taxes on us without our Consent:" {
			hit = i
		}
	}
	out := c.ok("search", "--k", "1", "--context", "2", "taxes", "without", "consent")
	for i := hit - 2; i <= hit+2; i++ {
		sep := "-"
		if i == hit {
			sep = ":"
		}
		if want := "        s" + itoa(i) + sep + " " + sentence(i) + "\n"; !strings.Contains(out, want) {
			t.Errorf("search --context 2 lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s"+itoa(hit-3)+"-") || strings.Contains(out, "s"+itoa(hit+3)+"-") {
		t.Errorf("search --context 2 printed more than two sentences each side:\n%s", out)
	}
	if out := c.ok("search", "--k", "1", "taxes", "without", "consent"); strings.Contains(out, "s"+itoa(hit+1)+"-") {
		t.Errorf("search without --context printed context:\n%s", out)
	}

	out = c.ok("ask", "--strategy", "extractive", "--no-save", "--context", "1", "taxes without consent")
	if !strings.Contains(out, "    s"+itoa(hit)+": "+sentence(hit)+"\n") || !strings.Contains(out, "    s"+itoa(hit+1)+"- "+sentence(hit+1)+"\n") || !strings.Contains(out, "    s"+itoa(hit-1)+"- "+sentence(hit-1)+"\n") {
		t.Errorf("ask --context 1 does not show sentence %d in its place:\n%s", hit, out)
	}
	if out := c.ok("ask", "--strategy", "extractive", "--no-save", "taxes without consent"); !strings.Contains(out, `"`+sentence(hit)+`"`) || strings.Contains(out, "s"+itoa(hit)+":") {
		t.Errorf("ask without --context changed:\n%s", out)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// answers lists the newest answer first, in the table and in JSON.
func TestAnswersNewestFirst(t *testing.T) {
	c := newCLI(t)
	c.ok("add", sample)
	for _, q := range []string{"first question about taxes", "second question about consent", "third question about powers"} {
		c.ok("ask", "--strategy", "extractive", q)
	}
	var list []struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal([]byte(c.ok("answers", "--json")), &list); err != nil || len(list) != 3 {
		t.Fatalf("answers --json: %v %v", list, err)
	}
	if !strings.HasPrefix(list[0].Question, "third") || !strings.HasPrefix(list[2].Question, "first") {
		t.Errorf("answers --json in the order %v; want the newest first", list)
	}
	rows := strings.Split(strings.TrimSpace(c.ok("answers")), "\n")
	if len(rows) != 4 || !strings.Contains(rows[1], "third question") || !strings.Contains(rows[3], "first question") {
		t.Errorf("answers:\n%s\nwant the newest first", strings.Join(rows, "\n"))
	}
}
