package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Judging says what a model judges, as LongBench-Cite does: citation
// recall, precision and F1 (Citations), the answer's correctness
// (Correctness, LongCite Figures 4-6), or both. The judge is Model on
// judge_base_url when set, else judge_model in the configuration, else
// the answering model.
type Judging struct {
	Citations, Correctness bool
	Model                  string
}

// On reports whether anything is judged.
func (j Judging) On() bool { return j.Citations || j.Correctness }

// Scores are one question's scores: the offline figures and, when judged,
// the judged ones (citation_recall_judged, …, judge_llm_calls;
// correctness_judged, …).
type Scores struct {
	citations.Scores
	*judge.Figures
	*judge.CorrectnessFigures
	*ShortScores
	*RougeScores
	*CCRScores
	// LQA is the plain strategy's judged correctness of the question,
	// when it answered alongside (Config.LQA, RunPlain).
	LQA *float64 `json:"correctness_lqa,omitempty"`
}

// judged scores each answer with the judge and keeps the figures. A nil
// *judged (nothing judged) does nothing, so Run calls it unconditionally.
type judged struct {
	j       *judge.Judge
	kinds   Judging
	figures []judge.Figures
	correct []judge.CorrectnessFigures
	failed  int
	counts  JudgedCounts
	// lost is what the judge spent on answers it could not score; the
	// report counts it with the rest.
	lost llm.Usage
}

// newJudged returns the judge for kinds, or nil when nothing is judged.
func newJudged(env *engine.Env, kinds Judging) (*judged, error) {
	if !kinds.On() {
		return nil, nil
	}
	cfg := env.Config
	if kinds.Model != "" {
		cfg.Judge.Model = kinds.Model
	}
	jc := cfg.JudgeConfig()
	if err := jc.Configured(); err != nil {
		if cfg.Judge.BaseURL != "" && errors.Is(err, config.ErrNoModel) {
			return nil, fix.With(fmt.Errorf("the judge's endpoint %s has no model named", config.RedactURL(cfg.Judge.BaseURL)),
				"Name the judge with --judge-model or judge_model in the config file (%s).", config.EnvJudgeModel)
		}
		return nil, fix.With(fmt.Errorf("eval --judge needs a model: %w", err),
			"The judge is judge_model (--judge-model) on judge_base_url, else the answering model: set OPENAI_BASE_URL (or OPENAI_API_KEY) and CITELENS_MODEL.")
	}
	c, err := llm.New(jc)
	if err != nil {
		return nil, err
	}
	return &judged{j: judge.New(c, judge.Options{}), kinds: kinds}, nil
}

// score judges one answer. A judge that fails on it (an unreadable
// rating, the endpoint down after retries) leaves the question unjudged,
// said through notice; only cancellation stops the evaluation.
func (e *judged) score(ctx context.Context, notice func(string), g citations.Gold, ans *engine.Answer) (*judge.Figures, *judge.CorrectnessFigures, error) {
	if e == nil {
		return nil, nil, nil
	}
	var (
		f *judge.Figures
		c *judge.CorrectnessFigures
	)
	if e.kinds.Citations {
		// A citation rating the judge could not give leaves correctness
		// to be judged all the same, as LongBench-Cite's scorer judges
		// the two apart.
		res, err := e.j.Score(ctx, ans)
		if err != nil {
			e.lost.Add(res.Usage)
			e.counts.CitationsNotJudged++
			if err := e.notJudged(ctx, notice, g.ID+" (citations)", err); err != nil {
				return nil, nil, err
			}
		} else {
			fig := res.Figures()
			e.figures = append(e.figures, fig)
			f = &fig
		}
	}
	if e.kinds.Correctness && len(g.Answers) > 0 {
		fig, err := e.correctness(ctx, notice, g, ans)
		if err != nil || fig == nil {
			return f, nil, err
		}
		e.correct = append(e.correct, *fig)
		c = fig
	}
	return f, c, nil
}

// correctness rates one answer's correctness, nil (and no error) when the
// judge failed on it.
func (e *judged) correctness(ctx context.Context, notice func(string), g citations.Gold, ans *engine.Answer) (*judge.CorrectnessFigures, error) {
	res, err := e.j.Correctness(ctx, g.Question, citations.AnswerText(ans), g.Answers, g.Task, g.FewShot)
	if err != nil {
		e.lost.Add(res.Usage)
		e.counts.CorrectnessNotJudged++
		return nil, e.notJudged(ctx, notice, g.ID+" (correctness)", err)
	}
	fig := res.Figures()
	return &fig, nil
}

// notJudged says that question id was not judged, and returns err only
// if it is the evaluation's cancellation.
func (e *judged) notJudged(ctx context.Context, notice func(string), id string, err error) error {
	if engine.Canceled(err) || ctx.Err() != nil {
		return err
	}
	e.failed++
	if notice != nil {
		notice(fmt.Sprintf("question %s: not judged: %s", textproc.OneLine(id), textproc.OneLine(err.Error())))
	}
	return nil
}

// report is the judged citation figures' summary, nil unless they were
// judged.
func (e *judged) report() *judge.Report {
	if e == nil || !e.kinds.Citations {
		return nil
	}
	r := judge.Summarize(e.j.Model(), e.figures)
	r.JudgeCalls += e.lost.LLMCalls
	r.JudgePromptTokens += e.lost.PromptTokens
	r.JudgeCompletionTokens += e.lost.CompletionTokens
	return &r
}

// correctnessReport is the judged correctness' summary, nil unless it
// was judged.
func (e *judged) correctnessReport() *judge.CorrectnessReport {
	if e == nil || !e.kinds.Correctness {
		return nil
	}
	r := judge.SummarizeCorrectness(e.correct)
	return &r
}

// model is the judging model, "" when nothing is judged.
func (e *judged) model() string {
	if e == nil {
		return ""
	}
	return e.j.Model()
}
