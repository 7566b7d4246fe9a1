package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The terminal UI as a workspace, end to end: the real binary in tmux,
// other citelens processes beside it, and the scripted model server
// (llmtestd) for a model's strategy.

// e2eSetup builds citelens, checks for tmux, and returns the binary, its
// folder (for the library and exports) and the environment without a
// configured model.
func e2eSetup(t *testing.T) (bin, dir string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin = buildBinary(t)
	dir = filepath.Dir(bin)
	env = []string{"CITELENS_CONFIG=" + filepath.Join(dir, "no-config.toml"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "CITELENS_MODEL=", "NO_COLOR=1"}
	return bin, dir, env
}

// startTUI starts citelens in a tmux session "e2e" of w×h in dir.
func startTUI(t *testing.T, dir string, env []string, w, h int, args ...string) *tmux {
	t.Helper()
	tm := newTmux(t, dir)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	stderr := filepath.Join(dir, "tui.stderr")
	cmd := fmt.Sprintf("cd %q && env %s TERM=xterm-256color %s 2>%q", dir, strings.Join(env, " "), strings.Join(quoted, " "), stderr)
	tm.run("new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", "e2e", cmd)
	t.Cleanup(func() {
		if b, _ := os.ReadFile(stderr); t.Failed() && len(b) > 0 {
			t.Logf("the TUI's stderr:\n%s", b)
		}
	})
	return tm
}

// keys sends keys one at a time, a moment apart: an Escape sent with
// what follows it would reach the program as alt and that key.
func (tm *tmux) keys(keys ...string) {
	for _, k := range keys {
		tm.run("send-keys", "-t", "e2e", k)
		time.Sleep(100 * time.Millisecond)
	}
}
func (tm *tmux) text(s string) { tm.run("send-keys", "-t", "e2e", "-l", s) }

// savedAnswer is the newest saved answer, read back through the CLI.
type savedAnswer struct {
	Question   string `json:"question"`
	Partial    bool   `json:"partial"`
	Statements []struct {
		Text       string `json:"text"`
		Unfinished bool   `json:"unfinished"`
		Citations  []struct {
			Text string `json:"text"`
		} `json:"citations"`
	} `json:"statements"`
}

func newestAnswer(t *testing.T, bin, db string) savedAnswer {
	t.Helper()
	out, err := exec.Command(bin, "--db", db, "answers", "--json").Output()
	if err != nil {
		t.Fatalf("answers: %v", err)
	}
	var metas []struct {
		ID string `json:"answer_id"`
	}
	if err := json.Unmarshal(out, &metas); err != nil || len(metas) == 0 {
		t.Fatalf("no saved answer: %v %s", err, out)
	}
	out, err = exec.Command(bin, "--db", db, "export", metas[0].ID, "--format", "json").Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	var a savedAnswer
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	return a
}

// waitInSource waits for text highlighted as the citation shown in the
// source pane, which has the keyboard: its border is the heavy one, the
// conversation's (which quotes the same text) light, and in the
// no-colour theme the highlight is reverse video.
func (tm *tmux) waitInSource(text string) {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		raw := tm.capture()
		for _, line := range strings.Split(raw, "\n") {
			if b, i := strings.Index(line, "┃"), strings.Index(line, text); b >= 0 && i > b && sgrAt(line[:i]).reverse {
				return
			}
		}
		screen := stripSGR(raw)
		if time.Now().After(deadline) {
			tm.t.Fatalf("the source pane never showed %q:\n%s", text, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// firstWords is s's first n words, as a screen shows them.
func firstWords(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(n, len(w))], " ")
}

// TestWorkspaceEndToEnd: with the TUI open on a library, other citelens
// processes list, search and add to it, and the TUI shows what was added
// within two seconds; enter then n shows the second citation; after tab
// and shift+tab every key typed is text in the question input.
func TestWorkspaceEndToEnd(t *testing.T) {
	bin, dir, env := e2eSetup(t)
	doc, _ := filepath.Abs("../../testdata/declaration.txt")
	db := filepath.Join(dir, "library.db")
	tm := startTUI(t, dir, env, 140, 40, bin, "--db", db, doc)
	tm.waitFor("declaration.txt", "1/1 in scope")

	// Other processes use the library while the TUI is open.
	for _, args := range [][]string{{"ls"}, {"search", "consent of the governed"}} {
		out, err := exec.Command(bin, append([]string{"--db", db}, args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "declaration") && !strings.Contains(string(out), "consent") {
			t.Errorf("citelens %v beside the TUI: %v\n%s", args, err, out)
		}
	}
	other := filepath.Join(dir, "harbour.txt")
	if err := os.WriteFile(other, []byte("Boats sail across the harbour. The harbour is quiet at night.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--db", db, "add", other).CombinedOutput(); err != nil {
		t.Fatalf("citelens add beside the TUI: %v\n%s", err, out)
	}
	added := time.Now()
	tm.waitWithin(2*time.Second, "harbour.txt")
	t.Logf("the TUI listed the document %v after the add returned", time.Since(added).Round(10*time.Millisecond))

	// Ask; enter shows the first citation, n the second.
	tm.text("taxes imposed without our consent")
	tm.keys("Enter")
	tm.waitFor("extractive · ")
	// The answer is saved by now: the CLI reads it while the TUI is open.
	a := newestAnswer(t, bin, db)
	if len(a.Statements) < 2 || len(a.Statements[1].Citations) == 0 {
		t.Fatalf("the answer has fewer than two cited statements: %+v", a)
	}
	first, second := firstWords(a.Statements[0].Citations[0].Text, 4), firstWords(a.Statements[1].Citations[0].Text, 4)
	tm.keys("Enter")
	tm.waitInSource(first)
	tm.keys("n")
	tm.waitInSource(second)

	// Back to the conversation, away and back with tab: typing is text.
	tm.keys("Escape", "BTab", "Tab")
	q := "export yes delete now quit?"
	tm.text(q)
	tm.waitFor("› " + q)
	screen := stripSGR(tm.capture())
	for _, fired := range []string{"Exported to", "Delete the saved answer", "Strategy", "Export as"} {
		if strings.Contains(screen, fired) {
			t.Errorf("typing fired a command (%q on screen):\n%s", fired, screen)
		}
	}
	tm.keys("C-u", "Escape", "q")
	tm.waitExit("e2e")

	if exports, _ := filepath.Glob(filepath.Join(dir, "citelens-answer-*")); len(exports) != 0 {
		t.Errorf("typing exported %v", exports)
	}
	if metas, _ := exec.Command(bin, "--db", db, "answers").Output(); strings.Count(string(metas), "taxes imposed") != 1 {
		t.Errorf("the saved answers after typing:\n%s", metas)
	}
}

// TestCancelKeepsStatementEndToEnd: cancelling a model's answer while it
// streams keeps the statement being written, marked unfinished, on
// screen and in the saved answer.
func TestCancelKeepsStatementEndToEnd(t *testing.T) {
	bin, dir, env := e2eSetup(t)
	env = append(env, startLLMTestd(t, dir, "-delay", "150ms", "-cites", "3")...)

	doc, _ := filepath.Abs("../../testdata/declaration.txt")
	db := filepath.Join(dir, "library.db")
	tm := startTUI(t, dir, env, 140, 40, bin, "--db", db, "--strategy", "rag", doc)
	tm.waitFor("declaration.txt", "1/1 in scope", "strategy rag")
	tm.text("What taxes were imposed without consent?")
	tm.keys("Enter")
	// The second statement is being written: the first is done and the
	// one in progress shows, as text, with its cursor.
	tm.waitFor("[1]", "▍")
	tm.keys("C-x")
	tm.waitFor("Partial answer: cancelled", "unfinished") // the statement cut short, marked
	screen := stripSGR(tm.capture())
	if strings.Contains(screen, "<statement>") || strings.Contains(screen, "<cite>") {
		t.Errorf("markup on screen:\n%s", screen)
	}
	tm.keys("C-c")
	tm.waitExit("e2e")

	a := newestAnswer(t, bin, db)
	n := len(a.Statements)
	if !a.Partial || n < 2 || !a.Statements[n-1].Unfinished || len(a.Statements[n-1].Citations) != 0 || a.Statements[n-1].Text == "" {
		t.Errorf("saved answer: %+v; want it partial, ending in the unfinished statement, uncited", a)
	}
}

// startLLMTestd builds and starts the scripted model server (llmtestd)
// in dir with args, stopped when the test ends, and returns the
// environment that points citelens at it.
func startLLMTestd(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	server := filepath.Join(dir, "llmtestd")
	if out, err := exec.Command("go", "build", "-o", server, "../../llm/llmtest/cmd/llmtestd").CombinedOutput(); err != nil {
		t.Fatalf("go build llmtestd: %v\n%s", err, out)
	}
	srv := exec.Command(server, args...)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("llmtestd printed nothing")
	}
	// "export OPENAI_BASE_URL=… CITELENS_MODEL=… OPENAI_API_KEY="
	return strings.Fields(strings.TrimPrefix(sc.Text(), "export "))
}
