package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// LQA is where an evaluation finds the plain strategy's correctness,
// LongCite's C_LQA, for the correctness ratio CR = C / C_LQA
// (Config.LQA): the records (Config.Records, `eval --out`) of an earlier
// `eval --strategy plain --judge correctness` over the same data set, or
// RunPlain to answer each question with the plain strategy as well.
const RunPlain = "run"

// PlainStrategy is the strategy whose answers C_LQA is the correctness
// of: long-context QA without citations (engine/longcite).
const PlainStrategy = "plain"

// CorrectnessRatio is the correctness ratio of an evaluation: its judged correctness
// C against the plain strategy's, C_LQA, over the questions judged in
// both runs (LongCite section 2.3.1: above 1, citing improved the
// answers; below 1, it cost correctness).
type CorrectnessRatio struct {
	// Questions counts the questions judged in both runs; C and LQA are
	// the mean correctness over them, and Ratio is C / LQA (0 when LQA
	// is 0).
	Questions int     `json:"correctness_ratio_questions"`
	C         float64 `json:"correctness_ratio_c"`
	LQA       float64 `json:"correctness_lqa"`
	Ratio     float64 `json:"correctness_ratio"`
	// From says where C_LQA came from: the records file, or "run".
	From string `json:"correctness_lqa_from"`
	// Usage is what the plain answers cost when they ran alongside, and
	// JudgeUsage what judging them did, apart from the evaluation's own.
	Usage      *citations.Usage `json:"lqa_usage,omitempty"`
	JudgeUsage *citations.Usage `json:"lqa_judge_usage,omitempty"`
}

// lqa gathers the plain strategy's correctness per question.
type lqa struct {
	from   string
	plain  engine.Strategy    // RunPlain: the strategy to answer with
	scores map[string]float64 // question ID → C_LQA
	ours   map[string]float64 // question ID → the evaluation's C
	usage  citations.Usage    // the plain answers' (RunPlain)
	judged citations.Usage    // judging them (RunPlain)
	order  []string           // question IDs judged in the evaluation, in order
}

// newLQA reads or prepares the plain strategy's correctness; nil when
// from is "".
func newLQA(env *engine.Env, from string) (*lqa, error) {
	if from == "" {
		return nil, nil
	}
	l := &lqa{from: from, scores: map[string]float64{}, ours: map[string]float64{}}
	if from == RunPlain {
		s, err := engine.New(PlainStrategy, env)
		if err != nil {
			return nil, err
		}
		l.plain = s
		return l, nil
	}
	return l, l.read(from)
}

// read reads the correctness of each question of a plain run's records.
func (l *lqa) read(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fix.With(err, "Name the --out file of 'citelens eval --strategy plain --judge correctness' over the same data set, or 'run' to answer with the plain strategy alongside.")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Scores struct {
				Correctness *float64 `json:"correctness_judged"`
			} `json:"scores"`
			Answer struct {
				ID       string `json:"id"`
				Strategy string `json:"strategy"`
			} `json:"answer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: not an eval record: %v", path, line, err)
		}
		if r.Answer.Strategy != PlainStrategy {
			return fix.With(fmt.Errorf("%s:%d: a record of the %s strategy, not of %s: C_LQA is the correctness of answers without citations", path, line, r.Answer.Strategy, PlainStrategy),
				"Evaluate with --strategy plain --judge correctness --out FILE first, or give --lqa run.")
		}
		if r.Scores.Correctness != nil {
			l.scores[r.Answer.ID] = *r.Scores.Correctness
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(l.scores) == 0 {
		return fix.With(fmt.Errorf("%s has no judged correctness", path), "Evaluate the plain strategy with --judge correctness (or all).")
	}
	return nil
}

// answer answers g with the plain strategy and judges its correctness,
// when the plain strategy runs alongside; a question whose plain answer
// fails or goes unjudged has no C_LQA.
func (l *lqa) answer(ctx context.Context, env *engine.Env, cfg *Config, j *judged, g citations.Gold) (*float64, error) {
	if l == nil || l.plain == nil || len(g.Answers) == 0 {
		return nil, nil
	}
	docs, err := cfg.resolve(env.Library, g.Docs)
	if err != nil {
		return nil, fmt.Errorf("question %s: %w", g.ID, err)
	}
	ans, err := engine.Run(ctx, env, l.plain, engine.Request{Question: g.Question, Docs: docs}, nil)
	if ans != nil {
		l.usage.Add(ans.Usage)
	}
	if engine.Canceled(err) {
		return nil, err
	}
	if err != nil {
		if cfg.Notice != nil {
			cfg.Notice(fmt.Sprintf("question %s: the plain answer failed: %v", g.ID, err))
		}
		return nil, nil
	}
	res, err := j.j.Correctness(ctx, g.Question, citations.AnswerText(ans), g.Answers, g.Task, g.FewShot)
	l.judged.Add(citations.Usage(res.Usage))
	if err != nil {
		if engine.Canceled(err) || ctx.Err() != nil {
			return nil, err
		}
		if cfg.Notice != nil {
			cfg.Notice(fmt.Sprintf("question %s: the plain answer not judged: %s", textproc.OneLine(g.ID), textproc.OneLine(err.Error())))
		}
		return nil, nil
	}
	l.scores[g.ID] = res.Score
	return &res.Score, nil
}

// record records the evaluation's correctness of g.
func (l *lqa) record(g citations.Gold, c float64) {
	if l == nil {
		return
	}
	if _, ok := l.ours[g.ID]; !ok {
		l.order = append(l.order, g.ID)
	}
	l.ours[g.ID] = c
}

// ratio is CR over the questions judged in both runs, nil without a
// baseline.
func (l *lqa) ratio() *CorrectnessRatio {
	if l == nil {
		return nil
	}
	r := &CorrectnessRatio{From: l.from}
	for _, id := range l.order {
		base, ok := l.scores[id]
		if !ok {
			continue
		}
		r.Questions++
		r.C += l.ours[id]
		r.LQA += base
	}
	if r.Questions > 0 {
		r.C /= float64(r.Questions)
		r.LQA /= float64(r.Questions)
	}
	if r.LQA > 0 {
		r.Ratio = r.C / r.LQA
	}
	if l.plain != nil {
		u, ju := l.usage, l.judged
		r.Usage, r.JudgeUsage = &u, &ju
	}
	return r
}
