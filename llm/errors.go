package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// ErrNoEmbedModel means embeddings were asked for without an embedding
// model.
var ErrNoEmbedModel = errors.New("no embedding model set")

// Kinds of request failure. An *Error wraps exactly one of them, so callers
// can test with errors.Is.
var (
	// ErrUnreachable: no connection could be made (refused, unknown host,
	// no answer to the connection attempt). Not retried.
	ErrUnreachable = errors.New("endpoint unreachable")
	// ErrTimeout: the request took longer than the configured timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrAuth: the server rejected the API key (401, 403).
	ErrAuth = errors.New("API key rejected")
	// ErrNotFound: the path or the model does not exist (404).
	ErrNotFound = errors.New("not found")
	// ErrBadRequest: the server refused the request as invalid (other 4xx),
	// for example a prompt longer than the model's context.
	ErrBadRequest = errors.New("request refused")
	// ErrRateLimited: 429, still failing after the retries.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer: a 5xx, still failing after the retries.
	ErrServer = errors.New("server error")
	// ErrInterrupted: the connection dropped or the stream ended before the
	// model finished. Text delivered before the drop stays valid.
	ErrInterrupted = errors.New("connection interrupted")
	// ErrBadResponse: the server sent something that is not the
	// OpenAI-compatible protocol (malformed JSON, wrong number of vectors).
	ErrBadResponse = errors.New("malformed response")
	// ErrCanceled: the caller cancelled. The error also wraps the context's
	// own error (context.Canceled or context.DeadlineExceeded).
	ErrCanceled = errors.New("cancelled")
)

// Error is a failed request to the model endpoint. Its message is a plain
// sentence naming the URL, never the API key.
type Error struct {
	Op      string // "chat", "embeddings", "list models", "rerank"
	URL     string // the endpoint URL, without credentials or query
	Status  int    // HTTP status, 0 if there was no HTTP answer
	Kind    error  // one of the Err* kinds above
	Detail  string // the server's message or the network error, sanitised
	Retries int    // retries made before giving up
	// RetryAfter is how long the server asked to wait, if it said.
	RetryAfter time.Duration
	// Received is how many bytes of answer text arrived before a stream
	// failed.
	Received int
	// Err is the underlying error.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(" request to ")
	b.WriteString(e.URL)
	b.WriteString(": ")
	b.WriteString(e.summary())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Retries > 0 {
		fmt.Fprintf(&b, ", after %d %s", e.Retries, humanize.Noun(e.Retries, "retry", "retries"))
	}
	if e.RetryAfter > MaxRetryAfter {
		fmt.Fprintf(&b, "; the server asks to wait %s, longer than citelens waits", e.RetryAfter)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *Error) summary() string {
	switch e.Kind {
	case ErrUnreachable:
		return "cannot connect"
	case ErrTimeout:
		return "no complete answer in time"
	case ErrAuth:
		return "the server rejected the API key"
	case ErrNotFound:
		return "not found"
	case ErrBadRequest:
		return "the server refused the request"
	case ErrRateLimited:
		return "rate limited"
	case ErrServer:
		return "the server failed"
	case ErrInterrupted:
		if e.Received > 0 {
			return fmt.Sprintf("the connection was cut off after %d bytes of the answer", e.Received)
		}
		return "the connection was cut off"
	case ErrBadResponse:
		return "the server sent a malformed response"
	case ErrCanceled:
		return "cancelled"
	}
	return "failed"
}

// Unwrap exposes the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Fix says in plain words what the user can do about the failure, or ""
// when there is nothing to suggest.
func (e *Error) Fix() string {
	if e.Op == opRerank {
		if fix := rerankFix(e); fix != "" {
			return fix
		}
	}
	switch e.Kind {
	case ErrUnreachable:
		return "Is the server running? Check OPENAI_BASE_URL (or base_url in the config file)."
	case ErrTimeout:
		return "The server may be overloaded or the model slow; raise timeout in the config file (citelens config init writes one)."
	case ErrAuth:
		return "Check OPENAI_API_KEY."
	case ErrNotFound:
		return "Check that OPENAI_BASE_URL ends in /v1 and that CITELENS_MODEL names a model the server serves (citelens doctor lists them)."
	case ErrBadRequest:
		return "If the prompt is too long for the model, set context_window in the config file to the model's real context size."
	case ErrRateLimited:
		return "Wait a little and ask again, or use a plan with a higher rate limit."
	case ErrServer, ErrInterrupted:
		return "The server may be restarting or overloaded; try again."
	case ErrBadResponse:
		return "Check that OPENAI_BASE_URL points at an OpenAI-compatible API."
	}
	return ""
}

// scrub makes s safe to show: no API key, no control characters, one line,
// not too long. Servers echo requests in their errors, and a key must never
// reach the screen or a file.
func scrub(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	s = strings.Join(strings.Fields(textproc.OneLine(s)), " ")
	const max = 300
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
