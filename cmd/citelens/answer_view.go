package main

import (
	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
)

// answerView is the shape of `ask --json`: each citation carries its own
// support verdict, which is how a script wants to read it.
type answerView struct {
	ID         string          `json:"id,omitempty"` // the question's ID in --batch mode
	Question   string          `json:"question"`
	Strategy   string          `json:"strategy"`
	Model      string          `json:"model"`
	Statements []statementView `json:"statements"`
	Stages     []string        `json:"stages"`
	Plan       any             `json:"plan,omitempty"`
	Usage      citations.Usage `json:"usage"`
	Seconds    float64         `json:"seconds"`
	AnswerID   string          `json:"answer_id"`
	Partial    bool            `json:"partial,omitempty"`
	Error      string          `json:"error,omitempty"`
}

type statementView struct {
	Text          string         `json:"text"`
	Citations     []citationView `json:"citations"`
	NeedsCitation bool           `json:"needs_citation,omitempty"`
	Warnings      []string       `json:"warnings,omitempty"`
}

type citationView struct {
	citations.Span
	Support string  `json:"support,omitempty"`
	Score   float64 `json:"score"`
}

func newAnswerView(ans *engine.Answer, questionID string) answerView {
	v := answerView{
		ID: questionID, Question: ans.Question, Strategy: ans.Strategy, Model: ans.Model,
		Stages: ans.Stages, Plan: ans.Plan, Usage: ans.Usage, Seconds: ans.Seconds,
		AnswerID: ans.ID, Partial: ans.Partial, Error: ans.Error,
		Statements: make([]statementView, 0, len(ans.Statements)),
	}
	for _, s := range ans.Statements {
		sv := statementView{Text: s.Text, NeedsCitation: s.NeedsCitation, Warnings: s.Warnings, Citations: make([]citationView, 0, len(s.Citations))}
		for i, c := range s.Citations {
			cv := citationView{Span: c}
			if i < len(s.Support) {
				cv.Support, cv.Score = string(s.Support[i].Level), s.Support[i].Score
			}
			sv.Citations = append(sv.Citations, cv)
		}
		v.Statements = append(v.Statements, sv)
	}
	return v
}
