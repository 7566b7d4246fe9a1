package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
)

// portOf is the port of an httptest server on 127.0.0.1.
func portOf(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	p, err := strconv.Atoi(u.Port())
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("server at %s", srv.URL)
	}
	return p
}

// FindLocal reports the servers that list models, in the ports' order,
// and leaves out a port whose program answers something else or
// redirects (off the machine, perhaps).
func TestFindLocal(t *testing.T) {
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"object":"list","data":[{"id":"qwen2.5:7b"},{"id":"llama3.1:8b"}]}`))
	}))
	defer models.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>a web app</html>")) }))
	defer other.Close()
	redirect := httptest.NewServer(http.RedirectHandler("http://example.com/v1/models", http.StatusFound))
	defer redirect.Close()

	got := FindLocal(context.Background(), []LocalPort{
		{portOf(t, other), "llama.cpp"}, {portOf(t, redirect), "vLLM"}, {portOf(t, models), "Ollama"},
	}, LocalTimeout)
	if len(got) != 1 || got[0].Name != "Ollama" || got[0].URL != models.URL+"/v1" ||
		len(got[0].Models) != 2 || got[0].Models[0] != "llama3.1:8b" {
		t.Errorf("FindLocal = %+v; want the Ollama server alone, its models sorted", got)
	}
}
