package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"

	"github.com/citelens/citelens/docstore/textproc"
)

// EmbedRequest is an embeddings request as the server received it.
type EmbedRequest struct {
	Model string
	Input []string
}

// Embed returns the vector the server gives text: a hashed bag of its index
// terms (textproc.Terms, so stems and stop words count as they do for BM25),
// each term adding ±1 to one of dim coordinates, scaled to unit length.
// Texts that share terms get a high cosine similarity; a text without terms
// gets the zero vector. Tests use it to compute expected vectors.
func Embed(text string, dim int) []float32 {
	v := make([]float32, dim)
	if dim <= 0 {
		return v
	}
	for _, t := range textproc.Terms(text) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(t))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dim)] += sign
	}
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range v {
			v[i] *= inv
		}
	}
	return v
}

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
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embed(in, s.dim)}
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
