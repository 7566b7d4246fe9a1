package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// modelEnv points the command at srv through the environment with the
// API key key (none if ""), the chat model and the embedding model embed
// (none if ""), in a home of its own with no config file of the user's,
// and returns the home.
func modelEnv(t *testing.T, srv *llmtest.Server, key, embed string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("CITELENS_CONFIG", filepath.Join(home, "config", "citelens", "config.toml"))
	t.Setenv("CITELENS_DB", "")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("CITELENS_MODEL", llmtest.DefaultModel)
	t.Setenv("CITELENS_EMBED_MODEL", embed)
	return home
}

// TestDeriveCommand: ask refuses to spend tokens unasked and names the
// command; derive derives, resumes nothing twice, reports its cost; ask
// then answers with citations of the document.
func TestDeriveCommand(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	var added []addedDoc
	if err := json.Unmarshal([]byte(c.ok("add", "--json", sample)), &added); err != nil {
		t.Fatal(err)
	}
	id := string(added[0].ID)

	_, errs, code := c.run("ask", "--strategy", "raidd-s", "What do governments derive their powers from?")
	if code == 0 || !strings.Contains(errs, "citelens derive --doc "+id) || !strings.Contains(errs, "--opt derive=yes") || !strings.Contains(errs, "declaration.txt has none yet") {
		t.Fatalf("ask without derived documents: status %d\n%s", code, errs)
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Fatalf("%d model requests before deriving was asked for", n)
	}

	out := c.ok("derive", "--status")
	if !strings.Contains(out, "none") || !strings.Contains(out, "Deriving the missing") {
		t.Errorf("derive --status before deriving:\n%s", out)
	}
	var view deriveView
	if err := json.Unmarshal([]byte(c.ok("derive", "--json")), &view); err != nil {
		t.Fatal(err)
	}
	if view.Derived == 0 || view.LLMCalls != 2*view.Derived || view.PromptTokens == 0 || view.Resumed != 0 ||
		len(view.Documents) != 1 || view.Documents[0].Derived != view.Derived || view.ChunkTokens != 256 || view.ChunkOverlap != 50 {
		t.Fatalf("derive --json: %+v", view)
	}
	if n := len(srv.ChatRequests()); n != 2*view.Derived {
		t.Errorf("%d requests for %d chunks, want the authors' two each", n, view.Derived)
	}
	if out := c.ok("derive"); !strings.Contains(out, "Nothing to derive") {
		t.Errorf("second derive: %q", out)
	}
	if out := c.ok("derive", "--status"); !strings.Contains(out, "complete") {
		t.Errorf("derive --status after deriving:\n%s", out)
	}

	out = c.ok("ask", "--strategy", "raidd-u", "What do governments derive their powers from?")
	if !strings.Contains(out, "The document says so. [1]") || !strings.Contains(out, "declaration.txt") {
		t.Errorf("ask raidd-u:\n%s", out)
	}
	if n := len(srv.ChatRequests()); n != 2*view.Derived+1 {
		t.Errorf("%d requests after one question, want %d", n, 2*view.Derived+1)
	}
	// Removing the document removes its derived documents.
	c.ok("rm", id)
	c.ok("add", sample)
	if out := c.ok("derive", "--status"); !strings.Contains(out, "none") {
		t.Errorf("derive --status after removing and re-adding:\n%s", out)
	}
}

// TestDeriveEmbeds: with an embedding model, derive embeds the summaries,
// questions and chunks once, after deriving, with the cost; --status says
// how much is embedded; a run cut short resumes; ask then embeds only its
// question; --no-embed leaves them to the strategy; no embedding model,
// no embedding calls.
func TestDeriveEmbeds(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	modelEnv(t, srv, "", "")
	t.Setenv("CITELENS_EMBED_MODEL", llmtest.DefaultEmbedModel)
	t.Setenv("CITELENS_CONFIG", writeConfig(t, "embed_batch = 8\n"))
	c := newCLI(t)
	c.ok("add", sample)

	// The third embedding request fails: derivation is kept, the two
	// batches too, and the error says how to go on.
	srv.EnqueueEmbeddings(llmtest.Reply{}, llmtest.Reply{}, llmtest.Status(400))
	_, errs, code := c.run("derive")
	if code == 0 || !strings.Contains(errs, "embeds the rest") {
		t.Fatalf("derive against a failing embedding endpoint: status %d\n%s", code, errs)
	}
	_, before := embedRequests(srv)
	var view deriveView
	if err := json.Unmarshal([]byte(c.ok("derive", "--json")), &view); err != nil {
		t.Fatal(err)
	}
	_, after := embedRequests(srv)
	e := view.Embedding
	// Every unit is sent once, but for the failed batch of 8.
	if view.Derived != 0 || e == nil || e.Model != llmtest.DefaultEmbedModel || e.Embedded == 0 || e.Embedded >= e.Units ||
		after-before != e.Embedded || before+e.Embedded != e.Units+8 || e.Usage.LLMCalls == 0 || e.Usage.PromptTokens == 0 {
		t.Fatalf("the resumed derive: %+v, embedding %+v; %d texts sent before, %d after", view, e, before, after-before)
	}
	out := c.ok("derive")
	if !strings.Contains(out, "embedded with test-embed already") {
		t.Errorf("derive once embedded:\n%s", out)
	}
	if out := c.ok("derive", "--status"); !strings.Contains(out, fmt.Sprintf("embedded %d/%d", e.Units, e.Units)) || strings.Contains(out, "not embedded") {
		t.Errorf("derive --status once embedded:\n%s", out)
	}
	if _, again := embedRequests(srv); again != after {
		t.Errorf("%d texts embedded again", again-after)
	}
	const question = "What do governments derive their powers from?"
	c.ok("ask", "--strategy", "raidd-u", question)
	var asked []string
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			asked = append(asked, r.Embed.Input...)
		}
	}
	if got := asked[after:]; len(got) != 1 || got[0] != question {
		t.Errorf("ask embedded %q; want its question only", got)
	}

	// --no-embed: derived, not embedded.
	var added []addedDoc
	other := filepath.Join(t.TempDir(), "other.txt")
	if err := os.WriteFile(other, []byte(strings.Repeat("The river rose after the long rains of spring. ", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(c.ok("add", "--json", other)), &added); err != nil {
		t.Fatal(err)
	}
	_, before = embedRequests(srv)
	if out := c.ok("derive", "--no-embed"); strings.Contains(out, "Embedded") {
		t.Errorf("derive --no-embed:\n%s", out)
	}
	if _, after := embedRequests(srv); after != before {
		t.Errorf("derive --no-embed embedded %d texts", after-before)
	}
	if out := c.ok("derive", "--status"); !strings.Contains(out, "not embedded with test-embed yet") {
		t.Errorf("derive --status with a document not embedded:\n%s", out)
	}

	// No embedding model: no embedding calls, no embedding in the report.
	t.Setenv("CITELENS_EMBED_MODEL", "")
	c.ok("rm", string(added[0].ID))
	c.ok("add", other)
	view = deriveView{}
	if err := json.Unmarshal([]byte(c.ok("derive", "--json")), &view); err != nil {
		t.Fatal(err)
	}
	if _, after := embedRequests(srv); after != before || view.Embedding != nil || view.Derived == 0 {
		t.Errorf("derive without an embedding model: %d texts embedded, %+v", after-before, view)
	}
}

// TestDeriveNamedFile: `citelens derive FILE` derives that document only,
// as `--doc FILE` does; it used to derive the whole library.
func TestDeriveNamedFile(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	other := filepath.Join(t.TempDir(), "other.txt")
	if err := os.WriteFile(other, []byte(strings.Repeat("The mill stood by the river for a century. ", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("add", sample, other)
	var view deriveView
	if err := json.Unmarshal([]byte(c.ok("derive", "--json", "other.txt")), &view); err != nil {
		t.Fatal(err)
	}
	if len(view.Documents) != 1 || view.Documents[0].Name != "other.txt" || view.Derived == 0 || len(srv.ChatRequests()) != 2*view.Derived {
		t.Fatalf("derive other.txt: %+v, %d requests", view, len(srv.ChatRequests()))
	}
	if out := c.ok("derive", "--status"); !strings.Contains(out, "declaration.txt") || !strings.Contains(out, "none") {
		t.Errorf("the other document was derived too:\n%s", out)
	}
}

// TestDeriveOneCall: `derive --calls one` asks for a chunk's summary and
// questions in one call, into derived documents of their own that
// `--opt derive_calls=one` answers from; a layout that does not exist is
// refused before any call.
func TestDeriveOneCall(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(enginetest.RAIDDReplies))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	if _, errs, code := c.run("derive", "--calls", "three"); code == 0 || !strings.Contains(errs, "derive_calls") || len(srv.ChatRequests()) != 0 {
		t.Fatalf("derive --calls three: status %d, %d requests\n%s", code, len(srv.ChatRequests()), errs)
	}
	var view deriveView
	if err := json.Unmarshal([]byte(c.ok("derive", "--calls", "one", "--json")), &view); err != nil {
		t.Fatal(err)
	}
	if view.Derived == 0 || view.LLMCalls != view.Derived || len(srv.ChatRequests()) != view.Derived {
		t.Fatalf("derive --calls one: %+v, %d requests", view, len(srv.ChatRequests()))
	}
	if out := c.ok("derive", "--status"); !strings.Contains(out, "none") {
		t.Errorf("the two-call derivation should still be missing:\n%s", out)
	}
	out := c.ok("ask", "--strategy", "raidd-s", "--opt", "derive_calls=one", "What do governments derive their powers from?")
	if !strings.Contains(out, "declaration.txt") {
		t.Errorf("ask from the one-call derivation:\n%s", out)
	}
}
