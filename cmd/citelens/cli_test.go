package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs the citelens command in-process against a library of its own.
type cli struct {
	t  *testing.T
	db string
}

func newCLI(t *testing.T) *cli {
	return &cli{t: t, db: filepath.Join(t.TempDir(), "library.db")}
}

// run executes citelens with args and returns stdout, stderr and the status.
func (c *cli) run(args ...string) (string, string, int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"--db", c.db}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// ok runs citelens and fails the test on a non-zero status.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("citelens %v: status %d\n%s", args, code, errs)
	}
	return out
}

const sample = "../../testdata/declaration.txt"

func TestAddListShowSearchRemove(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var added []addedDoc
	if err := json.Unmarshal([]byte(c.ok("add", "--json", sample)), &added); err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || added[0].Name != "declaration.txt" || added[0].Existed || added[0].Sentences == 0 {
		t.Fatalf("add --json: %+v", added)
	}
	id := string(added[0].ID)
	if out := c.ok("add", sample); !strings.Contains(out, "already in the library") {
		t.Errorf("re-add said %q", out)
	}
	if out := c.ok("ls"); !strings.Contains(out, id) || !strings.Contains(out, "declaration.txt") {
		t.Errorf("ls: %q", out)
	}
	raw, _ := os.ReadFile(sample)
	if out := c.ok("show", "--text", id[:5]); out != string(raw) {
		t.Errorf("show --text differs from the file")
	}
	sents := strings.Split(strings.TrimSpace(c.ok("show", "--sentences", "declaration.txt")), "\n")
	f := strings.SplitN(sents[0], "\t", 5)
	if len(f) != 5 || f[0] != "0" || f[1] != "1" || f[2] != "0" || f[4] != "The Declaration of Independence" {
		t.Errorf("first sentence line %q", sents[0])
	}
	var hits []searchHit
	if err := json.Unmarshal([]byte(c.ok("search", "--json", "--k", "2", "taxes", "without", "consent")), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Text != "For imposing Taxes on us without our Consent:" || string(raw[hits[0].Start:hits[0].End]) != hits[0].Text {
		t.Errorf("search hits %+v", hits)
	}
	if out := c.ok("show", "--page", "1", "decl"); out != string(raw) {
		t.Errorf("page 1 of a text file is not the whole file")
	}
	c.ok("rm", id)
	if out := c.ok("ls"); strings.Contains(out, id) {
		t.Errorf("ls after rm: %q", out)
	}
}

func TestCLIErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	bin := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(bin, []byte("\x1b[31mred\x00"), 0o644)
	_, errs, code := c.run("add", bin)
	if code != 1 || !strings.Contains(errs, "binary") || strings.Contains(errs, "\x1b") {
		t.Errorf("binary file: status %d, %q", code, errs)
	}
	if _, errs, code := c.run("show", "nothing"); code != 1 || !strings.Contains(errs, "citelens ls") {
		t.Errorf("unknown doc: status %d, %q", code, errs)
	}
	if _, errs, code := c.run("frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: %d %q", code, errs)
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if out, _, code := c.run(args...); code != 0 || out != "citelens dev\n" {
			t.Errorf("%s: %d %q", args[0], code, out)
		}
	}
	if out, _, code := c.run("search", "--help"); code != 0 || !strings.Contains(out, "Usage: citelens search") {
		t.Errorf("--help: %d %q", code, out)
	}
	if out := c.ok("ls"); !strings.Contains(out, "library is empty") {
		t.Errorf("ls of no library: %q", out)
	}
}

// TestAddReportsLostText: a PDF that needed repair is added, and the user
// is told, at add time and by show.
func TestAddReportsLostText(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pdf, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged.pdf")
	os.WriteFile(damaged, bytes.Replace(pdf, []byte("startxref"), []byte("startxrex"), 1), 0o644)
	out, errs, code := c.run("add", damaged)
	if code != 0 || !strings.Contains(out, "added") || !strings.Contains(errs, "warning: damaged.pdf:") {
		t.Fatalf("add: status %d\n%s\n%s", code, out, errs)
	}
	if show := c.ok("show", "damaged.pdf"); !strings.Contains(show, "warning ") {
		t.Errorf("show does not repeat the warning:\n%s", show)
	}
}
