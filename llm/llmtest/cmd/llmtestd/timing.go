package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
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
	// RerankRequests are omitted when there were none, so the figures of
	// runs without a reranker read as before.
	RerankRequests int `json:"rerank_requests,omitempty"`
	// BusySeconds is the wall time during which at least one request was
	// being answered (from its arrival to the end of its response), so
	// concurrent requests are not counted twice.
	BusySeconds float64 `json:"busy_seconds"`
	// RequestSeconds is the sum of every request's own time.
	RequestSeconds float64 `json:"request_seconds"`
}

// timer fronts the scripted server with a forwarding handler that times
// each request. It is not httputil.ReverseProxy: that cancels the request
// to the server when the client hangs up, and the client does hang up as
// soon as it has read [DONE], which cut other streams off mid-answer
// under load. This one reads every answer to its end.
type timer struct {
	target string // scheme://host of the scripted server
	client *http.Client

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
	return &timer{target: u.Scheme + "://" + u.Host,
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}, nil
}

func (t *timer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t.mu.Lock()
	if t.inFlight == 0 {
		t.since = start
	}
	t.inFlight++
	t.mu.Unlock()
	defer t.done(r, start)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, t.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := t.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	gone := false
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && !gone {
			if _, werr := w.Write(buf[:n]); werr != nil {
				gone = true // the client hung up; read the answer to its end
			} else if f != nil {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// done accounts for a finished request that started at start.
func (t *timer) done(r *http.Request, start time.Time) {
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
	case "/v1/rerank", "/rerank":
		t.stats.RerankRequests++
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
		// Let requests in flight finish (a stream's last bytes may still be
		// on their way when its client has read [DONE]) before the count.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
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
