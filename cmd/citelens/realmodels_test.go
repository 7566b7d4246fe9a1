package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"
)

// A server that cuts prompts as Ollama does at its default context length
// answers "An Introduction to R [1] · supported" to anything: ask, ask
// --json and every export say the prompt was cut and how to fix it.
func TestPromptCutShownEverywhere(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 1024), llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>The Declaration of Independence.<cite>[0-0]</cite></statement>")
	}))
	modelEnv(t, srv, "", "")
	t.Setenv(config.EnvContextWindow, "128000") // the model's own window, not the one Ollama gives it
	c := newCLI(t)
	c.ok("add", sample)
	const cut = "the server read only 1,024 of the prompt's about"
	const fixed = "start `ollama serve` with OLLAMA_CONTEXT_LENGTH=8192"

	out := c.ok("ask", "--strategy", "longcite", "What did the colonists object to?")
	if !strings.Contains(out, "Warnings\n- "+cut) || !strings.Contains(out, fixed) {
		t.Errorf("ask:\n%s", out)
	}
	var ans citations.Answer
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "longcite", "What did the colonists object to?")), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], cut) || !strings.Contains(ans.Warnings[0], fixed) {
		t.Errorf("ask --json warnings %q", ans.Warnings)
	}
	for _, format := range []string{"md", "html", "json"} {
		path := filepath.Join(t.TempDir(), "answer."+format)
		c.ok("export", ans.ID, "--format", format, "-o", path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// As each format writes it: HTML escaped, Markdown with its
		// characters escaped by backslashes.
		text := strings.ReplaceAll(html.UnescapeString(string(b)), `\`, "")
		if !strings.Contains(text, cut) || !strings.Contains(text, "OLLAMA_CONTEXT_LENGTH=8192") {
			t.Errorf("the %s export does not warn about the cut prompt:\n%.2000s", format, text)
		}
	}
}

// A reasoning model's thinking is no part of the printed answer; ask
// --json carries it in its own field.
func TestReasoningApartInAsk(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<think>Maybe <statement>a guess<cite>[1-1]</cite></statement>? No.</think>\n<statement>The Declaration of Independence.<cite>[0-0]</cite></statement>")
	}))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	out := c.ok("ask", "--strategy", "longcite", "What is this?")
	if strings.Contains(out, "guess") || !strings.Contains(out, "The Declaration of Independence. [1]") {
		t.Errorf("ask:\n%s", out)
	}
	var ans citations.Answer
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "longcite", "What is this?")), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 1 || ans.Reasoning != "Maybe <statement>a guess<cite>[1-1]</cite></statement>? No." {
		t.Errorf("statements %+v, reasoning %q", ans.Statements, ans.Reasoning)
	}
}
