// Package llm is citelens's client for OpenAI-compatible endpoints (OpenAI,
// vLLM, llama.cpp's server, Ollama), built on github.com/sashabaranov/go-openai.
//
// It streams chat answers (Stream: Next/Current/Err/Close), embeds texts in
// batches, and accounts token usage per call: the server's report when it
// sends one, otherwise an estimate marked as such. Requests that fail with
// 429, a 5xx, or a dropped connection before any text arrived are retried
// with exponential backoff and full jitter (honouring Retry-After), at most
// MaxRetries times. Each request has a timeout, and the caller's context
// cancels it. Errors are *Error values: plain sentences that name the URL,
// never the API key.
//
// Configuration comes from the environment and
// $XDG_CONFIG_HOME/citelens/config.toml (config.Load). Without an endpoint,
// New returns config.ErrNotConfigured saying what to set; strategies that need a
// model report it and the extractive strategy keeps working.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/citelens/citelens/internal/config"

	openai "github.com/sashabaranov/go-openai"
)

// Retry policy.
const (
	// MaxRetries is how many times a failed request is retried.
	MaxRetries = 3
	// MaxRetryAfter is the longest Retry-After citelens waits; a server
	// asking for longer fails the request at once, saying how long it asked.
	MaxRetryAfter = time.Minute

	backoffBase = 500 * time.Millisecond
	backoffCap  = 8 * time.Second
)

// Client talks to one OpenAI-compatible endpoint. It is safe for concurrent
// use.
type Client struct {
	cfg        config.Config
	api        *openai.Client
	url        string // the endpoint, without credentials, for messages
	sleep      func(context.Context, time.Duration) error
	maxRetries int
	// http is the transport under api, for the requests go-openai has no
	// call for (rerank); rerank remembers what the rerank server speaks.
	http   *doer
	rerank *rerankState
}

// Option configures a Client.
type Option func(*Client, *http.Client)

// WithHTTPClient replaces the HTTP client. Its Timeout should be zero:
// streamed answers are bounded by Config.Timeout instead.
func WithHTTPClient(hc *http.Client) Option {
	return func(_ *Client, dst *http.Client) { *dst = *hc }
}

// WithSleep replaces the function that waits between retries; tests pass
// one that records the waits instead of sleeping. It must return ctx.Err()
// if ctx ends first.
func WithSleep(fn func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client, _ *http.Client) { c.sleep = fn }
}

// WithMaxRetries sets how many times a request is retried (default
// MaxRetries); 0 disables retries.
func WithMaxRetries(n int) Option {
	return func(c *Client, _ *http.Client) { c.maxRetries = max(0, n) }
}

// New returns a client for cfg, or an error saying what to set if cfg has no
// endpoint or no model.
func New(cfg config.Config, opts ...Option) (*Client, error) {
	if err := cfg.Configured(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, sleep: sleepCtx, maxRetries: MaxRetries, url: config.RedactURL(cfg.Endpoint()), rerank: &rerankState{}}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	hc := &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: cfg.ConnectTimeout,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}}
	for _, o := range opts {
		o(c, hc)
	}
	hc.CheckRedirect = checkRedirect
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.Endpoint()
	c.http = &doer{hc: hc}
	oc.HTTPClient = c.http
	c.api = openai.NewClientWithConfig(oc)
	return c, nil
}

// maxRedirects bounds the redirects followed for one request.
const maxRedirects = 5

// redirectError is a redirect the client refused to follow.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// checkRedirect is the HTTP client's redirect policy. Go's default keeps
// the Authorization header on a redirect to the same host name, even on
// another port or from https to http, so a 307 from the endpoint to
// another port of 127.0.0.1 got the API key and the whole prompt. Here a
// redirect that changes the scheme, host or port is refused, and one
// that does not is followed without the key: the key goes only to the
// address the user configured.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return &redirectError{fmt.Sprintf("the endpoint redirected %d times; stopped", len(via))}
	}
	from := via[0].URL
	if !sameOrigin(from, req.URL) {
		return &redirectError{fmt.Sprintf("the endpoint redirects to %s, another scheme, host or port; citelens does not follow it, so the API key and prompt stay with the configured address (set OPENAI_BASE_URL to the new address if you trust it)", config.RedactURL(req.URL.String()))}
	}
	req.Header.Del("Authorization")
	req.Header.Del("Api-Key") // Azure's header, should a caller set one
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (an absent port being the scheme's default).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// Config returns the client's configuration (strategies read ContextWindow,
// MaxOutput, PromptBudget and the model names from it).
func (c *Client) Config() config.Config { return c.cfg }

// Retry describes a retry about to happen, for WithRetryNotify.
type Retry struct {
	Op      string        // "chat", "embeddings", "list models", "rerank"
	Attempt int           // 1 for the first retry
	Wait    time.Duration // how long before it
	Err     *Error        // why the previous attempt failed
}

type retryKey struct{}

// WithRetryNotify returns a context under which the client calls fn before
// each retry, so a strategy can tell the user ("server busy, retrying in
// 2s") through its events.
func WithRetryNotify(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryKey{}, fn)
}

func notifyRetry(ctx context.Context, r Retry) {
	if fn, ok := ctx.Value(retryKey{}).(func(Retry)); ok && fn != nil {
		fn(r)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// attempt records what one HTTP attempt saw, which go-openai's errors do not
// carry: the status and headers (for Retry-After), and whether a stream
// ended with [DONE].
type attempt struct {
	status  int
	header  http.Header
	sawDone bool
}

type attemptKey struct{}

// doer sits between go-openai and the HTTP client to fill in the attempt
// found in the request's context.
type doer struct{ hc *http.Client }

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.hc.Do(req)
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a != nil && resp != nil {
		a.status = resp.StatusCode
		a.header = resp.Header
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			resp.Body = &doneWatcher{ReadCloser: resp.Body, a: a, tail: []byte("\n")}
		}
	}
	return resp, err
}

// doneWatcher notices a "data: [DONE]" line in a stream, since go-openai
// reports both that and a connection closed early as io.EOF.
type doneWatcher struct {
	io.ReadCloser
	a    *attempt
	tail []byte
}

var doneMarks = [][]byte{[]byte("\ndata: [DONE]"), []byte("\ndata:[DONE]")}

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 && !w.a.sawDone {
		buf := append(w.tail, p[:n]...)
		for _, m := range doneMarks {
			if bytes.Contains(buf, m) {
				w.a.sawDone = true
			}
		}
		k := min(len(buf), 16)
		w.tail = append(w.tail[:0], buf[len(buf)-k:]...)
	}
	return n, err
}

// do runs one request with retries. fn makes the request under the context
// it is given, which carries the attempt record and the timeout.
func (c *Client) do(ctx context.Context, op, path string, fn func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		a := &attempt{}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, attemptKey{}, a), c.cfg.Timeout)
		err := fn(actx)
		cancel()
		if err == nil {
			return nil
		}
		e := c.classify(ctx, op, path, err, a)
		e.Retries = n
		wait, ok := c.backoff(e, n, a)
		if !ok {
			return e
		}
		notifyRetry(ctx, Retry{Op: op, Attempt: n + 1, Wait: wait, Err: e})
		if err := c.sleep(ctx, wait); err != nil {
			e := c.classify(ctx, op, path, err, nil)
			e.Retries = n
			return e
		}
	}
}

// backoff decides whether a failed attempt n (0-based) is retried, and after
// how long: what Retry-After says, else a random wait up to 500ms·2ⁿ (capped).
func (c *Client) backoff(e *Error, n int, a *attempt) (time.Duration, bool) {
	if a != nil {
		if d, ok := retryAfter(a.header, time.Now()); ok {
			e.RetryAfter = d
		}
	}
	if n >= c.maxRetries || !retryable(e) {
		return 0, false
	}
	if e.RetryAfter > 0 {
		if e.RetryAfter > MaxRetryAfter {
			return 0, false
		}
		return e.RetryAfter, true
	}
	ceiling := min(backoffCap, backoffBase<<n)
	return time.Duration(rand.Int64N(int64(ceiling) + 1)), true
}

func retryable(e *Error) bool {
	switch e.Kind {
	case ErrRateLimited, ErrInterrupted:
		return true
	case ErrServer:
		// 501 and 505 say the server cannot ever do this.
		return e.Status != http.StatusNotImplemented && e.Status != http.StatusHTTPVersionNotSupported
	}
	return false
}

// retryAfter reads Retry-After (seconds or an HTTP date), or OpenAI's
// retry-after-ms.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	// Waits beyond a day are all "too long"; clamping keeps huge values
	// from overflowing a Duration.
	const day = 24 * time.Hour
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(min(ms, float64(day/time.Millisecond)) * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(min(s, day.Seconds()) * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// errEnded is a stream that ended without a finish reason or [DONE].
var errEnded = errors.New("the stream ended before the model finished")

// protocolError is a response that breaks the protocol in a way go-openai
// does not notice (wrong number of vectors, say).
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

// classify turns an error from go-openai or the network into an *Error. ctx
// is the caller's context, to tell its cancellation from a timeout.
func (c *Client) classify(ctx context.Context, op, path string, err error, a *attempt) *Error {
	e := &Error{Op: op, URL: c.url + path, Err: err}
	detail := ""
	var (
		apiErr   *openai.APIError
		redirErr *redirectError
		reqErr   *openai.RequestError
		dnsErr   *net.DNSError
		opErr    *net.OpError
		synErr   *json.SyntaxError
		typeErr  *json.UnmarshalTypeError
		protoErr *protocolError
	)
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Err = ErrCanceled, ctx.Err()
	case errors.As(err, &redirErr):
		e.Kind, detail = ErrBadResponse, redirErr.msg
	case errors.As(err, &apiErr):
		e.Status = apiErr.HTTPStatusCode
		detail = apiErr.Message
		if e.Status == 0 {
			// An error event inside a 200 stream.
			e.Kind = ErrServer
		}
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		detail = bodySnippet(reqErr.Body)
	case errors.As(err, &dnsErr):
		e.Kind, detail = ErrUnreachable, "unknown host "+dnsErr.Name
	case errors.As(err, &opErr) && opErr.Op == "dial":
		e.Kind = ErrUnreachable
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			detail = "connection refused; nothing is listening there"
		case opErr.Timeout():
			detail = fmt.Sprintf("no answer to the connection attempt within %s", min(c.cfg.ConnectTimeout, c.cfg.Timeout))
		default:
			detail = opErr.Err.Error()
		}
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind, detail = ErrTimeout, fmt.Sprintf("no complete answer within %s", c.cfg.Timeout)
	case errors.Is(err, errEnded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		e.Kind, detail = ErrInterrupted, innerError(err)
	case errors.As(err, &synErr), errors.As(err, &typeErr), errors.As(err, &protoErr),
		errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		e.Kind, detail = ErrBadResponse, err.Error()
	case a != nil && a.status != 0:
		e.Kind, detail = ErrBadResponse, innerError(err)
	default:
		e.Kind, detail = ErrUnreachable, innerError(err)
	}
	if e.Kind == nil {
		e.Kind = kindOfStatus(e.Status)
	}
	e.Detail = scrub(c.redact(detail), c.cfg.APIKey)
	return e
}

// redact hides in s, a string that came from the endpoint, the keys the
// client knows and what has the shape of a key: the redaction answers
// get (redact.go).
func (c *Client) redact(s string) string {
	return newRedactor(c.cfg.APIKey, c.cfg.RerankAPIKey).redact(s)
}

// clean makes a short string that came from the endpoint (the model
// that answered, a finish reason, a model's ID) safe to print, save and
// send: redacted, on one line, without control characters, bounded. A
// proxy that echoes the request can put the key in any of them.
func (c *Client) clean(s string) string {
	return scrub(c.redact(s), "")
}

func kindOfStatus(status int) error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrBadResponse
}

// innerError is the network error without net/http's "Post URL:" prefix,
// since the message names the URL already (without credentials).
func innerError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// bodySnippet is the readable part of an error body that is not OpenAI's
// error JSON: its "message" or "detail" if it is other JSON, else the text.
func bodySnippet(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"message", "detail", "error"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	s := string(body)
	if strings.Contains(s, "<html") || strings.Contains(s, "<HTML") {
		return ""
	}
	return s
}
