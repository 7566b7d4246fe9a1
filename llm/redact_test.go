package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"
)

const redactKey = "s3cr3t-k3y-0123456789abcdef"

// streamed runs text through a redactor cut into pieces of n bytes and
// returns what it released, piece by piece.
func streamed(r *redactor, text string, n int) []string {
	var out []string
	for i := 0; i < len(text); i += n {
		out = append(out, r.push(text[i:min(i+n, len(text))]))
	}
	return append(out, r.flush())
}

// TestRedactorHidesKeysCutAnywhere: the key, key-shaped tokens and the
// values of auth schemes are redacted however the stream cuts them.
func TestRedactorHidesKeysCutAnywhere(t *testing.T) {
	t.Parallel()
	text := "You sent Authorization: Bearer " + redactKey + ", and sk-proj-abcdefghijklmnopqrstuvwxyz01 too; " +
		"also token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and AKIAABCDEFGHIJKLMNOP. The rest is prose."
	want := "You sent Authorization: Bearer [redacted], and [redacted] too; also token [redacted] and [redacted]. The rest is prose."
	for n := 1; n <= len(text); n++ {
		got := strings.Join(streamed(newRedactor(redactKey), text, n), "")
		if got != want {
			t.Fatalf("cut every %d bytes:\n got %q\nwant %q", n, got, want)
		}
	}
	if got := strings.Join(streamed(newRedactor("short"), "a short key stays", 3), ""); got != "a short key stays" {
		t.Errorf("a key under %d bytes: %q", minKeyLen, got)
	}
}

// TestRedactorStreamsProseAsItComes: text with nothing like a secret is
// released delta by delta as it arrives.
func TestRedactorStreamsProseAsItComes(t *testing.T) {
	t.Parallel()
	r := newRedactor(redactKey)
	for _, d := range []string{"Hel", "lo, ", "wörld", ". The ", "court", " ruled."} {
		if got := r.push(d); got != d {
			t.Errorf("push(%q) released %q", d, got)
		}
	}
}

// TestAnswerEchoingTheKeyIsRedacted: a server that echoes the
// Authorization header into its answer and reasoning gets neither shown
// nor kept: not in a delta, the text, the reasoning or the reply.
func TestAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey(redactKey), llmtest.WithEchoAuthorization())
	cfg := config.Default()
	cfg.BaseURL, cfg.APIKey, cfg.Model = srv.URL, redactKey, llmtest.DefaultModel
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{0, 1, 5} {
		srv.Enqueue(llmtest.Reply{Text: "The answer.", Reasoning: "Thinking it over.", ChunkSize: chunk})
		s := c.ChatStream(context.Background(), ChatRequest{Messages: []Message{User("q")}})
		var shown strings.Builder
		for s.Next() {
			shown.WriteString(s.Current() + s.CurrentReasoning())
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		for what, got := range map[string]string{"shown": shown.String(), "text": s.Text(), "reasoning": s.Reasoning()} {
			if strings.Contains(got, redactKey) || strings.Contains(got, redactKey[:12]) || !strings.Contains(got, "Bearer [redacted])") {
				t.Errorf("chunks of %d: %s %q", chunk, what, got)
			}
		}
		if !strings.HasPrefix(s.Text(), "The answer.") {
			t.Errorf("text %q", s.Text())
		}
	}
	srv.Enqueue(llmtest.Text("Whole."))
	reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{User("q")}})
	if err != nil || strings.Contains(reply.Text, redactKey) || reply.Text != "Whole. (your request said Authorization: Bearer [redacted])" {
		t.Errorf("Chat: %q %v", reply.Text, err)
	}
}

// TestEndpointStringsAreRedacted: the key echoed in the strings of a
// reply other than its text (the model that answered, the finish
// reason, a listed model's ID) is redacted too, whatever shape it has.
func TestEndpointStringsAreRedacted(t *testing.T) {
	t.Parallel()
	for _, echoed := range []string{
		redactKey,                          // the client's own key, any shape
		"sk-proj-abcdefghijklmnopqrstuvwx", // shaped like a key
		"Bearer " + redactKey,              // with its scheme
		"gpt-4o\x1b[2J" + redactKey,        // after an escape sequence
	} {
		js, _ := json.Marshal(echoed)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/models") {
				fmt.Fprintf(w, `{"object":"list","data":[{"id":%s,"object":"model"}]}`, js)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"model\":%s,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n", js)
			fmt.Fprintf(w, "data: {\"model\":%s,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%s}]}\n\ndata: [DONE]\n\n", js, js)
		}))
		cfg := config.Default()
		cfg.BaseURL, cfg.APIKey, cfg.Model = srv.URL, redactKey, "m"
		c, err := New(cfg, WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		reply, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{User("q")}})
		if err != nil {
			t.Fatal(err)
		}
		ids, err := c.Models(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
		for what, got := range map[string]string{"model": reply.Model, "finish reason": reply.FinishReason, "model id": strings.Join(ids, " ")} {
			if strings.Contains(got, redactKey[:12]) || strings.Contains(got, "abcdefghijklmnop") || strings.ContainsRune(got, 0x1b) || !strings.Contains(got, redactedText) {
				t.Errorf("echoed %q: %s %q", echoed, what, got)
			}
		}
	}
}
