package llmtest

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Reply is what the server answers to one request: text, and optionally a
// fault. The zero Reply answers an empty text successfully.
type Reply struct {
	// Text is the answer. It is streamed as Deltas if those are set, else
	// in ChunkSize-byte pieces (never splitting a character), else word by
	// word.
	Text      string
	Deltas    []string
	ChunkSize int
	// Reasoning is streamed before the text as reasoning_content deltas
	// (cut as the text is), the way vLLM with a reasoning parser,
	// llama.cpp's server and DeepSeek's API send a reasoning model's
	// thinking; a reply read whole carries it in message.reasoning_content.
	// A <think> block written into Text is the other way models send it.
	Reasoning string
	// Forever streams Text again and again, ignoring max_tokens, until the
	// client stops reading (at most 64 MiB): a server that does not bound
	// the answer.
	Forever bool
	// FinishReason is reported at the end; "stop" if empty.
	FinishReason string
	// Usage overrides the token counts reported; otherwise the prompt is
	// counted as EstimateTokens of the messages and the completion as
	// EstimateTokens of the text. OmitUsage reports none.
	Usage     *Usage
	OmitUsage bool

	// Status, if not 0 or 200, answers with this HTTP status and Body (an
	// OpenAI-style error JSON if Body is empty).
	Status int
	Body   string
	// RetryAfter sets the Retry-After header of the answer.
	RetryAfter string

	// HeaderDelay waits before answering; ChunkDelay waits before each
	// streamed delta. Both stop waiting when the client goes away.
	HeaderDelay time.Duration
	ChunkDelay  time.Duration

	// Hangup closes the connection without answering at all.
	Hangup bool
	// Drop cuts the connection after DropAfter deltas of a stream, with no
	// finish reason and no [DONE].
	Drop      bool
	DropAfter int
	// DropAfterBytes, if positive, cuts the connection once this many bytes
	// of the streamed body have been written, wherever that falls.
	DropAfterBytes int
	// Malformed sends a chunk that is not JSON after MalformedAfter deltas.
	Malformed      bool
	MalformedAfter int
}

// Usage is token usage as the server reports it.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Text returns a reply that answers s.
func Text(s string) Reply { return Reply{Text: s} }

// Status returns a reply that fails with the HTTP status code.
func Status(code int) Reply { return Reply{Status: code} }

// RateLimited returns a 429 reply with the Retry-After header set to
// retryAfter (seconds or an HTTP date; "" for none).
func RateLimited(retryAfter string) Reply {
	return Reply{Status: http.StatusTooManyRequests, RetryAfter: retryAfter}
}

// text is the whole answer: Text, or the Deltas joined.
func (r Reply) text() string {
	if r.Deltas != nil {
		return strings.Join(r.Deltas, "")
	}
	return r.Text
}

// deltas splits the reply text into the pieces to stream.
func (r Reply) deltas() []string {
	if r.Deltas != nil {
		return r.Deltas
	}
	return r.split(r.Text)
}

// split cuts text into the pieces to stream: ChunkSize-byte pieces, or
// word by word.
func (r Reply) split(text string) []string {
	if text == "" {
		return nil
	}
	var out []string
	if r.ChunkSize > 0 {
		s := text
		for len(s) > 0 {
			n := min(r.ChunkSize, len(s))
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			out = append(out, s[:n])
			s = s[n:]
		}
		return out
	}
	// Word by word, each word with the spaces after it, roughly as a
	// tokenizer would cut it.
	s := text
	for len(s) > 0 {
		i := strings.IndexAny(s, " \n")
		if i < 0 {
			out = append(out, s)
			break
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
			j++
		}
		out = append(out, s[:j])
		s = s[j:]
	}
	return out
}

// fault writes the reply's failure, if it has one, and reports whether it
// did. It also honours HeaderDelay. It returns true when the request is
// finished (answered with a fault, hung up, or the client went away).
func (r Reply) fault(ctx context.Context, w http.ResponseWriter) bool {
	if !sleep(ctx, r.HeaderDelay) {
		return true
	}
	if r.Hangup {
		// The server aborts the connection without writing anything.
		panic(http.ErrAbortHandler)
	}
	if r.Status == 0 || r.Status == http.StatusOK {
		return false
	}
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	if r.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(r.Status)
		_, _ = w.Write([]byte(r.Body))
		return true
	}
	typ, code, msg := "server_error", "", http.StatusText(r.Status)
	switch {
	case r.Status == http.StatusTooManyRequests:
		typ, code, msg = "rate_limit_error", "rate_limit_exceeded", "Rate limit reached; try again later."
	case r.Status < 500:
		typ = "invalid_request_error"
	}
	writeError(w, r.Status, typ, code, msg)
	return true
}

// sleep waits d or until ctx is done, and reports whether it waited all of
// d.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
