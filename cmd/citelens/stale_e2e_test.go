package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaleAnswerEndToEnd runs the real binary as a user would (issue
// 35): add a document, ask and save an answer, add a new version from
// the same path with the cited clause reworded, open the TUI, and see the
// answer's quiet mark and, on its citation, the old and new clause side
// by side with the new word highlighted; b shows the cited version. It is
// skipped only when tmux is absent (.ci/run installs it).
func TestStaleAnswerEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	text, err := os.ReadFile("../../testdata/declaration.txt")
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "contract.txt")
	if err := os.WriteFile(doc, text, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "library.db")
	env := append(os.Environ(), "CITELENS_CONFIG="+filepath.Join(dir, "no-config.toml"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("citelens %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cli("add", doc)
	cli("ask", "taxes imposed without our consent")
	cited := firstCitation(t, bin, db)
	if !strings.Contains(cited, "Taxes") {
		t.Fatalf("the answer's first citation %q is not the clause on taxes", cited)
	}
	reworded := strings.Replace(cited, "Taxes", "Duties", 1)
	if err := os.WriteFile(doc, []byte(strings.Replace(string(text), cited, reworded, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := cli("add", doc); !strings.Contains(out, "version 2") {
		t.Fatalf("the edited file was not added as a new version:\n%s", out)
	}

	tm := newTmux(t, dir)
	cmd := fmt.Sprintf("env CITELENS_CONFIG=%q OPENAI_API_KEY= OPENAI_BASE_URL= TERM=xterm-256color %q --db %q", filepath.Join(dir, "no-config.toml"), bin, db)
	tm.run("new-session", "-d", "-x", "140", "-y", "40", "-s", "e2e", cmd)
	tm.waitFor("⟳\u00a0evidence\u00a0changed")
	// enter on the empty input: the selected statement's citation (an
	// esc just before would reach the program as alt+enter).
	tm.run("send-keys", "-t", "e2e", "Enter")
	tm.waitFor("⟳ changed in version 2 of 2", "version 1 (cited)", "below: version 2 of 2 (latest)")
	screen := tm.capture()
	// The new word is highlighted in the comparison, beside the old one.
	found := false
	for _, line := range strings.Split(screen, "\n") {
		i := strings.Index(line, "Duties")
		if i < 0 || !strings.Contains(line, "│") || !strings.Contains(stripSGR(line), "Taxes") {
			continue // not the side-by-side row (the text below has it too)
		}
		found = true
		if !sgrAt(line[:i]).background {
			t.Errorf("the added word is not highlighted: %q", line)
		}
	}
	if !found {
		t.Errorf("no row shows the old and new clause side by side:\n%s", stripSGR(screen))
	}
	tm.run("send-keys", "-t", "e2e", "b")
	tm.waitFor("below: version 1 (cited)")
	tm.run("send-keys", "-t", "e2e", "q")
	tm.waitExit("e2e")
}
