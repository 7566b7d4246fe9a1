package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/internal/textproc"
)

// ServeStdio serves one client on in and out, newline-delimited JSON-RPC,
// until the client closes in or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{&escaper{w: out}}})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client left, or we were told to stop
	}
	return err
}

// Handler serves streamable HTTP (sessions, each response a stream of
// server-sent events) to clients that send token as a bearer token;
// others get 401 before their body is read. The token is compared in
// constant time and appears nowhere else. NewHTTPServer serves it with
// the bounds a server reachable by others needs.
func (s *Server) Handler(token string) http.Handler {
	return s.handler(token, HTTPOptions{}.withDefaults())
}

func (s *Server) handler(token string, o HTTPOptions) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		// One token, one user: the SDK binds each session to it.
		return &auth.TokenInfo{UserID: "citelens"}, nil
	}
	protected := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r, token) {
			// Answered before the body is read, and the connection
			// closed: a client without the token holds nothing open.
			w.Header().Set("Connection", "close")
			w.Header().Set("WWW-Authenticate", `Bearer realm="citelens"`)
			http.Error(w, "401 Unauthorized: send the bearer token", http.StatusUnauthorized)
			return
		}
		markAuthed(r)
		// The token's holder may stream an answer for minutes.
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(o.StreamTimeout)
		_ = rc.SetReadDeadline(deadline)
		_ = rc.SetWriteDeadline(deadline)
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.sessions() >= o.MaxSessions {
			w.Header().Set("Retry-After", "60")
			http.Error(w, "503 Service Unavailable: too many MCP sessions; close one or wait for an idle one to expire", http.StatusServiceUnavailable)
			return
		}
		protected.ServeHTTP(&escapingResponse{ResponseWriter: w, esc: escaper{w: w}}, r)
	})
}

// sessions counts the MCP sessions open now.
func (s *Server) sessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// IsLoopback reports whether the host of a listening address (host:port)
// is this machine only: localhost or a loopback IP.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a new bearer token: 32 random bytes as text.
func NewToken() string { return rand.Text() + rand.Text() }

// escaper writes JSON with every Unsafe character as its \u escape
// (textproc.EscapeJSON), so that a terminal showing the traffic acts on
// nothing in a document or a model's reply; the JSON decodes to the same
// strings. A character cut between two writes is held until the next.
type escaper struct {
	w    io.Writer
	mu   sync.Mutex
	tail []byte
}

func (e *escaper) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := append(e.tail, p...)
	// Hold back an incomplete character at the end.
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	e.tail = append([]byte(nil), b[cut:]...)
	if _, err := e.w.Write(textproc.EscapeJSON(b[:cut])); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapingResponse is a response whose body goes through an escaper;
// Unwrap lets http.ResponseController flush the stream.
type escapingResponse struct {
	http.ResponseWriter
	esc escaper
}

func (r *escapingResponse) Write(p []byte) (int, error) { return r.esc.Write(p) }
func (r *escapingResponse) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush sends what has been written (server-sent events flush each event).
func (r *escapingResponse) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
