package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/internal/config"
)

// Caller makes a strategy's model calls (Runtime.Model), so that every
// call of every strategy is handled alike: a retry is shown as a stage
// saying why, the call's usage is reported, the reply passes through the
// reply checks before the strategy reads any of it, a reply the answer
// shows is warned about when the output limit cut it short, and the model
// that streamed the answer is noted for it. A Caller is safe for
// concurrent use.
type Caller struct {
	rt     *Runtime
	client *llm.Client
}

// Working names a model reply the answer does not show — a plan, a
// classification, a fact to reason from — for Chat and Stream: the
// strategy handles one that is cut short, so there is no warning.
const Working = ""

// Config is the client's configuration.
func (c *Caller) Config() config.Config { return c.client.Config() }

// Chat makes one call and returns its reply once complete. shown names
// the reply for the reader when the answer shows it ("the answer with
// chunk-level citations"), Working otherwise. Reply.Text is the text as
// the reply checks pass it.
func (c *Caller) Chat(ctx context.Context, shown string, req llm.ChatRequest) (llm.Reply, error) {
	checks := c.checks(shown, req)
	reply, err := c.client.Chat(c.notify(ctx), req)
	raw := reply
	reply.Text = checks.text(reply.Text)
	reply.Text += checks.end(c.rt, raw, err)
	c.account(reply.Usage)
	return reply, err
}

// Stream makes one call and passes its text on as it arrives: to the front
// end as Delta events and to text (which may be nil), piece by piece, as
// the reply checks pass it. shown names the reply as for Chat. The model
// that answered is noted as the answer's.
func (c *Caller) Stream(ctx context.Context, shown string, req llm.ChatRequest, text func(string)) (llm.Reply, error) {
	checks := c.checks(shown, req)
	pass := func(s string) {
		if s == "" {
			return
		}
		c.rt.delta(s)
		if text != nil {
			text(s)
		}
	}
	s := c.client.ChatStream(c.notify(ctx), req)
	defer s.Close()
	done := c.rt.streaming(shown)
	for s.Next() {
		pass(checks.text(s.Current()))
	}
	err := s.Err()
	defer done(err)
	reply := llm.Reply{Text: s.Text(), FinishReason: s.FinishReason(), Model: s.Model(), Usage: s.Usage(), Retries: s.Retries()}
	tail := checks.end(c.rt, reply, err)
	pass(tail)
	reply.Text = checks.passed + tail
	c.account(reply.Usage)
	model := reply.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		model = c.client.Config().Model
	}
	c.rt.answeredBy(model)
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

// ReplyCheck is one check on a model reply, on its way from the model to
// the strategy: every reply passes through the checks the Caller makes
// for its call (replyChecks), in order, before the strategy — or the
// citation parser it feeds — reads any of it. A streamed reply passes
// piece by piece, a complete one whole. This is the one place to handle
// what models do to their replies that the protocol does not say: a
// reasoning model's thinking before the answer, an answer cut off without
// saying so, a reply cut off by the output limit.
type ReplyCheck interface {
	// Text takes the next piece of the reply and returns what passes on:
	// the piece, part of it, or nothing (a check may hold text back and
	// release it later, or never).
	Text(piece string) string
	// End takes the reply as received, once it has ended (err is the
	// call's error, nil when it finished), and returns the text it still
	// holds that should pass on, and warnings for the reader.
	End(reply llm.Reply, err error) (rest string, warnings []string)
}

// Call describes a call to the reply checks.
type Call struct {
	// Shown names the reply for the reader when the answer shows it;
	// Working when it does not.
	Shown   string
	Request llm.ChatRequest
	Config  config.Config
}

// replyChecks make the checks of one call, in the order replies pass
// through them.
var replyChecks = []func(Call) ReplyCheck{
	outputLimit,
}

// checks is one call's chain of reply checks.
type checks struct {
	list   []ReplyCheck
	passed string // the text passed on so far
}

func (c *Caller) checks(shown string, req llm.ChatRequest) *checks {
	call := Call{Shown: shown, Request: req, Config: c.client.Config()}
	ch := &checks{}
	for _, newCheck := range replyChecks {
		ch.list = append(ch.list, newCheck(call))
	}
	return ch
}

// text passes a piece through every check.
func (ch *checks) text(piece string) string {
	for _, c := range ch.list {
		if piece == "" {
			break
		}
		piece = c.Text(piece)
	}
	ch.passed += piece
	return piece
}

// end ends every check in order: what one releases passes through those
// after it before they end. Warnings go to rt.
func (ch *checks) end(rt *Runtime, reply llm.Reply, err error) string {
	tail := ""
	for _, c := range ch.list {
		if tail != "" {
			tail = c.Text(tail)
		}
		rest, warnings := c.End(reply, err)
		tail += rest
		for _, w := range warnings {
			rt.Warn(w)
		}
	}
	return tail
}

// outputLimit warns when a reply the answer shows stopped at the output
// limit: what follows the cut is missing.
func outputLimit(call Call) ReplyCheck {
	limit := call.Request.MaxTokens
	if limit <= 0 {
		limit = call.Config.MaxOutput
	}
	return limitCheck{shown: call.Shown, limit: limit}
}

type limitCheck struct {
	shown string
	limit int
}

func (limitCheck) Text(piece string) string { return piece }

func (l limitCheck) End(reply llm.Reply, err error) (string, []string) {
	if l.shown == Working || err != nil || reply.FinishReason != "length" {
		return "", nil
	}
	return "", []string{fmt.Sprintf("%s reached the output limit of %d tokens and may be cut short; raise max_output in the config file", l.shown, l.limit)}
}
