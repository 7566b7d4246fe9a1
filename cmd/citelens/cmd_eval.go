package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "eval",
		args:    "--data DIR [--strategy NAME] [--k N] [--judge [citations|correctness|all]] [--judge-model NAME] [--out FILE] [--per-question]",
		summary: "answer a data set's questions and score the answers and citations against its gold answers and evidence",
		run:     runEval,
	})
}

// evalLine is one question's record in --out and --per-question output.
type evalLine struct {
	Scores scoreLine  `json:"scores"`
	Answer answerView `json:"answer"`
}

func runEval(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["eval"])
	data := fs.String("data", "", "the data set `DIR` (DIR/docs/ and DIR/questions.jsonl, as in EVAL.md)")
	strategyName := fs.String("strategy", engine.DefaultStrategy, "answering strategy")
	k := fs.Int("k", 0, "at most `N` statements or retrieved units")
	var opts stringList
	fs.Var(&opts, "opt", "strategy option `name=value` (repeatable; 'citelens strategies NAME' lists them)")
	out := fs.String("out", "", "write each question's scores and answer to `FILE` (JSON lines)")
	perQuestion := fs.Bool("per-question", false, "print each question's scores as a JSON line as it is answered")
	limit := fs.Int("limit", 0, "answer only the first `N` questions")
	var judgeOn judgeFlag
	fs.Var(&judgeOn, "judge", "also judge with a model, as LongBench-Cite does: `citations` (recall, precision, F1; what --judge alone judges),\ncorrectness (LongCite Figures 4-6) or all")
	judgeModel := fs.String("judge-model", "", "the judging `model` (default: judge_model in the config file, else the answering model),\non judge_base_url when that is set")
	if _, err := parseFlags(a, fs, joinJudgeArg(args)); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(a.stderr, "citelens eval: --data is required")
		fs.Usage()
		return errUsage
	}
	golds, err := readGold(filepath.Join(*data, "questions.jsonl"))
	if err != nil {
		return err
	}
	if *limit > 0 && *limit < len(golds) {
		golds = golds[:*limit]
	}
	options, err := parseOptions(opts, *k)
	if err != nil {
		return err
	}

	// Unless the user named a library, evaluate in a throwaway one so the
	// data set does not land in theirs.
	lib, cleanup, err := a.evalLibrary(ctx, *data)
	if err != nil {
		return err
	}
	defer cleanup()
	env, err := a.engineEnv(lib)
	if err != nil {
		return err
	}
	strategy, err := engine.New(*strategyName, env)
	if err != nil {
		return err
	}
	derive, err := prepareEval(ctx, a, env, strategy.Name(), golds, options) // RAIDD's derive step, costed apart
	if err != nil {
		return err
	}
	judged, err := newEvalJudge(env, judgeOn, *judgeModel) // nil without --judge
	if err != nil {
		return err
	}

	var outW *bufio.Writer
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		outW = bufio.NewWriter(f)
		defer outW.Flush()
	}
	var all []citations.Scores
	showProgress := isTerminal(a.stderr)
	for i, g := range golds {
		if showProgress {
			fmt.Fprintf(a.stderr, "\r\x1b[2Kquestion %d/%d", i+1, len(golds))
		}
		docs, err := resolveDocs(lib, g.Docs)
		if err != nil {
			return fmt.Errorf("question %s: %w", g.ID, err)
		}
		ans, runErr := engine.Run(ctx, env, strategy, engine.Request{Question: g.Question, Docs: docs, Options: options}, nil)
		if ans == nil {
			return fmt.Errorf("question %s: %w", g.ID, runErr)
		}
		if engine.Canceled(runErr) {
			return runErr
		}
		sc, err := citations.Score(ans, g)
		if err != nil {
			return fmt.Errorf("question %s: %w", g.ID, err)
		}
		all = append(all, sc)
		jf, jc, err := judged.score(ctx, a.stderr, g, ans)
		if err != nil {
			return err
		}
		line := evalLine{Scores: scoreLine{sc, jf, jc}, Answer: newAnswerView(ans, g.ID)}
		if outW != nil {
			if err := textproc.WriteSafeJSON(outW, line, ""); err != nil {
				return err
			}
		}
		if *perQuestion {
			if err := textproc.WriteSafeJSON(a.stdout, scoreLine{sc, jf, jc}, ""); err != nil {
				return err
			}
		}
	}
	if showProgress {
		fmt.Fprint(a.stderr, "\r\x1b[2K")
	}
	report := citations.Summarize(all)
	fmt.Fprintf(a.stderr, "%s over %d questions: answer_f1 %.3f, answer_em %.3f, answer_hit %.3f; evidence_recall %.3f, evidence_all %.3f, citation_precision %.3f, citation_length %.1f tokens (%.1f words)%s\n",
		strategy.Name(), report.Questions, report.AnswerF1, report.AnswerEM, report.AnswerHit,
		report.EvidenceRecall, report.EvidenceAll, report.CitationPrecision, report.CitationLength, report.CitationWords, derive)
	if report.LLMCalls > 0 {
		fmt.Fprintf(a.stderr, "  per question: %.0f prompt tokens, %.0f completion tokens, %.1f model calls; %.2fs mean, %.2fs p95\n",
			report.PromptTokensMean, report.CompletionTokensMean, report.LLMCallsMean, report.SecondsMean, report.SecondsP95)
	}
	judged.printSummary(a.stderr)
	type summary struct {
		Strategy string `json:"strategy"`
		citations.Report
		Derive     *evalDerive `json:"derive,omitempty"`
		JudgeModel string      `json:"judge_model,omitempty"`
		*judgedReport
		*correctnessReport
	}
	return textproc.WriteSafeJSON(a.stdout, summary{Strategy: strategy.Name(), Report: report, Derive: derive, JudgeModel: judged.model(),
		judgedReport: judged.report(), correctnessReport: judged.correctness()}, "")
}

// readGold reads a questions.jsonl file.
func readGold(path string) ([]citations.Gold, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fix.With(err, "A data set is a folder with docs/ and questions.jsonl (see EVAL.md).")
	}
	defer f.Close()
	var out []citations.Gold
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var g citations.Gold
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no questions", path)
	}
	return out, nil
}

// evalLibrary returns the library to evaluate in. With --db (or
// CITELENS_DB) it is the user's, with the data set's documents added;
// otherwise a temporary one, removed by cleanup.
func (a *app) evalLibrary(ctx context.Context, dir string) (*docstore.Library, func(), error) {
	path := a.dbPath
	cleanup := func() {}
	if !a.dbExplicit {
		tmp, err := os.MkdirTemp("", "citelens-eval-")
		if err != nil {
			return nil, nil, err
		}
		path = filepath.Join(tmp, "library.db")
		cleanup = func() { os.RemoveAll(tmp) }
	}
	lib, err := docstore.Open(path, nil)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	files, err := os.ReadDir(filepath.Join(dir, "docs"))
	if err != nil {
		lib.Close()
		cleanup()
		return nil, nil, err
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		// Stat follows symbolic links: a data set may link its documents.
		if st, err := os.Stat(filepath.Join(dir, "docs", f.Name())); err == nil && st.Mode().IsRegular() {
			names = append(names, f.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, "docs", name)
		bar := newProgressBar(a.stderr, p)
		_, _, err := lib.Add(ctx, p, func(pr docstore.Progress) { bar.update(pr.Stage, pr.Done, pr.Total) })
		bar.finish()
		if err != nil {
			lib.Close()
			cleanup()
			return nil, nil, err
		}
	}
	return lib, func() { lib.Close(); cleanup() }, nil
}
