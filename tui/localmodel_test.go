package tui

import (
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestGoldenLocalModel: with no model configured, the strategy picker
// finds a model server on this machine (a scripted one on a loopback
// port), offers its models, and choosing one writes the configuration —
// base URL and model, never the API key — after which the strategies that
// need a model are available.
func TestGoldenLocalModel(t *testing.T) {
	const key = "sk-tui-secret-7d1e9b3c5a"
	t.Setenv("OPENAI_API_KEY", key)
	srv := llmtest.New(t)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("the scripted server is at %s, not on 127.0.0.1", srv.URL)
	}
	lib, _ := enginetest.Library(t, declaration)
	opts := testOptions(t, lib, "no-color")
	opts.LocalPorts = []llm.LocalPort{{Port: port, Name: "Ollama"}}
	s := start(t, opts, 120, 40)
	s.waitText("declaration.txt")
	s.press("ctrl+s")
	s.waitText("Ollama at http://127.0.0.1:" + u.Port() + "/v1")
	s.selectStrategy(llmtest.DefaultModel)
	v := ansi.Strip(s.view())
	for _, want := range []string{"Or use a model server on this machine", "(cannot answer) Ollama at", "enter writes base_url and model (never an API key)"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q is not in the picker:\n%s", want, v)
		}
	}
	// The port differs from run to run: masked in the golden.
	s.goldenMasked("servers", u.Port())
	s.press("enter")
	s.waitText("Configured " + llmtest.DefaultModel + " at " + srv.URL + " (written to")
	s.waitModel(func(m Model) bool { return m.opts.Env.LLM != nil }, "the model configured")
	s.waitGone("Need a model")
	v = ansi.Strip(s.view())
	if strings.Contains(v, "(needs a model)") || strings.Contains(v, key) {
		t.Errorf("after writing the configuration:\n%s", v)
	}
	b, err := os.ReadFile(opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `base_url = "`+srv.URL+`"`) || !strings.Contains(string(b), `model = "`+llmtest.DefaultModel+`"`) || strings.Contains(string(b), key) {
		t.Errorf("the configuration written:\n%s", b)
	}
	s.finish()
}

// goldenMasked is golden with every occurrence of secret (a port that
// differs from run to run) written as as many X.
func (s *session) goldenMasked(name, secret string) {
	s.t.Helper()
	v := s.settle()
	lines := strings.Split(v, "\n")
	if len(lines) != s.h {
		s.t.Errorf("%s: screen has %d lines, want %d", name, len(lines), s.h)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != s.w {
			s.t.Errorf("%s: line %d is %d cells, want %d: %q", name, i, w, s.w, ansi.Strip(l))
		}
	}
	v = strings.ReplaceAll(spinnerRE.ReplaceAllString(v, "*"), secret, strings.Repeat("X", len(secret)))
	s.t.Run(name, func(t *testing.T) { teatest.RequireEqualOutput(t, []byte(v+"\n")) })
}
