package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/citelens/citelens/llm"
)

// Lesson is an earlier answer graded against its ground truth: one of the
// solution-score pairs of RAIDD-S ICL (Shah et al., section 2.2), where
// the model, as an optimiser, sees its past answers, the true answers and
// the scores it gave itself before answering the next question.
type Lesson struct {
	Question string  `json:"question"`
	Answer   string  `json:"answer"`
	Truth    string  `json:"ground_truth"`
	Score    float64 `json:"score"` // 0 to 1
}

// Grader is a strategy that learns in context from graded answers. An
// evaluation, which has the ground truth, asks it to grade each answer
// after it is scored, and gives the lessons so far to every question
// after (Request.Lessons).
type Grader interface {
	Strategy
	// Grade has the model score ans against the true answers, 0 to 1.
	Grade(ctx context.Context, env *Env, question string, ans *Answer, truths []string) (Lesson, llm.Usage, error)
}

// ErrUngraded is a Grader's failure to get a score from the model: its
// grading replies held none.
var ErrUngraded = errors.New("the model's grading reply holds no score from 0 to 1")

// Bounds on the lessons an answer's prompt carries: the newest
// MaxLessons, each part cut to LessonTokens, so that they cannot crowd
// the documents out of the prompt.
const (
	MaxLessons   = 8
	LessonTokens = 200
)

// boundLessons keeps the newest MaxLessons of ls, their texts cut short.
func boundLessons(ls []Lesson) []Lesson {
	if len(ls) > MaxLessons {
		ls = ls[len(ls)-MaxLessons:]
	}
	out := make([]Lesson, len(ls))
	for i, l := range ls {
		out[i] = Lesson{Question: cutTokens(l.Question, LessonTokens), Answer: cutTokens(l.Answer, LessonTokens),
			Truth: cutTokens(l.Truth, LessonTokens), Score: min(max(l.Score, 0), 1)}
	}
	return out
}

// lessonIntro is the meta-prompt's task description: what the pairs are
// and what the model is to do with them.
const lessonIntro = "You answer questions about documents, and you learn from your past answers. Below are questions you answered before, each with your answer, the true answer and the score from 0 to 1 your answer earned against it. Notice what the high-scoring answers did and the low-scoring ones missed, and answer the next question so that it would score well."

// LessonMessages is the meta-prompt of lessons: the task description and
// the solution-score pairs, as a turn the model acknowledges; none for no
// lessons.
func LessonMessages(ls []Lesson) []llm.Message {
	if len(ls) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(lessonIntro)
	for i, l := range ls {
		fmt.Fprintf(&b, "\n\nPast question %d: %s\nYour answer: %s\nTrue answer: %s\nScore: %.2f", i+1, l.Question, l.Answer, l.Truth, l.Score)
	}
	return []llm.Message{llm.User(b.String()), llm.Assistant("Understood. I will answer the next question with these in mind.")}
}
