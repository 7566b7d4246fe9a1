package eval

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// learning is the feedback loop of a strategy that learns in context
// (engine.Grader, RAIDD-S ICL): after each question with true answers,
// the strategy's model grades the answer against them, and the lesson
// goes before every question after it.
type learning struct {
	lessons  []engine.Lesson
	ungraded int
	usage    llm.Usage
	graders  bool
}

// grade grades ans when cfg's strategy learns and g has true answers. A
// reply with no score is told (cfg.Notice) and counted, not fatal; an
// endpoint's failure or a cancellation is.
func (l *learning) grade(ctx context.Context, env *engine.Env, cfg *Config, g citations.Gold, ans *engine.Answer) error {
	gr, ok := cfg.Strategy.(engine.Grader)
	if !ok || ans == nil || len(g.Answers) == 0 {
		return nil
	}
	l.graders = true
	lesson, u, err := gr.Grade(ctx, env, g.Question, ans, g.Answers)
	l.usage.Add(u)
	switch {
	case errors.Is(err, engine.ErrUngraded):
		l.ungraded++
		if cfg.Notice != nil {
			cfg.Notice(fmt.Sprintf("question %s: %v; it teaches the questions after it nothing", textproc.OneLine(g.ID), err))
		}
		return nil
	case err != nil:
		return fmt.Errorf("question %s: grading the answer: %w", g.ID, err)
	}
	l.lessons = append(l.lessons, lesson)
	return nil
}

// LearningReport is what the grading did and cost.
type LearningReport struct {
	Lessons          int `json:"lessons"`
	Ungraded         int `json:"ungraded"`
	LLMCalls         int `json:"llm_calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// MeanScore is the mean of the scores the model gave its answers.
	MeanScore float64 `json:"mean_self_score"`
}

func (l *learning) report() *LearningReport {
	if !l.graders {
		return nil
	}
	r := &LearningReport{Lessons: len(l.lessons), Ungraded: l.ungraded, LLMCalls: l.usage.LLMCalls,
		PromptTokens: l.usage.PromptTokens, CompletionTokens: l.usage.CompletionTokens}
	for _, ls := range l.lessons {
		r.MeanScore += ls.Score / float64(len(l.lessons))
	}
	return r
}

// print writes the learning line of the summary.
func (r *LearningReport) print(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "learning in context: %d answers graded by the model (mean self-score %.2f, %d ungraded), %d calls, %d prompt and %d completion tokens\n",
		r.Lessons, r.MeanScore, r.Ungraded, r.LLMCalls, r.PromptTokens, r.CompletionTokens)
}
