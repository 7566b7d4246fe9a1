package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/eval"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"

	_ "github.com/citelens/citelens/engine/extractive"
	_ "github.com/citelens/citelens/engine/longcite"
	_ "github.com/citelens/citelens/engine/raidd"
)

const sample = "../../testdata/declaration.txt"

// dataSet writes a data set of the declaration and one question a line,
// each "id: question: answer" pair's evidence the first occurrence of the
// answer (or the document's start), and returns its folder.
func dataSet(t *testing.T, questions ...string) string {
	t.Helper()
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var qs strings.Builder
	for i, q := range questions {
		q, answer, _ := strings.Cut(q, " | ")
		at, end := 0, 40
		answers := "[]"
		if answer != "" {
			at = bytes.Index(raw, []byte("consent of the governed"))
			end = at + 20
			answers = fmt.Sprintf("[%q]", answer)
		}
		fmt.Fprintf(&qs, `{"id": "q%d", "question": %q, "answers": %s, "docs": ["declaration.txt"], "evidence": [{"doc": "declaration.txt", "start": %d, "end": %d}]}`+"\n",
			i, q, answers, at, end)
	}
	return enginetest.WriteTree(t, t.TempDir(), map[string]string{
		"docs/declaration.txt": string(raw),
		"questions.jsonl":      qs.String(),
	})
}

// run evaluates the data set in dir with strategy against cfg's model,
// returning the summary, its JSON and what Print wrote.
func run(t *testing.T, dir, strategy string, mcfg config.Config, ec eval.Config) (*eval.Summary, string, string) {
	t.Helper()
	files, err := eval.DocFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := enginetest.Library(t, files...)
	env := enginetest.Env(t, lib, mcfg)
	golds, err := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if ec.Strategy, err = engine.New(strategy, env); err != nil {
		t.Fatal(err)
	}
	sum, err := eval.Run(context.Background(), env, golds, ec)
	if err != nil {
		t.Fatal(err)
	}
	var js, printed strings.Builder
	if err := json.NewEncoder(&js).Encode(sum); err != nil {
		t.Fatal(err)
	}
	sum.Print(&printed)
	return sum, js.String(), printed.String()
}

// TestJudgeCitations: the judge's figures per question (Config.Scores)
// and in the summary, its calls counted apart from the answers'; nothing
// of the judge without Judging.
func TestJudgeCitations(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.DeclarationAndJudge))
	dir := dataSet(t, "Where do governments derive their powers from? | consent of the governed", "Where do governments derive their powers from? | consent of the governed")
	var lines strings.Builder
	_, last, printed := run(t, dir, "longcite", enginetest.Config(srv), eval.Config{Judging: eval.Judging{Citations: true}, Scores: &lines})
	all := append(strings.Split(strings.TrimSpace(lines.String()), "\n"), strings.TrimSpace(last))
	if len(all) != 3 {
		t.Fatalf("%d lines:\n%s", len(all), strings.Join(all, "\n"))
	}
	type figures struct {
		Recall      *float64 `json:"citation_recall_judged"`
		Precision   *float64 `json:"citation_precision_judged"`
		F1          *float64 `json:"citation_f1_judged"`
		JudgeCalls  int      `json:"judge_llm_calls"`
		JudgePrompt int      `json:"judge_prompt_tokens"`
		LLMCalls    int      `json:"llm_calls"`
		Evidence    float64  `json:"evidence_recall"`
		Judged      int      `json:"judged"`
		JudgeModel  string   `json:"judge_model"`
	}
	// Recall: the introduction needs no citation (1), the cited statement
	// is partially supported (0.5); precision: its one citation relevant.
	wantR, wantP := 0.75, 1.0
	wantF := 2 * wantR * wantP / (wantR + wantP)
	for i, l := range all {
		var f figures
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatal(err)
		}
		if f.Recall == nil || *f.Recall != wantR || *f.Precision != wantP || *f.F1 < wantF-1e-9 || *f.F1 > wantF+1e-9 {
			t.Errorf("line %d: %s", i+1, l)
		}
		// The judge's three calls are counted apart from the answer's one.
		if i < 2 && (f.JudgeCalls != 3 || f.JudgePrompt == 0 || f.LLMCalls != 1 || f.Evidence != 1) {
			t.Errorf("line %d usage: %s", i+1, l)
		}
		if i == 2 && (f.Judged != 2 || f.JudgeCalls != 6 || f.LLMCalls != 2 || f.JudgeModel != llmtest.DefaultModel) {
			t.Errorf("summary: %s", l)
		}
	}
	if !strings.Contains(printed, "judged by test-model over 2 questions: citation_recall 0.750, citation_precision 1.000, citation_f1 0.857") {
		t.Errorf("printed:\n%s", printed)
	}
	// LongCite shows the model the whole document, so the context held
	// the evidence of both questions, both answered correctly.
	if !strings.Contains(printed, "chunk retrieval over 2 questions (as RAIDD reports it): ccr 1.000; cp_ccr 1.000 over 2 correct, ip_ccr – over 0 incorrect (correct by answer_hit)") {
		t.Errorf("printed:\n%s", printed)
	}

	// Without Judging nothing of the judge appears.
	_, last, printed = run(t, dir, "longcite", enginetest.Config(srv), eval.Config{})
	if strings.Contains(last, "judged") || strings.Contains(printed, "judged") {
		t.Errorf("eval without a judge:\n%s\n%s", last, printed)
	}
}

// TestJudgeModel: the answers come from one server, the judging from
// another (judge_base_url) with the model named; the summary has
// LongBench's answer F1 and EM, citation length in tokens, the judged
// citation figures and the judged correctness.
func TestJudgeModel(t *testing.T) {
	t.Parallel()
	answers := llmtest.New(t, llmtest.WithResponder(enginetest.DeclarationAndJudge))
	judges := llmtest.New(t, llmtest.WithModels("judge-x"), llmtest.WithKey("sk-judge-only"), llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		reply, ok := llmtest.Judge(r)
		if !ok {
			return llmtest.Status(400)
		}
		return reply
	}))
	cfg := enginetest.Config(answers)
	cfg.APIKey = "sk-answers-only"
	cfg.Judge = config.Judge{BaseURL: judges.URL, APIKey: "sk-judge-only"}
	dir := dataSet(t, "Where do governments derive their powers from? | the consent of the governed")
	var lines strings.Builder
	_, last, printed := run(t, dir, "longcite", cfg, eval.Config{Judging: eval.Judging{Citations: true, Correctness: true, Model: "judge-x"}, Scores: &lines})
	var sum struct {
		AnswerF1       *float64 `json:"answer_f1"`
		AnswerEM       *float64 `json:"answer_em"`
		CitationLength float64  `json:"citation_length"`
		CitationWords  float64  `json:"citation_words"`
		Recall         *float64 `json:"citation_recall_judged"`
		Correctness    *float64 `json:"correctness_judged"`
		JudgeModel     string   `json:"judge_model"`
		JudgeCalls     int      `json:"judge_llm_calls"`
		CorrectCalls   int      `json:"correctness_judge_llm_calls"`
	}
	if n := strings.Count(lines.String(), "\n"); n != 1 || json.Unmarshal([]byte(last), &sum) != nil {
		t.Fatalf("%d question lines; summary:\n%s", n, last)
	}
	// "The document is the Declaration. Governments derive their just
	// powers from the consent of the governed." against "the consent of
	// the governed": normalised, 3 shared tokens of 12 and of 3.
	wantF1 := 2 * (3.0 / 12) * 1 / (3.0/12 + 1)
	if sum.AnswerF1 == nil || *sum.AnswerF1 < wantF1-1e-9 || *sum.AnswerF1 > wantF1+1e-9 || *sum.AnswerEM != 0 {
		t.Errorf("want answer_f1 %.4f and answer_em 0: %s", wantF1, last)
	}
	if sum.CitationLength <= sum.CitationWords || sum.CitationWords == 0 {
		t.Errorf("citation length %.1f tokens, %.1f words", sum.CitationLength, sum.CitationWords)
	}
	if sum.Recall == nil || sum.Correctness == nil || *sum.Correctness != 1 || sum.JudgeModel != "judge-x" || sum.JudgeCalls == 0 || sum.CorrectCalls != 1 {
		t.Errorf("judged: %s", last)
	}
	for _, r := range answers.ChatRequests() {
		if strings.Contains(r.Last(), "evaluating") {
			t.Errorf("the answering server was asked to judge")
		}
	}
	for _, r := range judges.Requests() {
		if r.Chat != nil && r.Chat.Model != "judge-x" {
			t.Errorf("the judge was asked as %q", r.Chat.Model)
		}
	}
	if len(judges.ChatRequests()) != sum.JudgeCalls+sum.CorrectCalls {
		t.Errorf("%d requests to the judge, %d counted", len(judges.ChatRequests()), sum.JudgeCalls+sum.CorrectCalls)
	}
	for _, want := range []string{"answer_f1 0.400, answer_em 0.000", "tokens (", "judged by judge-x over 1 questions", "correctness judged by judge-x over 1 questions: 1.000"} {
		if !strings.Contains(printed, want) {
			t.Errorf("printed lacks %q:\n%s", want, printed)
		}
	}

	// A judge endpoint with no model named says what to set.
	files, _ := eval.DocFiles(dir)
	lib, _ := enginetest.Library(t, files...)
	env := enginetest.Env(t, lib, cfg)
	s, _ := engine.New("longcite", env)
	golds, _ := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	_, err := eval.Run(context.Background(), env, golds, eval.Config{Strategy: s, Judging: eval.Judging{Correctness: true}})
	if err == nil || !strings.Contains(err.Error(), "has no model named") || !strings.Contains(err.Error()+fixOf(err), "--judge-model") {
		t.Errorf("a judge without a model: %v", err)
	}
}

// fixOf is err's fix, "" if it has none.
func fixOf(err error) string {
	if f, ok := err.(interface{ Fix() string }); ok {
		return f.Fix()
	}
	return ""
}

// TestDeriveCostApart: an evaluation of a RAIDD strategy derives first
// and reports that cost apart from the answers'.
func TestDeriveCostApart(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	dir := dataSet(t, "What do governments derive their powers from?", "What did the King refuse?", "What is the history of the present King of Great Britain?")
	_, last, printed := run(t, dir, "raidd-q+", enginetest.Config(srv), eval.Config{})
	var sum struct {
		Strategy  string `json:"strategy"`
		Questions int    `json:"questions"`
		LLMCalls  int    `json:"llm_calls"`
		Prompt    int    `json:"prompt_tokens"`
		Complete  int    `json:"completion_tokens"`
		Derive    *struct {
			Chunks   int `json:"chunks"`
			LLMCalls int `json:"llm_calls"`
			Prompt   int `json:"prompt_tokens"`
			Complete int `json:"completion_tokens"`
		} `json:"derive"`
	}
	if err := json.Unmarshal([]byte(last), &sum); err != nil {
		t.Fatal(err)
	}
	answers := 0
	for _, r := range srv.ChatRequests() {
		if !enginetest.IsDerivation(r.Last()) {
			answers++
		}
	}
	if sum.Strategy != "raidd-q+" || sum.Questions != 3 || sum.LLMCalls != 3 || answers != 3 || sum.Prompt == 0 || sum.Complete == 0 {
		t.Errorf("answers' usage %+v (%d answering requests)", sum, answers)
	}
	if d := sum.Derive; d == nil || d.Chunks == 0 || d.LLMCalls != 2*d.Chunks || d.Prompt == 0 || d.Complete == 0 || d.LLMCalls+answers != len(srv.ChatRequests()) {
		t.Errorf("derive cost %+v of %d requests", sum.Derive, len(srv.ChatRequests()))
	}
	if !strings.Contains(printed, "derive step: ") {
		t.Errorf("the summary line lacks the derive step:\n%s", printed)
	}
}

// TestEmbedsBeforeAnswers: with an embedding model, the derive step also
// embeds the strategy's derived units, reported with it, so each answer
// pays only for embedding its question.
func TestEmbedsBeforeAnswers(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	questions := []string{"What do governments derive their powers from?", "What is the history of the present King of Great Britain?"}
	dir := dataSet(t, questions...)
	var records strings.Builder
	sum, _, printed := run(t, dir, "raidd-u", cfg, eval.Config{Records: &records})
	var embedded []string
	embedCalls := 0
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			embedCalls++
			embedded = append(embedded, r.Embed.Input...)
		}
	}
	if sum.Derive == nil || sum.Derive.Embedding == nil {
		t.Fatalf("no embedding in the derive step: %+v", sum)
	}
	e := sum.Derive.Embedding
	// raidd-u's kinds (summaries, questions, raw chunks) once, then one
	// question per answer.
	if e.Embedded == 0 || e.Embedded != e.Units || len(embedded) != e.Embedded+len(questions) ||
		embedCalls != e.Usage.LLMCalls+len(questions) || sum.LLMCalls != 2*len(questions) {
		t.Errorf("derive embedding %+v; %d texts in %d calls; answers' calls %d\n%s", e, len(embedded), embedCalls, sum.LLMCalls, records.String())
	}
	if n := strings.Count(records.String(), "\n"); n != len(questions) || !strings.Contains(records.String(), `"scores"`) || !strings.Contains(records.String(), `"id":"q1"`) {
		t.Errorf("%d records:\n%s", n, records.String())
	}
	if !strings.Contains(printed, "derived units embedded in ") {
		t.Errorf("the summary line lacks the embedding:\n%s", printed)
	}
}

// TestMissingDocument: a question naming a document the library lacks
// stops the evaluation and says which question.
func TestMissingDocument(t *testing.T) {
	t.Parallel()
	dir := enginetest.WriteTree(t, t.TempDir(), map[string]string{
		"docs/a.txt":      "Alpha is the first letter.",
		"questions.jsonl": `{"id": "x1", "question": "What is alpha?", "answers": [], "docs": ["b.txt"], "evidence": []}` + "\n",
	})
	files, _ := eval.DocFiles(dir)
	lib, _ := enginetest.Library(t, files...)
	env := &engine.Env{Library: lib, Config: config.Default()}
	s, _ := engine.New("extractive", env)
	golds, _ := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	if _, err := eval.Run(context.Background(), env, golds, eval.Config{Strategy: s}); err == nil || !strings.Contains(err.Error(), "question x1") {
		t.Errorf("a missing document: %v", err)
	}
}

// TestReadQuestions: blank lines are skipped; a malformed line is named;
// a file without questions is an error.
func TestReadQuestions(t *testing.T) {
	t.Parallel()
	dir := enginetest.WriteTree(t, t.TempDir(), map[string]string{
		"ok.jsonl":    "\n" + `{"id": "a", "question": "Q?"}` + "\n\n",
		"bad.jsonl":   `{"id": "a", "question": "Q?"}` + "\n{oops\n",
		"empty.jsonl": "\n\n",
	})
	if gs, err := eval.ReadQuestions(filepath.Join(dir, "ok.jsonl")); err != nil || len(gs) != 1 || gs[0].ID != "a" {
		t.Errorf("ok: %+v, %v", gs, err)
	}
	if _, err := eval.ReadQuestions(filepath.Join(dir, "bad.jsonl")); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("bad: %v", err)
	}
	if _, err := eval.ReadQuestions(filepath.Join(dir, "empty.jsonl")); err == nil || !strings.Contains(err.Error(), "no questions") {
		t.Errorf("empty: %v", err)
	}
}

// scriptedLQA answers the plain strategy's prompt (CoF's draft) with the
// gold answer's words and LAC-S prompts with an answer missing them, and
// judges correctness by the share of the reference's words (llmtest's
// judge): the plain answers score 1, the cited ones 0.5 — CR 0.5.
func scriptedLQA(r llmtest.ChatRequest) llmtest.Reply {
	if reply, ok := llmtest.Judge(r); ok {
		return reply
	}
	p := r.Last()
	if strings.HasPrefix(p, "[Document Start]\n") { // plain: the context and the question alone
		return llmtest.Text("Governments derive their just powers from the consent of the governed.")
	}
	return enginetest.CiteConsent(p, "<statement>Their powers come from the consent of others.<cite>[%s-%s]</cite></statement>")
}

// TestCorrectnessRatio: CR = C / C_LQA against the plain strategy, run
// alongside or read from a plain run's records, over the questions
// judged in both; a baseline of another strategy is refused.
func TestCorrectnessRatio(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(scriptedLQA))
	dir := dataSet(t, "Where do governments derive their powers from? | consent of the governed",
		"Where do governments derive their powers from? | consent of the governed")
	cfg := enginetest.Config(srv)

	// Alongside: one plain answer and its judgement per question.
	var lines strings.Builder
	sum, last, printed := run(t, dir, "longcite", cfg, eval.Config{LQA: eval.RunPlain, Scores: &lines})
	r := sum.CorrectnessRatio
	if r == nil || r.Questions != 2 || r.C != 0.5 || r.LQA != 1 || r.Ratio != 0.5 || r.From != "run" || r.Usage.LLMCalls != 2 || r.JudgeUsage.LLMCalls != 2 {
		t.Fatalf("ratio %+v", r)
	}
	if !strings.Contains(last, `"correctness_ratio":0.5`) || !strings.Contains(last, `"correctness_lqa":1`) || strings.Count(lines.String(), `"correctness_lqa":1`) != 2 {
		t.Errorf("JSON:\n%s%s", lines.String(), last)
	}
	if !strings.Contains(printed, "correctness judged by test-model over 2 questions: 0.500") ||
		!strings.Contains(printed, "correctness ratio CR = C / C_LQA = 0.500 over 2 questions judged in both runs (C 0.500, C_LQA 1.000 from the plain strategy, answering alongside") {
		t.Errorf("printed:\n%s", printed)
	}
	// The evaluation's own usage is the cited answers' alone.
	if sum.LLMCalls != 2 {
		t.Errorf("the evaluation counts %d calls; want its own 2", sum.LLMCalls)
	}

	// From a plain run's records: its first question only was judged.
	var records strings.Builder
	run(t, dir, "plain", cfg, eval.Config{Judging: eval.Judging{Correctness: true}, Records: &records})
	first, _, _ := strings.Cut(records.String(), "\n")
	path := enginetest.WriteFile(t, "plain.jsonl", first+"\n")
	sum, _, printed = run(t, dir, "longcite", cfg, eval.Config{LQA: path})
	if r := sum.CorrectnessRatio; r == nil || r.Questions != 1 || r.Ratio != 0.5 || r.From != path || r.Usage != nil {
		t.Errorf("from records: %+v", r)
	}
	if !strings.Contains(printed, "over 1 questions judged in both runs") {
		t.Errorf("printed:\n%s", printed)
	}

	// A baseline that is not the plain strategy's.
	var cited strings.Builder
	run(t, dir, "longcite", cfg, eval.Config{Judging: eval.Judging{Correctness: true}, Records: &cited})
	files, _ := eval.DocFiles(dir)
	lib, _ := enginetest.Library(t, files...)
	env := enginetest.Env(t, lib, cfg)
	s, _ := engine.New("longcite", env)
	golds, _ := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	_, err := eval.Run(context.Background(), env, golds, eval.Config{Strategy: s, LQA: enginetest.WriteFile(t, "cited.jsonl", cited.String())})
	if err == nil || !strings.Contains(err.Error(), "a record of the longcite strategy, not of plain") {
		t.Errorf("a baseline of another strategy: %v", err)
	}
}

// TestLearnsInContext: with raidd-s-icl, each answer is graded by the
// model against the true answers and the lesson goes before the
// questions after it; the grading's cost is reported apart; a grading
// reply without a score is told and skipped.
func TestLearnsInContext(t *testing.T) {
	t.Parallel()
	grades := []string{"Score: 0.6", "no score", "no score", "Score: 1"}
	var mu sync.Mutex
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		if strings.HasPrefix(r.Last(), "Score how well an answer") {
			mu.Lock()
			defer mu.Unlock()
			g := grades[0]
			grades = grades[1:]
			return llmtest.Text(g)
		}
		return enginetest.RAIDDReplies(r)
	}))
	q := "Where do governments derive their powers from? | consent of the governed"
	dir := dataSet(t, q, q, q)
	var notices []string
	sum, last, printed := run(t, dir, "raidd-s-icl", enginetest.Config(srv), eval.Config{Notice: func(s string) { notices = append(notices, s) }})
	var answering []llmtest.ChatRequest
	for _, r := range srv.ChatRequests() {
		if !enginetest.IsDerivation(r.Last()) && !strings.HasPrefix(r.Last(), "Score how well") {
			answering = append(answering, r)
		}
	}
	if len(answering) != 3 {
		t.Fatalf("%d answering requests\n%s", len(answering), printed)
	}
	if n := len(answering[0].Messages); n != 1 {
		t.Errorf("the first question was asked with %d messages; nothing to learn from yet", n)
	}
	for i, want := range []int{1, 1} { // the second question's grading failed: still one lesson
		msgs := answering[i+1].Messages
		if len(msgs) != 3 || strings.Count(msgs[0].Content, "Past question") != want || !strings.Contains(msgs[0].Content, "True answer: consent of the governed\nScore: 0.60") {
			t.Errorf("question %d's meta-prompt: %d messages\n%s", i+2, len(msgs), msgs[0].Content)
		}
	}
	if l := sum.Learning; l == nil || l.Lessons != 2 || l.Ungraded != 1 || l.LLMCalls != 4 {
		t.Errorf("learning %+v", sum.Learning)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "holds no score") {
		t.Errorf("notices %q", notices)
	}
	if !strings.Contains(printed, "learning in context: 2 answers graded by the model") || !strings.Contains(last, `"learning":{"lessons":2`) {
		t.Errorf("printed:\n%s\n%s", printed, last)
	}
}

func TestReadQuestionsAlternatives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := `{"id":"a","question":"q?","answers":["2300k"]}` + "\n" + `{"id":"b","question":"r?","answers":["x"]}` + "\n"
	meta := `{"id":"a","kind":"next-line","alternatives":{"2300k":["2300 kbytes"]}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(q), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "questions_meta.jsonl"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	gs, err := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := gs[0].Alternatives["2300k"]; len(got) != 1 || got[0] != "2300 kbytes" || gs[1].Alternatives != nil {
		t.Errorf("alternatives: %v, %v", gs[0].Alternatives, gs[1].Alternatives)
	}
}
