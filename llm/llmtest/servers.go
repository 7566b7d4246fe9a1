package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// The servers a Server can behave like (WithServer), each with its own way
// of telling its context window and of counting tokens, as the real ones
// have.
const (
	// VLLM lists max_model_len with each model in /v1/models, counts a
	// chat prompt's tokens at POST /tokenize ({"count": n}) and refuses a
	// prompt longer than its window with HTTP 400.
	VLLM = "vllm"
	// LlamaCpp reports n_ctx in GET /props, counts tokens at POST
	// /tokenize ({"tokens": [...]}) and refuses a prompt longer than its
	// window with HTTP 400.
	LlamaCpp = "llamacpp"
	// Ollama answers POST /api/show with the model's own (trained)
	// context length and GET /api/ps with the window of a loaded model
	// (WithOllamaLoaded); it keeps only the first window tokens of a
	// longer prompt, answers from those and reports them as the prompt's
	// tokens, saying nothing else.
	Ollama = "ollama"
)

// OllamaTrained is the context length /api/show reports for every model
// of an Ollama-like server: the model's own, not the one Ollama uses.
const OllamaTrained = 131072

// WithServer makes the server behave like a real one of that kind (VLLM,
// LlamaCpp, Ollama) with a context window of window tokens, counted as
// ChatRequest.PromptTokens counts them.
func WithServer(kind string, window int) Option {
	return func(s *Server) { s.kind, s.window = kind, window }
}

// WithWindow gives a server of no particular kind a context window of
// window tokens, of which it keeps the first when a prompt is longer and
// says nothing but the count of prompt tokens: the silent truncation of
// Ollama at its default context length, on a server that does not say
// what it is.
func WithWindow(window int) Option {
	return func(s *Server) { s.window = window }
}

// WithOllamaLoaded makes an Ollama-like server report its model loaded, with
// its window, in GET /api/ps (real Ollama lists a model there once it has
// answered, until it unloads it).
func WithOllamaLoaded() Option { return func(s *Server) { s.loaded = true } }

// modelEntry is a model's entry in /v1/models.
func (s *Server) modelEntry(id string) map[string]any {
	e := map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "llmtest"}
	switch s.kind {
	case VLLM:
		e["owned_by"], e["max_model_len"] = "vllm", s.window
	case LlamaCpp:
		e["owned_by"], e["meta"] = "llamacpp", map[string]int{"n_ctx_train": OllamaTrained}
	case Ollama:
		e["owned_by"] = "library"
	}
	return e
}

// fit applies the server's window to a chat request: it reports an error
// message for a server that refuses the prompt, or cuts the prompt to the
// window for one that truncates, and returns the prompt tokens to report
// (0: count them as usual).
func (s *Server) fit(req *ChatRequest) (prompt int, refuse string) {
	n := req.PromptTokens()
	if s.window <= 0 || n <= s.window {
		return 0, ""
	}
	if s.kind == VLLM || s.kind == LlamaCpp {
		return 0, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens in the messages. Please reduce the length of the messages.", s.window, n)
	}
	left := s.window
	var kept []Message
	for _, m := range req.Messages {
		left -= 4
		if left <= 0 {
			break
		}
		if t := textproc.EstimateTokens(m.Content); t > left {
			cut := min(len(m.Content), 4*left)
			for cut > 0 && !utf8.RuneStart(m.Content[cut]) {
				cut--
			}
			m.Content = m.Content[:cut]
			left = 0
		} else {
			left -= t
		}
		kept = append(kept, m)
	}
	req.Messages = kept
	return s.window, ""
}

// handleProps answers llama.cpp's GET /props.
func (s *Server) handleProps(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil, nil, nil)
	if s.kind != LlamaCpp {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "File Not Found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": s.window, "params": map[string]any{"n_predict": -1}},
		"total_slots":                 1,
		"model_path":                  "/models/" + DefaultModel + ".gguf",
	})
}

// handleTokenize answers POST /tokenize the way vLLM and llama.cpp do.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.record(r, body, nil, nil)
	var in struct {
		Content  string    `json:"content"`
		Messages []Message `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	switch s.kind {
	case VLLM:
		req := ChatRequest{Messages: in.Messages}
		writeJSON(w, http.StatusOK, map[string]any{"count": req.PromptTokens(), "max_model_len": s.window, "tokens": []int{}})
	case LlamaCpp:
		tokens := make([]int, textproc.EstimateTokens(in.Content))
		for i := range tokens {
			tokens[i] = i
		}
		writeJSON(w, http.StatusOK, map[string]any{"tokens": tokens})
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "no route for POST /tokenize")
	}
}

// handleOllama answers Ollama's POST /api/show and GET /api/ps.
func (s *Server) handleOllama(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.record(r, body, nil, nil)
	if s.kind != Ollama {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/ps") {
		var models []any
		if s.loaded {
			for _, m := range s.models {
				models = append(models, map[string]any{"name": m, "model": m, "context_length": s.window})
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"models": models})
		return
	}
	var in struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &in) != nil || !s.knowsModel(in.Model) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", in.Model)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"parameters": "stop \"<|eot_id|>\"",
		"details":    map[string]string{"family": "llama"},
		"model_info": map[string]any{"general.architecture": "llama", "llama.context_length": OllamaTrained},
	})
}
