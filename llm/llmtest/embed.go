package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/citelens/citelens/internal/textproc"
)

// EmbedRequest is an embeddings request as the server received it.
type EmbedRequest struct {
	Model string
	Input []string
}

// Embed returns the vector the server gives text when it knows no
// concepts: a hashed bag of its index terms (textproc.Terms, so stems and
// stop words count as they do for BM25), each term adding ±1 to one of dim
// coordinates, scaled to unit length. Texts that share terms get a high
// cosine similarity; a text without terms gets the zero vector. Tests use
// it to compute expected vectors; Server.Embed is the same for a server
// with concepts (WithConcepts).
func Embed(text string, dim int) []float32 { return (*Concepts)(nil).Embed(text, dim) }

func parseEmbed(body []byte) (*EmbedRequest, error) {
	var w struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	if w.Model == "" {
		return nil, fmt.Errorf("you must provide a model parameter")
	}
	req := &EmbedRequest{Model: w.Model}
	var one string
	if json.Unmarshal(w.Input, &one) == nil {
		req.Input = []string{one}
	} else if err := json.Unmarshal(w.Input, &req.Input); err != nil {
		return nil, fmt.Errorf("input must be a string or a list of strings")
	}
	for i, s := range req.Input {
		if s == "" {
			return nil, fmt.Errorf("'$.input[%d]' is invalid: an input must not be empty", i)
		}
	}
	if len(req.Input) == 0 {
		return nil, fmt.Errorf("input must not be empty")
	}
	return req, nil
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, perr := parseEmbed(body)
	s.record(r, body, nil, req)
	if s.refuse(w, r, perr, func() string { return req.Model }) {
		return
	}
	s.mu.Lock()
	reply, _ := pop(&s.embedQ)
	s.mu.Unlock()
	if reply.fault(r.Context(), w) {
		return
	}
	data := make([]any, len(req.Input))
	tokens := 0
	for i, in := range req.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": s.Embed(in)}
		tokens += textproc.EstimateTokens(in)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil, nil, nil)
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	reply, _ := pop(&s.modelsQ)
	models := s.models
	s.mu.Unlock()
	if reply.fault(r.Context(), w) {
		return
	}
	data := make([]any, len(models))
	for i, m := range models {
		data[i] = s.modelEntry(m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// EmbeddedTexts returns the texts the server was asked to embed, request
// by request, in order of arrival.
func (s *Server) EmbeddedTexts() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Embed != nil {
			out = append(out, r.Embed.Input...)
		}
	}
	return out
}
