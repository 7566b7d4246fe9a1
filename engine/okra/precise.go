package okra

import (
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/internal/textproc"
)

// unanswerableHint is added to the question of okra-precise's first
// answer. The paper prompts the generating model "to respond 'unanswerable'
// if encountering a lack of evidence" (section 5.1, footnote 1) without
// printing the words; these are citelens's.
const unanswerableHint = "\n\n(If the document does not contain the information needed to answer the question, answer \"unanswerable\".)"

// insufficient reports whether an answer says the question is
// unanswerable from its context, as the paper's precise mode triggers on
// (section 5.1: the model responds "unanswerable" on a lack of evidence):
// a statement saying so (generate.Unanswerable), or, with no statements,
// the text. A negative statement about the world ("the fund does not
// have a reserve", "no data were kept") is an answer, not a lack of
// evidence, and rereading the whole documents for it costs tens of
// times the tokens. It returns the reason, for the plan.
func insufficient(sts []citations.Statement, text string) (bool, string) {
	for _, s := range sts {
		if generate.Unanswerable(s.Text) {
			return true, fmt.Sprintf("the answer says %q", clip(textproc.OneLine(s.Text), 80))
		}
	}
	if len(sts) == 0 {
		if generate.Unanswerable(text) {
			return true, fmt.Sprintf("the answer says %q", clip(textproc.OneLine(text), 80))
		}
		return true, "the answer has no statements"
	}
	return false, ""
}
