package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/internal/fix"
)

// `citelens eval --judge`: LongBench-Cite's citation recall, precision and
// F1 with the configured model as the judge, beside the offline figures.
// A nil *evalJudge (no --judge) does nothing, so cmd_eval.go calls it
// unconditionally.

// evalJudge scores each answer with the judge and keeps the figures.
type evalJudge struct {
	j       *judge.Judge
	figures []judge.Figures
	failed  int
	// lost is what the judge spent on answers it could not score; the
	// report counts it with the rest.
	lost llm.Usage
}

// scoreLine is one question's scores: the offline figures and, with
// --judge, the judged ones (citation_recall_judged, …, judge_llm_calls).
type scoreLine struct {
	citations.Scores
	*judge.Figures
}

// judgedReport is the judged summary in eval's last line; an alias so it
// can be embedded beside citations.Report.
type judgedReport = judge.Report

// newEvalJudge returns the judge for --judge, or nil without it.
func newEvalJudge(env *engine.Env, on bool) (*evalJudge, error) {
	if !on {
		return nil, nil
	}
	c, err := env.RequireLLM("eval --judge")
	if err != nil {
		return nil, fix.With(err, "The judge is the configured model: set OPENAI_BASE_URL (or OPENAI_API_KEY) and CITELENS_MODEL.")
	}
	return &evalJudge{j: judge.New(c, judge.Options{})}, nil
}

// score judges one answer. A judge that fails on it (an unreadable
// rating, the endpoint down after retries) leaves the question unjudged,
// said on w; only cancellation stops the evaluation.
func (e *evalJudge) score(ctx context.Context, w io.Writer, id string, ans *engine.Answer) (*judge.Figures, error) {
	if e == nil {
		return nil, nil
	}
	res, err := e.j.Score(ctx, ans)
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil, err
		}
		e.failed++
		e.lost.Add(res.Usage)
		if isTerminal(w) {
			fmt.Fprint(w, "\r\x1b[2K") // clear the progress line
		}
		fmt.Fprintf(w, "question %s: not judged: %s\n", textproc.OneLine(id), textproc.OneLine(err.Error()))
		return nil, nil
	}
	f := res.Figures()
	e.figures = append(e.figures, f)
	return &f, nil
}

// report is the judged summary, nil without --judge.
func (e *evalJudge) report() *judgedReport {
	if e == nil {
		return nil
	}
	r := judge.Summarize(e.j.Model(), e.figures)
	r.JudgeCalls += e.lost.LLMCalls
	r.JudgePromptTokens += e.lost.PromptTokens
	r.JudgeCompletionTokens += e.lost.CompletionTokens
	return &r
}

// printSummary writes the judged figures' line for a person.
func (e *evalJudge) printSummary(w io.Writer) {
	if e == nil {
		return
	}
	r := e.report()
	fmt.Fprintf(w, "judged by %s over %d questions: citation_recall %.3f, citation_precision %.3f, citation_f1 %.3f; the judge used %d calls, %d prompt and %d completion tokens",
		textproc.OneLine(r.JudgeModel), r.Judged, r.CitationRecall, r.CitationPrecision, r.CitationF1, r.JudgeCalls, r.JudgePromptTokens, r.JudgeCompletionTokens)
	if e.failed > 0 {
		fmt.Fprintf(w, " (%d not judged)", e.failed)
	}
	fmt.Fprintln(w)
}
