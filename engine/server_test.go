package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// An answer is fitted to the context window the server really gives the
// model, when the server says.
func TestAnswerConfigFromServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		opts     []llmtest.Option
		explicit int // context_window set in the config file; 0: not set
		window   int
		output   int
		note     string
	}{
		{"vLLM", []llmtest.Option{llmtest.WithServer(llmtest.VLLM, 8192)}, 0, 8192, 4096, ""},
		{"llama.cpp", []llmtest.Option{llmtest.WithServer(llmtest.LlamaCpp, 4096)}, 0, 4096, 2048, ""},
		{"a window smaller than the one set", []llmtest.Option{llmtest.WithServer(llmtest.VLLM, 16384)}, 32000, 16384, 4096, "context_window is 32,000 tokens, but the server gives test-model 16,384 (max_model_len in /v1/models)"},
		{"a window larger than the one set", []llmtest.Option{llmtest.WithServer(llmtest.VLLM, 65536)}, 32000, 32000, 4096, ""},
		{"Ollama, loaded", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 16384), llmtest.WithOllamaLoaded()}, 0, 16384, 4096, ""},
		{"Ollama, not loaded", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 16384)}, 0, 4096, 2048, "assuming its default of 4,096 tokens"},
		{"Ollama, not loaded, window set", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 16384)}, 32000, 32000, 4096, ""},
		{"a server that does not say", nil, 0, config.DefaultContextWindow, 4096, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, tc.opts...)
			env := modelEnv(t, srv, func(c *config.Config) {
				if tc.explicit > 0 {
					c.ContextWindow, c.Sources["context_window"] = tc.explicit, "file"
				}
			})
			var ev enginetest.Events
			var got config.Config
			enginetest.Answer(t.Context(), env, "q", func(_ context.Context, rt *engine.Runtime) error {
				got = rt.Config()
				if c := rt.Model().Config(); c.ContextWindow != got.ContextWindow || c.MaxOutput != got.MaxOutput {
					t.Error("the Caller's configuration is not the answer's")
				}
				return nil
			}, ev.Emit)
			if got.ContextWindow != tc.window || got.MaxOutput != tc.output {
				t.Errorf("window %d, output %d; want %d, %d", got.ContextWindow, got.MaxOutput, tc.window, tc.output)
			}
			if (tc.note == "") != (len(ev.Stages) == 0) || (tc.note != "" && !ev.HasStage(tc.note)) {
				t.Errorf("stages %q, want the note %q", ev.Stages, tc.note)
			}
		})
	}
}

// longPrompt is a prompt of about n tokens.
func longPrompt(n int) llm.ChatRequest {
	return ask(strings.Repeat("Sixteen bytes.. ", n/4))
}

// A server that keeps only the start of a long prompt, as Ollama does at
// its default context length, makes the answer say so, with the fix for
// that server; later answers are fitted to what it read.
func TestPromptCutIsWarned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []llmtest.Option
		fix  string
	}{
		{"Ollama", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 2048)}, "start `ollama serve` with OLLAMA_CONTEXT_LENGTH=16384"},
		{"a server that does not say", []llmtest.Option{llmtest.WithWindow(2048)}, "`citelens doctor --probe` measures it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, tc.opts...)
			env := modelEnv(t, srv, func(c *config.Config) { c.ContextWindow, c.Sources["context_window"] = 128000, "file" })
			ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
				_, err := rt.Model().Stream(ctx, "the answer", longPrompt(8000), nil)
				return err
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "the server read only 2,048 of the prompt's about 8,004 tokens") ||
				!strings.Contains(ans.Warnings[0], tc.fix) {
				t.Fatalf("warnings %q", ans.Warnings)
			}
			var window int
			enginetest.Answer(t.Context(), env, "q", func(_ context.Context, rt *engine.Runtime) error {
				window = rt.Config().ContextWindow
				return nil
			}, nil)
			if window != 2048 {
				t.Errorf("the next answer is fitted to %d tokens", window)
			}
		})
	}
	// A prompt the server read whole raises nothing.
	srv := llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 16384))
	env := modelEnv(t, srv, func(c *config.Config) { c.ContextWindow, c.Sources["context_window"] = 128000, "file" })
	ans, _ := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		_, err := rt.Model().Stream(ctx, "the answer", longPrompt(8000), nil)
		return err
	}, nil)
	if len(ans.Warnings) != 0 {
		t.Errorf("warnings %q", ans.Warnings)
	}
}
