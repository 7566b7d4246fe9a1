package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/testload"
)

// serveHTTP starts s's HTTP server on a loopback port with o and returns
// its URL.
func serveHTTP(t *testing.T, s *Server, token string, o HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.NewHTTPServer(token, o)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

func connect(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
}

// closedByServer reports whether the server has closed c (a read ends
// at once with EOF or a reset), waiting up to wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 512))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

// TestHTTPNotStarvedWithoutToken: clients without the token holding
// idle connections, headers sent slowly and bodies never sent do not
// keep the token's holder out: they are answered 401 before their body
// is read, closed when the server is full, and the client with the
// token gets through.
func TestHTTPNotStarvedWithoutToken(t *testing.T) {
	t.Parallel()
	lib, _ := hostileLibrary(t)
	srv := New(Options{Open: func() (*engine.Env, error) { return engine.NewEnv(lib, config.Default()), nil }})
	const token = "s3cret-t0ken-for-starving"
	const max = 16
	url := serveHTTP(t, srv, token, HTTPOptions{MaxConnections: max})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")

	// A body declared as a gigabyte, of which a few bytes arrive: the
	// 401 comes before the rest is awaited.
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{\"jsonrpc\":", addr)
	slow.SetReadDeadline(time.Now().Add(testload.Scaled(5 * time.Second)))
	status, err := bufio.NewReader(slow).ReadString('\n')
	if err != nil || !strings.Contains(status, "401") {
		t.Fatalf("an unauthenticated slow body: %q %v, want 401 at once", status, err)
	}

	// Idle connections and half-sent headers, four times the cap.
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < 4*max; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
		}
		held = append(held, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testload.Scaled(10*time.Second))
	defer cancel()
	cs, err := connect(ctx, url, token)
	if err != nil {
		t.Fatalf("the client with the token was kept out: %v", err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_documents"}); err != nil || res.IsError {
		t.Fatalf("list_documents: %v %s", err, text(res))
	}
	closed := 0
	for _, c := range held {
		if closedByServer(c, 50*time.Millisecond) {
			closed++
		}
	}
	if closed < len(held)-max {
		t.Errorf("the server closed %d of %d connections without the token, want at least %d (a cap of %d)", closed, len(held), len(held)-max, max)
	}
}

// TestHTTPSessionsCappedAndExpire: sessions past the cap are refused
// with 503, and an idle session expires, making room.
func TestHTTPSessionsCappedAndExpire(t *testing.T) {
	t.Parallel()
	lib, _ := hostileLibrary(t)
	srv := New(Options{Open: func() (*engine.Env, error) { return engine.NewEnv(lib, config.Default()), nil }})
	const token = "s3cret-t0ken-for-sessions"
	expiry := testload.Scaled(500 * time.Millisecond)
	url := serveHTTP(t, srv, token, HTTPOptions{MaxSessions: 2, SessionTimeout: expiry})
	ctx, cancel := context.WithTimeout(context.Background(), testload.Scaled(20*time.Second))
	defer cancel()
	// Sessions are opened until one is refused: at most the cap's two
	// get in (a client that retries a slow initialize on a loaded machine
	// may take the second place itself), and the refusal is a 503.
	accepted := 0
	var refused error
	for refused == nil && accepted <= 2 {
		if _, err := connect(ctx, url, token); err != nil {
			refused = err
		} else {
			accepted++
		}
	}
	if accepted == 0 || accepted > 2 || refused == nil || !strings.Contains(refused.Error(), "Service Unavailable") {
		t.Fatalf("with a cap of 2: %d sessions opened, then %v; want one or two, then a 503", accepted, refused)
	}
	deadline := time.Now().Add(expiry * 10)
	for {
		cs, err := connect(ctx, url, token)
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session expired in %s: %v (%d open)", expiry*10, err, srv.sessions())
		}
		time.Sleep(expiry / 4)
	}
}
