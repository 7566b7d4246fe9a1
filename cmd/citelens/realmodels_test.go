package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/llm/llmtest"
	"github.com/citelens/citelens/internal/config"
)

// A server that cuts prompts as Ollama does at its default context length
// answers "An Introduction to R [1] · supported" to anything: ask, ask
// --json and every export say the prompt was cut and how to fix it.
func TestPromptCutShownEverywhere(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 1024), llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>The Declaration of Independence.<cite>[0-0]</cite></statement>")
	}))
	modelEnv(t, srv, "", "")
	t.Setenv(config.EnvContextWindow, "128000") // the model's own window, not the one Ollama gives it
	c := newCLI(t)
	c.ok("add", sample)
	const cut = "the server read only 1,024 of the prompt's about"
	const fixed = "start `ollama serve` with OLLAMA_CONTEXT_LENGTH=8192"

	out := c.ok("ask", "--strategy", "longcite", "What did the colonists object to?")
	if !strings.Contains(out, "Warnings\n- "+cut) || !strings.Contains(out, fixed) {
		t.Errorf("ask:\n%s", out)
	}
	var ans citations.Answer
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "longcite", "What did the colonists object to?")), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], cut) || !strings.Contains(ans.Warnings[0], fixed) {
		t.Errorf("ask --json warnings %q", ans.Warnings)
	}
	for _, format := range []string{"md", "html", "json"} {
		path := filepath.Join(t.TempDir(), "answer."+format)
		c.ok("export", ans.ID, "--format", format, "-o", path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// As each format writes it: HTML escaped, Markdown with its
		// characters escaped by backslashes.
		text := strings.ReplaceAll(html.UnescapeString(string(b)), `\`, "")
		if !strings.Contains(text, cut) || !strings.Contains(text, "OLLAMA_CONTEXT_LENGTH=8192") {
			t.Errorf("the %s export does not warn about the cut prompt:\n%.2000s", format, text)
		}
	}
}

// A reasoning model's thinking is no part of the printed answer; ask
// --json carries it in its own field.
func TestReasoningApartInAsk(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<think>Maybe <statement>a guess<cite>[1-1]</cite></statement>? No.</think>\n<statement>The Declaration of Independence.<cite>[0-0]</cite></statement>")
	}))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	out := c.ok("ask", "--strategy", "longcite", "What is this?")
	if strings.Contains(out, "guess") || !strings.Contains(out, "The Declaration of Independence. [1]") {
		t.Errorf("ask:\n%s", out)
	}
	var ans citations.Answer
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "longcite", "What is this?")), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 1 || ans.Reasoning != "Maybe <statement>a guess<cite>[1-1]</cite></statement>? No." {
		t.Errorf("statements %+v, reasoning %q", ans.Statements, ans.Reasoning)
	}
}

// eval --judge all --judge-model: the answers come from one server, the
// judging from another (judge_base_url) with the model named; eval
// reports LongBench's answer F1 and EM, citation length in tokens, the
// judged citation figures and the judged correctness.
func TestEvalJudgeModel(t *testing.T) {
	answers := llmtest.New(t, llmtest.WithResponder(scriptedAnswersAndJudge))
	judges := llmtest.New(t, llmtest.WithModels("judge-x"), llmtest.WithKey("sk-judge-only"), llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		reply, ok := llmtest.Judge(r)
		if !ok {
			return llmtest.Status(400)
		}
		return reply
	}))
	modelEnv(t, answers, "sk-answers-only", "")
	t.Setenv(config.EnvJudgeBaseURL, judges.URL)
	t.Setenv(config.EnvJudgeAPIKey, "sk-judge-only")
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "docs"), 0o700)
	raw, _ := os.ReadFile(sample)
	os.WriteFile(filepath.Join(data, "docs", "declaration.txt"), raw, 0o600)
	at := strings.Index(string(raw), "consent of the governed")
	q := `{"id": "q1", "question": "Where do governments derive their powers from?", "answers": ["the consent of the governed"], "docs": ["declaration.txt"], "evidence": [{"doc": "declaration.txt", "start": ` +
		strconv.Itoa(at) + `, "end": ` + strconv.Itoa(at+20) + `}]}`
	os.WriteFile(filepath.Join(data, "questions.jsonl"), []byte(q+"\n"), 0o600)

	var out, errb strings.Builder
	code := run([]string{"eval", "--data", data, "--strategy", "longcite", "--judge", "all", "--judge-model", "judge-x", "--per-question"}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("status %d\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last struct {
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
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &last) != nil {
		t.Fatalf("output:\n%s", out.String())
	}
	// "The document is the Declaration. Governments derive their just
	// powers from the consent of the governed." against "the consent of
	// the governed": normalised, 3 shared tokens of 12 and of 3.
	wantF1 := 2 * (3.0 / 12) * 1 / (3.0/12 + 1)
	if last.AnswerF1 == nil || *last.AnswerF1 < wantF1-1e-9 || *last.AnswerF1 > wantF1+1e-9 || *last.AnswerEM != 0 {
		t.Errorf("want answer_f1 %.4f and answer_em 0: %s", wantF1, lines[1])
	}
	if last.CitationLength <= last.CitationWords || last.CitationWords == 0 {
		t.Errorf("citation length %.1f tokens, %.1f words", last.CitationLength, last.CitationWords)
	}
	if last.Recall == nil || last.Correctness == nil || *last.Correctness != 1 || last.JudgeModel != "judge-x" || last.JudgeCalls == 0 || last.CorrectCalls != 1 {
		t.Errorf("judged: %s", lines[1])
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
	if len(judges.ChatRequests()) != last.JudgeCalls+last.CorrectCalls {
		t.Errorf("%d requests to the judge, %d counted", len(judges.ChatRequests()), last.JudgeCalls+last.CorrectCalls)
	}
	for _, want := range []string{"answer_f1 0.400, answer_em 0.000", "tokens (", "judged by judge-x over 1 questions", "correctness judged by judge-x over 1 questions: 1.000"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}

	// A judge endpoint with no model named says what to set.
	t.Setenv(config.EnvJudgeModel, "")
	_, errs, code := newCLI(t).run("eval", "--data", data, "--strategy", "longcite", "--judge", "correctness")
	if code == 0 || !strings.Contains(errs, "has no model named") || !strings.Contains(errs, "--judge-model") {
		t.Errorf("status %d\n%s", code, errs)
	}
}
