package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm/llmtest"
)

// injected is text that acts on a terminal when written raw: it sets the
// title, writes the clipboard, switches to the alternate screen, carries
// a C1 CSI and reverses what follows.
const injected = "\x1b]0;pwned\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[?1049h \u009b31m \u202egpj.exe"

// TestJSONOutputsSafeForJQ: every JSON output and export, over a document
// whose name and text carry escape sequences and a model whose answer
// does, holds no ESC, C1 or bidi control once its strings are decoded —
// as `jq -r` decodes them — while --raw and --exact keep the bytes as
// stored.
func TestJSONOutputsSafeForJQ(t *testing.T) {
	srv := llmtest.New(t)
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "invoice "+injected+".md")
	os.WriteFile(doc, []byte("Invoice totals are due in March. "+injected+" Paid in full.\n\nThe clipboard "+injected+" is safe.\n"), 0o644)
	batch := filepath.Join(dir, "questions.jsonl")
	q, _ := json.Marshal(map[string]string{"id": "q1", "question": "Paid in full? " + injected})
	os.WriteFile(batch, append(q, '\n'), 0o644)

	outputs := map[string]string{"add --json": c.ok("add", "--json", doc)}
	srv.Enqueue(llmtest.Text("<statement>Paid " + injected + " in full.<cite>[0-1]</cite></statement>"))
	outputs["ask --json (a model)"] = c.ok("ask", "--json", "--strategy", "longcite", "Paid "+injected+"?")
	for name, args := range map[string][]string{
		"ls --json":          {"ls", "--json"},
		"search --json":      {"search", "--json", "paid", "full"},
		"ask --json":         {"ask", "--json", "--strategy", "extractive", "Paid " + injected + "?"},
		"ask --batch":        {"ask", "--batch", batch, "--strategy", "extractive"},
		"show --json":        {"show", "--json", "invoice"},
		"check --json":       {"check", "--json"},
		"strategies --json":  {"strategies", "--json"},
		"config show --json": {"config", "show", "--json"},
	} {
		outputs[name] = c.ok(args...)
	}
	// After the asks, which the map runs in any order: the answers they saved.
	outputs["answers --json"] = c.ok("answers", "--json")
	var answers []struct {
		ID string `json:"answer_id"`
	}
	json.Unmarshal([]byte(outputs["answers --json"]), &answers)
	if len(answers) < 2 {
		t.Fatalf("answers: %s", outputs["answers --json"])
	}
	for _, a := range answers {
		for _, format := range []string{"json", "longbench"} {
			outputs["export --format "+format+" "+a.ID] = c.ok("export", "--format", format, a.ID)
		}
	}

	_, jqErr := exec.LookPath("jq")
	for name, out := range outputs {
		for _, line := range strings.Split(strings.TrimSpace(out), "\n{") { // --batch writes a line per answer
			if !strings.HasPrefix(line, "{") && !strings.HasPrefix(line, "[") {
				line = "{" + line
			}
			if !json.Valid([]byte(line)) {
				t.Fatalf("%s: not JSON:\n%s", name, out)
			}
		}
		if s := decodedStrings(t, name, out); strings.ContainsFunc(s, textproc.Unsafe) {
			t.Errorf("%s: a decoded string holds a control character: %q", name, s)
		}
		if jqErr != nil {
			continue
		}
		cmd := exec.Command("jq", "-r", ".. | strings")
		cmd.Stdin = strings.NewReader(out)
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: jq: %v", name, err)
		}
		if bytes.ContainsFunc(got, func(r rune) bool { return r != '\n' && r != '\t' && textproc.Unsafe(r) }) {
			t.Errorf("%s: jq -r prints a control character:\n%q", name, got)
		}
	}
	if jqErr != nil {
		t.Log("jq is not installed: checked the decoded strings in Go only")
	}

	// --raw and --exact: the bytes as stored, escaped in the JSON.
	for _, args := range [][]string{{"ls", "--json", "--raw"}, {"export", "--format", "json", "--exact", answers[0].ID}} {
		out := c.ok(args...)
		if s := decodedStrings(t, args[0], out); !strings.Contains(s, "\x1b]0;pwned\x07") {
			t.Errorf("%v: the stored bytes are not there", args)
		}
	}
}

// decodedStrings decodes the JSON values in out (one or more) and returns
// all their strings, keys too, joined.
func decodedStrings(t *testing.T, name, out string) string {
	t.Helper()
	var all strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			all.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				all.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		walk(v)
	}
	return all.String()
}
