package eval

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/internal/textproc"
)

// Config is one evaluation: the strategy and how it answers, what is
// judged, where each question's results go, and the front end's hooks.
type Config struct {
	Strategy engine.Strategy
	// Options are the strategy's settings for every question.
	Options []engine.Setting
	// Judging says what a model judges; the zero value judges nothing.
	Judging Judging
	// LQA, when set, is where the plain strategy's correctness is found
	// for the correctness ratio CR = C / C_LQA: a plain run's records
	// file, or RunPlain. It turns judging correctness on.
	LQA string

	// Records, if set, receives each question's scores and answer as a
	// JSON line ({"scores": …, "answer": …}): `eval --out`.
	Records io.Writer
	// Scores, if set, receives each question's scores as a JSON line as
	// it is answered: `eval --per-question`.
	Scores io.Writer

	// Progress, if set, is called before each question is answered, with
	// its place (1-based) among them: the front end draws its progress.
	Progress func(question, questions int)
	// Notice, if set, receives what the person running the evaluation
	// should read as it happens ("question q7: not judged: …"), one line
	// each.
	Notice func(string)
	// Resolve, if set, turns a question's document names into documents
	// (the command line's resolution, with its fixes); by default
	// docstore.Library.ResolveAll.
	Resolve func(lib *docstore.Library, refs []string) ([]docstore.DocID, error)
	// Prepare, if set, runs the strategy's Preparer before the questions
	// (the command line draws a progress bar and explains a failure); by
	// default prep.Prepare.
	Prepare func(ctx context.Context, prep engine.Preparer, p engine.Preparation) (*engine.Prepared, error)
}

// resolve turns document names into documents.
func (c *Config) resolve(lib *docstore.Library, refs []string) ([]docstore.DocID, error) {
	if c.Resolve != nil {
		return c.Resolve(lib, refs)
	}
	return lib.ResolveAll(refs)
}

// Record is one question's line in Config.Records.
type Record struct {
	Scores Scores       `json:"scores"`
	Answer AnswerRecord `json:"answer"`
}

// AnswerRecord is an answer with the ID of the question it answers.
type AnswerRecord struct {
	ID string `json:"id,omitempty"`
	*engine.Answer
}

// Summary is what an evaluation found: the offline figures over every
// question, the preparation's cost, and the judged figures when judged.
// Its JSON is eval's last line.
type Summary struct {
	Strategy string `json:"strategy"`
	citations.Report
	Derive     *Derive `json:"derive,omitempty"`
	JudgeModel string  `json:"judge_model,omitempty"`
	*judgedReport
	*correctnessReport
	*CorrectnessRatio
	*JudgedCounts
	// PaperCost is OkraLong's cost per question (OkraLongCost), when a
	// model answered.
	PaperCost *float64 `json:"okralong_cost_mean,omitempty"`
	*ShortReport
	*RougeReport
	*CCRReport
	// Learning is what grading the answers for a strategy that learns in
	// context cost (engine.Grader), when it is one.
	Learning *LearningReport `json:"learning,omitempty"`

	failed int // questions the judge could not judge
}

// judgedReport and correctnessReport are the judged summaries; aliases
// so they can be embedded beside citations.Report.
type (
	judgedReport      = judge.Report
	correctnessReport = judge.CorrectnessReport
)

// Run answers golds in env's library with cfg.Strategy, one after the
// other, and scores each answer; the questions' documents must be in the
// library (DocFiles lists a data set's). A strategy that must prepare the
// documents first (engine.Preparer) is prepared before the first
// question. An answer that fails is scored as it stands (partial, or
// empty); a question whose documents are missing, a cancelled evaluation
// or a record that cannot be written stops the run with the error.
func Run(ctx context.Context, env *engine.Env, golds []citations.Gold, cfg Config) (*Summary, error) {
	if cfg.Strategy == nil {
		return nil, errors.New("eval: no strategy")
	}
	derive, err := prepare(ctx, env, &cfg, golds)
	if err != nil {
		return nil, err
	}
	if cfg.LQA != "" {
		cfg.Judging.Correctness = true
	}
	judged, err := newJudged(env, cfg.Judging)
	if err != nil {
		return nil, err
	}
	base, err := newLQA(env, cfg.LQA)
	if err != nil {
		return nil, err
	}
	var all []citations.Scores
	var short shortSummary
	var rouge rougeSummary
	var ccr ccrSummary
	var learn learning
	for i, g := range golds {
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(golds))
		}
		sc, ans, err := answer(ctx, env, &cfg, g, learn.lessons)
		if err != nil {
			return nil, err
		}
		if err := learn.grade(ctx, env, &cfg, g, ans); err != nil {
			return nil, err
		}
		all = append(all, sc)
		jf, jc, err := judged.score(ctx, cfg.Notice, g, ans)
		if err != nil {
			return nil, err
		}
		line := Scores{Scores: sc, Figures: jf, CorrectnessFigures: jc, ShortScores: shortScores(ans, g)}
		short.add(line.ShortScores)
		line.RougeScores = rougeScores(ans, g)
		rouge.add(line.RougeScores)
		line.CCRScores = ccrScores(ans, g)
		var correctness *float64
		if jc != nil && jc.Unrated == 0 && len(jc.Ratings) > 0 {
			correctness = &jc.Correctness
		}
		ccr.add(line.CCRScores, correctness, sc.AnswerHit)
		if jc != nil {
			base.record(g, jc.Correctness)
			if line.LQA, err = base.answer(ctx, env, &cfg, judged, g); err != nil {
				return nil, err
			}
		}
		if cfg.Records != nil {
			if err := textproc.WriteSafeJSON(cfg.Records, Record{Scores: line, Answer: AnswerRecord{ID: g.ID, Answer: ans}}, ""); err != nil {
				return nil, err
			}
		}
		if cfg.Scores != nil {
			if err := textproc.WriteSafeJSON(cfg.Scores, line, ""); err != nil {
				return nil, err
			}
		}
	}
	sum := &Summary{Strategy: cfg.Strategy.Name(), Report: citations.Summarize(all), Derive: derive, JudgeModel: judged.model(),
		judgedReport: judged.report(), correctnessReport: judged.correctnessReport(), CorrectnessRatio: base.ratio()}
	sum.PaperCost = sum.paperCost()
	sum.ShortReport = short.report()
	sum.RougeReport = rouge.report()
	sum.CCRReport = ccr.report()
	sum.Learning = learn.report()
	if judged != nil {
		sum.failed = judged.failed
		counts := judged.counts
		sum.JudgedCounts = &counts
	}
	return sum, nil
}

// answer answers one question and scores the answer.
func answer(ctx context.Context, env *engine.Env, cfg *Config, g citations.Gold, lessons []engine.Lesson) (citations.Scores, *engine.Answer, error) {
	docs, err := cfg.resolve(env.Library, g.Docs)
	if err != nil {
		return citations.Scores{}, nil, fmt.Errorf("question %s: %w", g.ID, err)
	}
	ans, runErr := engine.Run(ctx, env, cfg.Strategy, engine.Request{Question: g.Question, Docs: docs, Options: cfg.Options, Lessons: lessons}, nil)
	if ans == nil {
		return citations.Scores{}, nil, fmt.Errorf("question %s: %w", g.ID, runErr)
	}
	if engine.Canceled(runErr) {
		return citations.Scores{}, nil, runErr
	}
	sc, err := citations.Score(ans, g)
	if err != nil {
		return citations.Scores{}, nil, fmt.Errorf("question %s: %w", g.ID, err)
	}
	return sc, ans, nil
}

// Print writes the summary for a person: the offline figures on one line
// (with the preparation's cost), the answers' usage when a model
// answered, and the judged figures.
func (s *Summary) Print(w io.Writer) {
	r := s.Report
	fmt.Fprintf(w, "%s over %d questions: answer_f1 %.3f, answer_em %.3f, answer_hit %.3f, answered_first3 %.3f; evidence_recall %.3f, evidence_all %.3f, citation_precision %.3f, citation_length %.1f tokens (%.1f words)%s\n",
		s.Strategy, r.Questions, r.AnswerF1, r.AnswerEM, r.AnswerHit, r.AnsweredFirst3,
		r.EvidenceRecall, r.EvidenceAll, r.CitationPrecision, r.CitationLength, r.CitationWords, s.Derive)
	if r.LLMCalls > 0 {
		fmt.Fprintf(w, "  per question: %.0f prompt tokens, %.0f completion tokens (OkraLong's cost, input + 4 × output: %.0f), %.1f model calls; %.2fs mean, %.2fs p95\n",
			r.PromptTokensMean, r.CompletionTokensMean, citations.OkraLongCost(r.PromptTokensMean, r.CompletionTokensMean), r.LLMCallsMean, r.SecondsMean, r.SecondsP95)
	}
	s.ShortReport.print(w)
	s.RougeReport.print(w)
	s.CCRReport.print(w)
	s.Learning.print(w)
	if j := s.judgedReport; j != nil {
		fmt.Fprintf(w, "judged by %s over %d questions: citation_recall %.3f, citation_precision %.3f, citation_f1 %.3f; the judge used %d calls, %d prompt and %d completion tokens",
			textproc.OneLine(j.JudgeModel), j.Judged, j.CitationRecall, j.CitationPrecision, j.CitationF1, j.JudgeCalls, j.JudgePromptTokens, j.JudgeCompletionTokens)
		if n := s.JudgedCounts.citations(s.failed); n > 0 {
			fmt.Fprintf(w, " (%d not judged)", n)
		}
		fmt.Fprintln(w)
	}
	if c := s.correctnessReport; c != nil {
		fmt.Fprintf(w, "correctness judged by %s over %d questions: %.3f (LongCite Figures 4-6, 0 to 1); the judge used %d calls, %d prompt and %d completion tokens",
			textproc.OneLine(s.JudgeModel), c.Judged, c.Correctness, c.JudgeCalls, c.JudgePromptTokens, c.JudgeCompletionTokens)
		if c.Unrated > 0 {
			fmt.Fprintf(w, " (%d ratings never given, scored 0.5 as the reference does)", c.Unrated)
		}
		if s.JudgedCounts != nil && s.JudgedCounts.CorrectnessNotJudged > 0 {
			fmt.Fprintf(w, " (%d not judged)", s.JudgedCounts.CorrectnessNotJudged)
		}
		fmt.Fprintln(w)
	}
	if r := s.CorrectnessRatio; r != nil {
		from := textproc.OneLine(r.From)
		if r.From == RunPlain {
			from = "the plain strategy, answering alongside"
		}
		if r.Questions == 0 {
			fmt.Fprintf(w, "correctness ratio: no question was judged both here and in %s\n", from)
			return
		}
		fmt.Fprintf(w, "correctness ratio CR = C / C_LQA = %.3f over %d questions judged in both runs (C %.3f, C_LQA %.3f from %s; LongCite section 2.3.1)",
			r.Ratio, r.Questions, r.C, r.LQA, from)
		if u := r.Usage; u != nil {
			fmt.Fprintf(w, "; the plain answers used %d calls, %d prompt and %d completion tokens, judging them %d calls", u.LLMCalls, u.PromptTokens, u.CompletionTokens, r.JudgeUsage.LLMCalls)
		}
		fmt.Fprintln(w)
	}
}
