package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/engine/enginetest"
	_ "github.com/citelens/citelens/engine/longcite"
	"github.com/citelens/citelens/llm/llmtest"
)

// A reasoning model's thinking is shown collapsed and dimmed while it
// streams — its size and last words — and never as the draft; once the
// answer is in, one line says it was kept apart.
func TestReasoningShownApart(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	gate := declarationScript(t, 0)
	script.draft = "the draft"
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Reasoning: "Let me weigh the grievances one by one before I answer the question.", Text: "<statement>the draft</statement>"})
	opts := testOptions(t, lib, "dark")
	opts.Env = enginetest.Env(t, lib, enginetest.Config(srv))
	s := start(t, opts, 100, 30)
	s.waitText("declaration.txt")
	s.ask(question)
	s.waitText("thinking… 13 words (not part of the answer)")
	if v := ansi.Strip(s.view()); strings.Contains(v, "┊ Let me") {
		t.Errorf("the reasoning is shown as the draft:\n%s", v)
	}
	close(gate)
	s.waitText("scripted · 3 statements")
	s.waitText("The model reasoned for 13 words before")
	if v := ansi.Strip(s.settle()); strings.Contains(v, "thinking…") {
		t.Errorf("the reasoning is still streaming:\n%s", v)
	}
	s.finish()
}

// A server that cuts the prompt as Ollama does at its default context
// length: the answer shows the warning and how to fix it.
func TestPromptCutWarningShown(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 1024), llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>An Introduction to R.<cite>[0-0]</cite></statement>")
	}))
	opts := testOptions(t, lib, "dark")
	cfg := enginetest.Config(srv)
	cfg.ContextWindow, cfg.Sources["context_window"] = 128000, "file"
	opts.Env = enginetest.Env(t, lib, cfg)
	opts.Strategy = "longcite"
	s := start(t, opts, 120, 40)
	s.waitText("declaration.txt")
	s.ask(question)
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := ansi.Strip(s.view())
		if strings.Contains(v, "⚠ the server read only 1,024 of the prompt's about") && strings.Contains(v, "OLLAMA_CONTEXT_LENGTH=8192") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning about the cut prompt:\n%s", ansi.Strip(s.view()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.finish()
}
