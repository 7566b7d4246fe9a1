package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTUIOutsideATerminal: the TUI refuses a pipe with a hint, and bad
// arguments fail before anything is drawn.
func TestTUIOutsideATerminal(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "library.db")
	var out, errb bytes.Buffer
	if code := run([]string{"--db", db, "--theme", "light", "../../testdata/declaration.txt"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "needs a terminal") {
		t.Errorf("in a pipe: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"--db", db, "--theme", "sepia"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "unknown theme") {
		t.Errorf("bad theme: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"--db", db, "./missing.txt"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "cannot add ./missing.txt") {
		t.Errorf("missing file: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"--db", db, "tui", "--strategy", "nope"}, strings.NewReader(""), &out, &errb); code != 1 || !strings.Contains(errb.String(), "unknown strategy") {
		t.Errorf("bad strategy: exit %d, stderr %q", code, errb.String())
	}
}

// TestCLIConsistency: --strategy before the command as --theme is; tui
// in the command list; a mistyped command or strategy gets a suggestion;
// show --page 0 is an error; ask --batch asks questions that name no
// documents of --doc.
func TestCLIConsistency(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", "../../testdata/declaration.txt")
	other := filepath.Join(t.TempDir(), "other.txt")
	if err := os.WriteFile(other, []byte("A text about boats. Boats sail across the harbour.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("add", other)

	// --strategy at the top level reaches the TUI (which then needs a
	// terminal) after its check, and a bad one is refused first.
	if _, errs, code := c.run("--strategy", "rag", "../../testdata/declaration.txt"); code != 1 || !strings.Contains(errs, "rag needs a model") && !strings.Contains(errs, "needs a terminal") {
		t.Errorf("--strategy rag FILE: exit %d, %q", code, errs)
	}
	if _, errs, code := c.run("--strategy", "longcit"); code != 1 || !strings.Contains(errs, `did you mean "longcite"?`) {
		t.Errorf("--strategy longcit: exit %d, %q", code, errs)
	}
	// ... and ask's.
	if _, errs, code := c.run("--strategy", "extractiv", "ask", "taxes"); code != 1 || !strings.Contains(errs, `did you mean "extractive"?`) {
		t.Errorf("ask with a mistyped global strategy: exit %d, %q", code, errs)
	}
	out := c.ok("--strategy", "extractive", "ask", "--json", "taxes without consent")
	if !strings.Contains(out, `"strategy": "extractive"`) {
		t.Errorf("ask --json: %s", out)
	}

	help := c.ok("--help")
	if !regexp.MustCompile(`(?m)^  tui +open the terminal UI`).MatchString(help) || !strings.Contains(help, "--strategy NAME") {
		t.Errorf("help lacks tui or --strategy:\n%s", help)
	}
	if _, errs, code := c.run("serach", "taxes"); code != 2 || !strings.Contains(errs, `unknown command "serach" (did you mean "search"?)`) {
		t.Errorf("mistyped command: exit %d, %q", code, errs)
	}

	if _, errs, code := c.run("show", "--page", "0", "declaration.txt"); code != 1 || !strings.Contains(errs, "numbered from 1") {
		t.Errorf("show --page 0: exit %d, %q", code, errs)
	}

	batch := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(batch, []byte(`{"id":"1","question":"Do boats sail?"}`+"\n"+`{"id":"2","question":"taxes","docs":["declaration.txt"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = c.ok("ask", "--batch", batch, "--doc", "other.txt")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"name":"other.txt"`) || strings.Contains(lines[0], "declaration.txt") || !strings.Contains(lines[1], `"name":"declaration.txt"`) {
		t.Errorf("ask --batch --doc:\n%s", out)
	}
}
