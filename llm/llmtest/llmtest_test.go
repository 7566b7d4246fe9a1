package llmtest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/citelens/citelens/llm/llmtest"
)

func post(t *testing.T, url, body string, header ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestWireFormat reads the raw event stream: data lines separated by blank
// lines, the usage chunk with empty choices, and [DONE] last.
func TestWireFormat(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{"a", "b"}})
	resp := post(t, srv.URL+"/chat/completions", `{"model":"test-model","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatal(resp.Status, resp.Header)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		events = append(events, data)
	}
	if len(events) != 6 || events[5] != "[DONE]" {
		t.Fatalf("events %q", events)
	}
	var content strings.Builder
	for _, e := range events[:5] {
		var c openai.ChatCompletionStreamResponse
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("%q: %v", e, err)
		}
		if len(c.Choices) > 0 {
			content.WriteString(c.Choices[0].Delta.Content)
		}
	}
	var last openai.ChatCompletionStreamResponse
	json.Unmarshal([]byte(events[4]), &last)
	if content.String() != "ab" || last.Usage == nil || len(last.Choices) != 0 || last.Usage.PromptTokens != 5 {
		t.Fatalf("content %q last %+v", content.String(), last)
	}
	if r := srv.ChatRequests()[0]; r.Last() != "hi" || !r.IncludeUsage {
		t.Fatalf("%+v", r)
	}
}

// TestNonStreaming uses go-openai's non-streaming call.
func TestNonStreaming(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("you said " + r.Last())
	}))
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL
	c := openai.NewClientWithConfig(cfg)
	resp, err := c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model: llmtest.DefaultModel, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "you said hello" || resp.Choices[0].FinishReason != "stop" || resp.Usage.CompletionTokens == 0 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordingHidesAuthorization(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey("sk-secret"))
	if r := post(t, srv.URL+"/chat/completions", `{"model":"test-model","messages":[{"role":"user","content":"x"}]}`); r.StatusCode != 401 {
		t.Fatal(r.Status)
	}
	post(t, srv.URL+"/chat/completions", `{"model":"test-model","messages":[{"role":"user","content":"x"}]}`, "Authorization", "Bearer sk-secret")
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Auth || !reqs[1].Auth {
		t.Fatalf("%+v", reqs)
	}
	for _, r := range reqs {
		for k, v := range r.Header {
			if strings.Contains(k+strings.Join(v, ""), "sk-secret") {
				t.Fatal("recorded the key")
			}
		}
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	for body, status := range map[string]int{
		`{`:                                    400,
		`{"model":"test-model","messages":[]}`: 400,
		`{"model":"other","messages":[{"role":"user","content":"x"}]}`:    404,
		`{"model":"test-model","messages":[{"role":"user","content":1}]}`: 400,
	} {
		if r := post(t, srv.URL+"/chat/completions", body); r.StatusCode != status {
			t.Errorf("%s: %s, want %d", body, r.Status, status)
		}
	}
	for body, status := range map[string]int{
		`{"model":"test-embed","input":""}`:        400,
		`{"model":"test-embed","input":[[1,2]]}`:   400,
		`{"model":"test-embed","input":["a","b"]}`: 200,
	} {
		if r := post(t, srv.URL+"/embeddings", body); r.StatusCode != status {
			t.Errorf("%s: %s, want %d", body, r.Status, status)
		}
	}
	if r := post(t, srv.URL+"/completions", `{}`); r.StatusCode != 404 {
		t.Fatal(r.Status)
	}
}

func TestFaultStatusAndBody(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("2"), llmtest.Reply{Status: 500, Body: "plain failure"})
	r := post(t, srv.URL+"/chat/completions", `{"model":"test-model","messages":[{"role":"user","content":"x"}]}`)
	if r.StatusCode != 429 || r.Header.Get("Retry-After") != "2" {
		t.Fatal(r.Status, r.Header)
	}
	r = post(t, srv.URL+"/chat/completions", `{"model":"test-model","messages":[{"role":"user","content":"x"}]}`)
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 500 || string(b) != "plain failure" {
		t.Fatal(r.Status, string(b))
	}
	if srv.Pending() != 0 {
		t.Fatal(srv.Pending())
	}
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestEmbedSimilarity(t *testing.T) {
	t.Parallel()
	q := llmtest.Embed("When was the bridge over the river built?", 256)
	near := llmtest.Embed("The bridge across the river was built in 1890.", 256)
	far := llmtest.Embed("Penguins eat krill and small fish.", 256)
	if n := cosine(q, q); math.Abs(n-1) > 1e-5 {
		t.Fatalf("not unit length: %v", n)
	}
	if cosine(q, near) <= cosine(q, far)+0.3 {
		t.Fatalf("similar %v, unrelated %v", cosine(q, near), cosine(q, far))
	}
	if z := llmtest.Embed("the of and", 8); cosine(z, z) != 0 {
		t.Fatal("a text of stop words should embed to zero")
	}
}

func FuzzParseRequests(f *testing.F) {
	f.Add(`{"model":"test-model","stream":true,"messages":[{"role":"user","content":"x"}],"stop":"y"}`)
	f.Add(`{"model":"test-embed","input":["a"]}`)
	f.Add(`{"model":"test-rerank","query":"q","documents":["a"],"top_n":1}`)
	srv := llmtest.Start()
	defer srv.Close()
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range []string{"/chat/completions", "/embeddings", "/rerank"} {
			req, _ := http.NewRequest("POST", srv.URL+p, strings.NewReader(body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Fatalf("%s %q: %s", p, body, resp.Status)
			}
		}
	})
}
