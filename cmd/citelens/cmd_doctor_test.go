package main

import (
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

const secretKey = "sk-doctor-test-7d1e0c9b8a"

// llmEnv clears every model setting and points the config file into a
// temporary XDG_CONFIG_HOME, returning that directory.
func llmEnv(t *testing.T, vars map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	for _, k := range []string{config.EnvConfig, config.EnvAPIKey, config.EnvBaseURL, config.EnvModel, config.EnvEmbedModel,
		config.EnvAnalyzerModel, config.EnvContextWindow, config.EnvMaxOutput, config.EnvTimeout,
		config.EnvRerankModel, config.EnvRerankURL, config.EnvRerankAPIKey,
		config.EnvAnswerTimeout, config.EnvJudgeModel, config.EnvJudgeBaseURL, config.EnvJudgeAPIKey} {
		t.Setenv(k, vars[k])
	}
	return dir
}

func serverEnv(srv *llmtest.Server) map[string]string {
	return map[string]string{
		config.EnvBaseURL: srv.URL, config.EnvAPIKey: secretKey,
		config.EnvModel: llmtest.DefaultModel, config.EnvEmbedModel: llmtest.DefaultEmbedModel,
	}
}

// lineOf returns the output line of the named check.
func lineOf(out, status, name string) string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == status && strings.HasPrefix(strings.TrimSpace(l[len(f[0]):]), name+" ") {
			return l
		}
	}
	return ""
}

func TestDoctorHealthy(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithKey(secretKey), llmtest.WithoutUsage())
	llmEnv(t, serverEnv(srv))
	c := newCLI(t)
	out := c.ok("doctor")
	for _, name := range []string{"config", "endpoint", "model", "streaming", "context", "embeddings"} {
		if lineOf(out, "ok", name) == "" {
			t.Fatalf("no ok line for %s:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "estimates") || !strings.Contains(out, "256 dimensions") {
		t.Fatalf("output:\n%s", out)
	}
	var chat int
	for _, r := range srv.Requests() {
		if r.Chat != nil {
			chat++
			if !r.Chat.Stream {
				t.Fatal("doctor's chat check did not stream")
			}
		}
	}
	if chat != 1 {
		t.Fatalf("%d chat requests", chat)
	}
}

// doctor says what context window the server gives the model, and
// --probe measures it: a server that cuts prompts like Ollama fails the
// probe with the fix for Ollama.
func TestDoctorContextWindow(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithServer(llmtest.VLLM, 32768))
	llmEnv(t, serverEnv(srv))
	out := newCLI(t).ok("doctor")
	if l := lineOf(out, "ok", "context"); !strings.Contains(l, "vLLM gives test-model a context window of 32,768 tokens (max_model_len in /v1/models); answers are fitted to 32,768; it counts tokens") {
		t.Errorf("context line %q in\n%s", l, out)
	}

	srv = llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 2048))
	llmEnv(t, serverEnv(srv))
	out, _, code := newCLI(t).run("doctor", "--probe")
	if code != 1 || !strings.Contains(lineOf(out, "warn", "context"), "assume Ollama's default of 4,096") {
		t.Errorf("status %d, output\n%s", code, out)
	}
	probe := lineOf(out, "FAIL", "probe")
	if !strings.Contains(probe, "the server read only 2,048 of a 14,7") || !strings.Contains(probe, "cuts prompts to about 2,048 tokens") ||
		!strings.Contains(out, "OLLAMA_CONTEXT_LENGTH=") {
		t.Errorf("probe line %q in\n%s", probe, out)
	}

	srv = llmtest.New(t, llmtest.WithServer(llmtest.Ollama, 65536))
	env := serverEnv(srv)
	env[config.EnvContextWindow] = "20000"
	llmEnv(t, env)
	out = newCLI(t).ok("doctor", "--probe")
	if !strings.Contains(lineOf(out, "ok", "probe"), "the server read the whole 18,0") {
		t.Errorf("probe against a server with room:\n%s", out)
	}
}

func TestDoctorNotConfigured(t *testing.T) {
	llmEnv(t, nil)
	out, _, code := newCLI(t).run("doctor")
	l := lineOf(out, "FAIL", "config")
	if code != 1 || l == "" || !strings.Contains(out, "fix: Set OPENAI_BASE_URL") || lineOf(out, "skip", "streaming") == "" {
		t.Fatalf("status %d:\n%s", code, out)
	}
}

func TestDoctorDeadEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	llmEnv(t, map[string]string{config.EnvBaseURL: "http://" + addr + "/v1", config.EnvModel: "m", config.EnvAPIKey: secretKey})
	out, errs, code := newCLI(t).run("doctor")
	l := lineOf(out, "FAIL", "endpoint")
	if code != 1 || !strings.Contains(l, "http://"+addr+"/v1/models") || !strings.Contains(l, "refused") ||
		!strings.Contains(out, "Is the server running?") || !strings.Contains(errs, "checks failed") {
		t.Fatalf("status %d:\n%s%s", code, out, errs)
	}
}

func TestDoctorWrongModelKeyAndEmbedModel(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithKey(secretKey))
	env := serverEnv(srv)
	env[config.EnvModel] = "gpt-nonexistent"
	llmEnv(t, env)
	out, _, code := newCLI(t).run("doctor")
	if code != 1 || !strings.Contains(lineOf(out, "FAIL", "model"), "gpt-nonexistent is not among") ||
		!strings.Contains(out, "Set CITELENS_MODEL to one of: test-embed, test-model, test-rerank.") ||
		lineOf(out, "skip", "streaming") == "" {
		t.Fatalf("status %d:\n%s", code, out)
	}

	env = serverEnv(srv)
	env[config.EnvAPIKey] = "sk-wrong"
	llmEnv(t, env)
	out, _, code = newCLI(t).run("doctor")
	if code != 1 || !strings.Contains(lineOf(out, "FAIL", "endpoint"), "rejected the API key") || !strings.Contains(out, "Check OPENAI_API_KEY") {
		t.Fatalf("status %d:\n%s", code, out)
	}

	env = serverEnv(srv)
	env[config.EnvEmbedModel] = "no-embedder"
	llmEnv(t, env)
	out, _, code = newCLI(t).run("doctor")
	if code != 1 || lineOf(out, "ok", "streaming") == "" || !strings.Contains(lineOf(out, "FAIL", "embeddings"), "does not exist") {
		t.Fatalf("status %d:\n%s", code, out)
	}
}

func TestDoctorJSON(t *testing.T) {
	srv := llmtest.New(t)
	env := serverEnv(srv)
	delete(env, config.EnvEmbedModel)
	llmEnv(t, env)
	out := newCLI(t).ok("doctor", "--json")
	var r struct {
		Checks []llm.Check `json:"checks"`
		Failed int         `json:"failed"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err, out)
	}
	if r.Failed != 0 || len(r.Checks) != 7 || r.Checks[5].Name != "embeddings" || r.Checks[5].Status != llm.CheckSkip ||
		r.Checks[6].Name != "reranker" || r.Checks[6].Status != llm.CheckSkip {
		t.Fatalf("%+v", r)
	}
}

func TestConfigInitAndShow(t *testing.T) {
	dir := llmEnv(t, map[string]string{config.EnvModel: "from-env"})
	c := newCLI(t)
	out := c.ok("config", "init")
	path := filepath.Join(dir, "citelens", "config.toml")
	if !strings.Contains(out, path) {
		t.Fatalf("init said %q", out)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatal(err, fi.Mode())
	}
	_, errs, code := c.run("config", "init")
	if code != 1 || !strings.Contains(errs, "already exists") || !strings.Contains(errs, "--force") {
		t.Fatalf("second init: %d %s", code, errs)
	}
	c.ok("config", "init", "--force")
	if got := strings.TrimSpace(c.ok("config", "path")); got != path {
		t.Fatal(got)
	}

	out = c.ok("config", "show")
	if !strings.Contains(out, path+" (found)") || !strings.Contains(out, "env CITELENS_MODEL") || !strings.Contains(out, "unavailable") {
		t.Fatalf("show:\n%s", out)
	}
	os.WriteFile(path, []byte("base_url = \"http://localhost:9/v1\"\ncontext_window = 8192\n"), 0o600)
	var r configReport
	if err := json.Unmarshal([]byte(c.ok("config", "show", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Configured || r.Settings[0].Value != "http://localhost:9/v1" || r.Settings[0].Source != "file" || r.Settings[5].Value != "8192" {
		t.Fatalf("%+v", r)
	}
	os.WriteFile(path, []byte("context_window = \"lots\"\n"), 0o600)
	if _, errs, code := c.run("config", "show"); code != 1 || !strings.Contains(errs, "context_window") {
		t.Fatalf("bad file: %d %s", code, errs)
	}
	if _, _, code := c.run("config", "frobnicate"); code != 2 {
		t.Fatal(code)
	}
}

// TestKeyAppearsNowhere runs every command that touches the configuration
// with a key set, then looks for the key in everything written.
func TestKeyAppearsNowhere(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithKey(secretKey))
	dir := llmEnv(t, serverEnv(srv))
	c := newCLI(t)
	var all strings.Builder
	for _, args := range [][]string{
		{"config", "init"}, {"config", "show"}, {"config", "show", "--json"},
		{"doctor"}, {"doctor", "--json"},
	} {
		out, errs, _ := c.run(args...)
		all.WriteString(out + errs)
	}
	// A server that echoes the key in its errors, and a failing doctor.
	srv.Enqueue(llmtest.Reply{Status: 400, Body: `{"error":{"message":"header was Bearer ` + secretKey + `"}}`})
	out, errs, code := c.run("doctor")
	all.WriteString(out + errs)
	if code != 1 || !strings.Contains(out, "[redacted]") {
		t.Fatalf("doctor against an echoing server: %d\n%s", code, out)
	}
	if strings.Contains(all.String(), secretKey) {
		t.Fatalf("the key was printed:\n%s", all.String())
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), secretKey) {
				t.Errorf("%s contains the key", p)
			}
		}
		return nil
	})
	if all.Len() < 500 {
		t.Fatalf("suspiciously little output: %q", all.String())
	}
}
