package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// askRecord is `ask --json` as a script reads it: the shape the issue
// specifies, each citation carrying its support verdict.
type askRecord struct {
	ID         string `json:"id"`
	Question   string `json:"question"`
	Strategy   string `json:"strategy"`
	Model      string `json:"model"`
	Statements []struct {
		Text      string `json:"text"`
		Citations []struct {
			Doc     string `json:"doc"`
			DocName string `json:"doc_name"`
			First   int    `json:"first_sentence"`
			Last    int    `json:"last_sentence"`
			Start   int    `json:"start"`
			End     int    `json:"end"`
			Page    int    `json:"page"`
			Text    string `json:"text"`
			Support string `json:"support"`
		} `json:"citations"`
	} `json:"statements"`
	Stages []string `json:"stages"`
	Usage  struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
		LLMCalls         *int `json:"llm_calls"`
	} `json:"usage"`
	Seconds  *float64 `json:"seconds"`
	AnswerID string   `json:"answer_id"`
}

// check verifies a record against the document it cites: every citation
// quotes exactly the bytes it names, and is judged.
func (r askRecord) check(t *testing.T, doc []byte) {
	t.Helper()
	if r.Strategy != "extractive" || r.Model != "" || r.AnswerID == "" || r.Seconds == nil || len(r.Stages) == 0 ||
		r.Usage.PromptTokens == nil || r.Usage.CompletionTokens == nil || r.Usage.LLMCalls == nil || *r.Usage.LLMCalls != 0 {
		t.Errorf("record fields: %+v", r)
	}
	if len(r.Statements) == 0 {
		t.Fatalf("no statements for %q", r.Question)
	}
	for _, s := range r.Statements {
		if len(s.Citations) == 0 {
			t.Errorf("extractive statement without a citation: %q", s.Text)
		}
		for _, c := range s.Citations {
			if c.DocName != "declaration.txt" || c.Page != 1 || c.Last < c.First || c.Support == "" ||
				c.End > len(doc) || string(doc[c.Start:c.End]) != c.Text {
				t.Errorf("citation %+v does not quote the document exactly", c)
			}
		}
	}
}

func TestAskJSONPlainAndExport(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	doc, _ := os.ReadFile(sample)
	// A path not yet in the library is added first.
	var rec askRecord
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--doc", sample, "What truths are held to be self-evident?")), &rec); err != nil {
		t.Fatal(err)
	}
	rec.check(t, doc)
	if !strings.Contains(rec.Statements[0].Text, "all men are created equal") {
		t.Errorf("first statement %q", rec.Statements[0].Text)
	}

	out := c.ok("ask", "--k", "2", "taxes", "without", "consent")
	if !strings.Contains(out, "For imposing Taxes on us without our Consent: [1]") || !strings.Contains(out, "\nSources\n[1] declaration.txt, p. 1, sentence ") {
		t.Errorf("plain output:\n%s", out)
	}
	if n := strings.Count(out, "\n[") - 0; n > 2 {
		t.Errorf("--k 2 printed %d sources:\n%s", n, out)
	}
	// A quote is marked by the question words it holds, as in the TUI
	// and the exports, never "supported" (it cites itself).
	if !strings.Contains(out, "question words: taxes, without, consent") || strings.Contains(out, "· supported") {
		t.Errorf("the sources' marks:\n%s", out)
	}

	list := c.ok("answers")
	if strings.Count(list, "extractive") != 2 || !strings.Contains(list, rec.AnswerID) {
		t.Errorf("answers:\n%s", list)
	}
	md := c.ok("export", rec.AnswerID)
	if !strings.Contains(md, "# What truths are held to be self-evident?") || !strings.Contains(md, "[^1]: declaration.txt, p. 1, sentence ") {
		t.Errorf("markdown export:\n%s", md)
	}
	file := filepath.Join(t.TempDir(), "a.html")
	c.ok("export", rec.AnswerID, "--format", "html", "-o", file)
	if html, _ := os.ReadFile(file); !strings.Contains(string(html), "<mark>We hold these truths") {
		t.Errorf("html export lacks the highlighted quote")
	}
	if _, errs, code := c.run("export", rec.AnswerID, "--format", "docx"); code == 0 || !strings.Contains(errs, "md, json, longbench, html") {
		t.Errorf("unknown format: %d %q", code, errs)
	}
}

func TestAskBatch(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", sample)
	doc, _ := os.ReadFile(sample)
	out := c.ok("ask", "--batch", "../../testdata/declaration-qa/questions.jsonl", "--k", "3")
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var ids []string
	for sc.Scan() {
		var rec askRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		rec.check(t, doc)
		ids = append(ids, rec.ID)
	}
	if strings.Join(ids, ",") != "d1,d2,d3,d4,d5,d6" {
		t.Errorf("batch ids %v", ids)
	}
}

func TestEvalOnSmallDataSet(t *testing.T) {
	// No --db and no CITELENS_DB: eval must use a temporary library, not
	// the user's default one.
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("CITELENS_DB", "")
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	var so, se strings.Builder
	if code := run([]string{"eval", "--data", "../../testdata/declaration-qa", "--k", "3", "--per-question", "--out", out}, strings.NewReader(""), &so, &se); code != 0 {
		t.Fatalf("eval: status %d\n%s", code, se.String())
	}
	stdout := so.String()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 7 {
		t.Fatalf("want 6 question lines and a summary, got:\n%s", stdout)
	}
	var sum struct {
		Strategy       string   `json:"strategy"`
		Questions      int      `json:"questions"`
		EvidenceRecall *float64 `json:"evidence_recall"`
		EvidenceAll    *float64 `json:"evidence_all"`
		Precision      *float64 `json:"citation_precision"`
		Length         *float64 `json:"citation_length"`
		AnswerHit      *float64 `json:"answer_hit"`
		SecondsP95     *float64 `json:"seconds_p95"`
	}
	if err := json.Unmarshal([]byte(lines[6]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Strategy != "extractive" || sum.Questions != 6 || sum.EvidenceRecall == nil || sum.Precision == nil ||
		sum.Length == nil || sum.AnswerHit == nil || sum.SecondsP95 == nil || sum.EvidenceAll == nil {
		t.Fatalf("summary %s", lines[6])
	}
	// Each question's answer sentence is among the top three here; a
	// ranking or scoring regression shows up as a lower figure.
	if *sum.EvidenceRecall < 5.0/6 || *sum.AnswerHit < 5.0/6 {
		t.Errorf("recall %.2f, answer hit %.2f on questions that name their sentence", *sum.EvidenceRecall, *sum.AnswerHit)
	}
	written, _ := os.ReadFile(out)
	if n := strings.Count(string(written), "\n"); n != 6 || !strings.Contains(string(written), `"scores"`) {
		t.Errorf("--out has %d lines", n)
	}
	if _, err := os.Stat(filepath.Join(data, "citelens")); err == nil {
		t.Errorf("eval created the default library")
	}
}

// TestEvalLongBenchCiteJSON: --data takes LongBench-Cite's released JSON
// as it is published and answers its questions.
func TestEvalLongBenchCiteJSON(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("CITELENS_DB", "")
	var so, se strings.Builder
	if code := run([]string{"eval", "--data", "../../testdata/longbench-cite/LongBench-Cite.json"}, strings.NewReader(""), &so, &se); code != 0 {
		t.Fatalf("eval: status %d\n%s", code, se.String())
	}
	if !strings.Contains(so.String(), `"questions":2`) {
		t.Errorf("stdout:\n%s", so.String())
	}
}
