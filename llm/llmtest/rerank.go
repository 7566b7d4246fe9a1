package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/citelens/citelens/internal/textproc"
)

// WithConcepts teaches the server's embedding model and reranker that the
// words and phrases of each group mean the same (see Concepts), so a test
// can show retrieval finding a paraphrase that shares no word with the
// question:
//
//	srv := llmtest.New(t, llmtest.WithConcepts(
//		[]string{"governing law", "construed under the laws"},
//		[]string{"capex", "capital expenditure", "purchases of property, plant and equipment"},
//	))
//
// Groups that NewConcepts refuses fail the test (New) or panic (Start).
func WithConcepts(groups ...[]string) Option {
	return func(s *Server) {
		c, err := NewConcepts(groups...)
		if err != nil {
			s.err = err
			return
		}
		s.concepts = c
	}
}

// WithConceptTable is WithConcepts for a table already built (by
// ReadConcepts, say).
func WithConceptTable(c *Concepts) Option { return func(s *Server) { s.concepts = c } }

// WithTEIRerank makes the rerank endpoint speak only the shape of Hugging
// Face's Text Embeddings Inference: {"query", "texts"} answered by
// [{"index", "score"}], refusing a body without "texts" with a plain-text
// 422 as TEI does. By default the server answers both shapes, telling them
// apart by "texts" as llama.cpp's server does.
func WithTEIRerank() Option { return func(s *Server) { s.teiRerank = true } }

// WithRerankLimit makes the rerank endpoint refuse a request with more than
// n documents with TEI's 413 ("batch size 50 > maximum allowed batch size
// 32"), as a server with a per-request cap does.
func WithRerankLimit(n int) Option { return func(s *Server) { s.rerankLimit = n } }

// Embed returns the vector this server's embedding model gives text: Embed
// with the server's dimension and concepts.
func (s *Server) Embed(text string) []float32 { return s.concepts.Embed(text, s.dim) }

// Relevance returns the score this server's reranker gives doc for query
// (Concepts.Relevance with the server's dimension and concepts).
func (s *Server) Relevance(query, doc string) float64 {
	return s.concepts.Relevance(query, doc, s.dim)
}

// RerankRequest is a rerank request as the server received it.
type RerankRequest struct {
	Model string
	Query string
	// Documents is "documents", or "texts" in TEI's shape.
	Documents []string
	// TopN is top_n, 0 when absent.
	TopN int
	// TEI reports a request in TEI's shape.
	TEI bool
}

// RerankResult is one scored document in a rerank answer.
type RerankResult struct {
	Index int
	Score float64
}

// RerankReply scripts one rerank answer. The embedded Reply's faults apply
// as for chat: Status (with Body), RetryAfter, HeaderDelay (a slow
// answer), Hangup; OmitUsage reports no usage; Malformed sends a body cut
// off in the middle of its JSON. A reply without a fault answers with the
// scores the server computes, unless Results or Raw replace them.
type RerankReply struct {
	Reply
	// Results, if not nil, is sent in the request's shape instead of the
	// computed scores, unchecked: indices out of range, repeated or
	// missing, for tests of a client's checks.
	Results []RerankResult
	// Raw, if set, is sent as the whole 200 answer (a null score, a
	// response of another shape).
	Raw string
}

// EnqueueRerank appends replies for the next rerank requests, in order.
func (s *Server) EnqueueRerank(r ...RerankReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rerankQ = append(s.rerankQ, r...)
}

// RerankRequests returns the rerank requests received so far that parsed.
func (s *Server) RerankRequests() []RerankRequest {
	var out []RerankRequest
	for _, r := range s.Requests() {
		if r.Rerank != nil {
			out = append(out, *r.Rerank)
		}
	}
	return out
}

// parseRerank decodes a rerank body in the Jina/Cohere shape or, when it
// has "texts", TEI's.
func parseRerank(body []byte) (*RerankRequest, error) {
	var w struct {
		Model     string          `json:"model"`
		Query     *string         `json:"query"`
		Documents json.RawMessage `json:"documents"`
		Texts     json.RawMessage `json:"texts"`
		TopN      *int            `json:"top_n"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	req := &RerankRequest{Model: w.Model, TEI: len(w.Texts) > 0}
	list, name := w.Documents, "documents"
	if req.TEI {
		list, name = w.Texts, "texts"
	}
	switch {
	case !req.TEI && w.Model == "":
		return nil, fmt.Errorf("you must provide a model parameter")
	case w.Query == nil:
		return nil, fmt.Errorf("query is required")
	case len(list) == 0:
		return nil, fmt.Errorf("%s is required", name)
	case json.Unmarshal(list, &req.Documents) != nil:
		return nil, fmt.Errorf("%s must be a list of strings", name)
	case len(req.Documents) == 0:
		return nil, fmt.Errorf("%s must not be empty", name)
	case w.TopN != nil && *w.TopN < 0:
		return nil, fmt.Errorf("top_n must not be negative")
	}
	req.Query = *w.Query
	if w.TopN != nil {
		req.TopN = *w.TopN
	}
	return req, nil
}

func (s *Server) handleRerank(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, perr := parseRerank(body)
	s.add(r, Request{Body: body, Rerank: req})
	if !s.authorized(w, r) {
		return
	}
	if s.teiRerank && (perr != nil || !req.TEI) {
		// TEI's web framework (axum) refuses a body it cannot decode this
		// way, in plain text.
		msg := "Failed to deserialize the JSON body into the target type: missing field `texts`"
		if perr != nil {
			msg = "Failed to parse the request body as JSON: " + perr.Error()
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = io.WriteString(w, msg)
		return
	}
	if s.refuse(w, r, perr, func() string { return req.Model }) {
		return
	}
	if s.rerankLimit > 0 && len(req.Documents) > s.rerankLimit {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{
			"error":      fmt.Sprintf("batch size %d > maximum allowed batch size %d", len(req.Documents), s.rerankLimit),
			"error_type": "Validation",
		})
		return
	}
	s.mu.Lock()
	reply, _ := pop(&s.rerankQ)
	s.mu.Unlock()
	if reply.fault(r.Context(), w) {
		return
	}
	switch {
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply.Raw)
		return
	case reply.Malformed:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"results":[{"index":0,"relevance_sco`)
		return
	}
	results := reply.Results
	if results == nil {
		results = s.rank(req)
	}
	if req.TEI {
		out := make([]map[string]any, len(results))
		for i, res := range results {
			out[i] = map[string]any{"index": res.Index, "score": res.Score}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	out := make([]map[string]any, len(results))
	for i, res := range results {
		out[i] = map[string]any{"index": res.Index, "relevance_score": res.Score}
	}
	resp := map[string]any{"id": s.id(), "model": req.Model, "results": out}
	if !reply.OmitUsage && !s.omitUsage {
		tokens := 0
		for _, d := range req.Documents {
			tokens += textproc.EstimateTokens(req.Query) + textproc.EstimateTokens(d)
		}
		resp["usage"] = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	}
	writeJSON(w, http.StatusOK, resp)
}

// rank scores every document, best first (ties in document order), cut to
// top_n as vLLM and llama.cpp do; TEI's shape has no top_n.
func (s *Server) rank(req *RerankRequest) []RerankResult {
	out := make([]RerankResult, len(req.Documents))
	for i, d := range req.Documents {
		out[i] = RerankResult{Index: i, Score: s.Relevance(req.Query, d)}
	}
	slices.SortStableFunc(out, func(a, b RerankResult) int { return cmp.Compare(b.Score, a.Score) })
	if req.TopN > 0 && req.TopN < len(out) {
		out = out[:req.TopN]
	}
	return out
}
