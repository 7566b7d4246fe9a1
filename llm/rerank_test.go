package llm_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

var bridgeDocs = []string{
	"Penguins eat krill and small fish.",
	"The bridge over the river was built in 1890.",
	"A bridge crosses the river at the old mill.",
}

const bridgeQuery = "When was the bridge over the river built?"

func rerankConfig(url string) config.Config {
	cfg := testConfig(url)
	cfg.RerankModel = llmtest.DefaultRerankModel
	return cfg
}

func TestRerankBestFirst(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey(testKey))
	c, _ := newClient(t, rerankConfig(srv.URL))
	res, u, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Index != 1 || res[1].Index != 2 || res[2].Index != 0 {
		t.Fatalf("order %+v", res)
	}
	for _, r := range res {
		if r.Score != srv.Relevance(bridgeQuery, bridgeDocs[r.Index]) {
			t.Fatalf("document %d scored %v, the server says %v", r.Index, r.Score, srv.Relevance(bridgeQuery, bridgeDocs[r.Index]))
		}
	}
	if u.LLMCalls != 1 || u.PromptTokens == 0 || u.Estimated {
		t.Fatalf("usage %+v", u)
	}
	req := srv.RerankRequests()[0]
	if req.Model != llmtest.DefaultRerankModel || req.TopN != 3 || req.TEI || !srv.Requests()[0].Auth || srv.Requests()[0].Path != "/v1/rerank" {
		t.Fatalf("sent %+v, path %s", req, srv.Requests()[0].Path)
	}

	// top_n is sent and the answer cut to it.
	res, _, err = c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 1)
	if err != nil || len(res) != 1 || res[0].Index != 1 || srv.RerankRequests()[1].TopN != 1 {
		t.Fatalf("top 1: %+v %v", res, err)
	}
	// Nothing to rank costs no request.
	if res, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, nil, 0); res != nil || err != nil || len(srv.Requests()) != 2 {
		t.Fatalf("no documents: %v %v", res, err)
	}
	if _, _, err := c.Rerank(t.Context(), "", bridgeQuery, bridgeDocs, 0); !errors.Is(err, llm.ErrNoRerankModel) || !strings.Contains(err.Error(), config.EnvRerankModel) {
		t.Fatalf("no model: %v", err)
	}
}

// A TEI server refuses Jina's shape; the client asks again in TEI's,
// reads TEI's answer (which ignores top_n) and keeps to TEI's shape.
func TestRerankTEIFallback(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithTEIRerank(), llmtest.WithoutUsage())
	cfg := rerankConfig(srv.URL)
	cfg.RerankURL = strings.TrimSuffix(srv.URL, "/v1")
	c, _ := newClient(t, cfg)
	res, u, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Index != 1 || res[1].Index != 2 || !u.Estimated || u.PromptTokens == 0 {
		t.Fatalf("%+v %+v", res, u)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Rerank.TEI || !reqs[1].Rerank.TEI || reqs[1].Path != "/rerank" {
		t.Fatalf("requests %+v", reqs)
	}
	if _, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !reqs[2].Rerank.TEI {
		t.Fatalf("the second call did not go straight to TEI's shape: %d requests", len(reqs))
	}
}

func TestRerankFaults(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, sl := newClient(t, rerankConfig(srv.URL))
	rerank := func() ([]llm.RerankResult, error) {
		res, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
		return res, err
	}

	// A 5xx is retried like any request.
	srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Status(503)}, llmtest.RerankReply{Reply: llmtest.RateLimited("1")})
	if res, err := rerank(); err != nil || len(res) != 3 || len(sl.all()) != 2 || sl.all()[1] != time.Second {
		t.Fatalf("after retries: %v %v, waits %v", res, err, sl.all())
	}
	for range llm.MaxRetries + 1 {
		srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Status(500)})
	}
	_, err := rerank()
	var e *llm.Error
	if !errors.Is(err, llm.ErrServer) || !errors.As(err, &e) || e.Op != "rerank" || e.Retries != llm.MaxRetries ||
		!strings.Contains(err.Error(), srv.URL+"/rerank") {
		t.Fatalf("5xx: %v", err)
	}

	for _, tc := range []struct {
		reply llmtest.RerankReply
		want  string
	}{
		{llmtest.RerankReply{Results: scored(0, 1, 3)}, "result 2 has index 3, but 3 documents were sent"},
		{llmtest.RerankReply{Results: scored(0, 1, 1)}, "document 1 is scored twice"},
		{llmtest.RerankReply{Results: scored(0, 1)}, "asked for the best 3 of 3 documents, got 2 results"},
		{llmtest.RerankReply{Results: scored(-1, 1, 2)}, "result 0 has index -1"},
		{llmtest.RerankReply{Raw: `{"results":[{"index":0,"relevance_score":null},{"index":1,"score":1},{"index":2,"score":0}]}`}, "result 0 (document 0) has no score"},
		{llmtest.RerankReply{Raw: `{"results":[{"relevance_score":1}]}`}, "result 0 has no index"},
		{llmtest.RerankReply{Raw: `{"data":[]}`}, `no "results" list`},
		{llmtest.RerankReply{Raw: `{"results":[{"index":0,"relevance_score":1e999}]}`}, "cannot unmarshal"},
		{llmtest.RerankReply{Reply: llmtest.Reply{Malformed: true}}, "unexpected end of JSON"},
	} {
		srv.EnqueueRerank(tc.reply)
		_, err := rerank()
		if !errors.Is(err, llm.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want a malformed response saying %q", tc.reply, err, tc.want)
		}
	}
	if len(sl.all()) != 2+llm.MaxRetries {
		t.Fatalf("malformed answers were retried: waits %v", sl.all())
	}
}

// scored is a rerank answer naming the documents idx, best first.
func scored(idx ...int) []llmtest.RerankResult {
	out := make([]llmtest.RerankResult, len(idx))
	for i, x := range idx {
		out[i] = llmtest.RerankResult{Index: x, Score: float64(len(idx) - i)}
	}
	return out
}

func TestRerankTimeout(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := rerankConfig(srv.URL)
	cfg.RerankTimeout = 100 * time.Millisecond
	c, _ := newClient(t, cfg)
	srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Reply{HeaderDelay: 2 * time.Second}})
	_, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
	var e *llm.Error
	if !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), "within 100ms") || !errors.As(err, &e) ||
		!strings.Contains(e.Fix(), "rerank_timeout") {
		t.Fatalf("%v", err)
	}
}

// A missing endpoint and an unknown model get fixes of their own.
func TestRerankNotFoundFixes(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := rerankConfig(srv.URL)
	cfg.RerankURL = srv.URL + "/nothing"
	c, _ := newClient(t, cfg)
	_, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
	var e *llm.Error
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrNotFound) || !strings.Contains(e.Fix(), "--reranking") ||
		!strings.Contains(e.Fix(), srv.URL+"/nothing/rerank") {
		t.Fatalf("%v; fix %q", err, e.Fix())
	}
	c, _ = newClient(t, rerankConfig(srv.URL))
	_, _, err = c.Rerank(t.Context(), "bge-nope", bridgeQuery, bridgeDocs, 0)
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrNotFound) || !strings.Contains(e.Fix(), "Set "+config.EnvRerankModel) {
		t.Fatalf("%v; fix %q", err, e.Fix())
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	cfg.RerankURL = "http://" + addr
	c, _ = newClient(t, cfg)
	_, _, err = c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
	if !errors.As(err, &e) || !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(e.Fix(), "rerank_url") {
		t.Fatalf("%v", err)
	}
}

// The API key goes to the reranker only on the base URL's host, or its own
// key; neither appears in an error.
func TestRerankKey(t *testing.T) {
	t.Parallel()
	chat := llmtest.New(t, llmtest.WithKey(testKey))
	other := llmtest.New(t)
	cfg := rerankConfig(chat.URL)
	cfg.RerankURL = other.URL
	c, _ := newClient(t, cfg)
	if _, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0); err != nil {
		t.Fatal(err)
	}
	if r := other.Requests()[0]; r.Auth {
		t.Fatal("the base URL's key went to a reranker on another host")
	}

	const rerankKey = "sk-rerank-2b7e9d0c4a"
	keyed := llmtest.New(t, llmtest.WithKey(rerankKey))
	cfg.RerankURL, cfg.RerankAPIKey = keyed.URL, rerankKey
	c, _ = newClient(t, cfg)
	if _, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0); err != nil {
		t.Fatalf("with its own key: %v", err)
	}
	keyed.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Reply{Status: 400, Body: `{"error":{"message":"bad header Bearer ` + rerankKey + `"}}`}})
	_, _, err := c.Rerank(t.Context(), llmtest.DefaultRerankModel, bridgeQuery, bridgeDocs, 0)
	if err == nil || strings.Contains(err.Error(), rerankKey) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("echoed key: %v", err)
	}
}
