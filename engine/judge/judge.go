// Package judge scores an answer's citations the way LongBench-Cite does
// (LongCite paper, section 2.3.2), with a model as the judge:
//
//   - citation recall, per statement: a cited statement is judged against
//     its cited snippets concatenated — fully (1), partially (0.5) or not
//     (0) supported (Figure 7); an uncited statement gets 1 if the judge
//     finds it needs no citation (an introduction, transition, summary or
//     reasoning) and 0 if it does (Figure 8). The answer's recall is the
//     mean over its statements.
//   - citation precision, per citation: 1 if the snippet supports some key
//     point of its statement, else 0 (Figure 9); the mean over the
//     answer's citations.
//   - citation F1 = 2·P·R / (P + R) of the answer (0 when both are 0).
//
// As in THUDM/LongCite's LongBench-Cite/auto_scorer.py: only the first 40
// statements are judged (eval_cite.py's max_statement_num), an answer
// without statements or without citations scores 0 for recall or
// precision, the rating is the first "[[…]]" of the judge's reply (read
// case-insensitively: "fully", "partially", "yes", "unrelevant"), and an
// unreadable reply is asked again, up to five times, at temperature 1
// after the first try at 0. Data sets are summarised by the mean of each
// answer's figures, F1 included (eval_cite.py averages the per-answer F1,
// not the F1 of the means).
package judge

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Defaults of Options, as LongBench-Cite's scripts have them (Parallel:
// its evaluation runs four answers at once; here four calls of one
// answer).
const (
	DefaultMaxStatements = 40
	DefaultTries         = 5
	DefaultParallel      = 4
	// DefaultMaxTokens bounds a rating. The reference allows 10 tokens
	// and stops at "Analysis:"; "Rating: [[Partially supported]]" is about
	// 8 in common tokenizers, so a little more keeps a long rating from
	// being cut before its "]]".
	DefaultMaxTokens = 24
)

// Options tune a Judge. Zero values take the defaults.
type Options struct {
	// Model is the judge; "" means the client's model.
	Model         string
	MaxStatements int
	Tries         int
	Parallel      int
	MaxTokens     int
}

// Judge scores answers with a model. It is safe for concurrent use.
type Judge struct {
	client *llm.Client
	opt    Options
}

// New returns a judge asking client's endpoint.
func New(client *llm.Client, opt Options) *Judge {
	if opt.Model == "" {
		opt.Model = client.Config().Model
	}
	if opt.MaxStatements <= 0 {
		opt.MaxStatements = DefaultMaxStatements
	}
	if opt.Tries <= 0 {
		opt.Tries = DefaultTries
	}
	if opt.Parallel <= 0 {
		opt.Parallel = DefaultParallel
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = DefaultMaxTokens
	}
	return &Judge{client: client, opt: opt}
}

// Model is the judging model.
func (j *Judge) Model() string { return j.opt.Model }

// Statement is the judge's view of one statement.
type Statement struct {
	// Recall is the statement's citation recall: 1, 0.5 or 0.
	Recall float64 `json:"recall"`
	// Rating is the judge's rating as written ("Fully supported", "No").
	Rating string `json:"rating"`
	// Relevant has one score per citation: 1 relevant, 0 not.
	Relevant []float64 `json:"relevant"`
}

// Result is one answer's judged figures.
type Result struct {
	Recall, Precision, F1 float64
	// Statements are the judged statements, the first MaxStatements.
	Statements []Statement
	// Usage is what the judge spent, apart from the answer's own usage.
	Usage llm.Usage
}

// Figures are one answer's judged figures as `citelens eval --judge`
// reports them, beside the offline ones.
type Figures struct {
	CitationRecall        float64 `json:"citation_recall_judged"`
	CitationPrecision     float64 `json:"citation_precision_judged"`
	CitationF1            float64 `json:"citation_f1_judged"`
	JudgePromptTokens     int     `json:"judge_prompt_tokens"`
	JudgeCompletionTokens int     `json:"judge_completion_tokens"`
	JudgeCalls            int     `json:"judge_llm_calls"`
}

// Figures returns the result's figures.
func (r Result) Figures() Figures {
	return Figures{
		CitationRecall: r.Recall, CitationPrecision: r.Precision, CitationF1: r.F1,
		JudgePromptTokens: r.Usage.PromptTokens, JudgeCompletionTokens: r.Usage.CompletionTokens, JudgeCalls: r.Usage.LLMCalls,
	}
}

// Report is the judged figures over many answers.
type Report struct {
	// Judged counts the answers the judge scored; the means are over
	// them.
	Judged                int     `json:"judged"`
	JudgeModel            string  `json:"judge_model"`
	CitationRecall        float64 `json:"citation_recall_judged"`
	CitationPrecision     float64 `json:"citation_precision_judged"`
	CitationF1            float64 `json:"citation_f1_judged"`
	JudgePromptTokens     int     `json:"judge_prompt_tokens"`
	JudgeCompletionTokens int     `json:"judge_completion_tokens"`
	JudgeCalls            int     `json:"judge_llm_calls"`
}

// Summarize averages per-answer figures (F1 too, as LongBench-Cite does)
// and sums the judge's usage.
func Summarize(model string, all []Figures) Report {
	r := Report{Judged: len(all), JudgeModel: model}
	for _, f := range all {
		r.CitationRecall += f.CitationRecall
		r.CitationPrecision += f.CitationPrecision
		r.CitationF1 += f.CitationF1
		r.JudgePromptTokens += f.JudgePromptTokens
		r.JudgeCompletionTokens += f.JudgeCompletionTokens
		r.JudgeCalls += f.JudgeCalls
	}
	if n := float64(len(all)); n > 0 {
		r.CitationRecall /= n
		r.CitationPrecision /= n
		r.CitationF1 /= n
	}
	return r
}

// call is one judgement to make: a prompt and how to read its rating.
type call struct {
	prompt string
	read   func(rating string) float64
	// statement and citation say where the score goes; citation is -1
	// for the statement's recall.
	statement, citation int
}

// Score judges ans. On error (the endpoint failed, or a rating stayed
// unreadable) it returns the usage spent so far with the error.
func (j *Judge) Score(ctx context.Context, ans *citations.Answer) (Result, error) {
	sts := ans.Statements
	if len(sts) > j.opt.MaxStatements {
		sts = sts[:j.opt.MaxStatements]
	}
	res := Result{Statements: make([]Statement, len(sts))}
	response := responseText(ans.Statements)
	var calls []call
	for i, st := range sts {
		res.Statements[i].Relevant = make([]float64, len(st.Citations))
		if len(st.Citations) == 0 {
			calls = append(calls, call{prompt: needCitationPrompt(ans.Question, response, st.Text),
				read: needCitation, statement: i, citation: -1})
			continue
		}
		var snippets []string
		for _, c := range st.Citations {
			snippets = append(snippets, c.Text)
		}
		joined := strings.TrimSpace(strings.Join(snippets, "\n\n"))
		if joined != "" {
			calls = append(calls, call{prompt: snippetPrompt(supportInstructions, ans.Question, st.Text, joined),
				read: support, statement: i, citation: -1})
		}
		for k, c := range st.Citations {
			calls = append(calls, call{prompt: snippetPrompt(relevantInstructions, ans.Question, st.Text, c.Text),
				read: relevant, statement: i, citation: k})
		}
	}
	ratings, scores, usage, err := j.run(ctx, calls)
	res.Usage = usage
	if err != nil {
		return res, err
	}
	for n, c := range calls {
		st := &res.Statements[c.statement]
		if c.citation < 0 {
			st.Recall, st.Rating = scores[n], ratings[n]
		} else {
			st.Relevant[c.citation] = scores[n]
		}
	}
	var rsum, psum float64
	citationsN := 0
	for _, st := range res.Statements {
		rsum += st.Recall
		for _, v := range st.Relevant {
			psum += v
			citationsN++
		}
	}
	if len(res.Statements) > 0 {
		res.Recall = rsum / float64(len(res.Statements))
	}
	if citationsN > 0 {
		res.Precision = psum / float64(citationsN)
	}
	if res.Recall+res.Precision > 0 {
		res.F1 = 2 * res.Recall * res.Precision / (res.Recall + res.Precision)
	}
	return res, nil
}

// responseText is the whole answer as the judge reads it for Figure 8:
// the statements' text without citations, one per line.
func responseText(sts []citations.Statement) string {
	parts := make([]string, 0, len(sts))
	for _, st := range sts {
		if t := strings.TrimSpace(st.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// run makes the calls, Parallel at a time, and returns each one's rating
// and score. The first failure cancels the calls not yet made.
func (j *Judge) run(ctx context.Context, calls []call) ([]string, []float64, llm.Usage, error) {
	ratings := make([]string, len(calls))
	scores := make([]float64, len(calls))
	var (
		mu    sync.Mutex
		usage llm.Usage
		first error
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, j.opt.Parallel)
	for n, c := range calls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			rating, u, err := j.ask(ctx, c.prompt)
			mu.Lock()
			defer mu.Unlock()
			usage.Add(u)
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			ratings[n], scores[n] = rating, c.read(rating)
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return ratings, scores, usage, first
}

// ask asks one judgement until the reply holds a rating.
func (j *Judge) ask(ctx context.Context, prompt string) (string, llm.Usage, error) {
	var total llm.Usage
	last := ""
	for try := range j.opt.Tries {
		temp := 0.0
		if try > 0 {
			temp = 1 // the reference samples again when the reply is unreadable
		}
		reply, err := j.client.Chat(ctx, llm.ChatRequest{
			Messages: []llm.Message{llm.User(prompt)}, Model: j.opt.Model,
			MaxTokens: j.opt.MaxTokens, Temperature: &temp, Stop: []string{stop},
		})
		total.Add(reply.Usage)
		if err != nil {
			return "", total, err
		}
		// A reasoning judge may write ratings while it thinks: only its
		// answer counts.
		text, _, _ := llm.SplitReasoning(reply.Text)
		if rating, ok := Rating(text); ok {
			return rating, total, nil
		}
		last = text
	}
	return "", total, fmt.Errorf("%w after %d tries; the last reply was %q", ErrUnreadable, j.opt.Tries, textproc.Clip(last, 120))
}

// ratingRE is the reference's rating pattern: letters, spaces and slashes
// between double brackets.
var ratingRE = regexp.MustCompile(`\[\[([ /a-zA-Z]+)\]\]`)

// Rating returns the rating in a judge's reply: the first "[[…]]" after
// "Rating:" or "Need Citation:" if the reply has that label, else the
// first in the reply.
func Rating(reply string) (string, bool) {
	for _, label := range []string{"rating:", "need citation:"} {
		if i, _ := textproc.IndexFold(reply, label); i >= 0 {
			if m := ratingRE.FindStringSubmatch(reply[i:]); m != nil {
				return strings.TrimSpace(m[1]), true
			}
		}
	}
	if m := ratingRE.FindStringSubmatch(reply); m != nil {
		return strings.TrimSpace(m[1]), true
	}
	return "", false
}

// support scores a Figure 7 rating.
func support(rating string) float64 {
	r := strings.ToLower(rating)
	switch {
	case strings.Contains(r, "fully"):
		return 1
	case strings.Contains(r, "partially"):
		return 0.5
	}
	return 0
}

// needCitation scores a Figure 8 rating as citation recall: a statement
// that needs a citation and has none scores 0.
func needCitation(rating string) float64 {
	if strings.Contains(strings.ToLower(rating), "yes") {
		return 0
	}
	return 1
}

// relevant scores a Figure 9 rating. Beyond the reference's "unrelevant",
// "irrelevant" and "not relevant" also count as not relevant.
func relevant(rating string) float64 {
	r := strings.ToLower(rating)
	for _, no := range []string{"unrelevant", "irrelevant", "not relevant"} {
		if strings.Contains(r, no) {
			return 0
		}
	}
	return 1
}
