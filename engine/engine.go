// Package engine answers questions over documents of the library. A Strategy
// turns a Request into an Answer, emitting Events (stages, streamed text,
// finished statements, usage) as it goes so a UI can show progress.
// Strategies register themselves by name in the registry.
package engine

import (
	"context"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/llm"
)

// Request is one question over a scope of documents.
type Request struct {
	Question string
	Docs     []docstore.DocID // the scope; empty means every document
	// Options are strategy-specific settings ("k", "chunk", "format"...),
	// documented by each strategy.
	Options map[string]string
}

// Event is one thing a strategy reports while answering. Exactly one field
// is set.
type Event struct {
	Stage     string               // "retrieving…", "sub-question 2/3: …"
	Delta     string               // raw model text as it streams
	Statement *citations.Statement // a finished statement
	Usage     *llm.Usage           // the usage of one model call
	Plan      any                  // a strategy's plan, once known
}

// Answer is the finished answer; see citations.Answer.
type Answer = citations.Answer

// Strategy answers questions. Answer must honour ctx: on cancellation it
// returns what it has so far (statements already emitted) with ctx.Err().
// emit is called from the goroutine that called Answer.
type Strategy interface {
	Name() string
	Answer(ctx context.Context, req Request, emit func(Event)) (*Answer, error)
}
