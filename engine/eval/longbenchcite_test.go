package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/eval"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestLongBenchCiteAsPublished: testdata/longbench-cite holds two items
// in the shape of THUDM's LongBench-Cite.json; converted, they are a data
// set eval runs and judges as the benchmark does (gov_report a summary,
// longbench-chat rated against its few-shot answers, the rest QA).
func TestLongBenchCiteAsPublished(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../testdata/longbench-cite/LongBench-Cite.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	n, err := eval.ConvertLongBenchCite(f, dir)
	if err != nil || n != 2 {
		t.Fatalf("converted %d: %v", n, err)
	}
	golds, err := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if g := golds[0]; g.ID != "hotpotqa-0" || g.Task != "qa" || len(g.Answers) != 1 || g.Answers[0] != "yes" || g.Docs[0] != "hotpotqa-0.txt" {
		t.Errorf("first gold %+v", g)
	}
	if g := golds[1]; g.Task != "chat" || len(g.FewShot) != 3 || g.FewShot[0].Score != 9 {
		t.Errorf("second gold %+v", g)
	}
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		if reply, ok := llmtest.Judge(r); ok {
			return reply
		}
		return enginetest.DeclarationAndJudge(r)
	}))
	_, last, _ := run(t, dir, "longcite", enginetest.Config(srv), eval.Config{Judging: eval.Judging{Correctness: true}})
	if !strings.Contains(last, `"questions":2`) || !strings.Contains(last, `"correctness_judged"`) {
		t.Errorf("summary %s", last)
	}
	if _, err := eval.ConvertLongBenchCite(strings.NewReader(`{"idx": 0}`), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not LongBench-Cite's JSON") {
		t.Errorf("an object, not an array: %v", err)
	}
}
