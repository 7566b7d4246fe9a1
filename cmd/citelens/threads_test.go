package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
)

// TestThreadsCommands lists the threads of saved answers, renames one,
// finds answers by words (case and accents aside) and exports a whole
// thread, each answer with its evidence.
func TestThreadsCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", sample)
	for _, q := range []string{"What taxes did Zürich impose?", "And without consent?", "Who holds the powers of war?"} {
		c.ok("ask", "--strategy", "extractive", q)
	}
	// The second question followed up on the first, as the TUI records
	// it.
	lib, err := docstore.Open(c.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := lib.Answers().List()
	if err != nil || len(list) != 3 {
		t.Fatalf("answers: %v, %v", list, err)
	}
	second, err := engine.Load(lib, list[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	second.Thread = list[0].ID
	if err := engine.Save(lib, second); err != nil {
		t.Fatal(err)
	}
	lib.Close()

	var threads []struct {
		ID      string   `json:"thread_id"`
		Name    string   `json:"name"`
		Answers []string `json:"answer_ids"`
		Count   int      `json:"answers_count"`
	}
	if err := json.Unmarshal([]byte(c.ok("threads", "--json")), &threads); err != nil {
		t.Fatal(err)
	}
	if len(threads) != 2 || threads[0].Name != "Who holds the powers of war?" || threads[1].ID != list[0].ID || threads[1].Count != 2 {
		t.Fatalf("threads --json: %+v", threads)
	}
	rows := strings.Split(strings.TrimSpace(c.ok("threads")), "\n")
	if len(rows) != 3 || !strings.Contains(rows[0], "LAST ASKED") || !strings.Contains(rows[2], "What taxes did Zürich impose?") || !strings.Contains(rows[2], list[0].ID+"  2 ") {
		t.Errorf("threads:\n%s", strings.Join(rows, "\n"))
	}

	if out := c.ok("threads", "rename", list[0].ID[:13], "Taxes", "and", "consent"); !strings.Contains(out, "is now named Taxes and consent") {
		t.Errorf("rename said %q", out)
	}
	if out := c.ok("threads"); !strings.Contains(out, "Taxes and consent") {
		t.Errorf("threads after the rename:\n%s", out)
	}
	if _, errs, code := c.run("threads", "rename", "ffff", "x"); code == 0 || !strings.Contains(errs, "citelens threads") {
		t.Errorf("rename of no thread: %d %q", code, errs)
	}

	// Words of the question or of the answer, folded.
	if out := c.ok("answers", "--grep", "ZURICH"); !strings.Contains(out, "Zürich") || strings.Count(strings.TrimSpace(out), "\n") != 1 {
		t.Errorf("answers --grep ZURICH:\n%s", out)
	}
	if out := c.ok("answers", "search", "consent", "without"); !strings.Contains(out, "And without consent?") || strings.Contains(out, "powers of war") {
		t.Errorf("answers search consent without:\n%s", out)
	}
	if out := c.ok("answers", "--grep", "gnuplot"); !strings.Contains(out, "No saved answer has all of the words gnuplot") {
		t.Errorf("answers --grep gnuplot: %q", out)
	}

	md := c.ok("export", "--thread", list[0].ID)
	for _, want := range []string{"# Taxes and consent\n", "## What taxes did Zürich impose?\n", "## And without consent?\n", "[^1-1]:", "[^2-1]:", "*2 answers"} {
		if !strings.Contains(md, want) {
			t.Errorf("export --thread lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "powers of war") {
		t.Errorf("export --thread holds another thread's answer")
	}
	out := filepath.Join(t.TempDir(), "thread.html")
	if _, errs, code := c.run("export", "--thread", list[0].ID, "--format", "html", "-o", out); code != 0 || !strings.Contains(errs, "(2 answers)") {
		t.Fatalf("export --thread html: %d %s", code, errs)
	}
	page, _ := os.ReadFile(out)
	if strings.Count(string(page), `<section class="thread-answer"`) != 2 || !strings.Contains(string(page), "<title>Taxes and consent</title>") {
		t.Errorf("the thread's page:\n%s", page)
	}
	var back struct {
		Answers []struct {
			Question string `json:"question"`
			Thread   string `json:"thread"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(c.ok("export", "--thread", list[0].ID, "--format", "json")), &back); err != nil || len(back.Answers) != 2 || back.Answers[1].Thread != list[0].ID {
		t.Errorf("export --thread json: %+v, %v", back, err)
	}
	if _, errs, code := c.run("export", "--thread", list[0].ID, "--format", "longbench"); code == 0 || !strings.Contains(errs, "use md, html or json") {
		t.Errorf("longbench for a thread: %d %q", code, errs)
	}
}
