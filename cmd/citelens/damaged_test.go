package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/docstoretest"
)

// TestDamagedLibraryIsNeverWritten: a library whose free list names a page
// still in use (check calls it damaged; a write would put new data over
// that page and lose it) keeps every byte through every command. Reading
// commands work; writing ones refuse with check's and salvage's advice,
// and "Nothing has been changed" is true; salvage recovers every document.
func TestDamagedLibraryIsNeverWritten(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	var files []string
	for i, topic := range []string{"rivers and seas", "mountains and plains", "courts and trade"} {
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		os.WriteFile(p, []byte(strings.Repeat("A report about "+topic+" in several sentences. ", 300)), 0o644)
		files = append(files, p)
	}
	var added []addedDoc
	if err := json.Unmarshal([]byte(c.ok(append([]string{"add", "--json", sample}, files...)...)), &added); err != nil {
		t.Fatal(err)
	}
	c.ok("ask", "--strategy", "extractive", "What powers do governments derive?")
	c.ok("rm", string(added[3].ID)) // so the free list is not empty
	id := string(added[0].ID)

	docstoretest.FreeLivePage(t, c.db)
	before, err := os.ReadFile(c.db)
	if err != nil {
		t.Fatal(err)
	}
	newFile := filepath.Join(dir, "new.txt")
	os.WriteFile(newFile, []byte("A new document. It has two sentences."), 0o644)
	salvaged := filepath.Join(dir, "salvaged.db")

	for _, cmd := range []struct {
		args   []string
		writes bool
	}{
		{[]string{"ls"}, false},
		{[]string{"ls", "--json"}, false},
		{[]string{"show", "--sentences", id}, false},
		{[]string{"search", "governments"}, false},
		{[]string{"answers"}, false},
		{[]string{"ask", "--strategy", "extractive", "--no-save", "Who signed it?"}, false},
		{[]string{"ask", "--strategy", "extractive", "Who signed it?"}, true},
		{[]string{"add", newFile}, true},
		{[]string{"add", sample}, false}, // already there: nothing to write
		{[]string{"rm", string(added[1].ID)}, true},
		{[]string{"reindex"}, true},
		{[]string{"salvage", salvaged}, false},
	} {
		out, errs, code := c.run(cmd.args...)
		noCrash(t, cmd.args[0], errs)
		switch {
		case cmd.writes && (code != 1 || !strings.Contains(errs, "the library is damaged: ") ||
			!strings.Contains(errs, "citelens salvage NEW.db") || !strings.Contains(errs, "Nothing has been changed")):
			t.Errorf("%v on a damaged library: status %d, want a refusal with the way out\n%s%s", cmd.args, code, out, errs)
		case !cmd.writes && code != 0:
			t.Errorf("%v, which only reads, failed on a damaged library: status %d\n%s%s", cmd.args, code, out, errs)
		}
		if after, _ := os.ReadFile(c.db); !bytes.Equal(after, before) {
			t.Fatalf("%v wrote to the damaged library", cmd.args)
		}
	}
	out, _, code := c.run("check")
	if code != 1 || !strings.Contains(out, "in use") && !strings.Contains(out, "reachable freed") {
		t.Errorf("check: status %d\n%s", code, out)
	}
	if out := (&cli{t: t, db: salvaged}).ok("ls"); strings.Count(out, ".txt") != 3 {
		t.Errorf("the salvaged library lacks documents:\n%s", out)
	}
}
