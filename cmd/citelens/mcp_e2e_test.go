package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `citelens mcp` end to end: the real binary, driven by MCP clients no one
// here wrote — a client on the official TypeScript SDK
// (testdata/mcpclient) and the Go SDK's.

// mcpClientScript returns node and the client script, or skips the test
// saying what is missing.
func mcpClientScript(t *testing.T) (node, script string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: this test runs an MCP client on the official TypeScript SDK (.ci/run installs node and the client's packages)")
	}
	dir, err := filepath.Abs("testdata/mcpclient")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("@modelcontextprotocol/sdk is not installed: run 'npm ci' in cmd/citelens/testdata/mcpclient (.ci/run does)")
	}
	return node, filepath.Join(dir, "client.mjs")
}

// clientReport is what the TypeScript client saw.
type clientReport struct {
	Tools []string `json:"tools"`
	Hits  []struct {
		Text string `json:"text"`
	} `json:"hits"`
	Strategy   string `json:"strategy"`
	Statements []struct {
		Text      string `json:"text"`
		Citations []struct {
			Document string `json:"document"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
			Text     string `json:"text"`
		} `json:"citations"`
	} `json:"statements"`
	Progress []string `json:"progress"`
	Checked  int      `json:"checked"`
	// VersionChecked are the hits read again at version 1, Verdicts
	// verify's on each hit at its own version, by ID.
	VersionChecked int               `json:"versionChecked"`
	Verdicts       []string          `json:"verdicts"`
	Mismatches     []json.RawMessage `json:"mismatches"`
	Errors         []string          `json:"clientErrors"`
	Error          string            `json:"error"`
	Code           any               `json:"code"`
}

// runMCPClient runs the TypeScript client with env and args and returns
// its report and whether it succeeded.
func runMCPClient(t *testing.T, node, script string, env []string, args ...string) (clientReport, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r clientReport
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("the client printed no report (%v): %v\n%s\n%s", err, jerr, out, stderr.String())
	}
	if t.Failed() || err != nil {
		t.Logf("client stderr:\n%s", stderr.String())
	}
	return r, err == nil
}

// checkReport checks a successful session: the tools, search's hits, an
// answer with citations, and every citation read back exactly.
func checkReport(t *testing.T, r clientReport, strategy string) {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("the client failed: %s", r.Error)
	}
	if got := slices.Sorted(slices.Values(r.Tools)); strings.Join(got, " ") != "ask list_documents read reanchor search verify" {
		t.Errorf("tools %v", r.Tools)
	}
	cites := 0
	for _, s := range r.Statements {
		cites += len(s.Citations)
	}
	if len(r.Hits) == 0 || cites == 0 || r.Strategy != strategy {
		t.Fatalf("hits %d, statements %+v, strategy %q", len(r.Hits), r.Statements, r.Strategy)
	}
	if r.Checked != len(r.Hits)+cites || len(r.Mismatches) != 0 {
		t.Errorf("read back %d of %d citations; mismatches %s", r.Checked, len(r.Hits)+cites, r.Mismatches)
	}
	if r.VersionChecked != len(r.Hits) || len(r.Verdicts) != len(r.Hits) {
		t.Errorf("read %d of %d hits at version 1, verified %q", r.VersionChecked, len(r.Hits), r.Verdicts)
	}
	for _, v := range r.Verdicts {
		if v != "supported" {
			t.Errorf("a hit verified against itself at its version: %q", v)
		}
	}
	if !strings.Contains(strings.Join(r.Progress, "\n"), "statement 1: ") {
		t.Errorf("no statement came as progress: %q", r.Progress)
	}
	if len(r.Errors) > 0 {
		t.Errorf("the client reported errors: %q", r.Errors)
	}
}

// mcpLibrary builds citelens and a library holding the declaration, and
// returns the binary, its folder, the library and an environment without
// a model.
func mcpLibrary(t *testing.T) (bin, dir, db string, env []string) {
	t.Helper()
	bin = buildBinary(t)
	dir = filepath.Dir(bin)
	db = filepath.Join(dir, "library.db")
	env = []string{"CITELENS_CONFIG=" + filepath.Join(dir, "no-config.toml"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "CITELENS_MODEL="}
	doc, _ := filepath.Abs("../../testdata/declaration.txt")
	cmd := exec.Command(bin, "--db", db, "add", doc)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	return bin, dir, db, env
}

// Over stdio, with a model's strategy (the scripted server): search, an
// answer streamed as progress, and every citation read back exactly.
func TestMCPStdioEndToEnd(t *testing.T) {
	node, script := mcpClientScript(t)
	bin, dir, db, env := mcpLibrary(t)
	env = append(env, startLLMTestd(t, dir, "-cites", "2")...)
	env = append(env, "E2E_QUERY=taxes imposed without consent", "E2E_QUESTION=What taxes were imposed without consent?", "E2E_STRATEGY=rag")
	r, _ := runMCPClient(t, node, script, env, "stdio", bin, "--db", db, "mcp")
	checkReport(t, r, "rag")
	if !strings.Contains(strings.Join(r.Progress, "\n"), "retriev") {
		t.Errorf("the answer's stages did not come as progress: %q", r.Progress)
	}
}

// Over streamable HTTP: refused without the token, served with it.
func TestMCPHTTPEndToEnd(t *testing.T) {
	node, script := mcpClientScript(t)
	bin, dir, db, env := mcpLibrary(t)
	tokenFile := filepath.Join(dir, "token")
	url := startHTTPServer(t, bin, env, tokenFile, "--db", db, "mcp", "--http", "127.0.0.1:0")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tokenFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file has mode %v", fi.Mode().Perm())
	}
	env = append(env, "E2E_QUERY=taxes consent", "E2E_QUESTION=What taxes were imposed without consent?")

	r, ok := runMCPClient(t, node, script, env, "http", url)
	if ok || r.Code != 401.0 || !strings.Contains(r.Error, "send the bearer token") {
		t.Errorf("without the token: %+v", r)
	}
	r, ok = runMCPClient(t, node, script, append(env, "E2E_TOKEN=wrong"), "http", url)
	if ok || r.Code != 401.0 {
		t.Errorf("a wrong token was let in: %+v", r)
	}
	r, _ = runMCPClient(t, node, script, append(env, "E2E_TOKEN="+strings.TrimSpace(string(token))), "http", url)
	checkReport(t, r, "extractive")
}

// startHTTPServer starts `citelens ARGS --token-file TOKENFILE` serving
// HTTP, stopped with SIGINT when the test ends, and returns its URL from
// what it says on stderr, checking it never says the token.
func startHTTPServer(t *testing.T, bin string, env []string, tokenFile string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--token-file", tokenFile)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var said []string
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("citelens mcp --http did not stop cleanly: %v", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("citelens mcp --http did not stop on SIGINT")
		}
		for l := range lines {
			said = append(said, l)
		}
		if tok, err := os.ReadFile(tokenFile); err != nil || strings.Contains(strings.Join(said, "\n"), strings.TrimSpace(string(tok))) {
			t.Errorf("the server said its token, or made none: %v", err)
		}
	})
	re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	select {
	case l := <-lines:
		said = append(said, l)
		m := re.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("citelens mcp --http said %q", l)
		}
		return m[1]
	case <-time.After(30 * time.Second):
		t.Fatal("citelens mcp --http said nothing")
	}
	return ""
}

// The server holds no lock while it serves: `citelens add` in another
// process goes through without waiting, and the new document is found
// through MCP at once.
func TestMCPServesWhileAddingEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir, db, env := mcpLibrary(t)
	cmd := exec.Command(bin, "--db", db, "mcp")
	cmd.Env = append(os.Environ(), env...)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	search := func() int {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "zeppelin lighthouse"}})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		return len(res.StructuredContent.(map[string]any)["hits"].([]any))
	}
	if n := search(); n != 0 {
		t.Fatalf("found %d zeppelins before adding one", n)
	}
	doc := filepath.Join(dir, "lighthouse.txt")
	os.WriteFile(doc, []byte("The lighthouse keeper logged every passing zeppelin. Fog closed the harbour twice in March."), 0o600)
	add := exec.Command(bin, "--db", db, "add", doc)
	add.Env = append(os.Environ(), env...)
	var addErr bytes.Buffer
	add.Stderr = &addErr
	if err := add.Run(); err != nil {
		t.Fatalf("add while the server runs: %v\n%s", err, addErr.String())
	}
	if strings.Contains(addErr.String(), "waiting") {
		t.Errorf("add waited for the server: %s", addErr.String())
	}
	added := time.Now()
	for search() == 0 {
		if time.Since(added) > time.Second {
			t.Fatal("the added document was not searchable within a second")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
	if err != nil || len(res.StructuredContent.(map[string]any)["documents"].([]any)) != 2 {
		t.Errorf("list_documents after the addition: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("close: %v", err)
	}
}
