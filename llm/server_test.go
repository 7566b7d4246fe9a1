package llm_test

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// Each server says its context window its own way, and the client reads
// each.
func TestServerTellsItsWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []llmtest.Option
		want llm.Server
	}{
		{"vLLM", []llmtest.Option{llmtest.WithServer(llmtest.VLLM, 32768)},
			llm.Server{Kind: llm.KindVLLM, Window: 32768, Source: "max_model_len in /v1/models", Tokenizer: true}},
		{"llama.cpp", []llmtest.Option{llmtest.WithServer(llmtest.LlamaCpp, 8192)},
			llm.Server{Kind: llm.KindLlamaCpp, Window: 8192, Source: "n_ctx in /props", Trained: llmtest.OllamaTrained, Tokenizer: true}},
		{"Ollama, loaded", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 4096), llmtest.WithOllamaLoaded()},
			llm.Server{Kind: llm.KindOllama, Window: 4096, Source: "context_length in /api/ps (the model is loaded)", Trained: llmtest.OllamaTrained}},
		{"Ollama, not loaded", []llmtest.Option{llmtest.WithServer(llmtest.Ollama, 4096)},
			llm.Server{Kind: llm.KindOllama, Trained: llmtest.OllamaTrained}},
		{"a server that does not say", nil, llm.Server{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, append(tc.opts, llmtest.WithKey(testKey))...)
			c, _ := newClient(t, testConfig(srv.URL))
			tc.want.Model = llmtest.DefaultModel
			if got := c.Server(t.Context()); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			for _, r := range srv.Requests() {
				if !r.Auth {
					t.Errorf("%s %s went without the API key", r.Method, r.Path)
				}
			}
		})
	}
	// A dead endpoint is not asked more than once.
	srv := llmtest.Start()
	srv.Close()
	c, _ := newClient(t, testConfig(srv.URL))
	if got := c.Server(t.Context()); got.Kind != "" || got.Window != 0 {
		t.Errorf("a dead server: %+v", got)
	}
}

func TestCountTokens(t *testing.T) {
	t.Parallel()
	msgs := []llm.Message{llm.System("Be brief."), llm.User(strings.Repeat("word ", 100))}
	for _, kind := range []string{llmtest.VLLM, llmtest.LlamaCpp} {
		srv := llmtest.New(t, llmtest.WithServer(kind, 8192))
		c, _ := newClient(t, testConfig(srv.URL))
		s := c.Server(t.Context())
		n, err := c.CountTokens(t.Context(), s, msgs)
		// The scripted server counts as the estimate does.
		if err != nil || n != llm.EstimatePromptTokens(msgs) {
			t.Errorf("%s: %d tokens, %v; want %d", kind, n, err, llm.EstimatePromptTokens(msgs))
		}
	}
	srv := llmtest.New(t)
	c, _ := newClient(t, testConfig(srv.URL))
	if _, err := c.CountTokens(t.Context(), c.Server(t.Context()), msgs); err == nil {
		t.Error("a server without a tokenizer counted tokens")
	}
}

// The probe measures the window of a server that cuts prompts silently,
// and sees the whole prompt read by one that does not.
func TestProbe(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 2048))
	c, _ := newClient(t, testConfig(srv.URL))
	p, err := c.Probe(t.Context(), c.Server(t.Context()), 6000)
	if err != nil || p.Read != 2048 || p.Sent < 6000 || p.Counted != "estimated" || !llm.Cut(p.Read, p.Sent, false) {
		t.Errorf("probe %+v, %v", p, err)
	}
	srv = llmtest.New(t, llmtest.WithServer(llmtest.LlamaCpp, 16384))
	c, _ = newClient(t, testConfig(srv.URL))
	p, err = c.Probe(t.Context(), c.Server(t.Context()), 6000)
	if err != nil || p.Read != p.Sent || p.Counted != "counted by the server" || llm.Cut(p.Read, p.Sent, true) {
		t.Errorf("probe %+v, %v", p, err)
	}
}
