package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/textproc"
)

// longBenchCiteItem is one question of LongBench-Cite as THUDM publishes
// it (LongBench-Cite.json, a JSON array read by its pred_*.py and
// eval_*.py scripts): the question over its context, the gold answers,
// and for LongBench-Chat the rated answers its judge is shown.
type longBenchCiteItem struct {
	Idx           json.Number             `json:"idx"`
	Dataset       string                  `json:"dataset"`
	Query         string                  `json:"query"`
	Context       string                  `json:"context"`
	Answer        json.RawMessage         `json:"answer"`
	FewShotScores []citations.RatedAnswer `json:"few_shot_scores"`
}

// LongBenchCiteTask is the correctness judge's task for a LongBench-Cite
// dataset, as its eval_correct.py picks the judge's prompt: gov_report a
// summary (Figure 5), longbench-chat chat rated against few-shot answers
// (Figure 6), every other one question answering (Figure 4).
func LongBenchCiteTask(dataset string) string {
	switch dataset {
	case "gov_report":
		return "summary"
	case "longbench-chat":
		return "chat"
	}
	return "qa"
}

// ConvertLongBenchCite writes LongBench-Cite's released JSON (read from
// r) as a data set in dir: each question's context as docs/<dataset>-<idx>.txt
// and its gold as a line of questions.jsonl, so `citelens eval` runs the
// benchmark as published. LongBench-Cite has no gold evidence: its
// citations are judged (eval --judge), so the evidence figures stay 0.
// It returns how many questions it wrote.
func ConvertLongBenchCite(r io.Reader, dir string) (int, error) {
	var items []longBenchCiteItem
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&items); err != nil {
		return 0, fmt.Errorf("not LongBench-Cite's JSON (an array of {idx, dataset, query, context, answer, few_shot_scores}): %w", err)
	}
	if len(items) == 0 {
		return 0, fmt.Errorf("the LongBench-Cite file has no questions")
	}
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		return 0, err
	}
	out, err := os.Create(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		return 0, err
	}
	defer out.Close()
	enc := json.NewEncoder(out)
	for i, it := range items {
		if it.Query == "" || it.Context == "" {
			return 0, fmt.Errorf("LongBench-Cite item %d (idx %s): no query or no context", i, it.Idx)
		}
		answers, err := goldAnswers(it.Answer)
		if err != nil {
			return 0, fmt.Errorf("LongBench-Cite item %d (idx %s): %w", i, it.Idx, err)
		}
		name := fmt.Sprintf("%s-%s.txt", safeName(it.Dataset), it.Idx)
		if err := os.WriteFile(filepath.Join(dir, "docs", name), []byte(it.Context), 0o644); err != nil {
			return 0, err
		}
		g := citations.Gold{ID: fmt.Sprintf("%s-%s", it.Dataset, it.Idx), Question: it.Query, Answers: answers, Docs: []string{name},
			Task: LongBenchCiteTask(it.Dataset), FewShot: it.FewShotScores}
		if err := enc.Encode(g); err != nil {
			return 0, err
		}
	}
	return len(items), out.Close()
}

// goldAnswers reads "answer": a list of answers, or one.
func goldAnswers(raw json.RawMessage) ([]string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, fmt.Errorf("answer is neither a string nor a list of strings")
	}
	return []string{one}, nil
}

// safeName keeps a dataset name usable in a file name.
func safeName(s string) string {
	s = textproc.OneLine(s)
	out := []rune{}
	for _, r := range s {
		if r == '/' || r == '\\' || r == ' ' || r < 32 {
			r = '_'
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return "item"
	}
	return string(out)
}
