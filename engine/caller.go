package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
)

// Caller makes a strategy's model calls (Runtime.Model), so that every
// call of every strategy is handled alike: a retry is shown as a stage
// saying why, the call's usage is reported, the reply passes through the
// reply checks (replyChecks) before the strategy reads any of it, and the
// model that streamed the answer is noted for it. The checks take a
// reasoning model's thinking out of the reply, stop reading a reply that
// runs past the output limit, and warn about a reply the output limit cut
// short and a prompt the server cut without saying so. The Caller also
// stops reading a reply once the answer has all the statements it may
// keep, and after a call found the server unreachable or silent it fails
// the answer's later calls at once. A Caller is safe for concurrent use.
type Caller struct {
	rt     *Runtime
	client *llm.Client
	server llm.Server // what the server said about itself

	mu   sync.Mutex
	dead error // why the server is not asked again in this answer
}

// Working names a model reply the answer does not show — a plan, a
// classification, a fact to reason from — for Chat and Stream: the
// strategy handles one that is cut short, so there is no warning.
const Working = ""

// Config is the answer's model configuration (Runtime.Config).
func (c *Caller) Config() config.Config { return c.rt.Config() }

// Chat makes one call and returns its reply once complete. shown names
// the reply for the reader when the answer shows it ("the answer with
// chunk-level citations"), Working otherwise. Reply.Text is the text as
// the reply checks pass it; Reply.Reasoning the model's reasoning, which
// the front end gets whole as one Reasoning event when the reply ends.
func (c *Caller) Chat(ctx context.Context, shown string, req llm.ChatRequest) (llm.Reply, error) {
	return c.call(ctx, shown, req, false, nil)
}

// Stream makes one call and passes its text on as it arrives: to the front
// end as Delta events and to text (which may be nil), piece by piece, as
// the reply checks pass it, and its reasoning to the front end as
// Reasoning events. shown names the reply as for Chat. The model that
// answered is noted as the answer's.
func (c *Caller) Stream(ctx context.Context, shown string, req llm.ChatRequest, text func(string)) (llm.Reply, error) {
	reply, err := c.call(ctx, shown, req, true, text)
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		model = c.Config().Model
	}
	c.rt.answeredBy(model)
	return reply, err
}

// call makes one call, streamed on or read whole.
func (c *Caller) call(ctx context.Context, shown string, req llm.ChatRequest, stream bool, text func(string)) (llm.Reply, error) {
	if err := c.deadServer(); err != nil {
		return llm.Reply{}, err
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = c.Config().MaxOutput // the answer's, which may be smaller than the client's
	}
	pass := func(s string) {
		if s == "" {
			return
		}
		if stream {
			c.rt.delta(s)
		}
		if text != nil {
			text(s)
		}
	}
	var s *llm.Stream
	if stream {
		s = c.client.ChatStream(c.notify(ctx), req)
	} else {
		s = c.client.ReadChat(c.notify(ctx), req)
	}
	defer s.Close()
	if stream {
		done := c.rt.streaming(shown)
		defer func() { done(s.Err()) }()
	}
	ch := c.checks(shown, req, stream)
	retries := 0
	for s.Next() {
		if s.Retries() != retries {
			// A reply read whole started over after a drop: so do its
			// checks (nothing of it has been passed on).
			retries = s.Retries()
			ch = c.checks(shown, req, stream)
		}
		if r := s.CurrentReasoning(); r != "" {
			pass(ch.reasoning(r))
		}
		pass(ch.text(s.Current()))
		if ch.stopped || c.rt.full() {
			break
		}
	}
	err := s.Err()
	reply := s.Reply()
	pass(ch.end(c.rt, reply, err))
	reply.Text, reply.Reasoning = ch.passed, ch.thought.String()
	if !stream && reply.Reasoning != "" {
		c.rt.reason(reply.Reasoning)
	}
	c.rt.keepReasoning(reply.Reasoning)
	c.account(reply.Usage)
	c.noteDead(err)
	return reply, err
}

// notify reports the client's retries on ctx as stages.
func (c *Caller) notify(ctx context.Context) context.Context {
	return llm.WithRetryNotify(ctx, func(r llm.Retry) { c.rt.Stage(RetryStage(r)) })
}

// account reports a call's usage.
func (c *Caller) account(u llm.Usage) {
	c.rt.calledModel()
	if u.LLMCalls > 0 {
		c.rt.Usage(u)
	}
}

// noteDead remembers a failure that asking again in this answer would
// only repeat, after its retries: no connection, or no answer in time.
func (c *Caller) noteDead(err error) {
	if errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrTimeout) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.dead == nil {
			c.dead = err
		}
	}
}

func (c *Caller) deadServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// RetryStage tells the user why an answer is waiting on the server.
func RetryStage(r llm.Retry) string {
	why := "the server failed"
	if r.Err != nil {
		switch {
		case r.Err.Status == 429:
			why = "the server is busy (rate limited)"
		case r.Err.Status != 0:
			why = fmt.Sprintf("the server failed (HTTP %d)", r.Err.Status)
		case r.Err.Kind == llm.ErrInterrupted:
			why = "the connection dropped"
		}
	}
	return fmt.Sprintf("%s; retrying in %s (attempt %d of %d)", why, r.Wait.Round(100*time.Millisecond), r.Attempt+1, llm.MaxRetries+1)
}
