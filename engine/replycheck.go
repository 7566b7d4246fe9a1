package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// ReplyCheck is one check on a model reply, on its way from the model to
// the strategy: every reply passes through the checks the Caller makes
// for its call (replyChecks), in order, before the strategy — or the
// citation parser it feeds — reads any of it. A streamed reply passes
// piece by piece, a complete one whole. This is the one place to handle
// what models and servers do to replies that the protocol does not say: a
// reasoning model's thinking before the answer, a reply that never stops
// because the server ignores max_tokens, a prompt the server cut to its
// window without saying so, a reply cut off by the output limit.
type ReplyCheck interface {
	// Text takes the next piece of the reply and returns what passes on:
	// the piece, part of it, or nothing (a check may hold text back and
	// release it later, or never).
	Text(piece string) string
	// End takes the reply as received, once it has ended (err is the
	// call's error, nil when it finished or the Caller stopped reading),
	// and returns the text it still holds that should pass on, and
	// warnings for the reader.
	End(reply llm.Reply, err error) (rest string, warnings []string)
}

// ReasoningCheck is a ReplyCheck that also reads the reasoning a server
// sends apart from the reply's text (reasoning_content), piece by piece,
// in order with the text. Reasoning returns text it releases to pass on.
type ReasoningCheck interface {
	ReplyCheck
	Reasoning(piece string) (release string)
}

// Call describes a call to the reply checks.
type Call struct {
	// Shown names the reply for the reader when the answer shows it;
	// Working when it does not.
	Shown   string
	Request llm.ChatRequest
	// Config is the answer's configuration (Runtime.Config).
	Config config.Config
	// Server is what the server said about itself.
	Server llm.Server
	// Limit is the call's output limit in tokens.
	Limit int
	// Reasoning takes the model's reasoning that a check takes out of the
	// reply, for the reader.
	Reasoning func(string)
	// Stop makes the Caller read no more of the reply; what was passed on
	// stays.
	Stop func()
	// CountPrompt counts the prompt's tokens with the server's tokenizer;
	// nil when the server has none.
	CountPrompt func() (int, error)
	// PromptCut tells the answer's environment the server read only read
	// tokens of the prompt, so later answers fit to that.
	PromptCut func(read int)
}

// replyChecks make the checks of one call, in the order replies pass
// through them.
var replyChecks = []func(Call) ReplyCheck{
	outputBound,
	reasoningSplit,
	promptCut,
	outputLimit,
}

// checks is one call's chain of reply checks.
type checks struct {
	list    []ReplyCheck
	passed  string          // the text passed on so far
	thought strings.Builder // the reasoning taken out
	stopped bool
}

func (c *Caller) checks(shown string, req llm.ChatRequest, stream bool) *checks {
	ch := &checks{}
	call := Call{Shown: shown, Request: req, Config: c.Config(), Server: c.server, Limit: req.MaxTokens,
		Stop: func() { ch.stopped = true },
		Reasoning: func(s string) {
			ch.thought.WriteString(s)
			if stream {
				c.rt.reason(s)
			}
		},
		PromptCut: c.rt.env.promptCut,
	}
	if c.server.Tokenizer {
		call.CountPrompt = func() (int, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return c.client.CountTokens(ctx, c.server, req.Messages)
		}
	}
	for _, newCheck := range replyChecks {
		ch.list = append(ch.list, newCheck(call))
	}
	return ch
}

// text passes a piece through every check.
func (ch *checks) text(piece string) string {
	piece = ch.from(0, piece)
	ch.passed += piece
	return piece
}

// from passes piece through the checks from the i-th on.
func (ch *checks) from(i int, piece string) string {
	for _, c := range ch.list[i:] {
		if piece == "" {
			break
		}
		piece = c.Text(piece)
	}
	return piece
}

// reasoning passes a piece of reasoning_content to the checks that read
// it; text one releases passes through those after it.
func (ch *checks) reasoning(piece string) string {
	out := ""
	for i, c := range ch.list {
		if rc, ok := c.(ReasoningCheck); ok {
			out += ch.from(i+1, rc.Reasoning(piece))
		}
	}
	ch.passed += out
	return out
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
			rt.warnOnce(w)
		}
	}
	ch.passed += tail
	return tail
}

// name is how a warning names the reply.
func (call Call) name() string {
	if call.Shown == Working {
		return "a working step's reply"
	}
	return call.Shown
}

// --- the output limit ---

// outputLimit warns when a reply the answer shows stopped at the output
// limit: what follows the cut is missing.
func outputLimit(call Call) ReplyCheck { return limitCheck{call} }

type limitCheck struct{ call Call }

func (limitCheck) Text(piece string) string { return piece }

func (l limitCheck) End(reply llm.Reply, err error) (string, []string) {
	if l.call.Shown == Working || err != nil || reply.FinishReason != "length" {
		return "", nil
	}
	return "", []string{fmt.Sprintf("%s reached the output limit of %d tokens and may be cut short; raise max_output in the config file", l.call.Shown, l.call.Limit)}
}

// outputBound stops reading a reply that runs well past the output limit
// — a server that ignores max_tokens may stream megabytes — keeping what
// arrived before. Reasoning counts: max_tokens bounds it too.
func outputBound(call Call) ReplyCheck {
	// Token counts here are estimates, so a reply a server cut at the
	// limit may count a little over it; only one clearly beyond is
	// stopped.
	return &boundCheck{call: call, max: call.Limit + call.Limit/4 + 64}
}

type boundCheck struct {
	call    Call
	max     int
	counter textproc.TokenCounter
	stopped bool
}

func (b *boundCheck) Text(piece string) string {
	if b.stopped {
		return ""
	}
	b.counter.Write(piece)
	if b.counter.Tokens() > b.max {
		b.stopped = true
		b.call.Stop()
	}
	return piece
}

func (b *boundCheck) Reasoning(piece string) string {
	b.Text(piece)
	return ""
}

func (b *boundCheck) End(llm.Reply, error) (string, []string) {
	if !b.stopped {
		return "", nil
	}
	return "", []string{fmt.Sprintf("%s ran past the output limit of %d tokens (the server ignored max_tokens), so citelens stopped reading it there; what arrived before is kept",
		b.call.name(), b.call.Limit)}
}

// --- reasoning ---

// reasoningSplit takes a reasoning model's thinking out of the reply
// (llm.ReasoningSplitter: <think>, <thinking> and <reasoning> blocks,
// closed or not, and reasoning_content) and gives it to Call.Reasoning.
func reasoningSplit(call Call) ReplyCheck { return &reasoningCheck{call: call} }

type reasoningCheck struct {
	call     Call
	split    llm.ReasoningSplitter
	separate bool // the server sent reasoning_content
}

func (r *reasoningCheck) Text(piece string) string {
	answer, reasoning := r.split.Write(piece)
	if reasoning != "" {
		r.call.Reasoning(reasoning)
	}
	return answer
}

func (r *reasoningCheck) Reasoning(piece string) string {
	r.separate = true
	r.call.Reasoning(piece)
	return r.split.Decide()
}

func (r *reasoningCheck) End(reply llm.Reply, err error) (string, []string) {
	answer, reasoning := r.split.Close()
	if reasoning != "" {
		r.call.Reasoning(reasoning)
	}
	if err != nil {
		return answer, nil
	}
	var warns []string
	outOfRoom := reply.FinishReason == "length"
	empty := strings.TrimSpace(answer) == "" && !r.answered(reply)
	switch {
	case r.split.Unclosed() && outOfRoom, r.separate && empty && outOfRoom:
		warns = append(warns, fmt.Sprintf("%s ended inside the model's reasoning: the model spent its output on reasoning; raise max_output in the config file", r.call.name()))
	case r.split.Unclosed():
		warns = append(warns, fmt.Sprintf("%s ended inside the model's reasoning (a <think> block never closed), so none of it was taken as the answer", r.call.name()))
	}
	if r.split.Strays() > 0 {
		warns = append(warns, fmt.Sprintf("%s had a </think> with no <think> after its answer had begun: the text before it may be the model's reasoning", r.call.name()))
	}
	return answer, warns
}

// answered reports whether any answer text passed before the end.
func (r *reasoningCheck) answered(reply llm.Reply) bool {
	answer, _, _ := llm.SplitReasoning(reply.Text)
	return strings.TrimSpace(answer) != ""
}

// --- prompts the server cut ---

// promptCut warns when the server reports reading far fewer prompt tokens
// than the prompt has: Ollama, at its default context length, keeps only
// part of a long prompt and answers from that, saying nothing but the
// count. The prompt is counted by the server's tokenizer when it has one
// (vLLM, llama.cpp), else estimated, and the warning says how to give the
// model a larger window on that server.
func promptCut(call Call) ReplyCheck { return cutCheck{call} }

type cutCheck struct{ call Call }

func (cutCheck) Text(piece string) string { return piece }

// minCutPrompt is the smallest prompt checked: every server's window holds
// less than that, and estimates of small prompts are rough.
const minCutPrompt = 1024

func (c cutCheck) End(reply llm.Reply, err error) (string, []string) {
	read := reply.Usage.PromptTokens
	if reply.Usage.Estimated || read <= 0 {
		return "", nil
	}
	sent := llm.EstimatePromptTokens(c.call.Request.Messages)
	if sent < minCutPrompt || !llm.Cut(read, sent, false) {
		return "", nil
	}
	how := "about " + humanize.Count(sent)
	if c.call.CountPrompt != nil {
		if n, err := c.call.CountPrompt(); err == nil && n > 0 {
			if !llm.Cut(read, n, true) {
				return "", nil
			}
			sent, how = n, humanize.Count(n)
		}
	}
	if c.call.PromptCut != nil {
		c.call.PromptCut(read)
	}
	want := 1024
	for want < sent+c.call.Limit {
		want *= 2
	}
	return "", []string{fmt.Sprintf("the server read only %s of the prompt's %s tokens: it cut the prompt to fit its context window without saying so, so %s was written from part of the text. To fix it, %s",
		humanize.Count(read), how, c.call.readerName(), c.call.Server.Fix(want))}
}

// readerName names the reply for a sentence's subject.
func (call Call) readerName() string {
	if call.Shown == Working {
		return "a working step"
	}
	return call.Shown
}
