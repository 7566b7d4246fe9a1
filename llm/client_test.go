package llm_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

const testKey = "sk-test-4f9c2a7e1b3d5a6c8e0f"

// sleeps records the waits between retries instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

func testConfig(url string) config.Config {
	cfg := config.Default()
	cfg.BaseURL = url
	cfg.APIKey = testKey
	cfg.Model = llmtest.DefaultModel
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	return cfg
}

// newClient returns a client for srv whose retries do not sleep.
func newClient(t *testing.T, cfg config.Config) (*llm.Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	c, err := llm.New(cfg, llm.WithSleep(sl.sleep))
	if err != nil {
		t.Fatal(err)
	}
	return c, sl
}

func collect(s *llm.Stream) []string {
	var out []string
	for s.Next() {
		out = append(out, s.Current())
	}
	return out
}

func assertNoKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Fatalf("%s contains the API key: %s", what, s)
	}
}

func TestStreamDeliversDeltasAndServerUsage(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey(testKey))
	srv.Enqueue(llmtest.Reply{Deltas: []string{"Hel", "lo, ", "wörld", "."}})
	c, _ := newClient(t, testConfig(srv.URL))
	msgs := []llm.Message{llm.System("Be brief."), llm.User("Say hello.")}
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: msgs})
	defer s.Close()
	got := collect(s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Hel", "lo, ", "wörld", "."}; !slices.Equal(got, want) {
		t.Fatalf("deltas %q, want %q", got, want)
	}
	if s.Text() != "Hello, wörld." || s.FinishReason() != "stop" || s.Model() != llmtest.DefaultModel {
		t.Fatalf("text %q finish %q model %q", s.Text(), s.FinishReason(), s.Model())
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	u := s.Usage()
	want := llm.Usage{PromptTokens: r.PromptTokens(), CompletionTokens: textproc.EstimateTokens("Hello, wörld."), LLMCalls: 1}
	if u != want {
		t.Fatalf("usage %+v, want the server's %+v", u, want)
	}
	if !r.Stream || !r.IncludeUsage || r.MaxTokens != config.DefaultMaxOutput || r.Model != llmtest.DefaultModel {
		t.Fatalf("request %+v", r)
	}
	if r.Temperature == nil || *r.Temperature > 1e-6 {
		t.Fatalf("temperature %v, want ~0 sent explicitly", r.Temperature)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Content != "Say hello." {
		t.Fatalf("messages %+v", r.Messages)
	}
	if !srv.Requests()[0].Auth {
		t.Fatal("no Authorization header sent")
	}
}

func TestUsageFromServerOverride(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "x", Usage: &llmtest.Usage{PromptTokens: 1234, CompletionTokens: 56}})
	c, _ := newClient(t, testConfig(srv.URL))
	r, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage != (llm.Usage{PromptTokens: 1234, CompletionTokens: 56, LLMCalls: 1}) {
		t.Fatalf("usage %+v", r.Usage)
	}
}

func TestUsageEstimatedWhenServerSendsNone(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithoutUsage())
	text := "The answer is forty-two, as the document says."
	srv.Enqueue(llmtest.Text(text))
	c, _ := newClient(t, testConfig(srv.URL))
	msgs := []llm.Message{llm.System("sys"), llm.User("What is the answer to everything?")}
	r, err := c.Chat(t.Context(), llm.ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: llm.EstimatePromptTokens(msgs), CompletionTokens: textproc.EstimateTokens(text), LLMCalls: 1, Estimated: true}
	if r.Usage != want || r.Text != text {
		t.Fatalf("usage %+v text %q, want %+v", r.Usage, r.Text, want)
	}
}

func TestRequestParameters(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithModels(llmtest.DefaultModel, "o3-mini"))
	c, _ := newClient(t, testConfig(srv.URL))
	temp := 0.7
	_, err := c.Chat(t.Context(), llm.ChatRequest{
		Messages: []llm.Message{llm.User("json please")}, MaxTokens: 77,
		Temperature: &temp, Stop: []string{"</answer>"}, JSON: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("reason")}, Model: "o3-mini"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	r := reqs[0]
	if r.MaxTokens != 77 || r.Temperature == nil || *r.Temperature < 0.69 || *r.Temperature > 0.71 ||
		!slices.Equal(r.Stop, []string{"</answer>"}) || !r.JSON {
		t.Fatalf("first request %+v", r)
	}
	r = reqs[1]
	if r.Model != "o3-mini" || r.Temperature != nil || r.MaxTokens != config.DefaultMaxOutput {
		t.Fatalf("reasoning-model request %+v", r)
	}
	if !strings.Contains(string(srv.Requests()[1].Body), `"max_completion_tokens"`) {
		t.Fatalf("reasoning model should get max_completion_tokens: %s", srv.Requests()[1].Body)
	}
}

func TestTwo500sThenSuccess(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Status(500), llmtest.Status(500), llmtest.Text("The answer."))
	c, sl := newClient(t, testConfig(srv.URL))
	var notes []llm.Retry
	ctx := llm.WithRetryNotify(t.Context(), func(r llm.Retry) { notes = append(notes, r) })
	r, err := c.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "The answer." || r.Retries != 2 || len(srv.ChatRequests()) != 3 {
		t.Fatalf("text %q retries %d requests %d", r.Text, r.Retries, len(srv.ChatRequests()))
	}
	waits := sl.all()
	if len(waits) != 2 || waits[0] > 500*time.Millisecond || waits[1] > time.Second {
		t.Fatalf("waits %v, want two jittered waits under 500ms and 1s", waits)
	}
	if len(notes) != 2 || notes[0].Attempt != 1 || notes[1].Attempt != 2 || notes[0].Err.Status != 500 || notes[0].Op != "chat" {
		t.Fatalf("retry notes %+v", notes)
	}
	if r.Usage.LLMCalls != 1 {
		t.Fatalf("retries must not count as calls: %+v", r.Usage)
	}
}

func TestGivesUpAfterThreeRetries(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	for range 5 {
		srv.Enqueue(llmtest.Status(503))
	}
	c, sl := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if s.Next() {
		t.Fatal("Next succeeded against a failing server")
	}
	err := s.Err()
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrServer) || e.Retries != 3 || e.Status != 503 {
		t.Fatalf("err %v (%#v)", err, e)
	}
	msg := err.Error()
	for _, want := range []string{srv.URL + "/chat/completions", "HTTP 503", "after 3 retries"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message %q lacks %q", msg, want)
		}
	}
	if n := len(srv.ChatRequests()); n != 4 || len(sl.all()) != 3 {
		t.Fatalf("%d requests, %d waits; want 4 and 3", n, len(sl.all()))
	}
	if s.Usage() != (llm.Usage{}) {
		t.Fatalf("a call that never started counts usage %+v", s.Usage())
	}
}

func TestNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply llmtest.Reply
		kind  error
	}{
		{llmtest.Status(400), llm.ErrBadRequest},
		{llmtest.Status(501), llm.ErrServer},
		{llmtest.Status(403), llm.ErrAuth},
		{llmtest.Reply{Status: 502, Body: "<html><body>Bad gateway</body></html>"}, llm.ErrServer},
	} {
		srv := llmtest.New(t)
		srv.Enqueue(tc.reply, tc.reply, tc.reply, tc.reply)
		c, _ := newClient(t, testConfig(srv.URL))
		_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
		if !errors.Is(err, tc.kind) {
			t.Fatalf("status %d: err %v, want %v", tc.reply.Status, err, tc.kind)
		}
		want := 1
		if tc.reply.Status == 502 {
			want = 4 // retried, then given up
		}
		if n := len(srv.ChatRequests()); n != want {
			t.Fatalf("status %d: %d requests, want %d", tc.reply.Status, n, want)
		}
		if strings.Contains(err.Error(), "<html") {
			t.Fatalf("HTML body in message: %v", err)
		}
	}
}

func TestRetryAfterSecondsIsHonoured(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("7"), llmtest.Text("ok"))
	c, sl := newClient(t, testConfig(srv.URL))
	if _, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}}); err != nil {
		t.Fatal(err)
	}
	if w := sl.all(); !slices.Equal(w, []time.Duration{7 * time.Second}) {
		t.Fatalf("waits %v, want [7s]", w)
	}
}

func TestRetryAfterHTTPDateIsHonoured(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	when := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	srv.Enqueue(llmtest.Reply{Status: 503, RetryAfter: when}, llmtest.Text("ok"))
	c, sl := newClient(t, testConfig(srv.URL))
	if _, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}}); err != nil {
		t.Fatal(err)
	}
	// The date has one-second precision.
	if w := sl.all(); len(w) != 1 || w[0] < 3*time.Second || w[0] > 5*time.Second {
		t.Fatalf("waits %v, want about 4-5s", w)
	}
}

func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("3600"), llmtest.Text("ok"))
	c, sl := newClient(t, testConfig(srv.URL))
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrRateLimited) || !strings.Contains(err.Error(), "1h0m0s") {
		t.Fatalf("err %v", err)
	}
	if len(sl.all()) != 0 || len(srv.ChatRequests()) != 1 {
		t.Fatal("waited or retried anyway")
	}
}

// TestRetryAfterRealWait waits for real once: the retry must not reach the
// server before the second it was told to wait.
func TestRetryAfterRealWait(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("1"), llmtest.Text("ok"))
	c, err := llm.New(testConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if err != nil || r.Text != "ok" {
		t.Fatal(r.Text, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if gap := reqs[1].At.Sub(reqs[0].At); gap < time.Second || gap > 3*time.Second {
		t.Fatalf("retried after %v, want about 1s", gap)
	}
}

func TestDropMidStreamKeepsText(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{"<statement>A.", "</statement>", "<statement>B", " never", " ends"}, Drop: true, DropAfter: 3})
	c, sl := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	got := collect(s)
	err := s.Err()
	if !errors.Is(err, llm.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	// "B" was held back (it might have begun a secret) when the stream
	// dropped: it arrives as the last delta, so the text shown is Text.
	if strings.Join(got, "") != s.Text() || s.Text() != "<statement>A.</statement><statement>B" {
		t.Fatalf("deltas %q text %q", got, s.Text())
	}
	if len(srv.ChatRequests()) != 1 || len(sl.all()) != 0 {
		t.Fatal("a stream that had delivered text was retried")
	}
	if !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("message %q does not name the URL", err)
	}
	if u := s.Usage(); !u.Estimated || u.LLMCalls != 1 || u.CompletionTokens != textproc.EstimateTokens(s.Text()) {
		t.Fatalf("usage %+v", u)
	}
	if s.Next() {
		t.Fatal("Next after the end")
	}
}

func TestDropAfterBytesKeepsText(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	// Enough bytes for the role chunk and a couple of deltas, cut inside a
	// later chunk.
	srv.Enqueue(llmtest.Reply{Text: strings.Repeat("word ", 40), ChunkSize: 5, DropAfterBytes: 700})
	c, _ := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	got := collect(s)
	if !errors.Is(s.Err(), llm.ErrInterrupted) || len(got) == 0 || len(got) >= 40 {
		t.Fatalf("err %v after %d deltas", s.Err(), len(got))
	}
	if s.Text() != strings.Repeat("word ", len(got)) {
		t.Fatalf("text %q", s.Text())
	}
}

func TestDropBeforeFirstDeltaIsRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "lost", Drop: true, DropAfter: 0}, llmtest.Reply{Hangup: true}, llmtest.Text("kept"))
	c, sl := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	got := collect(s)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"kept"}) || s.Retries() != 2 || len(sl.all()) != 2 {
		t.Fatalf("deltas %q retries %d", got, s.Retries())
	}
}

func TestChatStartsOverAfterDrop(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "half of an answer", Drop: true, DropAfter: 2}, llmtest.Text("a whole answer"))
	c, _ := newClient(t, testConfig(srv.URL))
	r, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if err != nil || r.Text != "a whole answer" || r.Retries != 1 {
		t.Fatalf("text %q retries %d err %v", r.Text, r.Retries, err)
	}
}

func TestMalformedChunk(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{"one ", "two ", "three"}, Malformed: true, MalformedAfter: 2})
	c, _ := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	collect(s)
	if !errors.Is(s.Err(), llm.ErrBadResponse) || s.Text() != "one two " {
		t.Fatalf("err %v text %q", s.Err(), s.Text())
	}
	if len(srv.ChatRequests()) != 1 {
		t.Fatal("a malformed stream was retried")
	}
}

func TestStreamWithoutFinishIsInterrupted(t *testing.T) {
	t.Parallel()
	// A server that closes the stream cleanly but early (no finish reason,
	// no [DONE]) has not finished the answer.
	ln := serveRaw(t, func(c net.Conn) {
		readRequest(c)
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"partial"}}]}` + "\n\n"))
		c.Close()
	})
	cfg := testConfig("http://" + ln)
	c, _ := newClient(t, cfg)
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	collect(s)
	if !errors.Is(s.Err(), llm.ErrInterrupted) || s.Text() != "partial" {
		t.Fatalf("err %v text %q", s.Err(), s.Text())
	}
}

// serveRaw runs a TCP server whose connections fn handles, returning its
// address.
func serveRaw(t *testing.T, fn func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go fn(c)
		}
	}()
	return ln.Addr().String()
}

func readRequest(c net.Conn) {
	buf := make([]byte, 64<<10)
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	c.Read(buf)
}

func TestDeadEndpointFailsFastNamingTheURL(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg := testConfig("http://" + addr + "/v1")
	c, sl := newClient(t, cfg)
	start := time.Now()
	_, err = c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err %v, want ErrUnreachable", err)
	}
	if time.Since(start) > cfg.ConnectTimeout {
		t.Fatalf("took %v", time.Since(start))
	}
	if !strings.Contains(err.Error(), "http://"+addr+"/v1/chat/completions") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("message %q", err)
	}
	assertNoKey(t, "error", err.Error())
	var e *llm.Error
	if !errors.As(err, &e) || e.Fix() == "" || len(sl.all()) != 0 {
		t.Fatalf("fix %q, %d retries", e.Fix(), len(sl.all()))
	}
}

func TestSilentEndpointTimesOut(t *testing.T) {
	t.Parallel()
	// Accepts connections and never answers.
	addr := serveRaw(t, func(c net.Conn) {
		readRequest(c)
		time.Sleep(5 * time.Second)
		c.Close()
	})
	cfg := testConfig("http://" + addr + "/v1")
	cfg.Timeout = 300 * time.Millisecond
	c, _ := newClient(t, cfg)
	start := time.Now()
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "300ms") {
		t.Fatalf("err %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v with a 300ms timeout", el)
	}
}

func TestSlowStreamTimesOutKeepingText(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "a b c d e f g h i j", ChunkDelay: 100 * time.Millisecond})
	cfg := testConfig(srv.URL)
	cfg.Timeout = 450 * time.Millisecond
	c, _ := newClient(t, cfg)
	s := c.ChatStream(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	got := collect(s)
	if !errors.Is(s.Err(), llm.ErrTimeout) || len(got) == 0 || len(got) >= 10 {
		t.Fatalf("err %v after %d deltas", s.Err(), len(got))
	}
	if len(srv.ChatRequests()) != 1 {
		t.Fatal("timed-out stream was retried")
	}
}

func TestCallerCancels(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "first second third fourth", ChunkDelay: 50 * time.Millisecond})
	c, _ := newClient(t, testConfig(srv.URL))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := c.ChatStream(ctx, llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	defer s.Close()
	if !s.Next() {
		t.Fatal(s.Err())
	}
	cancel()
	for s.Next() {
	}
	if !errors.Is(s.Err(), context.Canceled) || !errors.Is(s.Err(), llm.ErrCanceled) || s.Text() != "first " {
		t.Fatalf("err %v text %q", s.Err(), s.Text())
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("30"))
	c, err := llm.New(testConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey("sk-the-right-one"))
	c, _ := newClient(t, testConfig(srv.URL))
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrAuth) {
		t.Fatalf("err %v", err)
	}
	assertNoKey(t, "error", err.Error())

	// A server that echoes the header back in its error.
	srv2 := llmtest.New(t)
	srv2.Enqueue(llmtest.Reply{Status: 400, Body: `{"error":{"message":"bad header: Authorization: Bearer ` + testKey + `","type":"invalid_request_error"}}`})
	c2, _ := newClient(t, testConfig(srv2.URL))
	_, err = c2.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrBadRequest) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("err %v", err)
	}
	assertNoKey(t, "error", err.Error())
}

func TestUnknownModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := testConfig(srv.URL)
	cfg.Model = "no-such-model"
	c, _ := newClient(t, cfg)
	_, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
	if !errors.Is(err, llm.ErrNotFound) || !strings.Contains(err.Error(), "no-such-model") {
		t.Fatalf("err %v", err)
	}
}

func TestEmptyRequest(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, _ := newClient(t, testConfig(srv.URL))
	s := c.ChatStream(t.Context(), llm.ChatRequest{})
	if s.Next() || !errors.Is(s.Err(), llm.ErrBadRequest) || len(srv.Requests()) != 0 {
		t.Fatalf("err %v", s.Err())
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	_, err := llm.New(config.Default())
	if !errors.Is(err, config.ErrNotConfigured) || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Fatalf("err %v", err)
	}
	cfg := config.Default()
	cfg.BaseURL = "http://localhost:8000/v1"
	_, err = llm.New(cfg)
	if !errors.Is(err, config.ErrNoModel) || !strings.Contains(err.Error(), "CITELENS_MODEL") {
		t.Fatalf("err %v", err)
	}
}

func TestConcurrentChats(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("echo: " + r.Last())
	}))
	c, _ := newClient(t, testConfig(srv.URL))
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			q := strings.Repeat("q", i+1)
			r, err := c.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User(q)}})
			if err == nil && r.Text != "echo: "+q {
				err = errors.New("wrong answer " + r.Text)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkStream(b *testing.B) {
	srv := llmtest.New(b)
	text := strings.Repeat("token ", 1000)
	srv.Respond(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text(text) })
	c, err := llm.New(testConfig(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := c.ChatStream(b.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("q")}})
		n := 0
		for s.Next() {
			n++
		}
		if s.Err() != nil || n != 1000 {
			b.Fatal(s.Err(), n)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/delta")
}
