package generate

import (
	"context"
	"errors"
	"fmt"
	"regexp"

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

// Settle keeps the rule after a strategy's last generation, res with
// its error err: an answer that finished with no statement citing the
// documents, and not saying that they lack the answer (Unanswerable),
// falls back to Fallback. It returns the error to return.
func Settle(ctx context.Context, rt *engine.Runtime, res *Result, err error) error {
	if err != nil || res == nil || res.Repaired || Cited(res.Statements) {
		return err
	}
	for _, st := range res.Statements {
		if Unanswerable(st.Text) {
			return nil // an answer, uncited by its nature
		}
	}
	why := "the model's answer cited nothing"
	if len(res.Statements) == 0 {
		why = "the model's answer had no statement"
	}
	_, err = Fallback(ctx, rt, why)
	if errors.Is(err, engine.ErrNothingRetrieved) && len(res.Statements) > 0 {
		rt.Warn("nothing in the documents shares a word with the question, so the model's uncited answer stands")
		return nil
	}
	return err
}

// unanswerableRE matches an answer saying the question cannot be
// answered from what was shown: the word OkraLong asks for
// ("unanswerable", section 5.1), and the plain ways of saying the text
// does not hold the answer. A statement about the world ("the company
// does not have a subsidiary", "no data were collected") is not one.
var unanswerableRE = regexp.MustCompile(`(?i)\bunanswerable\b|^i (do not|don't) know\b|^there is no (information|mention|indication)\b|` +
	`\b(cannot|can ?not|can't|could not|couldn't|unable to) (be )?(answer|answered|determine|determined|find|found|tell)\b.*\b(from|in|based on) the (given |provided |shown )?(document|documents|context|text|passage|passages|reference|information|snippets?)\b|` +
	`\b(the|this|these|given|provided) (document|documents|context|text|passage|passages|reference|snippets?) (does|do|did) not (contain|provide|mention|include|specify|state|say|give)\b|` +
	`\b(document|documents|context|text|passage|reference) (doesn't|don't|didn't) (contain|provide|mention|include|specify|state|say|give)\b|` +
	`\b(no|not enough|insufficient) (information|evidence|details?)\b.*\b(in|from) the (given |provided )?(document|documents|context|text|passage|passages|reference)\b|` +
	`\bnot (mentioned |specified |provided |stated |given |included |found )?in the (given |provided )?(document|documents|context|text|passage|passages|reference)\b`)

// Unanswerable reports whether text says the question cannot be
// answered from the text shown to the model.
func Unanswerable(text string) bool { return unanswerableRE.MatchString(text) }

// Cited reports whether any statement cites the documents.
func Cited(sts []citations.Statement) bool {
	for _, st := range sts {
		if len(st.Citations) > 0 {
			return true
		}
	}
	return false
}
