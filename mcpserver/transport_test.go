package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/textproc"
)

// hostile is a document whose text would act on a terminal: it sets the
// window title, clears the screen with a C1 CSI, and reverses what
// follows.
const hostile = "The harbour log is plain. \x1b]0;pwned\x07 Fog came at dawn \u202eylevol\u202c and \u009b2J the keeper slept. \x7f Rainfall was light.\n"

// unsafeOnWire returns the first character in b that would act on a
// terminal showing the traffic.
func unsafeOnWire(b []byte) (rune, bool) {
	for _, r := range string(b) {
		if r != '\n' && textproc.Unsafe(r) {
			return r, true
		}
	}
	return 0, false
}

func hostileLibrary(t *testing.T) (*docstore.Library, *docstore.Document) {
	lib, docs := enginetest.Library(t, enginetest.WriteFile(t, "hostile.txt", hostile))
	if !strings.Contains(docs[0].Text, "\x1b]0;pwned") {
		t.Fatalf("the library dropped the escape sequence; the test needs another: %q", docs[0].Text)
	}
	return lib, docs[0]
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}

// Over stdio the document's text reaches the client exactly, yet nothing
// on the wire acts on a terminal: every such character is a \u escape.
func TestStdioEscapesText(t *testing.T) {
	t.Parallel()
	lib, d := hostileLibrary(t)
	srv := New(Options{Open: func() (*engine.Env, error) { return engine.NewEnv(lib, config.Default()), nil }})
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	var wire lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(ctx, toServer, io.MultiWriter(toClient, &wire)) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: fromServer, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"document": "hostile.txt", "start": 0, "end": len(d.Text)}})
	if err != nil || res.IsError {
		t.Fatalf("read: %v %s", err, text(res))
	}
	got := res.StructuredContent.(map[string]any)["text"]
	if got != d.Text {
		t.Errorf("the text changed on the way: %q", got)
	}
	if err := json.Unmarshal([]byte(text(res)), new(any)); err != nil || strings.ContainsAny(text(res), "\x1b\x07\u202e\u009b\x7f") {
		t.Errorf("the text content holds what acts on a terminal: %q", text(res))
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: docURI(d.ID)})
	if err != nil || r.Contents[0].Text != d.Text {
		t.Errorf("the resource: %v", err)
	}
	cs.Close()
	cancel()
	<-served
	if r, bad := unsafeOnWire(wire.Bytes()); bad {
		t.Errorf("%U reached the wire as itself", r)
	}
	if !bytes.Contains(wire.Bytes(), []byte(`\u001b]0;pwned\u0007`)) || !bytes.Contains(wire.Bytes(), []byte(`\u202e`)) {
		t.Errorf("the escapes are not on the wire")
	}
}

// The escaper holds a character cut between two writes until its end
// arrives.
func TestEscaperSplitCharacter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	e := &escaper{w: &out}
	in := []byte(`{"t":"a` + "\u202e" + `b"}`)
	for i := range in {
		if _, err := e.Write(in[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != `{"t":"a\u202eb"}` {
		t.Errorf("%q", out.String())
	}
}

// bearer adds a bearer token to each request.
type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// Over HTTP a request without the token, or with another, gets 401 and
// nothing of the library; with it, the tools work and the text arrives
// exactly, escaped on the wire.
func TestHTTPToken(t *testing.T) {
	t.Parallel()
	lib, d := hostileLibrary(t)
	srv := New(Options{Open: func() (*engine.Env, error) { return engine.NewEnv(lib, config.Default()), nil }})
	const token = "s3cret-t0ken"
	var wire lockedBuffer
	h := srv.Handler(token)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&teeResponse{ResponseWriter: w, tee: &wire}, r)
	}))
	defer hs.Close()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong", "Basic " + token, "Bearer " + token + "x"} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "serverInfo") || strings.Contains(string(body), token) {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, body)
		}
	}

	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil); err == nil {
		t.Fatal("a client without the token connected")
	}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "fog dawn keeper"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, text(res))
	}
	hits := res.StructuredContent.(map[string]any)["hits"].([]any)
	hit := hits[0].(map[string]any)
	start, end := int(hit["start"].(float64)), int(hit["end"].(float64))
	if hit["text"] != d.Text[start:end] || !strings.Contains(d.Text[start:end], "\u202e") {
		t.Errorf("hit %v", hit)
	}
	if r, bad := unsafeOnWire(wire.Bytes()); bad {
		t.Errorf("%U reached the wire as itself", r)
	}
	if bytes.Contains(wire.Bytes(), []byte(token)) {
		t.Error("the token was sent back")
	}
}

// teeResponse copies a response's body, as it is written, to tee.
type teeResponse struct {
	http.ResponseWriter
	tee io.Writer
}

func (r *teeResponse) Write(p []byte) (int, error) {
	r.tee.Write(p)
	return r.ResponseWriter.Write(p)
}
func (r *teeResponse) Unwrap() http.ResponseWriter { return r.ResponseWriter }
func (r *teeResponse) Flush()                      { r.ResponseWriter.(http.Flusher).Flush() }

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "[::1]:80": true, "localhost:1": true, "127.3.4.5:9": true,
		"0.0.0.0:80": false, ":80": false, "192.168.1.2:80": false, "example.com:80": false, "nonsense": false,
	} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) = %v", addr, !want)
		}
	}
}
