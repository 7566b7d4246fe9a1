package longcite

import (
	"context"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// PlainName is the registered name of the plain strategy.
const PlainName = "plain"

func init() {
	engine.Register(engine.Info{
		Strategy:    engine.Define(PlainName, nil, answerPlain),
		Description: "Long-context answer without citations (LongCite's LQA baseline): the model reads the documents and answers in plain text; eval measures the correctness ratio CR = C / C_LQA against it",
		Purpose:     "The model reads everything and answers without citations: a baseline to compare answers with.",
		NeedsLLM:    true,
	})
}

// answerPlain is vanilla long-context QA (LongCite section 2.3.1, C_LQA:
// "simply feeding the concatenated context and query into the LLM to get
// a response"): the model reads the scope and the question, with no
// instruction of citelens's (generate.BareAnswer). The answer's statements are its sentences,
// uncited: it is the baseline a cited answer's correctness is measured
// against (`citelens eval --lqa`), not an answer to check.
func answerPlain(ctx context.Context, rt *engine.Runtime) error {
	text, err := generate.BareAnswer(ctx, rt, "answering without citations with", "the answer")
	if err != nil {
		return err // the answer keeps what the model was writing (engine.Run)
	}
	for _, s := range generate.AnswerSentences(text) {
		rt.Statement(citations.Statement{Text: s})
	}
	return nil
}
