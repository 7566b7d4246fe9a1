package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"
)

// Stats is what -stats writes when the server stops: how many requests it
// answered and how long a client was kept waiting on it, so a benchmark can
// tell the time spent in the model (here, the scripted one) from the time
// spent around it.
type Stats struct {
	Requests      int `json:"requests"`
	ChatRequests  int `json:"chat_requests"`
	EmbedRequests int `json:"embed_requests"`
	// BusySeconds is the wall time during which at least one request was
	// being answered (from its arrival to the end of its response), so
	// concurrent requests are not counted twice.
	BusySeconds float64 `json:"busy_seconds"`
	// RequestSeconds is the sum of every request's own time.
	RequestSeconds float64 `json:"request_seconds"`
}

// timer fronts the scripted server with a reverse proxy that times each
// request.
type timer struct {
	proxy *httputil.ReverseProxy

	mu       sync.Mutex
	stats    Stats
	inFlight int
	since    time.Time // when inFlight last rose from 0
}

func newTimer(target string) (*timer, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	u.Path = "" // target ends in /v1; requests carry the whole path
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1 // stream each event as it comes
	return &timer{proxy: p}, nil
}

func (t *timer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t.mu.Lock()
	if t.inFlight == 0 {
		t.since = start
	}
	t.inFlight++
	t.mu.Unlock()
	t.proxy.ServeHTTP(w, r)
	end := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inFlight--
	if t.inFlight == 0 {
		t.stats.BusySeconds += end.Sub(t.since).Seconds()
	}
	t.stats.Requests++
	t.stats.RequestSeconds += end.Sub(start).Seconds()
	switch r.URL.Path {
	case "/v1/chat/completions":
		t.stats.ChatRequests++
	case "/v1/embeddings":
		t.stats.EmbedRequests++
	}
}

// serveTimed serves the timing front for target on addr and returns its
// base URL (ending in /v1) and a function that stops it and writes the
// stats to path.
func serveTimed(target, addr, path string) (string, func() error, error) {
	t, err := newTimer(target)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: t, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	stop := func() error {
		srv.Close()
		t.mu.Lock()
		st := t.stats
		t.mu.Unlock()
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(path, append(b, '\n'), 0o600)
	}
	return "http://" + ln.Addr().String() + "/v1", stop, nil
}
