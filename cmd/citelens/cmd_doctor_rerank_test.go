package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"
)

// rerankEnv is serverEnv with the scripted reranker configured.
func rerankEnv(srv *llmtest.Server) map[string]string {
	env := serverEnv(srv)
	env[config.EnvRerankModel] = llmtest.DefaultRerankModel
	return env
}

func TestDoctorReranker(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithKey(secretKey))
	llmEnv(t, serverEnv(srv))
	out := newCLI(t).ok("doctor")
	if l := lineOf(out, "skip", "reranker"); !strings.Contains(l, "no rerank model set") || !strings.Contains(out, "fix: Set CITELENS_RERANK_MODEL") {
		t.Fatalf("no reranker:\n%s", out)
	}

	llmEnv(t, rerankEnv(srv))
	out = newCLI(t).ok("doctor")
	l := lineOf(out, "ok", "reranker")
	if !strings.Contains(l, "test-rerank at "+srv.URL+"/rerank ranked 2 documents in ") || !strings.Contains(l, "best 50 candidates, within 5s") {
		t.Fatalf("healthy reranker:\n%s", out)
	}
	if n := len(srv.RerankRequests()); n != 1 {
		t.Fatalf("%d rerank requests", n)
	}

	// TEI at the root of another server, which is not sent the key.
	tei := llmtest.New(t, llmtest.WithTEIRerank())
	env := rerankEnv(srv)
	env[config.EnvRerankURL] = strings.TrimSuffix(tei.URL, "/v1")
	llmEnv(t, env)
	out = newCLI(t).ok("doctor")
	if l := lineOf(out, "ok", "reranker"); !strings.Contains(l, "TEI's shape") || !strings.Contains(l, "OPENAI_API_KEY is not sent to it") {
		t.Fatalf("TEI reranker:\n%s", out)
	}
}

func TestDoctorRerankerFailures(t *testing.T) {
	srv := llmtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		timeout   string // rerank_timeout in the config file
		reply     *llmtest.RerankReply
		want, fix string
	}{
		{"no such endpoint", map[string]string{config.EnvRerankURL: srv.URL + "/chat"}, "", nil,
			"not found (HTTP 404)", "does not serve " + srv.URL + "/chat/rerank: start vLLM with a reranker model (older vLLM: --task score), llama.cpp's llama-server with --reranking"},
		{"unknown model", map[string]string{config.EnvRerankModel: "bge-nope"}, "", nil,
			"does not exist", "Set CITELENS_RERANK_MODEL to one of: test-embed, test-model, test-rerank."},
		{"dead server", map[string]string{config.EnvRerankURL: dead}, "", nil,
			"connection refused", "Is the reranker running? Check rerank_url (or CITELENS_RERANK_URL)"},
		{"slow server", nil, "200ms", &llmtest.RerankReply{Reply: llmtest.Reply{HeaderDelay: 3 * time.Second}},
			"no complete answer in time", "raise it in the config file"},
		{"bad answer", nil, "", &llmtest.RerankReply{Results: []llmtest.RerankResult{{Index: 5, Score: 1}, {Index: 0, Score: 0}}},
			"result 0 has index 5, but 2 documents were sent", "Check that rerank_url points at a rerank server"},
	} {
		env := rerankEnv(srv)
		for k, v := range tc.env {
			env[k] = v
		}
		dir := llmEnv(t, env)
		if tc.timeout != "" {
			os.MkdirAll(filepath.Join(dir, "citelens"), 0o700)
			os.WriteFile(filepath.Join(dir, "citelens", "config.toml"), []byte("rerank_timeout = \""+tc.timeout+"\"\n"), 0o600)
		}
		if tc.reply != nil {
			srv.EnqueueRerank(*tc.reply)
		}
		out, _, code := newCLI(t).run("doctor")
		l := lineOf(out, "FAIL", "reranker")
		if code != 1 || !strings.Contains(l, tc.want) || !strings.Contains(out, tc.fix) || lineOf(out, "ok", "streaming") == "" {
			t.Errorf("%s: status %d:\n%s", tc.name, code, out)
		}
	}
}
