package generate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// recorder collects events, noting how many deltas had arrived when each
// statement was emitted.
type recorder struct {
	deltas      int
	statementAt []int
	statements  []citations.Statement
	stages      []string
	usage       []citations.Usage
}

func (r *recorder) emit(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.Delta:
		r.deltas++
	case engine.Statement:
		r.statementAt = append(r.statementAt, r.deltas)
		r.statements = append(r.statements, ev.Statement)
	case engine.Stage:
		r.stages = append(r.stages, string(ev))
	case engine.Usage:
		r.usage = append(r.usage, ev.Usage)
	}
}

// run runs generate.Run for req in an answer of its own against srv,
// passing the events to emit, and returns the result and the answer.
func run(t *testing.T, srv *llmtest.Server, req Request, emit func(engine.Event)) (*Result, *engine.Answer, error) {
	t.Helper()
	lib, _ := enginetest.TextLibrary(t, "scope.txt", "The answers are scripted.")
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var res *Result
	ans, err := enginetest.Answer(t.Context(), env, req.Question, func(ctx context.Context, rt *engine.Runtime) error {
		var err error
		res, err = Run(ctx, rt, req)
		return err
	}, emit)
	return res, ans, err
}

func TestRunStreamsStatements(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"The reservoir fell to 31% of capacity in 2021.", "A watering ban followed."}, []string{"Demand dropped by 14%."})
	srv := llmtest.New(t)
	deltas := []string{
		"<statement>The reservoir fell to 31%", " in 2021.<cite>[0-0]</cite></statement>",
		"\n<statement>Demand then", " dropped by 14%.<cite>[2-", "2]</cite></state", "ment>",
		"\n<statement>That is all.<cite></cite></statement>",
	}
	srv.Enqueue(llmtest.Reply{Deltas: deltas, ChunkDelay: 20 * time.Millisecond})
	var rec recorder
	start := time.Now()
	var firstAt time.Duration
	res, _, err := run(t, srv, Request{
		Question: "What happened in 2021?", Numbering: mustNumber(t, citations.Part{Doc: d}),
	}, func(ev engine.Event) {
		if _, ok := ev.(engine.Statement); ok && firstAt == 0 {
			firstAt = time.Since(start)
		}
		rec.emit(ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if len(res.Statements) != 3 || len(rec.statements) != 3 {
		t.Fatalf("got %d statements (%d emitted), want 3: %+v", len(res.Statements), len(rec.statements), res.Statements)
	}
	// Each statement is emitted when its </statement> arrives, not at the end.
	if want := []int{2, 6, 7}; rec.statementAt[0] != want[0] || rec.statementAt[1] != want[1] {
		t.Errorf("statements emitted after deltas %v, want %v", rec.statementAt, want)
	}
	if firstAt >= total-80*time.Millisecond {
		t.Errorf("first statement at %v of %v: not emitted while the stream ran", firstAt, total)
	}
	if got := res.Statements[1].Citations; len(got) != 1 || got[0].Text != "Demand dropped by 14%." {
		t.Errorf("second statement cites %+v", got)
	}
	if res.Text != strings.Join(deltas, "") || res.Model != llmtest.DefaultModel || res.FinishReason != "stop" {
		t.Errorf("result %+v", res)
	}
	if len(rec.usage) != 1 || rec.usage[0].LLMCalls != 1 || rec.usage[0].PromptTokens == 0 {
		t.Errorf("usage events %+v", rec.usage)
	}
}

func TestRunLengthWarning(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"One."})
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "<statement>One<cite>[0-0]</cite></statement><statement>Tw", FinishReason: "length"})
	_, ans, err := run(t, srv, Request{Question: "q?", Numbering: mustNumber(t, citations.Part{Doc: d}), MaxTokens: 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "output limit of 20 tokens") {
		t.Errorf("warnings %q", ans.Warnings)
	}
	if len(srv.ChatRequests()) != 1 || srv.ChatRequests()[0].MaxTokens != 20 {
		t.Errorf("max_tokens not passed on")
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"One.", "Two."})
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{"<statement>One.<cite>[0-0]</cite></statement>", "<statement>Half a sta"}, Drop: true, DropAfter: 2})
	var rec recorder
	res, ans, err := run(t, srv, Request{Question: "q?", Numbering: mustNumber(t, citations.Part{Doc: d})}, rec.emit)
	if !errors.Is(err, llm.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	if len(res.Statements) != 1 || res.Statements[0].Text != "One." {
		t.Errorf("statements %+v: want the finished one only", res.Statements)
	}
	// The answer keeps the statement the model was writing, unfinished
	// and uncited, and says so to the front end too.
	if n := len(ans.Statements); n != 2 || !ans.Statements[1].Unfinished || ans.Statements[1].Text != "Half a sta" ||
		len(ans.Statements[1].Citations) != 0 || len(rec.statements) != 2 {
		t.Errorf("answer statements %+v (%d events): want the finished one and the unfinished one", ans.Statements, len(rec.statements))
	}
	if !strings.HasSuffix(res.Text, "Half a sta") {
		t.Errorf("text %q lost what arrived", res.Text)
	}
	if len(rec.usage) != 1 {
		t.Errorf("usage events %+v: a failed call still counts", rec.usage)
	}
}

func TestRunRetryStage(t *testing.T) {
	t.Parallel()
	d := makeDoc("a", []string{"One."})
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Status(503), llmtest.Text("<statement>One.<cite>[0-0]</cite></statement>"))
	var rec recorder
	if _, _, err := run(t, srv, Request{Question: "q?", Numbering: mustNumber(t, citations.Part{Doc: d})}, rec.emit); err != nil {
		t.Fatal(err)
	}
	if len(rec.stages) != 1 || !strings.Contains(rec.stages[0], "HTTP 503") || !strings.Contains(rec.stages[0], "retrying") {
		t.Errorf("stages %q", rec.stages)
	}
}
