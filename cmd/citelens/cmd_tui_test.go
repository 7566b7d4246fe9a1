package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigTheme(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if got, err := configTheme(path); got != "" || err != nil {
		t.Errorf("no file: %q, %v", got, err)
	}
	os.WriteFile(path, []byte("model = \"m\"\n\n[tui]\ntheme = \"high-contrast\"\n"), 0o600)
	if got, err := configTheme(path); got != "high-contrast" || err != nil {
		t.Errorf("[tui] theme: %q, %v", got, err)
	}
	os.WriteFile(path, []byte("model = \"m\"\n"), 0o600)
	if got, err := configTheme(path); got != "" || err != nil {
		t.Errorf("no [tui] section: %q, %v", got, err)
	}
	os.WriteFile(path, []byte("[tui\ntheme = 1\n"), 0o600)
	if _, err := configTheme(path); err == nil {
		t.Error("a broken file is not an error")
	}
}

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
