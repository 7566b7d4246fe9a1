package eval_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/eval"
	"github.com/citelens/citelens/llm/llmtest"

	_ "github.com/citelens/citelens/engine/dag"
)

// TestCorrectnessJudgedWithoutCitations: under --judge all, a question
// whose citation rating the judge never gives still has its correctness
// judged (LongBench-Cite's scorer judges the two apart); the report says
// how many of each were judged.
func TestCorrectnessJudgedWithoutCitations(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		p := r.Last()
		switch {
		case strings.Contains(p, "give an overall integer rating in 1, 2, 3"):
			return llmtest.Text("[[3]]")
		case strings.HasPrefix(p, "You are an expert in evaluating text quality."):
			return llmtest.Text("I would rather not say.") // no rating, on every try
		}
		return enginetest.DeclarationAndJudge(r)
	}))
	dir := dataSet(t, "Where do governments derive their powers from? | consent of the governed", "Where do governments derive their powers from? | consent of the governed")
	var notices []string
	_, last, printed := run(t, dir, "longcite", enginetest.Config(srv), eval.Config{
		Judging: eval.Judging{Citations: true, Correctness: true},
		Notice:  func(s string) { notices = append(notices, s) },
	})
	var sum struct {
		Correctness       *float64 `json:"correctness_judged"`
		CorrectnessJudged int      `json:"correctness_judged_questions"`
		CitationsNot      int      `json:"citations_not_judged"`
		CorrectnessNot    int      `json:"correctness_not_judged"`
		CitationJudgedQ   int      `json:"judged"`
	}
	if err := json.Unmarshal([]byte(last), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Correctness == nil || *sum.Correctness != 1 || sum.CitationsNot != 2 || sum.CorrectnessNot != 0 || sum.CitationJudgedQ != 0 {
		t.Errorf("summary: %s", last)
	}
	if !strings.Contains(printed, "correctness judged by test-model over 2 questions: 1.000") || !strings.Contains(printed, "over 0 questions") || !strings.Contains(printed, "(2 not judged)") {
		t.Errorf("printed:\n%s", printed)
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "(citations): not judged") {
		t.Errorf("notices %q", notices)
	}
}

// TestOkraLongCost: eval reports OkraLong's cost measure, input tokens
// plus four times the output tokens, per question, in its summary and
// its printed line.
func TestOkraLongCost(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.DeclarationAndJudge))
	dir := dataSet(t, "Where do governments derive their powers from? | consent of the governed")
	sum, last, printed := run(t, dir, "longcite", enginetest.Config(srv), eval.Config{})
	want := sum.PromptTokensMean + 4*sum.CompletionTokensMean
	var got struct {
		Cost *float64 `json:"okralong_cost_mean"`
	}
	if err := json.Unmarshal([]byte(last), &got); err != nil || got.Cost == nil || *got.Cost != want || want <= sum.PromptTokensMean {
		t.Errorf("okralong_cost_mean: %s, want %.0f", last, want)
	}
	if !strings.Contains(printed, fmt.Sprintf("(OkraLong's cost, input + 4 × output: %.0f)", want)) {
		t.Errorf("printed:\n%s", printed)
	}
	// RAIDD's ROUGE scores are in the summary for every strategy.
	if sum.RougeReport == nil || sum.RougeQuestions != 1 || sum.Rouge1Mean <= 0 || !strings.Contains(last, `"rougeL_mean":`) || !strings.Contains(printed, "ROUGE over 1 questions") {
		t.Errorf("ROUGE: %+v\n%s", sum.RougeReport, printed)
	}
}

// TestShortAnswerScored: dag's planner's own answer ("X is the answer.",
// Algorithm 2's final answer) is scored for answer F1 and EM apart from
// the cited long form the reader gets.
func TestShortAnswerScored(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(r.Last(), "You should provide an answer to Question by thinking step by step") {
			return llmtest.Text("The consent of the governed is the answer.")
		}
		return enginetest.DeclarationAndJudge(r)
	}))
	dir := dataSet(t, "Where do governments derive their powers from? | consent of the governed")
	var lines strings.Builder
	sum, last, printed := run(t, dir, "dag", enginetest.Config(srv), eval.Config{Scores: &lines})
	if r := sum.ShortReport; r == nil || r.ShortAnswers != 1 || r.ShortF1 != 1 || r.ShortEM != 1 || sum.AnswerEM == 1 {
		t.Errorf("short answers %+v; long form EM %.1f", sum.ShortReport, sum.AnswerEM)
	}
	if !strings.Contains(lines.String(), `"answer_f1_short":1`) || !strings.Contains(last, `"short_answers":1`) ||
		!strings.Contains(printed, "short answers (the strategy's own, as its paper scores them) over 1 questions: answer_f1 1.000, answer_em 1.000") {
		t.Errorf("lines %s\nsummary %s\nprinted %s", lines.String(), last, printed)
	}
}
