// Package generate is the step every LLM strategy ends with: ask the model
// to answer a question from numbered text, in LongCite's
// <statement>…<cite>[a-b]</cite></statement> format, and turn the stream
// into cited, verified statements as it arrives.
//
// A strategy decides what to show and numbers it (a citations.Numbering:
// the whole scope for LAC-S, retrieved sentences with their real indices
// for RAC-S, chunks for RAC-C); Run builds the prompt (Messages), streams
// the chat, and emits engine Events: each Delta, each Statement the moment
// its </statement> arrives, a Stage when the server makes it retry, and
// the call's Usage. On failure it returns the statements finished so far
// with the error, so the strategy can return a partial answer.
//
//	num, _ := citations.NewSentenceNumbering(parts...)
//	res, err := generate.Run(ctx, client, generate.Request{
//		Question:  req.Question,
//		Numbering: num,
//		Resolve:   citations.ResolveOptions{MaxCitations: citations.LongBenchCiteCap},
//	}, emit)
//	ans := &engine.Answer{Statements: res.Statements, Model: res.Model, Warnings: res.Warnings}
//	return ans, err
//
// Fitting a scope into the model's context is FitScope (everything, or the
// most relevant sentences when it is too long) and FitRanked (retrieved
// sentences, best first, until the budget is spent).
package generate

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/llm"
)

// Request is one generation.
type Request struct {
	Question string
	// Numbering is what the prompt shows, in its order, and how the
	// model's numbers map back to text. Sentence mode ("<Cn>", citations
	// "[a-b]") or chunk mode ("Snippet [k]", citations "[k]").
	Numbering *citations.Numbering
	// Format is the prompt; "" means DefaultFormat of the model.
	Format Format
	// Resolve tunes how citations become spans (the per-statement cap).
	Resolve citations.ResolveOptions
	// Model overrides the client's model; MaxTokens and Temperature
	// override the configuration's when set.
	Model       string
	MaxTokens   int
	Temperature *float64
}

func (r Request) format() Format {
	if r.Format != "" {
		return r.Format
	}
	return DefaultFormat(r.Model)
}

func (r Request) check() error {
	switch {
	case r.Numbering == nil:
		return fmt.Errorf("%w: nothing numbered to answer from", ErrBadRequest)
	case r.format() == LongCiteModel && r.Numbering.Mode() == citations.ChunkMode:
		return fmt.Errorf("%w: the LongCite model format numbers sentences, not chunks; use format=%s for chunks", ErrBadRequest, OneShot)
	case r.format() != OneShot && r.format() != LongCiteModel:
		_, err := ParseFormat(string(r.format()))
		return err
	}
	return nil
}

// Result is what a generation produced, complete or not.
type Result struct {
	// Statements are the finished statements, in order. After a failure,
	// those whose </statement> arrived before it.
	Statements []citations.Statement
	// Text is the raw model text received.
	Text string
	// Model is the model that answered: the server's report, else the one
	// asked for.
	Model string
	Usage llm.Usage
	// FinishReason is the server's: "stop", or "length" when the answer
	// hit the output limit.
	FinishReason string
	// Warnings are things about the answer as a whole the reader should
	// know (it was cut off by the output limit, say).
	Warnings []string
}

// Run asks req's question of the model behind c and streams the answer.
// emit (which may be nil) receives each Delta, each Statement as soon as
// it is finished, a Stage before each retry, and finally the Usage of the
// call (when a request reached the server). It is called on the calling
// goroutine.
//
// On error Run still returns a Result: the statements finished before the
// failure and the text received. A statement the model had not finished
// when the stream broke is left out, since its text and citations may be
// cut short; it stays in Result.Text.
func Run(ctx context.Context, c *llm.Client, req Request, emit func(engine.Event)) (*Result, error) {
	if emit == nil {
		emit = func(engine.Event) {}
	}
	if req.Model == "" {
		req.Model = c.Config().Model
	}
	res := &Result{Model: req.Model, Statements: []citations.Statement{}}
	msgs, err := Messages(req)
	if err != nil {
		return res, err
	}
	ctx = engine.ReportRetries(ctx, emit)
	s := c.ChatStream(ctx, llm.ChatRequest{
		Messages: msgs, Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature,
	})
	defer s.Close()
	cs := citations.NewStream(req.Numbering, req.Question, req.Resolve)
	add := func(sts []citations.Statement) {
		for i := range sts {
			res.Statements = append(res.Statements, sts[i])
			st := sts[i]
			emit(engine.Event{Statement: &st})
		}
	}
	for s.Next() {
		d := s.Current()
		emit(engine.Event{Delta: d})
		add(cs.Write(d))
	}
	err = s.Err()
	if err == nil {
		add(cs.Close())
	}
	res.Text = s.Text()
	res.FinishReason = s.FinishReason()
	if m := s.Model(); m != "" {
		res.Model = m
	}
	res.Usage = s.Usage()
	if res.Usage.LLMCalls > 0 {
		u := res.Usage
		emit(engine.Event{Usage: &u})
	}
	if err == nil && res.FinishReason == "length" {
		limit := req.MaxTokens
		if limit <= 0 {
			limit = c.Config().MaxOutput
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the answer reached the output limit of %d tokens and may be cut short; raise max_output in the config file", limit))
	}
	return res, err
}
