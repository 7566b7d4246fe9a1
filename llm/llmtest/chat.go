package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/textproc"
)

// ChatRequest is a chat completion request as the server received it.
type ChatRequest struct {
	Model    string
	Messages []Message
	Stream   bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage bool
	// MaxTokens is max_tokens, or max_completion_tokens if that was sent.
	MaxTokens   int
	Temperature *float64
	Stop        []string
	// JSON reports response_format {"type": "json_object"}.
	JSON bool
}

// Message is one chat message.
type Message struct {
	Role    string
	Content string
}

// Text returns every message's content, joined by newlines: what a
// responder searches to decide what to answer.
func (r ChatRequest) Text() string {
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// Last returns the content of the last user message.
func (r ChatRequest) Last() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// PromptTokens is the prompt size the server reports: EstimateTokens of each
// message plus four tokens of framing per message.
func (r ChatRequest) PromptTokens() int {
	n := 0
	for _, m := range r.Messages {
		n += textproc.EstimateTokens(m.Content) + 4
	}
	return n
}

type wireChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	Stop                json.RawMessage `json:"stop"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// parseChat decodes a request body, accepting content as a string or as a
// list of text parts, and stop as a string or a list.
func parseChat(body []byte) (*ChatRequest, error) {
	var w wireChatRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %v", err)
	}
	if w.Model == "" {
		return nil, fmt.Errorf("you must provide a model parameter")
	}
	if len(w.Messages) == 0 {
		return nil, fmt.Errorf("messages must not be empty")
	}
	c := &ChatRequest{
		Model: w.Model, Stream: w.Stream, MaxTokens: w.MaxTokens,
		Temperature: w.Temperature,
		JSON:        w.ResponseFormat != nil && w.ResponseFormat.Type == "json_object",
	}
	if w.MaxCompletionTokens > 0 {
		c.MaxTokens = w.MaxCompletionTokens
	}
	if w.StreamOptions != nil {
		c.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	for _, m := range w.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return nil, err
		}
		c.Messages = append(c.Messages, Message{Role: m.Role, Content: text})
	}
	if len(w.Stop) > 0 {
		var one string
		if json.Unmarshal(w.Stop, &one) == nil {
			c.Stop = []string{one}
		} else if err := json.Unmarshal(w.Stop, &c.Stop); err != nil {
			return nil, fmt.Errorf("stop must be a string or a list of strings")
		}
	}
	return c, nil
}

func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("message content must be a string or a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, perr := parseChat(body)
	s.record(r, body, req, nil)
	if s.refuse(w, r, perr, func() string { return req.Model }) {
		return
	}
	cut, refused := s.fit(req)
	if refused != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", refused)
		return
	}
	s.mu.Lock()
	reply, ok := pop(&s.chatQ)
	responder := s.responder
	s.mu.Unlock()
	if !ok {
		reply = responder(*req)
	}
	if s.echoAuth {
		echo := " (your request said Authorization: " + r.Header.Get("Authorization") + ")"
		reply.Text += echo
		if reply.Reasoning != "" {
			reply.Reasoning += echo
		}
	}
	if reply.fault(r.Context(), w) {
		return
	}
	usage := s.usage(req, reply)
	if usage != nil && cut > 0 {
		usage.PromptTokens, usage.TotalTokens = cut, cut+usage.CompletionTokens
	}
	if req.Stream {
		s.stream(w, r, req, reply, usage)
		return
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]string{"role": "assistant", "content": reply.text()}
	if reply.Reasoning != "" {
		msg["reasoning_content"] = reply.Reasoning
	}
	resp := map[string]any{
		"id": s.id(), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
	}
	if usage != nil {
		resp["usage"] = usage
	}
	writeJSON(w, http.StatusOK, resp)
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// usage is what the server reports for the reply, or nil for none.
func (s *Server) usage(req *ChatRequest, reply Reply) *wireUsage {
	if reply.Usage != nil {
		u := reply.Usage
		return &wireUsage{u.PromptTokens, u.CompletionTokens, u.PromptTokens + u.CompletionTokens}
	}
	if reply.OmitUsage || s.omitUsage {
		return nil
	}
	p, c := req.PromptTokens(), textproc.EstimateTokens(reply.text())+textproc.EstimateTokens(reply.Reasoning)
	return &wireUsage{p, c, p + c}
}

type chunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *wireUsage    `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index int `json:"index"`
	// Delta holds content, or reasoning_content, or the role.
	Delta        map[string]string `json:"delta"`
	FinishReason *string           `json:"finish_reason"`
}

// sse writes server-sent events, cutting the connection once a byte budget
// is spent.
type sse struct {
	w      http.ResponseWriter
	budget int // bytes left before the cut; <0 means no cut
}

func (e *sse) event(data []byte) {
	msg := make([]byte, 0, len(data)+8)
	msg = append(msg, "data: "...)
	msg = append(msg, data...)
	msg = append(msg, "\n\n"...)
	if e.budget >= 0 && len(msg) > e.budget {
		_, _ = e.w.Write(msg[:e.budget])
		e.flush()
		panic(http.ErrAbortHandler)
	}
	if e.budget >= 0 {
		e.budget -= len(msg)
	}
	_, _ = e.w.Write(msg)
	e.flush()
}

func (e *sse) flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req *ChatRequest, reply Reply, usage *wireUsage) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &sse{w: w, budget: -1}
	if reply.DropAfterBytes > 0 {
		e.budget = reply.DropAfterBytes
	}
	base := chunk{ID: s.id(), Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model}
	send := func(delta map[string]string, finish *string, u *wireUsage) {
		c := base
		if u != nil {
			c.Choices = []chunkChoice{}
			c.Usage = u
		} else {
			c.Choices = []chunkChoice{{Delta: delta, FinishReason: finish}}
		}
		b, _ := json.Marshal(c)
		e.event(b)
	}
	send(map[string]string{"role": "assistant", "content": ""}, nil, nil)
	for _, d := range reply.split(reply.Reasoning) {
		if !sleep(r.Context(), reply.ChunkDelay) {
			return
		}
		send(map[string]string{"reasoning_content": d}, nil, nil)
	}
	if reply.Forever {
		s.forever(r, reply, send)
		return
	}
	for i, d := range reply.deltas() {
		if reply.Drop && i == reply.DropAfter {
			panic(http.ErrAbortHandler)
		}
		if reply.Malformed && i == reply.MalformedAfter {
			e.event([]byte(`{"id":"` + base.ID + `","choices":[{"index":0,"delta":{"content":"`))
		}
		if !sleep(r.Context(), reply.ChunkDelay) {
			return
		}
		send(map[string]string{"content": d}, nil, nil)
	}
	n := len(reply.deltas())
	if reply.Drop && reply.DropAfter >= n {
		panic(http.ErrAbortHandler)
	}
	if reply.Malformed && reply.MalformedAfter >= n {
		e.event([]byte(`{"choices":[{"delta":`))
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	send(map[string]string{}, &finish, nil)
	if req.IncludeUsage && usage != nil {
		send(nil, nil, usage)
	}
	e.event([]byte("[DONE]"))
}

// foreverLimit bounds a Forever reply, so a client that never stops
// reading still ends.
const foreverLimit = 64 << 20

// forever streams the reply's text again and again, ignoring max_tokens,
// until the client stops reading or foreverLimit bytes are sent.
func (s *Server) forever(r *http.Request, reply Reply, send func(map[string]string, *string, *wireUsage)) {
	for sent := 0; sent < foreverLimit; {
		for _, d := range reply.deltas() {
			if r.Context().Err() != nil || !sleep(r.Context(), reply.ChunkDelay) {
				return
			}
			send(map[string]string{"content": d}, nil, nil)
			sent += len(d)
		}
	}
	finish := "stop"
	send(map[string]string{}, &finish, nil)
}
