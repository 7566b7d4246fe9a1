package engine

import (
	"context"
	"errors"

	"github.com/citelens/citelens/llm"
)

// The engine's sentinel errors. Each error an answer fails with wraps at
// most one of them, so front ends test with errors.Is; the message itself
// is written for people and often carries its fix (internal/fix).
var (
	// ErrOption means a request option the strategy cannot use; the message
	// names it and says what it takes. Every option error wraps it.
	ErrOption = errors.New("invalid option")

	// ErrNotPrepared means a strategy was asked about documents it has not
	// been prepared for (see Preparer); the error says what preparing costs
	// and how to do it.
	ErrNotPrepared = errors.New("the documents are not prepared for this strategy")

	// ErrUnavailable means a strategy cannot run in this environment (no model
	// endpoint configured, say); its message says what to set.
	ErrUnavailable = errors.New("strategy unavailable")

	// ErrUnknownStrategy means no strategy has the requested name.
	ErrUnknownStrategy = errors.New("unknown strategy")

	// ErrAnswerTimeout means an answer ran past answer_timeout.
	ErrAnswerTimeout = errors.New("the answer took too long")

	// ErrEmptyScope means there are no documents to answer from.
	ErrEmptyScope = errors.New("there are no documents to answer from: add some with 'citelens add FILE'")

	// ErrNothingRetrieved means retrieval found nothing in the scope sharing a
	// word with the question, so a strategy that answers from what it
	// retrieves has nothing to answer from; the message says what to do.
	ErrNothingRetrieved = errors.New("nothing in the documents matches the question")
)

// Canceled reports whether err means the work was stopped by its caller
// (the user pressed ctrl+c, a front end cancelled the answer) rather than
// failing. Such an error is passed up as it is: never a fallback, never a
// warning, never reported as a failure of the endpoint.
func Canceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrCanceled)
}

// EndpointFailed reports whether err is a request to a model endpoint
// (chat, embeddings, reranker) that failed, and not because it was
// cancelled: front ends then point at 'citelens doctor' and at a strategy
// that needs no model.
func EndpointFailed(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && !errors.Is(err, llm.ErrCanceled)
}
