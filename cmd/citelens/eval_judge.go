package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// `citelens eval --judge`: LongBench-Cite's judged figures beside the
// offline ones, with a model as the judge — the configured judge
// (judge_model, judge_base_url, --judge-model), else the answering model.
// --judge (or --judge citations) scores citation recall, precision and
// F1; --judge correctness the answer's correctness; --judge all both. A
// nil *evalJudge (no --judge) does nothing, so cmd_eval.go calls it
// unconditionally.

// judgeKinds are what --judge can judge.
var judgeKinds = []string{"citations", "correctness", "all"}

// judgeFlag is --judge. Given alone it judges citations, as it always
// has; --judge KIND[,KIND] (or --judge=KIND) names what to judge.
type judgeFlag struct{ citations, correctness bool }

func (f *judgeFlag) IsBoolFlag() bool { return true }

func (f *judgeFlag) String() string {
	var on []string
	if f.citations {
		on = append(on, "citations")
	}
	if f.correctness {
		on = append(on, "correctness")
	}
	return strings.Join(on, ",")
}

func (f *judgeFlag) Set(v string) error {
	*f = judgeFlag{}
	for part := range strings.SplitSeq(v, ",") {
		switch strings.TrimSpace(part) {
		case "true", "citations":
			f.citations = true
		case "false":
		case "correctness":
			f.correctness = true
		case "all":
			f.citations, f.correctness = true, true
		default:
			return fmt.Errorf("%q: judge %s", part, strings.Join(judgeKinds, ", "))
		}
	}
	return nil
}

func (f *judgeFlag) on() bool { return f.citations || f.correctness }

// joinJudgeArg turns "--judge KIND" into "--judge=KIND": the flag package
// reads a boolean flag's value only after '='.
func joinJudgeArg(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--judge" || a == "-judge") && i+1 < len(args) && isJudgeKinds(args[i+1]) {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}

func isJudgeKinds(s string) bool {
	for part := range strings.SplitSeq(s, ",") {
		if !slices.Contains(judgeKinds, part) {
			return false
		}
	}
	return true
}

// evalJudge scores each answer with the judge and keeps the figures.
type evalJudge struct {
	j       *judge.Judge
	kinds   judgeFlag
	figures []judge.Figures
	correct []judge.CorrectnessFigures
	failed  int
	// lost is what the judge spent on answers it could not score; the
	// report counts it with the rest.
	lost llm.Usage
}

// scoreLine is one question's scores: the offline figures and, with
// --judge, the judged ones (citation_recall_judged, …, judge_llm_calls;
// correctness_judged, …).
type scoreLine struct {
	citations.Scores
	*judge.Figures
	*judge.CorrectnessFigures
}

// judgedReport and correctnessReport are the judged summaries in eval's
// last line; aliases so they can be embedded beside citations.Report.
type (
	judgedReport      = judge.Report
	correctnessReport = judge.CorrectnessReport
)

// newEvalJudge returns the judge for --judge, or nil without it. model,
// when set, is the judging model (--judge-model), on the judge's
// endpoint.
func newEvalJudge(env *engine.Env, kinds judgeFlag, model string) (*evalJudge, error) {
	if !kinds.on() {
		return nil, nil
	}
	cfg := env.Config
	if model != "" {
		cfg.Judge.Model = model
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
	return &evalJudge{j: judge.New(c, judge.Options{}), kinds: kinds}, nil
}

// score judges one answer. A judge that fails on it (an unreadable
// rating, the endpoint down after retries) leaves the question unjudged,
// said on w; only cancellation stops the evaluation.
func (e *evalJudge) score(ctx context.Context, w io.Writer, g citations.Gold, ans *engine.Answer) (*judge.Figures, *judge.CorrectnessFigures, error) {
	if e == nil {
		return nil, nil, nil
	}
	var (
		f *judge.Figures
		c *judge.CorrectnessFigures
	)
	if e.kinds.citations {
		res, err := e.j.Score(ctx, ans)
		if err != nil {
			e.lost.Add(res.Usage)
			return nil, nil, e.notJudged(ctx, w, g.ID, err)
		}
		fig := res.Figures()
		e.figures = append(e.figures, fig)
		f = &fig
	}
	if e.kinds.correctness && len(g.Answers) > 0 {
		res, err := e.j.Correctness(ctx, g.Question, citations.AnswerText(ans), g.Answers, g.Task, g.FewShot)
		if err != nil {
			e.lost.Add(res.Usage)
			return f, nil, e.notJudged(ctx, w, g.ID, err)
		}
		fig := res.Figures()
		e.correct = append(e.correct, fig)
		c = &fig
	}
	return f, c, nil
}

// notJudged says on w that question id was not judged, and returns err
// only if it is the evaluation's cancellation.
func (e *evalJudge) notJudged(ctx context.Context, w io.Writer, id string, err error) error {
	if engine.Canceled(err) || ctx.Err() != nil {
		return err
	}
	e.failed++
	if isTerminal(w) {
		fmt.Fprint(w, "\r\x1b[2K") // clear the progress line
	}
	fmt.Fprintf(w, "question %s: not judged: %s\n", textproc.OneLine(id), textproc.OneLine(err.Error()))
	return nil
}

// report is the judged citation figures' summary, nil unless they were
// judged.
func (e *evalJudge) report() *judge.Report {
	if e == nil || !e.kinds.citations {
		return nil
	}
	r := judge.Summarize(e.j.Model(), e.figures)
	r.JudgeCalls += e.lost.LLMCalls
	r.JudgePromptTokens += e.lost.PromptTokens
	r.JudgeCompletionTokens += e.lost.CompletionTokens
	return &r
}

// correctness is the judged correctness' summary, nil unless it was
// judged.
func (e *evalJudge) correctness() *judge.CorrectnessReport {
	if e == nil || !e.kinds.correctness {
		return nil
	}
	r := judge.SummarizeCorrectness(e.correct)
	return &r
}

// model is the judging model, "" without --judge.
func (e *evalJudge) model() string {
	if e == nil {
		return ""
	}
	return e.j.Model()
}

// printSummary writes the judged figures' lines for a person.
func (e *evalJudge) printSummary(w io.Writer) {
	if e == nil {
		return
	}
	if r := e.report(); r != nil {
		fmt.Fprintf(w, "judged by %s over %d questions: citation_recall %.3f, citation_precision %.3f, citation_f1 %.3f; the judge used %d calls, %d prompt and %d completion tokens",
			textproc.OneLine(r.JudgeModel), r.Judged, r.CitationRecall, r.CitationPrecision, r.CitationF1, r.JudgeCalls, r.JudgePromptTokens, r.JudgeCompletionTokens)
		if e.failed > 0 {
			fmt.Fprintf(w, " (%d not judged)", e.failed)
		}
		fmt.Fprintln(w)
	}
	if c := e.correctness(); c != nil {
		fmt.Fprintf(w, "correctness judged by %s over %d questions: %.3f (LongCite Figures 4-6, 0 to 1); the judge used %d calls, %d prompt and %d completion tokens",
			textproc.OneLine(e.model()), c.Judged, c.Correctness, c.JudgeCalls, c.JudgePromptTokens, c.JudgeCompletionTokens)
		if c.Unrated > 0 {
			fmt.Fprintf(w, " (%d ratings never given, scored 0.5 as the reference does)", c.Unrated)
		}
		fmt.Fprintln(w)
	}
}
