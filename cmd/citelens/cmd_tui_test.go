package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIOutsideATerminal: the TUI refuses a pipe with a hint, and bad
// arguments fail before anything is drawn.
func TestTUIOutsideATerminal(t *testing.T) {
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
