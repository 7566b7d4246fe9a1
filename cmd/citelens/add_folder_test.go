package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddFolder: `citelens add DIR` adds what the folder holds,
// recursively, as the terminal UI does, and says what it passed over.
func TestAddFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"declaration.txt":   string(raw),
		"notes/a.md":        "# Notes\n\nThe colonists objected to taxes imposed without consent.\n",
		"notes/sheet.xlsx":  "PK not really a spreadsheet",
		"notes/README":      "no extension",
		".cache/hidden.txt": "never added",
	}
	for p, text := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCLI(t)
	out, errs, code := c.run("add", dir)
	if code != 0 {
		t.Fatalf("add DIR: status %d\n%s", code, errs)
	}
	if strings.Count(out, "added:") != 2 || !strings.Contains(out, "declaration.txt") || !strings.Contains(out, "a.md") {
		t.Errorf("add DIR added:\n%s", out)
	}
	for _, want := range []string{"2 files to add", "1 .xlsx", "1 file without an extension", "1 hidden"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the summary lacks %q:\n%s", want, errs)
		}
	}
	if ls := c.ok("ls"); strings.Contains(ls, "hidden.txt") || strings.Contains(ls, "sheet") {
		t.Errorf("ls after add DIR:\n%s", ls)
	}
}

// TestAddFolderMaxFiles: a folder with more files than --max-files adds
// the first N and says how to add them all; --max-files 0 adds them all.
func TestAddFolderMaxFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 5 {
		text := fmt.Sprintf("Note %d says the harbour opens at %d o'clock.\n", i, 6+i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCLI(t)
	out, errs, code := c.run("add", "--max-files", "3", dir)
	if code != 0 || strings.Count(out, "added:") != 3 {
		t.Fatalf("add --max-files 3: status %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "only the first 3 are added (--max-files 0 adds them all)") {
		t.Errorf("no warning naming the way to add them all:\n%s", errs)
	}
	out, errs, code = c.run("add", "--max-files", "0", dir)
	if code != 0 || strings.Count(out, "added:") != 2 || strings.Contains(errs, "warning") {
		t.Fatalf("add --max-files 0: status %d\n%s\n%s", code, out, errs)
	}
	if _, errs, code := c.run("add", "--max-files", "-1", dir); code != 2 || !strings.Contains(errs, "--max-files") {
		t.Errorf("add --max-files -1: status %d\n%s", code, errs)
	}
}
