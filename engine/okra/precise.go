package okra

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/citelens/citelens/citations"
)

// unanswerableHint is added to the question of okra-precise's first
// answer. The paper prompts the generating model "to respond 'unanswerable'
// if encountering a lack of evidence" (section 5.1, footnote 1) without
// printing the words; these are citelens's.
const unanswerableHint = "\n\n(If the document does not contain the information needed to answer the question, answer \"unanswerable\".)"

// reInsufficient matches an answer saying its context is insufficient: the
// paper's "unanswerable", and the ways models say so unprompted.
var reInsufficient = regexp.MustCompile(`(?i)\bunanswerable\b|` +
	`\b(cannot|can ?not|can't|could not|couldn't|is not possible to|isn't possible to|impossible to|unable to) (be )?(answer|answered|determine|determined|find|found|tell|say|identify|identified|confirm|confirmed|infer|inferred)\b|` +
	`\b(does|do|did) not (contain|provide|mention|include|specify|state|say|give|offer|have)\b|` +
	`\b(doesn't|don't|didn't) (contain|provide|mention|include|specify|state|say|give|offer|have)\b|` +
	`\b(no|not enough|insufficient|no relevant|no specific) (information|evidence|details?|data|mention)\b|` +
	`\bnot (mentioned|specified|provided|stated|given|available|included|found) in\b|` +
	`\bthere is no (mention|information|indication|evidence)\b|` +
	`\bi (do not|don't) know\b`)

// insufficient reports whether an answer says the context did not hold
// what the question needs: a statement in the words of reInsufficient, or
// an answer citing nothing at all (including an empty one). It returns the
// reason, for the plan.
func insufficient(sts []citations.Statement, text string) (bool, string) {
	cited := false
	for _, s := range sts {
		if m := reInsufficient.FindString(s.Text); m != "" {
			return true, fmt.Sprintf("the answer says %q", strings.ToLower(m))
		}
		cited = cited || len(s.Citations) > 0
	}
	if len(sts) == 0 {
		if m := reInsufficient.FindString(text); m != "" {
			return true, fmt.Sprintf("the answer says %q", strings.ToLower(m))
		}
		return true, "the answer has no statements"
	}
	if !cited {
		return true, "the answer cites nothing"
	}
	return false, ""
}
