package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

func embedRequests(srv *llmtest.Server) (reqs, texts int) {
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			reqs++
			texts += len(r.Embed.Input)
		}
	}
	return reqs, texts
}

func TestEmbedCommand(t *testing.T) {
	srv := llmtest.New(t)
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	_, errs, code := c.run("embed")
	if code == 0 || !strings.Contains(errs, "no embedding model set") || !strings.Contains(errs, "CITELENS_EMBED_MODEL") {
		t.Fatalf("embed without a model: status %d\n%s", code, errs)
	}
	t.Setenv("CITELENS_EMBED_MODEL", llmtest.DefaultEmbedModel)
	out := c.ok("embed", "--status")
	if !strings.Contains(out, "Nothing of 1 document is embedded") || len(srv.Requests()) != 0 {
		t.Errorf("status before embedding:\n%s", out)
	}
	out = c.ok("embed")
	reqs, texts := embedRequests(srv)
	if reqs == 0 || !strings.Contains(out, fmt.Sprintf("Embedded %d sentences and chunks with %s", texts, llmtest.DefaultEmbedModel)) ||
		!strings.Contains(out, fmt.Sprintf("%d calls", reqs)) || !strings.Contains(out, "complete") {
		t.Errorf("embed (%d requests, %d texts):\n%s", reqs, texts, out)
	}
	out = c.ok("embed")
	if r2, _ := embedRequests(srv); r2 != reqs || !strings.Contains(out, "Nothing to embed") {
		t.Errorf("second embed made %d requests:\n%s", r2-reqs, out)
	}
	var v embedView
	if err := json.Unmarshal([]byte(c.ok("embed", "--status", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Sets) != 2 || v.Sets[0].Stored != v.Sets[0].Units || v.Sets[0].Dim != llmtest.DefaultDim || v.Sets[0].Bytes == 0 {
		t.Errorf("status %+v", v)
	}
	if v.Sets[0].Units+v.Sets[1].Units != texts {
		t.Errorf("%d units stored, %d texts embedded", v.Sets[0].Units+v.Sets[1].Units, texts)
	}
	// Removing the document removes its vectors.
	c.ok("rm", string(v.Sets[0].Doc))
	c.ok("add", sample)
	if out := c.ok("embed", "--status"); !strings.Contains(out, "Nothing of 1 document is embedded") {
		t.Errorf("status after removing and adding again:\n%s", out)
	}
	if _, _, code := c.run("embed", "--level", "pages"); code == 0 {
		t.Error("a bad --level was accepted")
	}
}

// TestEmbedResumes: a run cut off by a failing server keeps its batches;
// the next run embeds only the rest.
func TestEmbedResumes(t *testing.T) {
	srv := llmtest.New(t)
	modelEnv(t, srv, "", llmtest.DefaultEmbedModel)
	t.Setenv("CITELENS_CONFIG", writeConfig(t, "embed_batch = 8\n"))
	c := newCLI(t)
	c.ok("add", sample)
	fail := llmtest.Status(400)
	srv.EnqueueEmbeddings(llmtest.Reply{}, llmtest.Reply{}, fail)
	_, errs, code := c.run("embed")
	if code == 0 || !strings.Contains(errs, "resumes where it stopped") {
		t.Fatalf("embed against a failing server: status %d\n%s", code, errs)
	}
	_, before := embedRequests(srv)
	c.ok("embed")
	_, after := embedRequests(srv)
	var v embedView
	json.Unmarshal([]byte(c.ok("embed", "--status", "--json")), &v)
	total := 0
	for _, s := range v.Sets {
		total += s.Units
	}
	// Two batches of 8 were stored before the failure.
	if after-before != total-16 {
		t.Errorf("the second run embedded %d texts, want %d of %d", after-before, total-16, total)
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalJudgeFlags: --judge alone judges citations, --judge all both
// kinds, and --judge-model names the judge (engine/eval's tests cover the
// figures); a judge endpoint without a model says what to set.
func TestEvalJudgeFlags(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.DeclarationAndJudge))
	modelEnv(t, srv, "", "")
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(sample)
	os.WriteFile(filepath.Join(data, "docs", "declaration.txt"), raw, 0o600)
	at := bytes.Index(raw, []byte("consent of the governed"))
	q := fmt.Sprintf(`{"id": "q1", "question": "Where do governments derive their powers from?", "answers": ["consent of the governed"], "docs": ["declaration.txt"], "evidence": [{"doc": "declaration.txt", "start": %d, "end": %d}]}`+"\n", at, at+20)
	os.WriteFile(filepath.Join(data, "questions.jsonl"), []byte(q), 0o600)
	for _, tc := range []struct {
		args             []string
		citations, right bool
	}{
		{[]string{"--judge"}, true, false},
		{[]string{"--judge", "correctness"}, false, true},
		{[]string{"--judge", "all", "--judge-model", llmtest.DefaultModel}, true, true},
		{nil, false, false},
	} {
		var out, errb strings.Builder
		args := append([]string{"eval", "--data", data, "--strategy", "longcite", "--per-question"}, tc.args...)
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: status %d\n%s", tc.args, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%v: %d lines:\n%s", tc.args, len(lines), out.String())
		}
		for _, l := range lines {
			if strings.Contains(l, "citation_recall_judged") != tc.citations || strings.Contains(l, `"correctness_judged"`) != tc.right {
				t.Errorf("%v: %s", tc.args, l)
			}
		}
		if strings.Contains(errb.String(), "judged by test-model over 1 questions: citation_recall") != tc.citations ||
			strings.Contains(errb.String(), "correctness judged by test-model over 1 questions") != tc.right {
			t.Errorf("%v: stderr\n%s", tc.args, errb.String())
		}
	}
	t.Setenv("CITELENS_JUDGE_BASE_URL", srv.URL+"/other")
	_, errs, code := newCLI(t).run("eval", "--data", data, "--strategy", "longcite", "--judge", "correctness")
	if code == 0 || !strings.Contains(errs, "has no model named") || !strings.Contains(errs, "--judge-model") {
		t.Errorf("a judge endpoint without a model: status %d\n%s", code, errs)
	}
}

// TestAPIKeyNeverWrittenDense: embedding, the cof strategy and the judge
// write no API key anywhere, even when the server echoes it in an error.
func TestAPIKeyNeverWrittenDense(t *testing.T) {
	const key = "sk-citelens-test-5d2e8b47a1c39f60"
	srv := llmtest.New(t, llmtest.WithKey(key), llmtest.WithResponder(func(req llmtest.ChatRequest) llmtest.Reply {
		p := req.Last()
		switch {
		case strings.Contains(p, "Your task is to add citations to the existing answer."):
			_, tc, _ := strings.Cut(p, "Now get ready to add citations for the following test case.")
			if strings.Contains(tc, "consent of the governed") {
				return llmtest.Text("<statement>Governments derive their just powers from the consent of the governed.<cite>[1]</cite></statement>")
			}
			return llmtest.Text("<statement>Governments derive their just powers from the consent of the governed.<cite></cite></statement>")
		case strings.Contains(p, "You will receive a passage and a factual statement."):
			return llmtest.Text("[0-1]")
		case strings.HasPrefix(p, "You are an expert in evaluating text quality."):
			return llmtest.Text("Rating: [[Relevant]] [[Yes]]")
		}
		return llmtest.Text("Governments derive their just powers from the consent of the governed.")
	}))
	home := modelEnv(t, srv, key, llmtest.DefaultEmbedModel)
	db := filepath.Join(home, "data", "citelens", "library.db")
	runp, printed := recordedRun(db)
	if code := runp("add", sample); code != 0 {
		t.Fatalf("add: %s", printed.String())
	}
	if code := runp("embed"); code != 0 {
		t.Fatalf("embed: %s", printed.String())
	}
	if code := runp("ask", "--strategy", "cof", "Where do governments derive their powers from?"); code != 0 {
		t.Fatalf("ask: %s", printed.String())
	}
	srv.EnqueueEmbeddings(llmtest.Reply{Status: 400, Body: `{"error":{"message":"bad input for key ` + key + `","type":"invalid_request_error"}}`})
	if code := runp("ask", "--json", "--strategy", "cof", "Who signed it?"); code != 0 {
		// The query embedding fails; cof falls back to BM25 and says so.
		t.Fatalf("ask with a failing embedder: %s", printed.String())
	}
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "docs"), 0o700)
	raw, _ := os.ReadFile(sample)
	os.WriteFile(filepath.Join(data, "docs", "declaration.txt"), raw, 0o600)
	os.WriteFile(filepath.Join(data, "questions.jsonl"), []byte(`{"id": "q", "question": "Where do governments derive their powers from?", "answers": [], "docs": ["declaration.txt"], "evidence": []}`+"\n"), 0o600)
	outFile := filepath.Join(home, "eval.jsonl")
	if code := runp("eval", "--data", data, "--strategy", "cof", "--judge", "--out", outFile); code != 0 {
		t.Fatalf("eval: %s", printed.String())
	}
	if !strings.Contains(printed.String(), "[redacted]") || !strings.Contains(printed.String(), "judged by") {
		t.Fatalf("the runs did not go as scripted:\n%s", printed.String())
	}
	if files := searchKey(t, key, home); files < 2 {
		t.Errorf("searched only %d files", files)
	}
	if strings.Contains(printed.String(), key) {
		t.Error("the API key was printed")
	}
	for _, r := range srv.Requests() {
		if !r.Auth {
			t.Error("a request went without the API key")
		}
	}
}
