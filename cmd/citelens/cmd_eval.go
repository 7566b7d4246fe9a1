package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/eval"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{
		name:    "eval",
		args:    "--data DIR [--strategy NAME] [--k N] [--judge [citations|correctness|all]] [--judge-model NAME] [--lqa FILE|run] [--out FILE] [--per-question]",
		summary: "answer a data set's questions and score the answers and citations against its gold answers and evidence",
		run:     runEval,
	})
}

// runEval wires `citelens eval` to engine/eval: flags, the library the
// data set is added to, and what is drawn on the terminal.
func runEval(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["eval"])
	data := fs.String("data", "", "the data set `DIR` (DIR/docs/ and DIR/questions.jsonl, as in docs/EVAL.md),\nor LongBench-Cite's released JSON file (LongBench-Cite.json)")
	strategyName := fs.String("strategy", engine.DefaultStrategy, "answering strategy `NAME`")
	k := fs.Int("k", 0, "at most `N` statements or retrieved units")
	var opts stringList
	fs.Var(&opts, "opt", "strategy option `name=value` (repeatable; 'citelens strategies NAME' lists them)")
	out := fs.String("out", "", "write each question's scores and answer to `FILE` (JSON lines)")
	perQuestion := fs.Bool("per-question", false, "print each question's scores as a JSON line as it is answered")
	limit := fs.Int("limit", 0, "answer only the first `N` questions")
	var judgeOn judgeFlag
	fs.Var(&judgeOn, "judge", "also judge with a model, as LongBench-Cite does: `citations` (recall, precision, F1; what --judge alone judges),\ncorrectness (LongCite Figures 4-6) or all")
	judgeModel := fs.String("judge-model", "", "the judging `model` (default: judge_model in the config file, else the answering model),\non judge_base_url when that is set")
	lqa := fs.String("lqa", "", "report the correctness ratio CR = C / C_LQA (LongCite) against the plain strategy: the --out `FILE`\nof 'eval --strategy plain --judge correctness' over the same data, or run to answer with plain alongside;\njudges correctness")
	if _, err := parseFlags(a, fs, joinJudgeArg(args)); err != nil {
		return err
	}
	if *data == "" {
		fmt.Fprintln(a.stderr, "citelens eval: --data is required")
		fs.Usage()
		return errUsage
	}
	if strings.HasSuffix(strings.ToLower(*data), ".json") {
		// LongBench-Cite as published: converted into a data set that
		// lives as long as the evaluation.
		dir, err := convertLongBenchCite(*data)
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*data = dir
	}
	golds, err := eval.ReadQuestions(filepath.Join(*data, "questions.jsonl"))
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
	cfg := eval.Config{
		Strategy: strategy, Options: options,
		Judging: eval.Judging{Citations: judgeOn.citations, Correctness: judgeOn.correctness, Model: *judgeModel},
		LQA:     *lqa,
		Resolve: resolveDocs,
		Prepare: func(ctx context.Context, prep engine.Preparer, p engine.Preparation) (*engine.Prepared, error) {
			// RAIDD's derive step, costed apart.
			rep, err := prepareWithProgress(ctx, a, env, prep, p)
			if err != nil {
				return nil, prepareError(err, rep, nil, "")
			}
			return rep, nil
		},
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		defer w.Flush()
		cfg.Records = w
	}
	if *perQuestion {
		cfg.Scores = a.stdout
	}
	// The progress line: "question 3/53", redrawn in place on a terminal.
	line := newLiveLine(a.stderr)
	cfg.Progress = func(i, n int) {
		if line.Due(i == n) {
			line.Draw(fmt.Sprintf("question %d/%d", i, n))
		}
	}
	cfg.Notice = func(s string) {
		line.Finish()
		fmt.Fprintln(a.stderr, s)
	}
	sum, err := eval.Run(ctx, env, golds, cfg)
	line.Finish()
	if err != nil {
		return err
	}
	sum.Print(a.stderr)
	return textproc.WriteSafeJSON(a.stdout, sum, "")
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
	lib, err := a.openAt(path, docstore.Options{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	files, err := eval.DocFiles(dir)
	if err != nil {
		lib.Close()
		cleanup()
		return nil, nil, err
	}
	adder := ingest.New(lib, nil)
	for _, p := range files {
		bar := newProgressBar(a.stderr, p)
		_, _, err := adder.Add(ctx, p, func(pr ingest.Progress) { bar.update(pr.Stage, pr.Done, pr.Total) })
		bar.Finish()
		if err != nil {
			lib.Close()
			cleanup()
			return nil, nil, err
		}
	}
	return lib, func() { lib.Close(); cleanup() }, nil
}

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

// convertLongBenchCite converts LongBench-Cite's JSON at path into a data
// set in a temporary folder (eval.ConvertLongBenchCite) and returns it.
func convertLongBenchCite(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "citelens-longbench-cite-")
	if err != nil {
		return "", err
	}
	if _, err := eval.ConvertLongBenchCite(f, dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return dir, nil
}
