package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// modelEnv is an environment over the declaration with a client for srv;
// edit changes the configuration first.
func modelEnv(t *testing.T, srv *llmtest.Server, edit func(*config.Config)) *engine.Env {
	t.Helper()
	lib, _ := enginetest.Library(t, "../testdata/declaration.txt")
	cfg := enginetest.Config(srv)
	if edit != nil {
		edit(&cfg)
	}
	return enginetest.Env(t, lib, cfg)
}

func ask(text string) llm.ChatRequest {
	return llm.ChatRequest{Messages: []llm.Message{llm.User(text)}}
}

// A server that ignores max_tokens is read no further than the output
// limit allows (with room for the estimate's error), and the answer says
// so.
func TestCallerBoundsTheOutput(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "<statement>Again and again.<cite></cite></statement>", Forever: true})
	env := modelEnv(t, srv, nil)
	var ev enginetest.Events
	received := 0
	ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		req := ask("Talk.")
		req.MaxTokens = 200
		reply, err := rt.Model().Stream(ctx, "the answer", req, func(s string) { received += len(s) })
		if reply.FinishReason != "" || len(reply.Text) != received {
			t.Errorf("finish %q, text of %d bytes, %d received", reply.FinishReason, len(reply.Text), received)
		}
		return err
	}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	// 200 tokens are about 800 bytes; the bound stops at 200+50+64.
	if received < 800 || received > 4*(200+50+64)+200 {
		t.Errorf("read %d bytes of an endless reply with max_tokens 200", received)
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "ran past the output limit of 200 tokens (the server ignored max_tokens)") {
		t.Errorf("warnings %q", ans.Warnings)
	}
}

// An answer keeps at most max_statements; the Caller stops reading once
// it has them.
func TestStatementCap(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "<statement>One more.</statement>", Forever: true})
	env := modelEnv(t, srv, func(c *config.Config) { c.MaxStatements = 3 })
	received := 0
	ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		_, err := rt.Model().Stream(ctx, "the answer", ask("Talk."), func(s string) {
			received += len(s)
			rt.Statement(citations.Statement{Text: s})
		})
		return err
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 3 || received > 200 {
		t.Errorf("%d statements kept, %d bytes read", len(ans.Statements), received)
	}
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "max_statements (3)") {
		t.Errorf("warnings %q", ans.Warnings)
	}
}

// Reasoning sent apart (reasoning_content) reaches neither the text nor
// the statements; a reply read whole gives it to the front end in one
// piece, and the answer keeps it.
func TestCallerReasoningContent(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Reasoning: "First I think. Then I think more.", Text: "Plan: none."},
		llmtest.Reply{Text: "<think>Streamed thought.</think><statement>Shown.</statement>"})
	env := modelEnv(t, srv, nil)
	var ev enginetest.Events
	ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		reply, err := rt.Model().Chat(ctx, engine.Working, ask("Plan."))
		if reply.Text != "Plan: none." || reply.Reasoning != "First I think. Then I think more." {
			t.Errorf("chat reply %q, reasoning %q", reply.Text, reply.Reasoning)
		}
		if err != nil {
			return err
		}
		reply, err = rt.Model().Stream(ctx, "the answer", ask("Answer."), nil)
		if reply.Text != "<statement>Shown.</statement>" || reply.Reasoning != "Streamed thought." {
			t.Errorf("streamed reply %q, reasoning %q", reply.Text, reply.Reasoning)
		}
		return err
	}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Reasoning) < 2 || ev.Reasoning[0] != "First I think. Then I think more." || strings.Join(ev.Reasoning[1:], "") != "Streamed thought." {
		t.Errorf("reasoning events %q", ev.Reasoning)
	}
	if strings.Join(ev.Deltas, "") != "<statement>Shown.</statement>" {
		t.Errorf("deltas %q", ev.Deltas)
	}
	if ans.Reasoning != "First I think. Then I think more.\n\nStreamed thought." {
		t.Errorf("the answer's reasoning %q", ans.Reasoning)
	}
}

// After a call finds the server silent, the answer's later calls fail at
// once instead of waiting out the timeout again: okra's analyzer and its
// fallback do not take twice the timeout.
func TestCallerGivesUpOnASilentServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{HeaderDelay: time.Minute}
	}))
	env := modelEnv(t, srv, func(c *config.Config) { c.Timeout = 300 * time.Millisecond })
	var errs []error
	enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		for range 3 {
			_, err := rt.Model().Chat(ctx, engine.Working, ask("Anyone?"))
			errs = append(errs, err)
		}
		return errs[0]
	}, nil)
	if len(srv.ChatRequests()) != 1 {
		t.Errorf("%d chat requests to a silent server, want 1", len(srv.ChatRequests()))
	}
	for i, err := range errs {
		if !errors.Is(err, llm.ErrTimeout) {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

// One deadline bounds the whole answer.
func TestAnswerTimeout(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "slow", HeaderDelay: 150 * time.Millisecond}
	}))
	env := modelEnv(t, srv, func(c *config.Config) { c.AnswerTimeout = 400 * time.Millisecond })
	ans, err := enginetest.Answer(t.Context(), env, "q", func(ctx context.Context, rt *engine.Runtime) error {
		for {
			if _, err := rt.Model().Chat(ctx, engine.Working, ask("Again.")); err != nil {
				return err
			}
			rt.Stage("asked")
		}
	}, nil)
	if !errors.Is(err, engine.ErrAnswerTimeout) || !strings.Contains(err.Error(), "answer_timeout (400ms)") || !strings.Contains(fix.Of(err), "answer_timeout") {
		t.Fatalf("err %v, fix %q", err, fix.Of(err))
	}
	if ans == nil || !ans.Partial || ans.Error != err.Error() {
		t.Errorf("answer %+v", ans)
	}
	if n := len(srv.ChatRequests()); n < 2 || n > 3 {
		t.Errorf("%d calls of 150ms in 400ms", n)
	}
}
