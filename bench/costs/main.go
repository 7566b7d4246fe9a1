// Command costs measures what every registered strategy costs per
// question: it runs `citelens eval` for each over a data set (HotpotQA's 53
// questions by default) against the scripted model of llmtestd, and writes
// a Markdown table of mean prompt tokens, completion tokens and model calls
// per question, and the mean seconds spent outside the model — the
// analogue of OkraLong's Table 1 cost column. run.sh builds the binaries
// and runs it; see the README's "Strategies and their cost".
//
// Each strategy gets a fresh llmtestd started with -stats, so the time the
// server spent answering (busy time, from each request's arrival to the
// end of its answer, overlaps counted once) is that strategy's alone; the
// seconds outside the model are eval's mean wall time per question less
// the server's busy time per question. RAIDD's derivation (`citelens
// derive`, once per library) is measured in its own session and reported
// in its own row, apart from the answers.
//
// The run fails when the numbers break the ordering the README states:
// okra must send at most a fifth of longcite's prompt tokens, and longcite
// (the whole document in one prompt) must send more than every strategy
// that does not also read the whole document.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// wholeContext are the strategies that put the whole document in a prompt
// (CoF's first step is a plain long-context answer, plain's only one);
// longcite need not outspend them.
var wholeContext = []string{"longcite", "cof", "plain"}

func main() {
	citelens := flag.String("citelens", "", "the citelens `binary`")
	llmtestd := flag.String("llmtestd", "", "the llmtestd `binary`")
	data := flag.String("data", "testdata/hotpotqa53", "the data set `DIR` (docs/ and questions.jsonl)")
	out := flag.String("out", "bench/costs/costs.md", "write the table to `FILE`")
	only := flag.String("strategies", "", "comma-separated strategies to run (default: every registered one)")
	limit := flag.Int("limit", 0, "answer only the first `N` questions")
	contextWindow := flag.Int("context", 128000, "the model's context window in `tokens` (large enough for longcite to read the whole document)")
	flag.Parse()
	if *citelens == "" || *llmtestd == "" {
		fmt.Fprintln(os.Stderr, "costs: -citelens and -llmtestd are required (run bench/costs/run.sh)")
		os.Exit(2)
	}
	r := &runner{citelens: *citelens, llmtestd: *llmtestd, data: *data, limit: *limit, context: *contextWindow}
	if err := r.run(*only, *out); err != nil {
		fmt.Fprintln(os.Stderr, "costs:", err)
		os.Exit(1)
	}
}

type runner struct {
	citelens, llmtestd, data string
	limit, context           int
	tmp                      string
}

// row is one line of the table.
type row struct {
	Name               string
	Questions          int
	Prompt, Completion float64 // tokens per question
	Calls              float64 // model calls per question
	Seconds, Server    float64 // wall and server-busy seconds per question
	EvidenceRecall     float64
	Note               string
}

func (r row) outside() float64 { return max(r.Seconds-r.Server, 0) }

// stats is what llmtestd -stats writes.
type stats struct {
	Requests    int     `json:"requests"`
	BusySeconds float64 `json:"busy_seconds"`
}

func (r *runner) run(only, out string) error {
	var err error
	if r.tmp, err = os.MkdirTemp("", "citelens-costs-"); err != nil {
		return err
	}
	defer os.RemoveAll(r.tmp)
	docs, err := filepath.Glob(filepath.Join(r.data, "docs", "*"))
	if err != nil || len(docs) == 0 {
		return fmt.Errorf("no documents under %s/docs", r.data)
	}
	fmt.Fprintf(os.Stderr, "adding %d document(s) of %s to a temporary library\n", len(docs), r.data)
	if _, err := r.cmd("", append([]string{"add"}, docs...)...); err != nil {
		return err
	}
	names, err := r.strategies(only)
	if err != nil {
		return err
	}
	var rows []row
	var derive *row
	for _, name := range names {
		if strings.HasPrefix(name, "raidd") && derive == nil {
			d, err := r.derive()
			if err != nil {
				return err
			}
			derive = &d
		}
		fmt.Fprintf(os.Stderr, "%s: answering…\n", name)
		rw, err := r.eval(name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %.0f prompt tokens, %.1f calls, %.3f s outside the model per question\n", name, rw.Prompt, rw.Calls, rw.outside())
		rows = append(rows, rw)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case a.Prompt > b.Prompt:
			return -1
		case a.Prompt < b.Prompt:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	table := r.markdown(rows, derive)
	if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
		return err
	}
	fmt.Print(table)
	return check(rows)
}

// env is the environment of every citelens run: a temporary library and
// config, the scripted model at url, and nothing of the user's own setup.
func (r *runner) env(url string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "CITELENS_") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"CITELENS_CONFIG="+filepath.Join(r.tmp, "config.toml"), // absent: defaults
		"CITELENS_DB="+filepath.Join(r.tmp, "library.db"),
		"XDG_CONFIG_HOME="+filepath.Join(r.tmp, "config"),
		"XDG_DATA_HOME="+filepath.Join(r.tmp, "data"),
		"CITELENS_MODEL=test-model",
		fmt.Sprintf("CITELENS_CONTEXT_WINDOW=%d", r.context),
	)
	if url != "" {
		env = append(env, "OPENAI_BASE_URL="+url)
	}
	return env
}

// cmd runs citelens with args against the model at url ("" for none) and
// returns its standard output.
func (r *runner) cmd(url string, args ...string) ([]byte, error) {
	c := exec.Command(r.citelens, args...)
	c.Env = r.env(url)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("citelens %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// strategies lists the registered strategies, or those of only.
func (r *runner) strategies(only string) ([]string, error) {
	outb, err := r.cmd("", "strategies", "--json")
	if err != nil {
		return nil, err
	}
	var infos []struct{ Name string }
	if err := json.Unmarshal(outb, &infos); err != nil {
		return nil, fmt.Errorf("citelens strategies --json: %v", err)
	}
	var all []string
	for _, in := range infos {
		all = append(all, in.Name)
	}
	if only == "" {
		return all, nil
	}
	var names []string
	for n := range strings.SplitSeq(only, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("no strategy %q; the strategies are %s", n, strings.Join(all, ", "))
		}
		names = append(names, n)
	}
	return names, nil
}

// session starts llmtestd with -stats, runs fn against it, stops it and
// returns its stats.
func (r *runner) session(name string, fn func(url string) error) (stats, error) {
	path := filepath.Join(r.tmp, "stats-"+name+".json")
	c := exec.Command(r.llmtestd, "-stats", path)
	stdout, err := c.StdoutPipe()
	if err != nil {
		return stats{}, err
	}
	c.Stderr = io.Discard
	if err := c.Start(); err != nil {
		return stats{}, err
	}
	stop := func() error {
		_ = c.Process.Signal(syscall.SIGTERM)
		return c.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url := ""
	for f := range strings.FieldsSeq(line) {
		if v, ok := strings.CutPrefix(f, "OPENAI_BASE_URL="); ok {
			url = v
		}
	}
	if url == "" {
		stop()
		return stats{}, fmt.Errorf("llmtestd printed no URL (%q, %v)", line, err)
	}
	ferr := fn(url)
	if err := stop(); err != nil && ferr == nil {
		ferr = fmt.Errorf("llmtestd: %v", err)
	}
	if ferr != nil {
		return stats{}, ferr
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return stats{}, err
	}
	var st stats
	return st, json.Unmarshal(b, &st)
}

// eval answers the data set's questions with strategy name.
func (r *runner) eval(name string) (row, error) {
	var rep struct {
		Questions            int     `json:"questions"`
		EvidenceRecall       float64 `json:"evidence_recall"`
		PromptTokensMean     float64 `json:"prompt_tokens_mean"`
		CompletionTokensMean float64 `json:"completion_tokens_mean"`
		LLMCallsMean         float64 `json:"llm_calls_mean"`
		SecondsMean          float64 `json:"seconds_mean"`
	}
	records := filepath.Join(r.tmp, name+".jsonl")
	st, err := r.session(name, func(url string) error {
		args := []string{"eval", "--data", r.data, "--strategy", name, "--out", records}
		if r.limit > 0 {
			args = append(args, "--limit", fmt.Sprint(r.limit))
		}
		outb, err := r.cmd(url, args...)
		if err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSpace(string(outb)), "\n")
		return json.Unmarshal([]byte(lines[len(lines)-1]), &rep)
	})
	if err != nil {
		return row{}, err
	}
	if rep.Questions == 0 {
		return row{}, errors.New("eval answered no questions")
	}
	note, err := plans(records)
	if err != nil {
		return row{}, err
	}
	q := float64(rep.Questions)
	return row{Name: name, Questions: rep.Questions, Prompt: rep.PromptTokensMean, Completion: rep.CompletionTokensMean,
		Calls: rep.LLMCallsMean, Seconds: rep.SecondsMean, Server: st.BusySeconds / q, EvidenceRecall: rep.EvidenceRecall,
		Note: note}, nil
}

// plans summarises the plans of eval's records, for strategies that make
// one (OkraLong): how often each workflow ran, and how often precise mode
// reread the whole documents. "" when no answer has a plan.
func plans(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	workflows := map[string]int{}
	var order []string
	rereads, checked, planned := 0, 0, 0
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var rec struct {
			Answer struct {
				Plan *struct {
					Workflow string `json:"workflow"`
					Precise  *struct {
						Reread bool `json:"reread"`
					} `json:"precise"`
				} `json:"plan"`
			} `json:"answer"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		p := rec.Answer.Plan
		if p == nil || p.Workflow == "" {
			continue
		}
		planned++
		if workflows[p.Workflow] == 0 {
			order = append(order, p.Workflow)
		}
		workflows[p.Workflow]++
		if p.Precise != nil {
			checked++
			if p.Precise.Reread {
				rereads++
			}
		}
	}
	if planned == 0 {
		return "", nil
	}
	slices.SortStableFunc(order, func(a, b string) int { return workflows[b] - workflows[a] })
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = fmt.Sprintf("%s %d", w, workflows[w])
	}
	note := "workflows: " + strings.Join(parts, ", ")
	if checked > 0 {
		note += fmt.Sprintf("; precise mode reread the whole documents for %d of %d questions", rereads, checked)
	}
	return note, nil
}

// derive runs RAIDD's derivation over the library, in a session of its
// own; its figures are per question of the data set, amortised.
func (r *runner) derive() (row, error) {
	fmt.Fprintln(os.Stderr, "derive: writing RAIDD's summaries and questions…")
	var rep struct {
		Derived          int     `json:"derived"`
		PromptTokens     int     `json:"prompt_tokens"`
		CompletionTokens int     `json:"completion_tokens"`
		LLMCalls         int     `json:"llm_calls"`
		Seconds          float64 `json:"seconds"`
	}
	st, err := r.session("derive", func(url string) error {
		outb, err := r.cmd(url, "derive", "--json")
		if err != nil {
			return err
		}
		return json.Unmarshal(outb, &rep)
	})
	if err != nil {
		return row{}, fmt.Errorf("derive: %w", err)
	}
	n, err := r.questions()
	if err != nil {
		return row{}, err
	}
	q := float64(n)
	return row{Name: "raidd derive (once per library)", Questions: n,
		Prompt: float64(rep.PromptTokens) / q, Completion: float64(rep.CompletionTokens) / q, Calls: float64(rep.LLMCalls) / q,
		Seconds: rep.Seconds / q, Server: st.BusySeconds / q,
		Note: fmt.Sprintf("%d chunks, %d calls, %s prompt and %s completion tokens in all, amortised over the %d questions",
			rep.Derived, rep.LLMCalls, thousands(float64(rep.PromptTokens)), thousands(float64(rep.CompletionTokens)), n)}, nil
}

// questions counts the data set's questions (as eval answers them).
func (r *runner) questions() (int, error) {
	b, err := os.ReadFile(filepath.Join(r.data, "questions.jsonl"))
	if err != nil {
		return 0, err
	}
	n := 0
	for l := range strings.SplitSeq(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	if r.limit > 0 {
		n = min(n, r.limit)
	}
	return n, nil
}

func (r *runner) markdown(rows []row, derive *row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Cost per question of each strategy\n\n")
	fmt.Fprintf(&b, "Written by `bench/costs/run.sh` on %s: `citelens eval` over `%s` (%d questions; one document of about 80k tokens) against llmtestd's scripted model, context window %d tokens, no embedding model (BM25 only). Token counts are the server's (textproc.EstimateTokens of each message, about 4 bytes a token); \"outside the model\" is eval's wall time per question less the time the server spent answering.\n\n",
		time.Now().UTC().Format("2006-01-02"), filepath.Base(r.data), rowsQuestions(rows), r.context)
	b.WriteString("| strategy | prompt tokens | completion tokens | LLM calls | seconds outside the model | evidence recall |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, rw := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.3f | %.2f |\n", rw.Name, thousands(rw.Prompt), thousands(rw.Completion), rw.Calls, rw.outside(), rw.EvidenceRecall)
	}
	if derive != nil {
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.3f | |\n", derive.Name, thousands(derive.Prompt), thousands(derive.Completion), derive.Calls, derive.outside())
		fmt.Fprintf(&b, "\nThe derive row is RAIDD's ingest-time step (`citelens derive`): %s. The raidd-* rows are the answers alone.\n", derive.Note)
	}
	for _, rw := range rows {
		if rw.Note != "" {
			fmt.Fprintf(&b, "\n%s: %s.\n", rw.Name, rw.Note)
		}
	}
	if ok, lc := find(rows, "okra"), find(rows, "longcite"); ok != nil && lc != nil && lc.Prompt > 0 {
		fmt.Fprintf(&b, "\nokra sends %.1f%% of longcite's prompt tokens (%s against %s a question).\n", 100*ok.Prompt/lc.Prompt, thousands(ok.Prompt), thousands(lc.Prompt))
	}
	b.WriteString("\nEvidence recall is against the scripted model's citations (it cites the shown sentences sharing most words with the question), so it shows what each strategy put in front of the model, not answer quality.\n")
	return b.String()
}

func rowsQuestions(rows []row) int {
	if len(rows) == 0 {
		return 0
	}
	return rows[0].Questions
}

func find(rows []row, name string) *row {
	for i := range rows {
		if rows[i].Name == name {
			return &rows[i]
		}
	}
	return nil
}

// check fails when the figures break the README's ordering.
func check(rows []row) error {
	lc := find(rows, "longcite")
	if lc == nil {
		return nil
	}
	var errs []error
	if ok := find(rows, "okra"); ok != nil && 5*ok.Prompt > lc.Prompt {
		errs = append(errs, fmt.Errorf("okra sends %.0f prompt tokens a question, more than a fifth of longcite's %.0f", ok.Prompt, lc.Prompt))
	}
	for _, rw := range rows {
		if !slices.Contains(wholeContext, rw.Name) && rw.Prompt >= lc.Prompt {
			errs = append(errs, fmt.Errorf("%s sends %.0f prompt tokens a question, as many as longcite's %.0f, which reads the whole document", rw.Name, rw.Prompt, lc.Prompt))
		}
	}
	return errors.Join(errs...)
}

// thousands writes a mean as a whole number with separators: "81,234".
func thousands(f float64) string {
	s := fmt.Sprintf("%.0f", f)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
