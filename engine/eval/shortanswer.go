package eval

import (
	"fmt"
	"io"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
)

// ShortAnswerer is a plan that holds the strategy's short answer beside
// the cited long form the reader gets: dag's planner's own "X is the
// answer." (Algorithm 2's final answer, which the dynamic in-context
// editing paper scores). eval scores it for answer F1 and EM apart.
type ShortAnswerer interface {
	// ShortAnswer is the short answer, "" when there is none.
	ShortAnswer() string
}

// ShortScores are one question's short-answer scores, when its answer's
// plan has a short answer and the question gold answers.
type ShortScores struct {
	ShortF1 *float64 `json:"answer_f1_short,omitempty"`
	ShortEM *float64 `json:"answer_em_short,omitempty"`
}

// ShortReport is the short answers' summary: their mean F1 and EM over
// the questions that had one.
type ShortReport struct {
	ShortAnswers int     `json:"short_answers"`
	ShortF1      float64 `json:"answer_f1_short"`
	ShortEM      float64 `json:"answer_em_short"`
}

// shortScores scores ans's short answer against g's answers.
func shortScores(ans *engine.Answer, g citations.Gold) *ShortScores {
	if ans == nil || len(g.Answers) == 0 {
		return nil
	}
	sa, ok := ans.Plan.(ShortAnswerer)
	if !ok || sa.ShortAnswer() == "" {
		return nil
	}
	f1, em := citations.AnswerF1(sa.ShortAnswer(), g.Answers), citations.AnswerEM(sa.ShortAnswer(), g.Answers)
	return &ShortScores{ShortF1: &f1, ShortEM: &em}
}

// shortSummary gathers short-answer scores into a report; nil when no
// answer had a short answer.
type shortSummary struct{ f1, em []float64 }

func (s *shortSummary) add(sc *ShortScores) {
	if sc != nil {
		s.f1, s.em = append(s.f1, *sc.ShortF1), append(s.em, *sc.ShortEM)
	}
}

func (s *shortSummary) report() *ShortReport {
	if len(s.f1) == 0 {
		return nil
	}
	r := &ShortReport{ShortAnswers: len(s.f1)}
	for i := range s.f1 {
		r.ShortF1 += s.f1[i]
		r.ShortEM += s.em[i]
	}
	r.ShortF1 /= float64(len(s.f1))
	r.ShortEM /= float64(len(s.f1))
	return r
}

// print writes the short answers' line of the summary.
func (r *ShortReport) print(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "short answers (the strategy's own, as its paper scores them) over %d questions: answer_f1 %.3f, answer_em %.3f\n",
		r.ShortAnswers, r.ShortF1, r.ShortEM)
}
