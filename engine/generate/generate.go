// Package generate is the step every LLM strategy ends with: ask the model
// to answer a question from numbered text, in LongCite's
// <statement>…<cite>[a-b]</cite></statement> format, and turn the stream
// into cited, verified statements as it arrives.
//
// A strategy decides what to show and numbers it (a citations.Numbering:
// the whole scope for LAC-S, retrieved sentences with their real indices
// for RAC-S, chunks for RAC-C); Run builds the prompt (Messages), streams
// the chat through the answer's Caller, and reports each statement to
// the Runtime the moment its </statement> arrives. On failure the
// statements finished so far are the answer's, with the error.
//
//	num, _ := citations.NewSentenceNumbering(parts...)
//	_, err := generate.Run(ctx, rt, generate.Request{
//		Question:  rt.Question(),
//		Numbering: num,
//		Resolve:   citations.ResolveOptions{MaxCitations: citations.LongBenchCiteCap},
//	})
//	return err
//
// Fitting a scope into the model's context is FitScope (everything, or the
// most relevant sentences when it is too long) and FitRanked (retrieved
// sentences, best first, until the budget is spent).
//
// The passes several strategies share are here too, so that no strategy
// imports another: LongContextAnswer, the plain answer (the plain
// strategy's, and CoF's first step); Whole, LAC-S over the whole scope
// (longcite's, and okra-precise's reread); and CiteAnswer, CoF's post-hoc
// citing of a plain answer (cof's steps 2 and 3, and every strategy's
// repair option, Repair).
package generate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
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
	// JudgeAgainst is the question the statements' need for a citation is
	// judged against, when it is not Question (dag asks its final
	// question with the facts in it, but is judged against the user's).
	JudgeAgainst string
	// Hold keeps the statements from being reported: they are returned,
	// for a strategy that decides afterwards whether the answer stands
	// (okra-precise) and reports them itself.
	Hold bool
	// Repair, when set (Repair(rt) for the repair option), is
	// given the model's answer when it ignored the citation format
	// altogether — no <statement>, no citation anywhere — and cites it
	// afterwards, reporting the statements itself. The statements are
	// then held until the answer is complete. Not with Hold.
	Repair func(ctx context.Context, answer string) error
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
	case r.format() != OneShot && r.format() != LongCiteModel && r.format() != Lean:
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
	// Text is the model text received (as the reply checks passed it).
	Text string
	// Model is the model that answered: the server's report, else the one
	// asked for.
	Model string
	Usage llm.Usage
	// FinishReason is the server's: "stop", or "length" when the answer
	// hit the output limit (the Caller has warned about it).
	FinishReason string
	// Repaired reports that the model ignored the citation format and
	// Request.Repair cited its answer: Statements are the uncited ones it
	// replaced.
	Repaired bool
}

// Run asks req's question of the answer's model (rt.Model) and streams
// the answer: its text goes to the front end as it arrives, and each
// statement is reported to rt the moment its </statement> arrives (or,
// with req.Hold, returned only). The Caller reports the call's usage and
// retries, and warns when the output limit cut the answer short.
//
// On error Run still returns a Result: the statements finished before the
// failure and the text received. A statement the model had not finished
// when the stream broke is left out, since its text and citations may be
// cut short; it stays in Result.Text.
func Run(ctx context.Context, rt *engine.Runtime, req Request) (*Result, error) {
	m := rt.Model()
	if req.Model == "" {
		req.Model = m.Config().Model
	}
	res := &Result{Model: req.Model, Statements: []citations.Statement{}}
	msgs, err := Messages(req)
	if err != nil {
		return res, err
	}
	if req.Numbering != nil {
		rt.Shown(req.Numbering.Shown())
	}
	// A follow-up question comes after the conversation it follows
	// (Config's window already left room for it).
	msgs = append(rt.Preamble(), msgs...)
	judged := req.Question
	if req.JudgeAgainst != "" {
		judged = req.JudgeAgainst
	}
	cs := citations.NewStream(req.Numbering, judged, req.Resolve)
	repair := req.Repair != nil && !req.Hold
	add := func(sts []citations.Statement) {
		for _, st := range sts {
			res.Statements = append(res.Statements, st)
			if !req.Hold && !repair {
				rt.Statement(st)
			}
		}
	}
	reply, err := m.Stream(ctx, "the answer", llm.ChatRequest{
		Messages: msgs, Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature,
	}, func(d string) { add(cs.Write(d)) })
	if err == nil {
		add(cs.Close())
	}
	res.Text, res.FinishReason, res.Usage = reply.Text, reply.FinishReason, reply.Usage
	if reply.Model != "" {
		res.Model = reply.Model
	}
	if repair {
		if err == nil && ignoredFormat(res) {
			res.Repaired = true
			return res, req.Repair(ctx, res.Text)
		}
		for _, st := range res.Statements {
			rt.Statement(st)
		}
	}
	return res, err
}

// ignoredFormat reports an answer written without LongCite's format: not
// one <statement> tag, not one citation read.
func ignoredFormat(res *Result) bool {
	if len(res.Statements) == 0 || strings.Contains(strings.ToLower(res.Text), "<statement") {
		return false
	}
	for _, st := range res.Statements {
		if len(st.Citations) > 0 || len(st.Warnings) > 0 {
			return false
		}
	}
	return true
}

// ErrNoRoom means the model's context is too small for a prompt's
// instructions and even one unit of the documents.
var ErrNoRoom = errors.New("the model's context leaves no room for the documents")

// NoRoom is the error for a prompt (what: "the one-shot prompt") that the
// context of cfg's model has no room for; it says what to set.
func NoRoom(cfg config.Config, what string) error {
	return fix.With(fmt.Errorf("%w: a context of %d tokens less %d for the answer leaves too little for %s",
		ErrNoRoom, cfg.ContextWindow, cfg.MaxOutput, what),
		"Set context_window in the config file to the model's real context size, or lower max_output.")
}
