package generate

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
)

// The rule every strategy that reads a model's structured reply keeps: an
// unreadable reply is never an empty success. A strategy that cannot go
// on from what the model wrote (a planner's reply that is not a step, an
// analyzer's that is not its dictionary, an answer that cites nothing)
// answers the question by Fallback instead, and the answer says so.

// FallbackSentences is how many sentences Fallback retrieves for the
// question: LongCite's RAC-S shows the top sentences the same way.
const FallbackSentences = 12

// extractiveStatements is how many retrieved sentences stand as the
// answer when even the fallback's model answer cites nothing.
const extractiveStatements = 3

// Fallback answers the question from retrieval over it, after the
// strategy could not go on from a model's reply (why, in the reader's
// words, names what was unreadable). It warns with why, then answers as
// RAC-S does (the FallbackSentences best sentences, numbered with their
// real indices, one LongCite call). When that answer cites nothing
// either, the statements are the best retrieved sentences themselves,
// each citing itself, as the offline extractive answer is, and a second
// warning says so. It returns the statements reported; the error only
// when retrieval or the model call failed, or ctx ended.
func Fallback(ctx context.Context, rt *engine.Runtime, why string) ([]citations.Statement, error) {
	rt.Warn(why + ": the answer is a cited answer from the sentences retrieved for the question")
	ps, err := rt.Retrieval().Sentences(ctx, rt.Question(), retrieve.Options{K: FallbackSentences, Context: rt.Previous()})
	if err != nil {
		return nil, err
	}
	ranked := Refs(rt, ps, false)
	if len(ranked) == 0 {
		return nil, fmt.Errorf("%w (falling back after: %s)", engine.ErrNothingRetrieved, why)
	}
	cfg := rt.Config()
	f := DefaultFormat(cfg.Model)
	fit := FitRanked(f, rt.Question(), rt.Docs(), ranked, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, NoRoom(cfg, "the fallback's prompt")
	}
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return nil, err
	}
	rt.Stagef("answering from the %d sentences retrieved for the question", num.Len())
	res, err := Run(ctx, rt, Request{Question: rt.Question(), Numbering: num, Format: f, Hold: true})
	if err != nil {
		return nil, err
	}
	if Cited(res.Statements) {
		for _, st := range res.Statements {
			rt.Statement(st)
		}
		return res.Statements, nil
	}
	rt.Warn("the model's fallback answer cited nothing either: the statements are the retrieved sentences that best match the question, each citing itself")
	var out []citations.Statement
	for _, r := range ranked[:min(extractiveStatements, len(ranked))] {
		d := rt.Docs()[r.Doc]
		sp := citations.SpanOf(d, r.Sentence, r.Sentence)
		st := citations.Statement{Text: sp.Text, Citations: []citations.Span{sp}}
		citations.Verify(&st)
		rt.Statement(st)
		out = append(out, st)
	}
	return out, nil
}

// Cited reports whether any statement cites the documents.
func Cited(sts []citations.Statement) bool {
	for _, st := range sts {
		if len(st.Citations) > 0 {
			return true
		}
	}
	return false
}
