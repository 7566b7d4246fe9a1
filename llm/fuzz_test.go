package llm_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/citelens/citelens/llm"
)

// FuzzStreamBody feeds arbitrary bytes to the client as a server's event
// stream: it must end with text or an error, never a panic or a hang.
func FuzzStreamBody(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"overloaded\"}}\n\n"))
	f.Add([]byte(": keep-alive\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"))
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body.Load().([]byte))
	}))
	defer srv.Close()
	cfg := testConfig(srv.URL)
	c, err := llm.New(cfg, llm.WithMaxRetries(0))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		body.Store(b)
		s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
		text := ""
		for s.Next() {
			text += s.Current()
		}
		s.Close()
		if text != s.Text() {
			t.Fatalf("deltas %q, text %q", text, s.Text())
		}
		if u := s.Usage(); u.LLMCalls != 1 {
			t.Fatalf("usage %+v", u)
		}
	})
}
