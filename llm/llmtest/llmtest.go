// Package llmtest is a scripted OpenAI-compatible server for tests and
// benchmarks. It speaks the real wire protocol over HTTP (chat completions,
// streamed as server-sent events or not, embeddings, the model list) and
// the rerank endpoint of vLLM, llama.cpp's server and TEI, so code under
// test uses its real client against it.
//
// Replies come from a queue (Enqueue) and, when the queue is empty, from a
// responder function that can look at the prompt (Respond). A Reply can
// inject faults: an error status with a Retry-After header, a connection
// hung up before any response, a stream cut after some deltas or bytes, a
// malformed chunk, and delays. Every request is recorded for assertions,
// without the value of its Authorization header.
//
// Its embedding model and reranker are plausible, not clever: they compare
// index terms, and know a synonym only when the test says so
// (WithConcepts). That stands in for a real model's knowledge of the
// language and is configured per test, with just the synonyms the test's
// paraphrases rely on.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// The models a server lists unless WithModels says otherwise.
const (
	DefaultModel       = "test-model"
	DefaultEmbedModel  = "test-embed"
	DefaultRerankModel = "test-rerank"
)

// DefaultDim is the length of the embedding vectors unless
// WithEmbeddingDim says otherwise.
const DefaultDim = 256

// Server is a running scripted endpoint. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the base URL to configure a client with; it ends in /v1.
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	chatQ     []Reply
	embedQ    []Reply
	modelsQ   []Reply
	responder func(ChatRequest) Reply
	requests  []Request
	models    []string
	dim       int
	key       string
	echoAuth  bool
	omitUsage bool
	nextID    int

	kind   string // the real server it behaves like (servers.go)
	window int    // its context window in tokens; 0: unlimited
	loaded bool   // Ollama: the model shows as loaded in /api/ps

	// The reranker: its queue, the synonyms it and the embedding model
	// know, whether it speaks only TEI's shape, the most documents one
	// request may carry (0: no limit), and an option's error for Start.
	rerankQ     []RerankReply
	concepts    *Concepts
	teiRerank   bool
	rerankLimit int
	err         error
}

// Option configures a Server.
type Option func(*Server)

// WithModels sets the models the server lists and accepts; a request naming
// another model gets a 404 like a real server's.
func WithModels(ids ...string) Option {
	return func(s *Server) { s.models = slices.Clone(ids) }
}

// WithEmbeddingDim sets the length of the embedding vectors.
func WithEmbeddingDim(n int) Option { return func(s *Server) { s.dim = n } }

// WithKey makes the server require "Authorization: Bearer key" and answer
// 401 otherwise.
func WithKey(key string) Option { return func(s *Server) { s.key = key } }

// WithEchoAuthorization makes the server echo the request's
// Authorization header (the API key) into every chat answer and its
// reasoning, as a misconfigured proxy or a model asked to repeat its
// input might: the client must not show or keep it.
func WithEchoAuthorization() Option { return func(s *Server) { s.echoAuth = true } }

// WithResponder sets the function that answers chat requests when the
// queue is empty.
func WithResponder(fn func(ChatRequest) Reply) Option {
	return func(s *Server) { s.responder = fn }
}

// WithoutUsage makes the server never report token usage (unless a Reply
// sets Usage), as some servers do, so the client has to estimate it.
func WithoutUsage() Option { return func(s *Server) { s.omitUsage = true } }

// Start starts a server; Close stops it. It panics if an option cannot be
// applied (concepts that do not make sense).
func Start(opts ...Option) *Server {
	s, err := start(opts...)
	if err != nil {
		panic("llmtest: " + err.Error())
	}
	return s
}

func start(opts ...Option) (*Server, error) {
	s := &Server{
		models: []string{DefaultModel, DefaultEmbedModel, DefaultRerankModel},
		dim:    DefaultDim,
		responder: func(ChatRequest) Reply {
			return Reply{Text: "OK."}
		},
	}
	for _, o := range opts {
		o(s)
	}
	if s.err != nil {
		return nil, s.err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /props", s.handleProps)
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	mux.HandleFunc("POST /api/show", s.handleOllama)
	mux.HandleFunc("GET /api/ps", s.handleOllama)
	mux.HandleFunc("POST /v1/rerank", s.handleRerank)
	mux.HandleFunc("POST /rerank", s.handleRerank)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil, nil, nil)
		writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	return s, nil
}

// New starts a server that is closed when the test or benchmark ends. An
// option that cannot be applied (concepts that do not make sense) fails
// the test; Start panics instead.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := start(opts...)
	if err != nil {
		tb.Fatalf("llmtest: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close cuts every connection and stops the server.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Enqueue appends replies for the next chat requests, in order.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatQ = append(s.chatQ, r...)
}

// EnqueueEmbeddings appends replies for the next embedding requests. Only a
// reply's faults (Status, RetryAfter, Hangup, HeaderDelay) matter; a reply
// without a fault answers with the usual vectors.
func (s *Server) EnqueueEmbeddings(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedQ = append(s.embedQ, r...)
}

// EnqueueModels appends replies for the next model-list requests; as for
// embeddings, only faults matter.
func (s *Server) EnqueueModels(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelsQ = append(s.modelsQ, r...)
}

// Respond sets the function that answers chat requests when the queue is
// empty. It may be called from several goroutines at once.
func (s *Server) Respond(fn func(ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = fn
}

// Requests returns a copy of every request received so far, in order of
// arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ChatRequests returns the chat requests received so far.
func (s *Server) ChatRequests() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.Requests() {
		if r.Chat != nil {
			out = append(out, *r.Chat)
		}
	}
	return out
}

// Pending reports how many queued chat replies have not been used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.chatQ)
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	// Header is the request's header without Authorization.
	Header http.Header
	// Auth reports whether an Authorization header was sent.
	Auth   bool
	Body   []byte
	Chat   *ChatRequest   // set for chat completions
	Embed  *EmbedRequest  // set for embeddings
	Rerank *RerankRequest // set for rerank requests that parsed
	At     time.Time
}

func (s *Server) record(r *http.Request, body []byte, chat *ChatRequest, embed *EmbedRequest) {
	s.add(r, Request{Body: body, Chat: chat, Embed: embed})
}

// add records req, filling in what r says about it.
func (s *Server) add(r *http.Request, req Request) {
	h := r.Header.Clone()
	_, auth := h["Authorization"]
	h.Del("Authorization")
	req.Method, req.Path, req.Header, req.Auth, req.At = r.Method, r.URL.Path, h, auth, time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// authorized answers 401 and returns false when a key is required and the
// request does not carry it.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.key == "" || r.Header.Get("Authorization") == "Bearer "+s.key {
		return true
	}
	writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
		"Incorrect API key provided.")
	return false
}

func (s *Server) knowsModel(model string) bool { return slices.Contains(s.models, model) }

// refuse answers a request the server will not serve, in the order the
// real API checks: the API key (401), the body, whose parse error is perr
// (400), then the model, which model returns once the body parsed (404; a
// request that names none, as TEI's shape does not, is not checked). It
// reports whether it answered.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, perr error, model func() string) bool {
	if !s.authorized(w, r) {
		return true
	}
	if perr != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", perr.Error())
		return true
	}
	if m := model(); m != "" && !s.knowsModel(m) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist.", m))
		return true
	}
	return false
}

func (s *Server) id() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("chatcmpl-%d", s.nextID)
}

func pop[T any](q *[]T) (T, bool) {
	if len(*q) == 0 {
		var zero T
		return zero, false
	}
	r := (*q)[0]
	*q = (*q)[1:]
	return r, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an error the way OpenAI's API does.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	e := map[string]any{"message": msg, "type": typ}
	if code != "" {
		e["code"] = code
	}
	writeJSON(w, status, map[string]any{"error": e})
}
