package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/textproc"
)

// progress sends a tool call's progress notifications, when the client
// asked for them with a progress token: each one a step further, with a
// message saying what the work is doing, made printable (clients show
// it). It is safe for concurrent use.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	mu         sync.Mutex
	n          float64
	statements int
	reasoning  bool
	last       time.Time // of the last page count sent
	sent       time.Time // of the last notification sent
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx}
	if req != nil && req.Params != nil {
		p.token, p.session = req.Params.GetProgressToken(), req.Session
	}
	return p
}

// send notifies msg, one step further: the total is not known (an
// answer's statements, a file's stages).
func (p *progress) send(msg string) {
	if p.token == nil || p.session == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.sent = time.Now()
	// A client gone or slow to read does not stop the work; its result
	// is what matters.
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token, Message: textproc.Clip(textproc.OneLine(msg), 300), Progress: p.n})
}

// settleFor is how long the result waits after the last notification.
const settleFor = 100 * time.Millisecond

// settle waits, before the call's result is sent, until the last
// notification is settleFor old. The TypeScript SDK's clients (Claude
// Code's among them) handle a notification a moment after reading it but
// a response at once, forgetting the progress token: a notification read
// together with the response then refers to an unknown token, which the
// SDK reports as an error and some clients answer by dropping the
// connection (typescript-sdk issue 2580). An answer's last statements
// come just before its result, so the result waits for them to be read.
func (p *progress) settle() {
	p.mu.Lock()
	wait := settleFor - time.Since(p.sent)
	sent := !p.sent.IsZero()
	p.mu.Unlock()
	if !sent || wait <= 0 {
		return
	}
	select {
	case <-time.After(wait):
	case <-p.ctx.Done():
	}
}

// event reports an answer's event: its stages, warnings, each statement
// as it is written, and that the model reasons before answering. Raw
// model text (Delta) is not sent: the statements are what it becomes.
func (p *progress) event(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.Stage:
		p.send(string(ev))
	case engine.Warning:
		p.send("warning: " + string(ev))
	case engine.Statement:
		p.mu.Lock()
		p.statements++
		k := p.statements
		p.mu.Unlock()
		p.send(fmt.Sprintf("statement %d: %s", k, ev.Text))
	case engine.Reasoning:
		p.mu.Lock()
		first := !p.reasoning
		p.reasoning = true
		p.mu.Unlock()
		if first {
			p.send("the model is reasoning before it answers")
		}
	}
}

// add reports the pages read of a file being added, at most ten times a
// second, and every change of stage.
func (p *progress) add(pr ingest.Progress) {
	p.mu.Lock()
	due := time.Since(p.last) >= 100*time.Millisecond || pr.Done == pr.Total
	if due {
		p.last = time.Now()
	}
	p.mu.Unlock()
	if !due {
		return
	}
	if pr.Total > 0 {
		p.send(fmt.Sprintf("%s: %d of %d pages", pr.Stage, pr.Done, pr.Total))
		return
	}
	p.send(pr.Stage)
}
