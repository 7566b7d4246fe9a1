package llm_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/llm"
)

// recorder is a server that notes what reaches it.
type recorder struct {
	mu    sync.Mutex
	auth  []string
	paths []string
	body  []string
}

func (r *recorder) note(req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.paths = append(r.paths, req.URL.Path)
	r.body = append(r.body, string(b))
}

// TestRedirectToAnotherPortKeepsTheKey: an endpoint that answers 307 to
// another port of 127.0.0.1 gets neither the key nor the prompt sent
// there; the user gets a one-line reason.
func TestRedirectToAnotherPortKeepsTheKey(t *testing.T) {
	t.Parallel()
	other := &recorder{}
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.note(r)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer elsewhere.Close()
	first := &recorder{}
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.note(r)
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer endpoint.Close()
	if !strings.HasPrefix(endpoint.URL, "http://127.0.0.1:") || !strings.HasPrefix(elsewhere.URL, "http://127.0.0.1:") {
		t.Fatalf("servers at %s and %s, want two ports of 127.0.0.1", endpoint.URL, elsewhere.URL)
	}

	c, _ := newClient(t, testConfig(endpoint.URL+"/v1"))
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("the secret prompt")}})
	var le *llm.Error
	if !errors.As(err, &le) || !errors.Is(err, llm.ErrBadResponse) {
		t.Fatalf("Chat = %v, want a refused redirect", err)
	}
	msg := err.Error()
	assertNoKey(t, "the error", msg)
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "redirects to "+elsewhere.URL) || !strings.Contains(msg, "does not follow it") {
		t.Errorf("message %q", msg)
	}
	if len(other.auth) != 0 {
		t.Errorf("the redirect was followed: the other port got %d requests (Authorization %q, body %q)", len(other.auth), other.auth, other.body)
	}
	if len(first.auth) != 1 || first.auth[0] != "Bearer "+testKey {
		t.Errorf("the configured endpoint got %q; it is where the key belongs, once (no retries of a refused redirect)", first.auth)
	}
}

// TestRedirectOnTheSameOriginDropsTheKey: a redirect within the endpoint
// is followed, but without the key.
func TestRedirectOnTheSameOriginDropsTheKey(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.note(r)
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	c, _ := newClient(t, testConfig(srv.URL+"/v1"))
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrAuth) {
		t.Errorf("Chat = %v, want the moved endpoint's 401", err)
	}
	if len(rec.auth) != 2 || rec.auth[0] != "Bearer "+testKey || rec.auth[1] != "" || rec.paths[1] != "/moved/v1/chat/completions" {
		t.Errorf("requests: paths %q, Authorization %q; want the key on the first only", rec.paths, rec.auth)
	}
}

// TestRedirectToHTTPSOrAnotherHostRefused covers the other origin changes.
func TestRedirectToHTTPSOrAnotherHostRefused(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"https://127.0.0.1:1/v1/chat/completions", "http://localhost.invalid/v1/chat/completions"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target, http.StatusTemporaryRedirect)
		}))
		c, _ := newClient(t, testConfig(srv.URL+"/v1"))
		_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
		if err == nil || !strings.Contains(err.Error(), "does not follow it") {
			t.Errorf("redirect to %s: %v", target, err)
		}
		srv.Close()
	}
}
