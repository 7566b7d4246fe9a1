package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// The server software Server.Kind names.
const (
	KindVLLM     = "vLLM"
	KindLlamaCpp = "llama.cpp"
	KindOllama   = "Ollama"
)

// Server is what an endpoint says about itself beyond the OpenAI protocol:
// which server it is and the context window it really gives the model.
// The window matters because servers do not all refuse a prompt that is
// too long: vLLM refuses it, but Ollama keeps only part of it and answers
// as if nothing happened, and llama.cpp's server shares its context
// between parallel slots.
//
// Where each server says it:
//
//   - vLLM: max_model_len of the model in GET /v1/models; POST /tokenize
//     counts a chat prompt's tokens;
//   - llama.cpp's server: n_ctx of default_generation_settings in GET
//     /props (one slot's share when it runs several); POST /tokenize
//     counts tokens;
//   - Ollama: the context_length of the model in GET /api/ps once the model
//     is loaded, else num_ctx in its parameters (POST /api/show), else its
//     default, which is not reported: 4,096 tokens in current releases
//     (2,048 before), or OLLAMA_CONTEXT_LENGTH where `ollama serve` runs.
//     The model's own limit (model_info's context_length) is larger and is
//     not what Ollama uses.
type Server struct {
	// Kind is KindVLLM, KindLlamaCpp or KindOllama when the server could
	// be told, "" otherwise.
	Kind  string `json:"kind,omitempty"`
	Model string `json:"model,omitempty"`
	// Window is the context window the server gives Model, in tokens; 0
	// when it did not say.
	Window int `json:"context_window,omitempty"`
	// Source says where Window came from.
	Source string `json:"source,omitempty"`
	// Trained is the model's own context length when the server reports it
	// apart from Window (Ollama, llama.cpp); 0 otherwise.
	Trained int `json:"trained_context,omitempty"`
	// Tokenizer reports that the server counts tokens for its clients
	// (CountTokens).
	Tokenizer bool `json:"tokenizer,omitempty"`
}

// serverTimeout bounds each request that asks a server about itself, so a
// server that does not answer them delays an answer by seconds at most.
const serverTimeout = 5 * time.Second

// Server asks the endpoint what it is and what context window it gives
// the configured model. It never fails: what the server does not say is
// left zero. It makes one to four small requests and is meant to be asked
// once per session (engine.Env does).
func (c *Client) Server(ctx context.Context) Server {
	s := Server{Model: c.cfg.Model}
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	status, err := c.getJSON(ctx, http.MethodGet, c.cfg.Endpoint()+"/models", nil, &list)
	if err != nil && status == 0 {
		return s // no answer at all: the answer's own request will say why
	}
	owner := ""
	for _, m := range list.Data {
		if m.ID != s.Model && m.ID != s.Model+":latest" && strings.TrimSuffix(m.ID, ":latest") != s.Model {
			continue
		}
		owner = strings.ToLower(m.OwnedBy)
		s.Trained = m.Meta.NCtxTrain
		if m.MaxModelLen > 0 {
			s.Window, s.Source = m.MaxModelLen, "max_model_len in /v1/models"
			if owner == "vllm" {
				s.Kind, s.Tokenizer = KindVLLM, true
			}
			return s
		}
	}
	if c.hosted() {
		return s
	}
	if owner == "" || owner == "llamacpp" {
		var props struct {
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if _, err := c.getJSON(ctx, http.MethodGet, c.root()+"/props", nil, &props); err == nil && props.Settings.NCtx > 0 {
			s.Kind, s.Tokenizer = KindLlamaCpp, true
			s.Window, s.Source = props.Settings.NCtx, "n_ctx in /props"
			return s
		}
	}
	c.ollama(ctx, &s)
	return s
}

// ollama fills s in from Ollama's own API, if the server is Ollama.
func (c *Client) ollama(ctx context.Context, s *Server) {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if _, err := c.getJSON(ctx, http.MethodPost, c.root()+"/api/show", map[string]string{"model": s.Model}, &show); err != nil ||
		(show.ModelInfo == nil && show.Parameters == "") {
		return
	}
	s.Kind = KindOllama
	for k, v := range show.ModelInfo {
		if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			s.Trained = int(n)
		}
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if _, err := c.getJSON(ctx, http.MethodGet, c.root()+"/api/ps", nil, &ps); err == nil {
		for _, m := range ps.Models {
			if (m.Name == s.Model || m.Model == s.Model || m.Name == s.Model+":latest") && m.ContextLength > 0 {
				s.Window, s.Source = m.ContextLength, "context_length in /api/ps (the model is loaded)"
				return
			}
		}
	}
	for line := range strings.SplitSeq(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				s.Window, s.Source = n, "num_ctx in the model's parameters (/api/show)"
				return
			}
		}
	}
}

// OllamaDefaultWindow is the context window current Ollama releases give
// a model that sets no num_ctx, unless OLLAMA_CONTEXT_LENGTH says
// otherwise where `ollama serve` runs.
const OllamaDefaultWindow = 4096

// Fix says how to give the model a context window of n tokens on this
// server, for a message about a prompt it cut.
func (s Server) Fix(n int) string {
	want := strconv.Itoa(n)
	switch s.Kind {
	case KindOllama:
		return fmt.Sprintf("Ollama keeps only the first num_ctx tokens of a prompt (%s by default) without saying so: start `ollama serve` with OLLAMA_CONTEXT_LENGTH=%s (or create a model with PARAMETER num_ctx %s), then set context_window = %s in the config file", humanize.Count(OllamaDefaultWindow), want, want, want)
	case KindLlamaCpp:
		return fmt.Sprintf("start llama-server with a larger --ctx-size (each of its --parallel slots gets an equal share), for example -c %s, then set context_window = %s in the config file", want, want)
	case KindVLLM:
		return fmt.Sprintf("start vLLM with --max-model-len %s if the model allows it, or set context_window to the window it has", want)
	}
	return "set context_window in the config file to the context window the server really gives the model (`citelens doctor --probe` measures it), or make that window larger on the server"
}

// CountTokens counts the prompt tokens of msgs with the server's own
// tokenizer (s.Tokenizer must be set). vLLM applies the chat template;
// with llama.cpp the messages' text is counted, plus four tokens of
// framing each.
func (c *Client) CountTokens(ctx context.Context, s Server, msgs []Message) (int, error) {
	switch s.Kind {
	case KindVLLM:
		var out struct {
			Count int `json:"count"`
		}
		body := map[string]any{"model": s.Model, "messages": msgs, "add_generation_prompt": true}
		if _, err := c.getJSON(ctx, http.MethodPost, c.root()+"/tokenize", body, &out); err != nil {
			return 0, err
		}
		return out.Count, nil
	case KindLlamaCpp:
		var out struct {
			Tokens []json.RawMessage `json:"tokens"`
		}
		var text strings.Builder
		for _, m := range msgs {
			text.WriteString(m.Content)
		}
		if _, err := c.getJSON(ctx, http.MethodPost, c.root()+"/tokenize", map[string]string{"content": text.String()}, &out); err != nil {
			return 0, err
		}
		return len(out.Tokens) + 4*len(msgs), nil
	}
	return 0, errors.New("the server does not count tokens")
}

// hosted reports an endpoint whose own API is known to be OpenAI's alone,
// which is not asked about llama.cpp's or Ollama's paths.
func (c *Client) hosted() bool {
	u, err := url.Parse(c.cfg.Endpoint())
	return err == nil && slices.Contains([]string{"api.openai.com"}, u.Hostname())
}

// root is the server's root URL: the endpoint without its /v1.
func (c *Client) root() string {
	return strings.TrimSuffix(strings.TrimRight(c.cfg.Endpoint(), "/"), "/v1")
}

// getJSON makes one request to the server's own API with the API key, and
// decodes a 200 answer's JSON into out. status is the HTTP status (0 when
// there was no answer).
func (c *Client) getJSON(ctx context.Context, method, u string, body, out any) (status int, err error) {
	ctx, cancel := context.WithTimeout(ctx, min(serverTimeout, c.cfg.Timeout))
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, json.Unmarshal(data, out)
}

// Probe measures how much of a long prompt the server really reads: it
// sends a prompt of about tokens tokens (numbered filler lines) asking
// for a one-word reply, and compares the prompt tokens the server reports
// with the prompt's size — counted by the server's tokenizer when it has
// one, estimated otherwise. A server that silently cuts prompts to its
// window reports about the window.
func (c *Client) Probe(ctx context.Context, s Server, tokens int) (Probe, error) {
	var b strings.Builder
	for i := 1; textproc.EstimateTokens(b.String()) < tokens; i++ {
		fmt.Fprintf(&b, "Line %d of a long text that citelens doctor sends to measure the context window.\n", i)
	}
	b.WriteString("\nReply with the single word: ok")
	msgs := []Message{User(b.String())}
	p := Probe{Sent: EstimatePromptTokens(msgs), Counted: "estimated"}
	if s.Tokenizer {
		if n, err := c.CountTokens(ctx, s, msgs); err == nil && n > 0 {
			p.Sent, p.Counted = n, "counted by the server"
		}
	}
	reply, err := c.Chat(ctx, ChatRequest{Messages: msgs, MaxTokens: 8})
	if err != nil {
		return p, err
	}
	if reply.Usage.Estimated {
		return p, errors.New("the server does not report token usage, so what it read cannot be measured")
	}
	p.Read = reply.Usage.PromptTokens
	return p, nil
}

// Probe is what Client.Probe measured.
type Probe struct {
	// Sent is the prompt's size in tokens; Counted says how it was
	// counted ("counted by the server" or "estimated").
	Sent    int
	Counted string
	// Read is the prompt tokens the server reports it read.
	Read int
}

// Cut reports whether the server read clearly less of a prompt than was
// sent: below 90% of a count by its own tokenizer, or below half of an
// estimate (estimates are off by up to a third on unusual text).
func Cut(read, sent int, exact bool) bool {
	if read <= 0 || sent <= 0 {
		return false
	}
	if exact {
		return float64(read) < 0.9*float64(sent)
	}
	return 2*read < sent
}
