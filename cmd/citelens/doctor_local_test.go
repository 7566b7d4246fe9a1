package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// scriptedPort returns a scripted server listening on 127.0.0.1, as a
// local model server, and its port.
func scriptedPort(t *testing.T) (*llmtest.Server, int) {
	t.Helper()
	srv := llmtest.New(t)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("the scripted server is at %s, not on 127.0.0.1", srv.URL)
	}
	return srv, port
}

// TestDoctorFindsLocalServer: with no model configured, doctor finds a
// server on this machine's usual ports, lists its models and says the
// one command that configures it; config init --endpoint --model writes
// that configuration, which doctor then passes.
func TestDoctorFindsLocalServer(t *testing.T) {
	_, port := scriptedPort(t)
	dir := llmEnv(t, nil)
	defer func(p []llm.LocalPort) { localPorts = p }(localPorts)
	localPorts = []llm.LocalPort{{Port: port, Name: "Ollama"}}

	c := newCLI(t)
	out, _, code := c.run("doctor")
	if code == 0 {
		t.Errorf("doctor passed with no model configured:\n%s", out)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port) + "/v1"
	line := lineOf(out, "ok", "local server")
	if !strings.Contains(line, "Ollama answers at "+base) || !strings.Contains(line, llmtest.DefaultModel) {
		t.Fatalf("doctor does not name the local server and its models:\n%s", out)
	}
	cmd := "citelens config init --endpoint " + base + " --model " + llmtest.DefaultModel
	if !strings.Contains(out, cmd) || !strings.Contains(out, config.EnvModel) {
		t.Fatalf("doctor does not say how to use it (%q):\n%s", cmd, out)
	}
	if fail := lineOf(out, "FAIL", "config"); !strings.Contains(out, config.EnvModel) || fail == "" {
		t.Errorf("the configuration's failure:\n%s", out)
	}

	c.ok(strings.Fields(cmd)[1:]...)
	file, err := os.ReadFile(filepath.Join(dir, "citelens", "config.toml"))
	if err != nil || !strings.Contains(string(file), "\nbase_url = \""+base+"\"\n") || !strings.Contains(string(file), "\nmodel = \""+llmtest.DefaultModel+"\"\n") {
		t.Fatalf("config init wrote %v:\n%s", err, file)
	}
	out = c.ok("doctor")
	for _, name := range []string{"config", "endpoint", "model"} {
		if lineOf(out, "ok", name) == "" {
			t.Errorf("after config init, no ok line for %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, "local server") {
		t.Errorf("a configured doctor still looks for local servers:\n%s", out)
	}
}

// With nothing on the ports, doctor says where it looked, and the
// not-configured message names every variable to set.
func TestDoctorNoLocalServer(t *testing.T) {
	llmEnv(t, nil)
	defer func(p []llm.LocalPort) { localPorts = p }(localPorts)
	srv, port := scriptedPort(t)
	srv.Close() // nothing listens there now
	localPorts = []llm.LocalPort{{Port: port, Name: "vLLM"}}
	out, _, _ := newCLI(t).run("doctor")
	if line := lineOf(out, "skip", "local server"); !strings.Contains(line, strconv.Itoa(port)+" (vLLM)") {
		t.Errorf("doctor does not say where it looked:\n%s", out)
	}
	for _, v := range []string{config.EnvBaseURL, config.EnvModel, config.EnvAPIKey} {
		if !strings.Contains(config.Config{}.Configured().Error(), v) {
			t.Errorf("the not-configured message does not name %s: %v", v, config.Config{}.Configured())
		}
	}
}
