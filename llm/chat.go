package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/citelens/citelens/internal/textproc"
)

// Role is who speaks a chat message.
type Role string

// The chat roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// System, User and Assistant make messages.
func System(text string) Message { return Message{RoleSystem, text} }

// User makes a user message.
func User(text string) Message { return Message{RoleUser, text} }

// Assistant makes an assistant message (an earlier answer, or a prefix).
func Assistant(text string) Message { return Message{RoleAssistant, text} }

// ChatRequest is one chat completion. Zero fields take the configuration's
// values.
type ChatRequest struct {
	Messages []Message
	// Model overrides Config.Model (OkraLong's analyzer passes
	// Config.Analyzer()).
	Model string
	// MaxTokens caps the answer; 0 means Config.MaxOutput.
	MaxTokens int
	// Temperature overrides Config.Temperature.
	Temperature *float64
	Stop        []string
	// JSON asks for a JSON object (response_format json_object); the prompt
	// must still say what object to write.
	JSON bool
}

// EstimatePromptTokens estimates the prompt tokens of msgs when the server
// does not report them: textproc.EstimateTokens of each message plus four
// tokens of framing per message.
func EstimatePromptTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += textproc.EstimateTokens(m.Content) + 4
	}
	return n
}

// reasoningModel reports OpenAI models that take max_completion_tokens and
// no temperature; go-openai refuses the other fields for them.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

func (c *Client) wire(req ChatRequest) (openai.ChatCompletionRequest, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionRequest{}, fmt.Errorf("%w: a chat request needs at least one message", ErrBadRequest)
	}
	o := openai.ChatCompletionRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if o.Model == "" {
		o.Model = c.cfg.Model
	}
	for _, m := range req.Messages {
		o.Messages = append(o.Messages, openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content})
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.cfg.MaxOutput
	}
	if reasoningModel(o.Model) {
		// OpenAI's reasoning models reject temperature and stop sequences
		// (HTTP 400); a strategy's stop sequence only saves tokens, so it
		// is dropped for them.
		o.MaxCompletionTokens = maxTokens
	} else {
		o.Stop = req.Stop
		// max_tokens, deprecated by OpenAI for max_completion_tokens, is
		// the one field every OpenAI-compatible server reads: Ollama and
		// LM Studio ignore the new one, which would leave the answer
		// unbounded there.
		//lint:ignore SA1019 servers other than OpenAI's read only max_tokens
		o.MaxTokens = maxTokens
		t := c.cfg.Temperature
		if req.Temperature != nil {
			t = *req.Temperature
		}
		o.Temperature = float32(t)
		if t == 0 {
			// go-openai omits a zero temperature, and servers then use
			// their default (often 1); the smallest positive float is
			// greedy decoding in effect.
			o.Temperature = math.SmallestNonzeroFloat32
		}
	}
	if req.JSON {
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return o, nil
}

// Stream is one streaming chat answer:
//
//	s := client.ChatStream(ctx, req)
//	defer s.Close()
//	for s.Next() {
//		show(s.Current())
//	}
//	if err := s.Err(); err != nil {
//		// s.Text() still holds what arrived before the failure
//	}
//	usage := s.Usage()
//
// Failures before the first delta are retried; after it they are not (the
// caller has shown the text), and Err reports ErrInterrupted while Text
// keeps what arrived. A Stream is used from one goroutine.
type Stream struct {
	c    *Client
	ctx  context.Context
	req  openai.ChatCompletionRequest
	msgs []Message
	// restart allows starting over after a drop mid-answer: Chat does it,
	// since nothing has been shown.
	restart bool

	s      *openai.ChatCompletionStream
	a      *attempt
	cancel context.CancelFunc
	opened bool // a stream was opened at least once

	// textR and reasonR hide secrets in the answer and the reasoning
	// (redact.go); text and reasoning hold what they released.
	textR, reasonR *redactor
	text           strings.Builder
	reasoning      strings.Builder
	// last is set when Next has released the held tail at the end: the
	// next call ends the stream, with lastErr when it failed.
	last      bool
	lastErr   error
	cur       string
	curReason string
	finish    string
	model     string
	usage     *openai.Usage
	retries   int
	err       error
	done      bool
}

// ChatStream starts a streaming chat answer. Errors, including bad requests,
// are reported by Err after Next returns false.
func (c *Client) ChatStream(ctx context.Context, req ChatRequest) *Stream {
	s := &Stream{c: c, ctx: ctx, msgs: req.Messages,
		textR: newRedactor(c.cfg.APIKey, c.cfg.RerankAPIKey), reasonR: newRedactor(c.cfg.APIKey, c.cfg.RerankAPIKey)}
	var err error
	if s.req, err = c.wire(req); err != nil {
		s.done, s.err = true, err
	}
	return s
}

const chatPath = "/chat/completions"

// Next advances to the next text delta, reporting false when the answer is
// finished or failed (see Err).
func (s *Stream) Next() bool {
	if s.last {
		s.end(s.lastErr)
	}
	if s.done {
		return false
	}
	for {
		if s.s == nil {
			if err := s.open(); err != nil {
				s.end(err)
				return false
			}
		}
		resp, err := s.s.Recv()
		if errors.Is(err, io.EOF) {
			if s.finish != "" || s.a.sawDone {
				if s.release(s.textR.flush(), s.reasonR.flush()) {
					s.last = true // the held tail first, then the end
					return true
				}
				s.end(nil)
				return false
			}
			err = errEnded
		}
		if err != nil {
			e := s.c.classify(s.ctx, "chat", chatPath, err, s.a)
			e.Retries = s.retries
			e.Received = s.text.Len()
			s.closeAttempt()
			// Reasoning passed on counts as shown: starting over would
			// show it twice.
			if s.text.Len()+s.reasoning.Len() == 0 || s.restart {
				if wait, ok := s.c.backoff(e, s.retries, nil); ok {
					if !s.pause(e, wait) {
						return false
					}
					s.text.Reset()
					s.reasoning.Reset()
					s.textR.reset()
					s.reasonR.reset()
					s.finish, s.usage = "", nil
					continue
				}
			}
			// The held tail arrived before the failure: deliver it as the
			// last delta, so what was shown is all that Text holds.
			if s.release(s.textR.flush(), s.reasonR.flush()) {
				s.last, s.lastErr = true, e
				return true
			}
			s.end(e)
			return false
		}
		if resp.Usage != nil {
			s.usage = resp.Usage
		}
		if resp.Model != "" {
			s.model = s.c.clean(resp.Model)
		}
		delta, reasoning := "", ""
		for _, ch := range resp.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != "" {
				s.finish = s.c.clean(string(ch.FinishReason))
			}
			delta += ch.Delta.Content
			reasoning += ch.Delta.ReasoningContent
		}
		if s.release(s.textR.push(delta), s.reasonR.push(reasoning)) {
			return true
		}
	}
}

// release makes the redacted text and reasoning the current delta,
// reporting false when there is none.
func (s *Stream) release(text, reasoning string) bool {
	if text == "" && reasoning == "" {
		return false
	}
	s.text.WriteString(text)
	s.reasoning.WriteString(reasoning)
	s.cur, s.curReason = text, reasoning
	return true
}

// open starts the HTTP stream, retrying failures that allow it.
func (s *Stream) open() error {
	for {
		a := &attempt{}
		actx, cancel := context.WithTimeout(context.WithValue(s.ctx, attemptKey{}, a), s.c.cfg.Timeout)
		st, err := s.c.api.CreateChatCompletionStream(actx, s.req)
		if err == nil {
			s.s, s.a, s.cancel, s.opened = st, a, cancel, true
			return nil
		}
		cancel()
		e := s.c.classify(s.ctx, "chat", chatPath, err, a)
		e.Retries = s.retries
		wait, ok := s.c.backoff(e, s.retries, a)
		if !ok {
			return e
		}
		if !s.pause(e, wait) {
			return s.err
		}
	}
}

// pause waits before retry number s.retries+1, and reports false (having
// ended the stream) if the caller cancelled meanwhile.
func (s *Stream) pause(e *Error, wait time.Duration) bool {
	notifyRetry(s.ctx, Retry{Op: "chat", Attempt: s.retries + 1, Wait: wait, Err: e})
	if err := s.c.sleep(s.ctx, wait); err != nil {
		ce := s.c.classify(s.ctx, "chat", chatPath, err, nil)
		ce.Retries = s.retries
		s.end(ce)
		return false
	}
	s.retries++
	return true
}

func (s *Stream) end(err error) {
	if !s.done && s.textR != nil {
		// What is held arrived: Text keeps it, redacted, as it keeps the
		// rest of an answer cut short.
		s.text.WriteString(s.textR.flush())
		s.reasoning.WriteString(s.reasonR.flush())
	}
	s.done, s.err, s.cur, s.curReason, s.last, s.lastErr = true, err, "", "", false, nil
	s.closeAttempt()
}

func (s *Stream) closeAttempt() {
	if s.s != nil {
		s.s.Close()
		s.s = nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

// Current is the delta of answer text Next just advanced to; "" when the
// delta held only reasoning (CurrentReasoning).
func (s *Stream) Current() string { return s.cur }

// CurrentReasoning is the reasoning in the delta Next just advanced to: a
// reasoning model's thinking that the server sends apart from the answer
// (the delta's reasoning_content, as vLLM with a reasoning parser,
// llama.cpp's server and DeepSeek's API send it). Text never holds it.
func (s *Stream) CurrentReasoning() string { return s.curReason }

// Text is the whole answer so far: every delta delivered.
func (s *Stream) Text() string { return s.text.String() }

// Reasoning is all the reasoning the server sent apart from the answer so
// far (see CurrentReasoning).
func (s *Stream) Reasoning() string { return s.reasoning.String() }

// Err is why the stream stopped early, or nil if it finished (or has not).
func (s *Stream) Err() error { return s.err }

// Close releases the connection. It is safe to call more than once and
// before the stream is finished (which abandons it).
func (s *Stream) Close() error {
	if !s.done {
		s.done = true
		s.closeAttempt()
	}
	return nil
}

// FinishReason is the server's reason for stopping: "stop", or "length" when
// the answer hit MaxTokens; "" if it did not finish.
func (s *Stream) FinishReason() string { return s.finish }

// Model is the model the server says answered ("" if it did not say).
func (s *Stream) Model() string { return s.model }

// Retries is how many retries the answer took.
func (s *Stream) Retries() int { return s.retries }

// Usage is the call's token usage: the server's report if it sent one,
// otherwise an estimate (Estimated set) from the prompt and the text
// received. A call that never got an answer started counts nothing.
func (s *Stream) Usage() Usage {
	if !s.opened {
		return Usage{}
	}
	u := Usage{LLMCalls: 1}
	if s.usage != nil && (s.usage.PromptTokens > 0 || s.usage.CompletionTokens > 0) {
		u.PromptTokens, u.CompletionTokens = s.usage.PromptTokens, s.usage.CompletionTokens
		return u
	}
	u.PromptTokens = EstimatePromptTokens(s.msgs)
	u.CompletionTokens = textproc.EstimateTokens(s.text.String()) + textproc.EstimateTokens(s.reasoning.String())
	u.Estimated = true
	return u
}

// Reply is a finished (or failed) non-streaming answer.
type Reply struct {
	Text string
	// Reasoning is what the server sent apart from the answer as the
	// model's reasoning (reasoning_content), "" when it sent none.
	Reasoning    string
	FinishReason string
	Model        string
	Usage        Usage
	Retries      int
}

// Chat answers req without streaming to the caller. Since nothing has been
// shown, a stream dropped mid-answer is retried from the start like any other
// failure. On error, Text holds what the last attempt received.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (Reply, error) {
	s := c.ReadChat(ctx, req)
	defer s.Close()
	for s.Next() {
	}
	return s.Reply(), s.Err()
}

// ReadChat starts a chat answer that the caller reads piece by piece but
// shows to no one until it is complete (Chat reads one whole). Since
// nothing has been shown, a stream dropped mid-answer is retried from the
// start like any other failure, and Text starts again empty.
func (c *Client) ReadChat(ctx context.Context, req ChatRequest) *Stream {
	s := c.ChatStream(ctx, req)
	s.restart = true
	return s
}

// Reply is the answer so far as a Reply: the whole of it once Next has
// returned false.
func (s *Stream) Reply() Reply {
	return Reply{
		Text: s.Text(), Reasoning: s.Reasoning(), FinishReason: s.FinishReason(), Model: s.Model(),
		Usage: s.Usage(), Retries: s.Retries(),
	}
}
