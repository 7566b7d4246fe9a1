package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"

	_ "github.com/citelens/citelens/engine/extractive"
	_ "github.com/citelens/citelens/engine/longcite"
)

const (
	declaration = "../testdata/declaration.txt"
	rintro      = "../testdata/pdf/r-intro-p8-9.pdf" // two pages printed as 2 and 3
)

// fixture is a server over a library built in the test, and a client
// connected to it in memory.
type fixture struct {
	t    *testing.T
	srv  *Server
	cs   *mcp.ClientSession
	lib  *docstore.Library
	docs []*docstore.Document

	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

// newFixture serves a library of the declaration and the R-intro pages;
// env, when set, makes the environment (a model's) from the library.
func newFixture(t *testing.T, opts Options, env func(*docstore.Library) *engine.Env) *fixture {
	t.Helper()
	lib, docs := enginetest.Library(t, declaration, rintro)
	if env == nil {
		env = func(l *docstore.Library) *engine.Env { return engine.NewEnv(l, config.Default()) }
	}
	e := env(lib)
	opts.Open = func() (*engine.Env, error) { return e, nil }
	f := &fixture{t: t, lib: lib, docs: docs}
	f.connect(opts)
	return f
}

func (f *fixture) connect(opts Options) {
	f.t.Helper()
	f.srv = New(opts)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			f.mu.Lock()
			f.progress = append(f.progress, r.Params)
			f.mu.Unlock()
		},
	})
	f.cs, err = c.Connect(ctx, ct, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { f.cs.Close(); ss.Wait() })
}

// raw calls a tool and returns its result, failing on a protocol error.
func (f *fixture) raw(ctx context.Context, name string, args any, meta mcp.Meta) *mcp.CallToolResult {
	f.t.Helper()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// call calls a tool that must succeed and decodes its structured output
// into out, checking the text content holds the same JSON.
func (f *fixture) call(name string, args, out any) {
	f.t.Helper()
	res := f.raw(context.Background(), name, args, nil)
	if res.IsError {
		f.t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		f.t.Fatalf("%s: %v\n%s", name, err, b)
	}
	var fromText any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		f.t.Fatalf("%s: the text content is not the JSON: %v", name, err)
	}
	if a, _ := json.Marshal(fromText); string(a) != string(b) {
		f.t.Errorf("%s: the text content differs from the structured content:\n%s\n%s", name, a, b)
	}
}

// fail calls a tool that must fail and returns the error's text.
func (f *fixture) fail(name string, args any) string {
	f.t.Helper()
	res := f.raw(context.Background(), name, args, nil)
	if !res.IsError {
		f.t.Fatalf("%s(%v) succeeded: %s", name, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// waitMessages waits a while for n progress messages.
func (f *fixture) waitMessages(n int) []string {
	for deadline := time.Now().Add(5 * time.Second); len(f.messages()) < n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return f.messages()
}

func (f *fixture) messages() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.progress {
		out = append(out, p.Message)
	}
	return out
}

// Every tool has a description, a valid input schema and a valid output
// schema; add_document only when writes are allowed.
func TestToolsAndSchemas(t *testing.T) {
	t.Parallel()
	for _, writes := range []bool{false, true} {
		f := newFixture(t, Options{AllowWrites: writes}, nil)
		res, err := f.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if len(tool.Description) < 80 {
				t.Errorf("%s: a description an agent can act on, not %q", tool.Name, tool.Description)
			}
			for what, s := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
				b, _ := json.Marshal(s)
				var schema jsonschema.Schema
				if err := json.Unmarshal(b, &schema); err != nil {
					t.Fatalf("%s: %s schema: %v", tool.Name, what, err)
				}
				if schema.Type != "object" {
					t.Errorf("%s: the %s schema is of type %q", tool.Name, what, schema.Type)
				}
				if _, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
					t.Errorf("%s: the %s schema does not resolve: %v", tool.Name, what, err)
				}
			}
		}
		want := "list_documents search ask read verify reanchor"
		if writes {
			want += " add_document"
		}
		if got := strings.Join(names, " "); !sameSet(got, want) {
			t.Errorf("writes %v: tools %s, want %s", writes, got, want)
		}
	}
}

func sameSet(a, b string) bool {
	as, bs := strings.Fields(a), strings.Fields(b)
	if len(as) != len(bs) {
		return false
	}
	for _, x := range as {
		if !strings.Contains(" "+b+" ", " "+x+" ") {
			return false
		}
	}
	return true
}

func TestListDocuments(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var out DocumentsResult
	f.call("list_documents", map[string]any{}, &out)
	if len(out.Documents) != 2 || out.Note != "" {
		t.Fatalf("documents %+v", out)
	}
	for i, d := range out.Documents {
		want := f.docs[i]
		if d.ID != want.ID || d.Name != want.Name || d.Kind != want.Kind || d.Pages != want.Pages || d.Sentences != len(want.Sentences) ||
			d.Headings != len(want.Sections) || !d.Added.Equal(want.Added) || d.URI != "citelens://doc/"+string(want.ID) {
			t.Errorf("document %d: %+v", i, d)
		}
	}
	if out.Documents[1].Kind != "pdf" || out.Documents[1].Headings == 0 {
		t.Errorf("the R-intro pages: %+v", out.Documents[1])
	}
}

// A search hit is a citation whose text is exactly the document's bytes
// at its range, with the page as the document prints it.
func TestSearch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var out SearchResult
	f.call("search", map[string]any{"query": "taxes without consent", "k": 3}, &out)
	if len(out.Hits) != 3 {
		t.Fatalf("hits %+v", out.Hits)
	}
	top := out.Hits[0]
	d := f.docs[0]
	if top.Document != d.ID || top.Text != d.Text[top.Start:top.End] || top.Text != d.SentenceText(top.FirstSentence) ||
		!strings.Contains(top.Text, "Taxes on us without our Consent") || top.Score < out.Hits[1].Score {
		t.Errorf("top hit %+v", top)
	}
	f.call("search", map[string]any{"query": "R environment statistical", "documents": []string{"r-intro-p8-9.pdf"}}, &out)
	if len(out.Hits) == 0 || out.Hits[0].Document != f.docs[1].ID {
		t.Fatalf("search in the R pages: %+v", out.Hits)
	}
	for _, h := range out.Hits {
		if want := fmt.Sprint(h.Page + 1); h.PrintedPage != want {
			t.Errorf("page %d is printed %q, want %q", h.Page, h.PrintedPage, want)
		}
		if h.Heading == "" {
			t.Errorf("hit without its heading: %+v", h)
		}
	}
	f.call("search", map[string]any{"query": "zeppelin"}, &out)
	if len(out.Hits) != 0 {
		t.Errorf("a word in no document found %+v", out.Hits)
	}
	if msg := f.fail("search", map[string]any{"query": "the and of"}); !strings.Contains(msg, "only stop words") || !strings.Contains(msg, "\nSearch for content words.") {
		t.Errorf("stop words: %q", msg)
	}
	if msg := f.fail("search", map[string]any{"query": "taxes", "documents": []string{"nosuch.pdf"}}); !strings.Contains(msg, `no document "nosuch.pdf"`) || !strings.Contains(msg, "\nCall list_documents") {
		t.Errorf("unknown document: %q", msg)
	}
	if msg := f.fail("search", map[string]any{"query": "taxes", "k": 1000}); !strings.Contains(msg, "k") {
		t.Errorf("k out of bounds: %q", msg)
	}
	if msg := f.fail("search", map[string]any{}); !strings.Contains(msg, "query") {
		t.Errorf("no query: %q", msg)
	}
}

// ask answers with extractive by default; each citation is the
// document's bytes, and the statements arrive as progress notifications.
func TestAskExtractive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	res := f.raw(context.Background(), "ask", map[string]any{"question": "What did they say about taxes imposed without consent?", "k": 2}, mcp.Meta{"progressToken": "p1"})
	if res.IsError {
		t.Fatal(text(res))
	}
	var out AskResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Strategy != "extractive" || len(out.Statements) != 2 || out.Saved || out.Partial || out.AnswerID == "" {
		t.Fatalf("answer %+v", out)
	}
	for _, st := range out.Statements {
		c := st.Citations[0]
		d := f.docs[0]
		if c.Text != d.Text[c.Start:c.End] || c.Support != "supported" || st.Text != c.Text {
			t.Errorf("statement %+v", st)
		}
	}
	// Notifications reach the client's handler on their own goroutine.
	msgs := f.waitMessages(3)
	if len(msgs) != 3 || msgs[0] != "retrieving…" || !strings.HasPrefix(msgs[1], "statement 1: ") || !strings.HasPrefix(msgs[2], "statement 2: ") {
		t.Errorf("progress %q", msgs)
	}
	if msg := f.fail("ask", map[string]any{"question": "taxes?", "strategy": "nosuch"}); !strings.Contains(msg, "strategy") {
		t.Errorf("unknown strategy: %q", msg)
	}
	// A strategy that needs a model, with none configured: the engine's
	// reason and fix, as the command line prints them.
	if msg := f.fail("ask", map[string]any{"question": "taxes?", "strategy": "longcite"}); !strings.Contains(msg, "longcite needs a model") ||
		!strings.Contains(msg, "\nThe extractive strategy needs no model.") {
		t.Errorf("no model: %q", msg)
	}
	if msg := f.fail("ask", map[string]any{"question": "taxes?", "options": map[string]string{"bogus": "1"}}); !strings.Contains(msg, "bogus") {
		t.Errorf("bad option: %q", msg)
	}
	// options.k is bounded as the schema bounds k, a number in a string.
	for _, k := range []string{"1000000000", " 401", "0", "-3", "1e9", "NaN", "99999999999999999999"} {
		if msg := f.fail("ask", map[string]any{"question": "taxes?", "options": map[string]string{"k": k}}); !strings.Contains(msg, "from 1 to 400") {
			t.Errorf("options.k=%q: %q", k, msg)
		}
	}
}

// citeTaxes is a model that cites the sentence about taxes it was shown.
func citeTaxes(r llmtest.ChatRequest) llmtest.Reply {
	if reply, ok := llmtest.Judge(r); ok {
		return reply
	}
	nums, texts := enginetest.Numbered(r.Last())
	for _, n := range nums {
		if strings.Contains(texts[n], "Taxes on us without our Consent") {
			return llmtest.Text(fmt.Sprintf("<statement>They objected to taxes imposed without their consent.<cite>[%d-%d]</cite></statement>", n, n))
		}
	}
	return llmtest.Text("<statement>Nothing.</statement>")
}

func modelEnv(t *testing.T, srv *llmtest.Server) func(*docstore.Library) *engine.Env {
	return func(l *docstore.Library) *engine.Env {
		cfg := enginetest.Config(srv)
		cfg.APIKey = "sk-secret-key-never-shown"
		return enginetest.Env(t, l, cfg)
	}
}

// ask with a model's strategy: the model's statement and its citation,
// the model and the cost; saved when writes are allowed.
func TestAskWithModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(citeTaxes))
	f := newFixture(t, Options{AllowWrites: true, Strategy: "longcite"}, modelEnv(t, srv))
	var out AskResult
	f.call("ask", map[string]any{"question": "What did they object to?", "documents": []string{"declaration"}}, &out)
	if out.Strategy != "longcite" || out.Model != llmtest.DefaultModel || out.Cost.ModelCalls != 1 || out.Cost.PromptTokens == 0 || !out.Saved {
		t.Fatalf("answer %+v", out)
	}
	if len(out.Statements) != 1 || len(out.Statements[0].Citations) != 1 {
		t.Fatalf("statements %+v", out.Statements)
	}
	c := out.Statements[0].Citations[0]
	if c.Text != f.docs[0].Text[c.Start:c.End] || !strings.Contains(c.Text, "Taxes on us") {
		t.Errorf("citation %+v", c)
	}
	if _, err := engine.Load(f.lib, out.AnswerID); err != nil {
		t.Errorf("the answer was not saved: %v", err)
	}
}

// A dead endpoint: the client's reason and fix, and never the API key.
func TestAskEndpointError(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey("another-key"))
	f := newFixture(t, Options{Strategy: "longcite"}, modelEnv(t, srv))
	msg := f.fail("ask", map[string]any{"question": "What did they object to?"})
	if !strings.Contains(msg, "\n") || strings.Contains(msg, "sk-secret") {
		t.Errorf("a rejected key: %q", msg)
	}
}

// Cancelling ask stops the answer: the call returns at once, and so does
// the answer's run on the server, with the statements written so far.
func TestAskCancel(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	var deltas []string
	for i := range 40 {
		deltas = append(deltas, fmt.Sprintf("<statement>Point %d of the answer.<cite>[0-0]</cite></statement>", i))
	}
	srv.Respond(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Deltas: deltas, ChunkDelay: 100 * time.Millisecond}
	})
	f := newFixture(t, Options{Strategy: "longcite"}, modelEnv(t, srv))
	type result struct {
		ans *engine.Answer
		err error
	}
	answered := make(chan result, 1)
	f.srv.answered = func(ans *engine.Answer, err error) { answered <- result{ans, err} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "What points?"}, Meta: mcp.Meta{"progressToken": 9}})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for countPrefix(f.messages(), "statement ") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no statements streamed: %q", f.messages())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	select {
	case r := <-answered:
		if !engine.Canceled(r.err) || r.ans == nil || !r.ans.Partial || len(r.ans.Statements) >= 20 {
			t.Errorf("the answer ran on: %v, %d statements", r.err, len(r.ans.Statements))
		}
	case <-time.After(2 * time.Second): // the rest of the answer takes 4 s
		t.Fatal("the answer did not stop with the call")
	}
}

func countPrefix(msgs []string, prefix string) int {
	n := 0
	for _, m := range msgs {
		if strings.HasPrefix(m, prefix) {
			n++
		}
	}
	return n
}

// read returns exact text by sentences, page, printed page and bytes, and
// says clearly what is wrong with a range.
func TestRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	d, pdf := f.docs[0], f.docs[1]
	var out ReadResult
	f.call("read", map[string]any{"document": string(d.ID[:6]), "first_sentence": 3, "last_sentence": 5}, &out)
	if want := d.Text[d.Sentences[3].Start:d.Sentences[5].End]; out.Text != want || out.FirstSentence != 3 || out.LastSentence != 5 ||
		out.Start != int(d.Sentences[3].Start) || out.DocumentSentences != len(d.Sentences) || out.Truncated {
		t.Errorf("sentences 3-5: %+v", out)
	}
	f.call("read", map[string]any{"document": "declaration.txt", "start": out.Start, "end": out.End}, &out)
	if out.Text != d.Text[d.Sentences[3].Start:d.Sentences[5].End] || out.FirstSentence != 3 || out.LastSentence != 5 {
		t.Errorf("the same bytes: %+v", out)
	}
	start, end, _ := pdf.PageSpan(2)
	f.call("read", map[string]any{"document": "r-intro-p8-9.pdf", "printed_page": "3"}, &out)
	if out.Text != pdf.Text[start:end] || out.Page != 2 || out.PrintedPage != "3" || out.LastPage != 2 {
		t.Errorf("printed page 3: %+v", out)
	}
	var byPage ReadResult
	f.call("read", map[string]any{"document": "r-intro-p8-9.pdf", "page": 2}, &byPage)
	if byPage.Text != out.Text {
		t.Errorf("page 2 and printed page 3 differ")
	}
	// Clients that send every argument as a string (the MCP Inspector's
	// CLI 0.15: --tool-arg page=2) are understood; a string that is no
	// number is still refused.
	var byString ReadResult
	f.call("read", map[string]any{"document": "r-intro-p8-9.pdf", "page": "2"}, &byString)
	if byString.Text != out.Text {
		t.Errorf("page \"2\" and page 2 differ")
	}
	f.call("read", map[string]any{"document": "declaration.txt", "first_sentence": "3", "last_sentence": " 5 "}, &byString)
	if byString.FirstSentence != 3 || byString.LastSentence != 5 {
		t.Errorf("sentences \"3\"-\" 5 \": %+v", byString)
	}
	for _, bad := range []string{"two", "2.5", "+2", "02"} {
		if msg := f.fail("read", map[string]any{"document": "r-intro-p8-9.pdf", "page": bad}); msg == "" {
			t.Errorf("page %q was taken", bad)
		}
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"document": "declaration.txt"}, "no range given\nGive first_sentence"},
		{map[string]any{"document": "declaration.txt", "page": 1, "first_sentence": 0}, "more than one range given"},
		{map[string]any{"document": "declaration.txt", "first_sentence": 10000}, "has sentences 0 to"},
		{map[string]any{"document": "declaration.txt", "first_sentence": 5, "last_sentence": 2}, "is not between"},
		{map[string]any{"document": "declaration.txt", "page": 2}, "has pages 1 to 1, not 2"},
		{map[string]any{"document": "r-intro-p8-9.pdf", "printed_page": "9"}, `prints no page "9"`},
		{map[string]any{"document": "declaration.txt", "start": 10}, "needs both start and end"},
		{map[string]any{"document": "declaration.txt", "start": 10, "end": 10 << 20}, "are not a range of"},
		{map[string]any{"document": "nosuch", "first_sentence": 0}, "Call list_documents"},
		{map[string]any{"document": "", "first_sentence": 0}, "document"},
	} {
		if msg := f.fail("read", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("read %v: %q, want %q", c.args, msg, c.want)
		}
	}
}

// A range longer than one read is cut after a whole sentence, and reading
// on from next_sentence continues exactly where it stopped.
func TestReadTruncates(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 3*maxRead; i++ {
		fmt.Fprintf(&b, "Sentence number %d says something about ünïcode and rainfall. ", i)
	}
	long := enginetest.WriteFile(t, "long.txt", b.String())
	lib, docs := enginetest.Library(t, long)
	f := &fixture{t: t, lib: lib, docs: docs}
	env := engine.NewEnv(lib, config.Default())
	f.connect(Options{Open: func() (*engine.Env, error) { return env, nil }})
	d := docs[0]
	var got strings.Builder
	next := 0
	for reads := 0; ; reads++ {
		var out ReadResult
		f.call("read", map[string]any{"document": "long.txt", "first_sentence": next, "last_sentence": len(d.Sentences) - 1}, &out)
		if len(out.Text) > maxRead || out.Text != d.Text[out.Start:out.End] {
			t.Fatalf("read %d: %d bytes at %d", reads, len(out.Text), out.Start)
		}
		if got.Len() > 0 {
			got.WriteString(d.Text[int(d.Sentences[next-1].End):out.Start]) // the space between
		}
		got.WriteString(out.Text)
		if !out.Truncated {
			break
		}
		next = *out.NextSentence
		if d.Sentences[out.LastSentence].End != int32(out.End) || next != out.LastSentence+1 {
			t.Fatalf("cut inside a sentence: %+v", out.Citation)
		}
	}
	if got.String() != strings.TrimSpace(d.Text) {
		t.Errorf("reading on did not give back the text")
	}
}

// verify without a model is lexical and says so; with one, the model's
// rating decides; a citation's text is checked against the document.
func TestVerify(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var hits SearchResult
	f.call("search", map[string]any{"query": "taxes without consent", "k": 1}, &hits)
	cite := hits.Hits[0].Citation
	var out VerifyResult
	f.call("verify", map[string]any{"claim": "Taxes were imposed on them without their consent.", "citation": cite}, &out)
	if out.Method != "lexical" || out.Verdict != "supported" || out.Model != nil || out.TextMatches == nil || !*out.TextMatches ||
		!strings.Contains(out.Explanation, "No model judged this (no model is configured)") || len(out.Lexical.Found) == 0 {
		t.Errorf("a supported claim: %+v", out)
	}
	if out.Cited.Text != cite.Text || out.Cited.Start != cite.Start {
		t.Errorf("cited %+v, want %+v", out.Cited, cite)
	}
	forged := cite
	forged.Text = strings.Replace(cite.Text, "Taxes", "Tariffs", 1)
	out = VerifyResult{}
	f.call("verify", map[string]any{"claim": "They set up 17 armies of soldiers.", "citation": forged}, &out)
	if out.Verdict != "unsupported" || *out.TextMatches || !out.Lexical.NumberMissing {
		t.Errorf("an unsupported claim and a forged quote: %+v", out)
	}
	out = VerifyResult{}
	f.call("verify", map[string]any{"claim": "Taxes imposed without consent.", "citation": map[string]any{"document": "declaration.txt", "first_sentence": cite.FirstSentence}}, &out)
	if out.Cited.Text != cite.Text || out.TextMatches != nil {
		t.Errorf("by sentence: %+v", out)
	}
	if msg := f.fail("verify", map[string]any{"claim": "x", "citation": map[string]any{"document": "declaration.txt"}}); !strings.Contains(msg, "no range given") {
		t.Errorf("no range: %q", msg)
	}

	srv := llmtest.New(t, llmtest.WithResponder(citeTaxes))
	m := newFixture(t, Options{}, modelEnv(t, srv))
	out = VerifyResult{}
	m.call("verify", map[string]any{"claim": "Taxes were imposed without consent.", "citation": cite, "question": "What about taxes?"}, &out)
	if out.Method != "model" || out.Verdict != "supported" || out.Model == nil || out.Model.Rating != "Fully supported" || !out.Model.Relevant ||
		out.Model.Model != llmtest.DefaultModel || out.Cost == nil || out.Cost.ModelCalls != 2 {
		t.Errorf("judged: %+v %+v", out, out.Model)
	}
	out = VerifyResult{}
	m.call("verify", map[string]any{"claim": "The king played the violin every evening.", "citation": cite}, &out)
	if out.Method != "model" || out.Verdict != "unsupported" {
		t.Errorf("judged unsupported: %+v", out)
	}
}

// add_document adds a file that search then finds; without writes the
// tool is not there, and the library is opened read-only besides.
func TestAddDocument(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_document", Arguments: map[string]any{"path": "x"}})
	if err == nil && !res.IsError {
		t.Fatal("a read-only server added a document")
	}

	w := newFixture(t, Options{AllowWrites: true}, nil)
	p := enginetest.WriteFile(t, "lighthouse.txt", "The lighthouse keeper logged every passing zeppelin. Fog closed the harbour twice in March.")
	var out AddDocumentResult
	w.call("add_document", map[string]any{"path": p}, &out)
	if out.Existed || out.Document.Name != "lighthouse.txt" || out.Document.Sentences != 2 {
		t.Fatalf("added %+v", out)
	}
	var hits SearchResult
	w.call("search", map[string]any{"query": "zeppelin"}, &hits)
	if len(hits.Hits) != 1 || hits.Hits[0].Document != out.Document.ID {
		t.Errorf("the added document is not found: %+v", hits.Hits)
	}
	w.call("add_document", map[string]any{"path": p}, &out)
	if !out.Existed {
		t.Error("adding it again added it again")
	}
	if msg := w.fail("add_document", map[string]any{"path": "/no/such/file.pdf"}); !strings.Contains(msg, "/no/such/file.pdf") {
		t.Errorf("a missing file: %q", msg)
	}
}

// Each document is a resource holding its exact text, and each page one.
func TestResources(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	ctx := context.Background()
	list, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 2 || list.Resources[0].URI == list.Resources[1].URI {
		t.Fatalf("resources %+v", list.Resources)
	}
	for _, d := range f.docs {
		r, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "citelens://doc/" + string(d.ID)})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != d.Text || r.Contents[0].MIMEType != "text/plain" {
			t.Fatalf("%s: %v", d.Name, err)
		}
	}
	pdf := f.docs[1]
	s, e, _ := pdf.PageSpan(1)
	r, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "citelens://doc/" + string(pdf.ID) + "/page/1"})
	if err != nil || r.Contents[0].Text != pdf.Text[s:e] {
		t.Errorf("page 1: %v", err)
	}
	for _, uri := range []string{"citelens://doc/0000", "citelens://doc/" + string(pdf.ID) + "/page/3", "citelens://doc/" + string(pdf.ID) + "/page/x"} {
		if _, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s read", uri)
		}
	}
	// A document removed by another process leaves the list.
	if err := f.lib.Remove(pdf.ID); err != nil {
		t.Fatal(err)
	}
	if list, err = f.cs.ListResources(ctx, nil); err != nil || len(list.Resources) != 1 {
		t.Errorf("after a removal: %+v %v", list, err)
	}
}

// Before the library exists, list_documents says it is empty and how to
// fill it; once it exists, the server finds it.
func TestNoLibraryYet(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	exists := false
	f := &fixture{t: t}
	f.connect(Options{Open: func() (*engine.Env, error) {
		if !exists {
			return nil, fmt.Errorf("%w: /tmp/x.db", ErrNoLibrary)
		}
		return engine.NewEnv(lib, config.Default()), nil
	}})
	var out DocumentsResult
	f.call("list_documents", map[string]any{}, &out)
	if len(out.Documents) != 0 || !strings.Contains(out.Note, "citelens add") {
		t.Errorf("no library: %+v", out)
	}
	if msg := f.fail("search", map[string]any{"query": "taxes"}); !strings.Contains(msg, "does not exist yet") {
		t.Errorf("search without a library: %q", msg)
	}
	exists = true
	f.call("list_documents", map[string]any{}, &out)
	if len(out.Documents) != 1 {
		t.Errorf("the library made meanwhile: %+v", out)
	}
}

// A damaged library's error carries the way out the command line gives.
func TestLibraryErrorFix(t *testing.T) {
	t.Parallel()
	err := toolError(fmt.Errorf("reading: %w", docstore.ErrCorrupt))
	if !strings.Contains(err.Error(), "reading: the library is damaged\nRun 'citelens check'") {
		t.Errorf("%q", err)
	}
	if !errors.Is(err, docstore.ErrCorrupt) {
		t.Error("the error lost its reason")
	}
}

// search ranks through the shared retrieval, as ask does: with an
// embedding model configured a word no document uses still finds the
// sentences that say it in other words; with none, nothing, and no
// model is called.
func TestSearchByMeaning(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithConcepts([]string{"approval", "consent"}))
	f := newFixture(t, Options{}, modelEnv(t, srv))
	var out SearchResult
	f.call("search", map[string]any{"query": "approval", "k": 3}, &out)
	if len(out.Hits) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("without an embedding model: %d requests, hits %+v", len(srv.Requests()), out.Hits)
	}
	f = newFixture(t, Options{}, func(l *docstore.Library) *engine.Env {
		cfg := enginetest.Config(srv)
		cfg.EmbedModel = llmtest.DefaultEmbedModel
		return enginetest.Env(t, l, cfg)
	})
	f.call("search", map[string]any{"query": "approval", "k": 3}, &out)
	if len(out.Hits) == 0 || !strings.Contains(strings.ToLower(out.Hits[0].Text), "consent") || len(out.Warnings) != 0 {
		t.Errorf("with an embedding model: hits %+v, warnings %q", out.Hits, out.Warnings)
	}
}
