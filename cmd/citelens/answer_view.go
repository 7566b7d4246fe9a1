package main

import (
	"github.com/citelens/citelens/engine"
)

// answerView is the shape of `ask --json` and of eval's records: the
// answer record itself (citations' JSON, each citation with its verdict),
// plus the question's ID from a questions.jsonl file in --batch mode.
type answerView struct {
	ID string `json:"id,omitempty"`
	*engine.Answer
}

func newAnswerView(ans *engine.Answer, questionID string) answerView {
	return answerView{ID: questionID, Answer: ans}
}
