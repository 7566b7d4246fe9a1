package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLsPages: ls shows a page of the listing when asked (--page,
// --per-page), oldest first, and says where it is; to a pipe it lists
// every document, as a script expects.
func TestLsPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var list []string
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("note-%d.txt", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("Note %d is about the river. It has two sentences.", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	from := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(from, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	c.ok("add", "--jobs", "1", "--from", from)

	if out := c.ok("ls"); strings.Count(out, "note-") != 5 || strings.Contains(out, "Documents") {
		t.Errorf("ls to a pipe:\n%s", out)
	}
	out := c.ok("ls", "--page", "2", "--per-page", "2")
	if strings.Count(out, "note-") != 2 || !strings.Contains(out, "note-2.txt") || !strings.Contains(out, "note-3.txt") ||
		!strings.Contains(out, "Documents 3–4 of 5") || !strings.Contains(out, "--page 3") {
		t.Errorf("ls --page 2 --per-page 2:\n%s", out)
	}
	if out := c.ok("ls", "--page", "3", "--per-page", "2"); strings.Count(out, "note-") != 1 || !strings.Contains(out, "note-4.txt") || strings.Contains(out, "shows the next") {
		t.Errorf("the last page:\n%s", out)
	}
	if out := c.ok("ls", "--page", "9", "--per-page", "2"); !strings.Contains(out, "No documents on page 9") {
		t.Errorf("a page past the end:\n%s", out)
	}
	if _, errs, code := c.run("ls", "--per-page", "0"); code != 2 || !strings.Contains(errs, "--per-page 1 or more") {
		t.Errorf("--per-page 0: status %d\n%s", code, errs)
	}
}
