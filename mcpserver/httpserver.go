package mcpserver

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPOptions bound what clients can hold of an HTTP server. A client
// without the token must not be able to starve one with it: connections
// that have not shown the token are the first closed when the server is
// full, and every wait has a timeout. Zero fields take the defaults.
type HTTPOptions struct {
	// MaxConnections caps open connections (default 128). At the cap a
	// new connection closes the oldest one not serving the token's
	// holder; with none such, the new one is closed.
	MaxConnections int
	// MaxSessions caps MCP sessions (default 32): a new one past it gets
	// 503 until one ends or expires.
	MaxSessions int
	// SessionTimeout ends a session that has made no request for that
	// long (default 30 minutes).
	SessionTimeout time.Duration
	// HeaderTimeout bounds reading a request's headers (default 10 s),
	// BodyTimeout reading its body and WriteTimeout writing the answer
	// (default 30 s each) for a request without the token, and
	// IdleTimeout a kept-alive connection between requests (default
	// 60 s).
	HeaderTimeout, BodyTimeout, WriteTimeout, IdleTimeout time.Duration
	// StreamTimeout bounds one request of the token's holder, body read
	// and answer streamed (default an hour: a long ask streams for
	// minutes).
	StreamTimeout time.Duration
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = 128
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 32
	}
	def(&o.SessionTimeout, 30*time.Minute)
	def(&o.HeaderTimeout, 10*time.Second)
	def(&o.BodyTimeout, 30*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.IdleTimeout, 60*time.Second)
	def(&o.StreamTimeout, time.Hour)
	return o
}

// HTTPServer serves the MCP endpoint at /mcp over HTTP, bounded by its
// HTTPOptions.
type HTTPServer struct {
	hs    *http.Server
	conns *connTracker
}

// NewHTTPServer returns a server of s's endpoint for clients that send
// token as a bearer token.
func (s *Server) NewHTTPServer(token string, o HTTPOptions) *HTTPServer {
	o = o.withDefaults()
	t := &connTracker{max: o.MaxConnections, conns: map[net.Conn]*connInfo{}}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.handler(token, o))
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.HeaderTimeout,
		ReadTimeout:       o.HeaderTimeout + o.BodyTimeout,
		WriteTimeout:      o.HeaderTimeout + o.BodyTimeout + o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         t.state,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, t.info(c))
		},
	}
	return &HTTPServer{hs: hs, conns: t}
}

// Serve accepts connections on ln until Shutdown or Close.
func (h *HTTPServer) Serve(ln net.Listener) error {
	return h.hs.Serve(&limitListener{Listener: ln, t: h.conns})
}

// Shutdown stops accepting and waits, until ctx is done, for requests
// under way to end.
func (h *HTTPServer) Shutdown(ctx context.Context) error { return h.hs.Shutdown(ctx) }

// Close closes every connection at once.
func (h *HTTPServer) Close() error { return h.hs.Close() }

// authorized reports whether r carries token as its bearer token,
// compared in constant time; the header is read as the SDK reads it.
func authorized(r *http.Request, token string) bool {
	f := strings.Fields(r.Header.Get("Authorization"))
	return len(f) == 2 && strings.EqualFold(f[0], "bearer") && subtle.ConstantTimeCompare([]byte(f[1]), []byte(token)) == 1
}

// connKey keys a request's connection's connInfo in its context.
type connKey struct{}

// connInfo is what the tracker knows of a connection.
type connInfo struct {
	conn   net.Conn
	since  time.Time
	state  http.ConnState
	authed atomic.Bool // it has carried a request with the token
}

// connTracker follows the server's connections (http.Server.ConnState)
// and closes the least useful when a new one would pass the cap.
type connTracker struct {
	mu    sync.Mutex
	max   int
	conns map[net.Conn]*connInfo
}

func (t *connTracker) info(c net.Conn) *connInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.conns[c]
}

func (t *connTracker) state(c net.Conn, s http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch s {
	case http.StateHijacked, http.StateClosed:
		delete(t.conns, c)
	default:
		if ci := t.conns[c]; ci != nil {
			ci.state = s
		}
	}
}

// markAuthed records that r's connection carried the token.
func markAuthed(r *http.Request) {
	if ci, _ := r.Context().Value(connKey{}).(*connInfo); ci != nil {
		ci.authed.Store(true)
	}
}

// admit takes c into the tracker, closing another connection first when
// the server is full: the oldest that has not carried the token, else
// the oldest idle one. It reports false (c is closed) when every
// connection is serving the token's holder.
func (t *connTracker) admit(c net.Conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.conns) >= t.max {
		var victim *connInfo
		better := func(ci *connInfo) bool {
			if victim == nil {
				return true
			}
			if a, b := ci.authed.Load(), victim.authed.Load(); a != b {
				return !a
			}
			return ci.since.Before(victim.since)
		}
		for _, ci := range t.conns {
			if ci.authed.Load() && ci.state == http.StateActive {
				continue // the token's holder, at work
			}
			if better(ci) {
				victim = ci
			}
		}
		if victim == nil {
			c.Close()
			return false
		}
		victim.conn.Close()
		delete(t.conns, victim.conn)
	}
	t.conns[c] = &connInfo{conn: c, since: time.Now(), state: http.StateNew}
	return true
}

// limitListener admits each accepted connection through the tracker.
type limitListener struct {
	net.Listener
	t *connTracker
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.t.admit(c) {
			return c, nil
		}
	}
}
