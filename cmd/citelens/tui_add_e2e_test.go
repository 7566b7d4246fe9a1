package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddInTheTUIEndToEnd: adding documents in the terminal UI, the real
// binary in tmux. A typed path with a space and no quotes is one file; a
// typed path that names nothing keeps the dialog open and is named; the
// browser lists only what can be added and says how many others it
// leaves out; a folder of many files shows a progress bar for the batch
// whose count is never cut; the library shows when each document was
// added.
func TestAddInTheTUIEndToEnd(t *testing.T) {
	bin, dir, env := e2eSetup(t)
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(filepath.Join(docs, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("my notes.txt", "Boats sail across the harbour. The harbour is quiet at night.\n")
	write("picture.png", "not a document")
	write("tool.bin", "\x00\x01")
	// Enough files that adding them takes a moment on any machine.
	const many = 120
	for i := range many {
		var b strings.Builder
		for j := range 200 {
			fmt.Fprintf(&b, "Paragraph %d of report %d says the %d-th thing about harbours and ships. ", j, i, j*i)
		}
		write(filepath.Join("many", fmt.Sprintf("report-%03d.txt", i)), b.String())
	}
	db := filepath.Join(dir, "library.db")
	tm := startTUI(t, dir, env, 100, 30, bin, "--db", db)
	tm.waitFor("No documents yet")

	// To the library, and its add dialog: it opens in the working
	// folder, whose one folder is docs; in docs it lists what can be
	// added.
	tm.keys("BTab", "a")
	tm.waitFor("Add documents", "docs/")
	tm.keys("Enter")
	tm.waitFor("many/", "my notes.txt", "2 files of other types not shown")
	if screen := stripSGR(tm.capture()); strings.Contains(screen, "picture.png") || strings.Contains(screen, "tool.bin") {
		t.Errorf("the browser lists files citelens cannot add:\n%s", screen)
	}

	// Typed paths: one that names nothing keeps the dialog, named.
	tm.keys("Tab")
	tm.text("my notes.txt nothing-here.pdf")
	tm.keys("Enter")
	tm.waitFor("Not found: “nothing-here.pdf”")
	// Corrected: the path with a space, unquoted, is the one file.
	tm.keys("C-u")
	tm.text("my notes.txt")
	tm.keys("Enter")
	tm.waitFor("my notes.txt", "1/1 in scope")
	if screen := stripSGR(tm.capture()); strings.Contains(screen, "Could not add") {
		t.Fatalf("adding an unquoted path with a space failed:\n%s", screen)
	}

	// A folder of many files: the batch's bar, its count whole.
	tm.keys("a", "Tab")
	tm.text("many")
	tm.keys("Enter")
	tm.waitFor("adding files ▕", fmt.Sprintf("/%d", many))
	screen := stripSGR(tm.capture())
	for _, line := range strings.Split(screen, "\n") {
		if i := strings.Index(line, "adding files"); i >= 0 && !strings.Contains(line, fmt.Sprintf("/%d ", many)) {
			t.Errorf("the batch's count is cut: %q", line)
		}
	}
	tm.waitWithin(120e9, fmt.Sprintf("%d/%d in scope", many+1, many+1))

	// When each was added: today, in the list.
	tm.waitFor("today")
	tm.keys("q")
	tm.waitExit("e2e")
	out, err := exec.Command(bin, "--db", db, "ls").CombinedOutput()
	if err != nil || strings.Count(string(out), "report-") != many || !strings.Contains(string(out), "my notes.txt") {
		t.Errorf("the library after adding: %v\n%s", err, out)
	}
}
