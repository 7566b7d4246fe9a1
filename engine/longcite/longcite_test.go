package longcite

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

func ask(t testing.TB, env *engine.Env, name string, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	t.Helper()
	s, err := engine.New(name, env)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Run(context.Background(), env, s, req, emit)
}

// TestNumberingRoundTrip: the scripted model finds sentences in the prompt
// by their words, cites the numbers it saw them under, and each citation
// resolves to exactly the document bytes of those sentences — the same
// text the model was shown.
func TestNumberingRoundTrip(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	doc := docs[0]
	srv := llmtest.New(t)
	var a, b, c int
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		s := parseShown(t, r.Last())
		a = s.find(t, "For imposing Taxes on us without our Consent")
		b = a + 2
		c = s.find(t, "We hold these truths to be self-evident")
		return llmtest.Reply{Text: fmt.Sprintf(
			"<statement>The colonists objected to taxes imposed without their consent and to other abuses.<cite>[%d-%d]</cite></statement>"+
				"<statement>They held certain truths to be self-evident.<cite>[%d-%d]</cite></statement>", a, b, c, c)}
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, env, Name, engine.Request{Question: "What did the colonists object to?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompt := parseShown(t, srv.ChatRequests()[0].Last())
	if len(prompt.nums) != len(doc.Sentences) {
		t.Fatalf("the prompt numbers %d sentences, the document has %d", len(prompt.nums), len(doc.Sentences))
	}
	for i, n := range prompt.nums {
		if n != i {
			t.Fatalf("tag %d of the prompt is <C%d>", i, n)
		}
		if !sameWords(prompt.texts[n], doc.SentenceText(n)) {
			t.Fatalf("<C%d> shows %q, the sentence is %q", n, prompt.texts[n], doc.SentenceText(n))
		}
	}
	if len(ans.Statements) != 2 {
		t.Fatalf("statements %+v", ans.Statements)
	}
	for i, want := range [][2]int{{a, b}, {c, c}} {
		cs := ans.Statements[i].Citations
		if len(cs) != 1 {
			t.Fatalf("statement %d citations %+v", i, cs)
		}
		sp := cs[0]
		exact := doc.Text[doc.Sentences[want[0]].Start:doc.Sentences[want[1]].End]
		if sp.Doc != doc.ID || sp.First != want[0] || sp.Last != want[1] || sp.Text != exact || doc.Text[sp.Start:sp.End] != exact {
			t.Errorf("[%d-%d] resolved to %+v, want the bytes %q", want[0], want[1], sp, exact)
		}
		if !sameWords(sp.Text, prompt.span(want[0], want[1])) {
			t.Errorf("[%d-%d] is %q, but the model saw %q", want[0], want[1], sp.Text, prompt.span(want[0], want[1]))
		}
	}
	if ans.Model != llmtest.DefaultModel || ans.Strategy != Name || ans.Usage.LLMCalls != 1 {
		t.Errorf("answer model %q strategy %q usage %+v", ans.Model, ans.Strategy, ans.Usage)
	}
}

// TestMultiDocumentNumbering: the numbering runs across the scope's
// documents in order, and a number in the second maps back to it.
func TestMultiDocumentNumbering(t *testing.T) {
	t.Parallel()
	second := enginetest.WriteFile(t, "rainfall.txt", rainfallReport(20))
	lib, docs := enginetest.Library(t, declaration, second)
	srv := llmtest.New(t)
	var n int
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		s := parseShown(t, r.Last())
		n = s.find(t, "Station 7, on the")
		return llmtest.Text(fmt.Sprintf("<statement>Station 7 recorded rain in August.<cite>[%d-%d]</cite></statement>", n, n))
	})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, env, Name, engine.Request{Question: "How much rain fell at station 7?", Docs: []docstore.DocID{docs[0].ID, docs[1].ID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	offset := len(docs[0].Sentences)
	local := n - offset
	if local < 0 || !strings.Contains(docs[1].SentenceText(local), "Station 7, on the") {
		t.Fatalf("number %d is not sentence %d of the second document", n, local)
	}
	sp := ans.Statements[0].Citations[0]
	if sp.Doc != docs[1].ID || sp.First != local || sp.Text != docs[1].SentenceText(local) || sp.DocName != "rainfall.txt" {
		t.Errorf("citation %+v, want sentence %d of rainfall.txt", sp, local)
	}
	p := srv.ChatRequests()[0].Last()
	if !strings.Contains(p, "Document 1: declaration.txt\n<C0>") || !strings.Contains(p, fmt.Sprintf("Document 2: rainfall.txt\n<C%d>", offset)) {
		t.Errorf("the prompt does not introduce each document")
	}
}

// TestBudgetTrimming: a scope longer than the model's context keeps the
// most relevant sentences and their neighbours within the budget, in
// document order with their real numbers, and says so.
func TestBudgetTrimming(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, enginetest.WriteFile(t, "rainfall.txt", rainfallReport(600)))
	doc := docs[0]
	srv := llmtest.New(t)
	var n int
	srv.Respond(func(r llmtest.ChatRequest) llmtest.Reply {
		n = parseShown(t, r.Last()).find(t, "Station 417,")
		return llmtest.Text(fmt.Sprintf("<statement>Station 417 is on the ridge.<cite>[%d-%d]</cite></statement>", n, n))
	})
	cfg := enginetest.Config(srv)
	cfg.ContextWindow, cfg.MaxOutput = 4000, 500
	env := enginetest.Env(t, lib, cfg)
	var ev collect
	ans, err := ask(t, env, Name, engine.Request{Question: "When was the gauge of station 417 calibrated?"}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	req := srv.ChatRequests()[0]
	if got := req.PromptTokens(); got > cfg.PromptBudget() {
		t.Errorf("the prompt estimates %d tokens, over the budget of %d", got, cfg.PromptBudget())
	}
	s := parseShown(t, req.Last())
	if len(s.nums) >= len(doc.Sentences) || len(s.nums) < 20 {
		t.Fatalf("the prompt shows %d of %d sentences", len(s.nums), len(doc.Sentences))
	}
	for i, num := range s.nums {
		if i > 0 && num <= s.nums[i-1] {
			t.Fatalf("numbers out of document order: %v", s.nums[:i+1])
		}
		if !sameWords(s.texts[num], doc.SentenceText(num)) {
			t.Fatalf("<C%d> shows %q, but sentence %d is %q", num, s.texts[num], num, doc.SentenceText(num))
		}
	}
	// The answer's sentence and its neighbours were kept.
	if _, ok := s.texts[n+1]; !ok {
		t.Errorf("the sentence after <C%d> (the calibration) was not kept", n)
	}
	if sp := ans.Statements[0].Citations[0]; sp.First != n || sp.Text != doc.SentenceText(n) {
		t.Errorf("citation %+v", sp)
	}
	want := fmt.Sprintf("read %d of %d,%03d sentences (%d%%): the document (%s tokens) exceeds the model's 4k window; the sentences read are the most relevant to the question and those around them",
		len(s.nums), len(doc.Sentences)/1000, len(doc.Sentences)%1000, len(s.nums)*100/len(doc.Sentences), humanize.Tokens(estimateWhole(t, doc)))
	if !slices.Contains(ans.Warnings, want) {
		t.Errorf("warnings %q lack %q", ans.Warnings, want)
	}
}

// estimateWhole is what the whole document would cost in the one-shot
// prompt of the trimming test.
func estimateWhole(t *testing.T, d *docstore.Document) int {
	fit, err := generate.FitScope(context.Background(), generate.OneShot, "When was the gauge of station 417 calibrated?", []*docstore.Document{d}, 1<<30, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fit.Tokens
}

// TestStatementsStream: statements reach the caller while the model is
// still writing.
func TestStatementsStream(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	deltas := []string{"<statement>First", " point.<cite>[1-1]</cite>", "</statement>", "<statement>Second", " point.", "<cite>[2-2]</cite></statement>", "<statement>Done.<cite></cite></statement>"}
	srv.Enqueue(llmtest.Reply{Deltas: deltas, ChunkDelay: 30 * time.Millisecond})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev collect
	start := time.Now()
	var firstAt time.Duration
	ans, err := ask(t, env, Name, engine.Request{Question: "What are the points?"}, func(e engine.Event) {
		if _, ok := e.(engine.Statement); ok && firstAt == 0 {
			firstAt = time.Since(start)
		}
		ev.emit(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	if ev.firstStmtAt != 3 || ev.statements != 3 || len(ans.Statements) != 3 {
		t.Errorf("first statement after %d of %d deltas, %d statements; want it after the 3rd", ev.firstStmtAt, len(deltas), ev.statements)
	}
	if firstAt > total-3*30*time.Millisecond {
		t.Errorf("first statement at %v of %v: not while the stream ran", firstAt, total)
	}
	if ev.usage != 1 || ans.Usage.LLMCalls != 1 {
		t.Errorf("usage events %d, answer usage %+v", ev.usage, ans.Usage)
	}
}

// TestLongCiteModelFormat: a LongCite model gets the input it was trained
// on, without being told.
func TestLongCiteModelFormat(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	const model = "THUDM/LongCite-llama3.1-8b"
	srv := llmtest.New(t, llmtest.WithModels(model))
	srv.Enqueue(llmtest.Text("<statement>Yes.<cite>[0-0]</cite></statement>"))
	cfg := enginetest.Config(srv)
	cfg.Model = model
	env := enginetest.Env(t, lib, cfg)
	ans, err := ask(t, env, Name, engine.Request{Question: "Is this the Declaration?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := srv.ChatRequests()[0]
	p := req.Last()
	if len(req.Messages) != 1 || !strings.HasPrefix(p, "Please answer the user's question based on the following document. When a sentence S") ||
		!strings.HasSuffix(p, "\n[Document End]\n\nIs this the Declaration?") || strings.Contains(p, "Here is an example") {
		t.Errorf("prompt is not the LongCite model format:\n%.400s\n…\n%s", p, p[max(0, len(p)-200):])
	}
	if ans.Model != model || len(ans.Statements) != 1 || len(ans.Statements[0].Citations) != 1 {
		t.Errorf("answer %+v", ans)
	}
	// format=one-shot overrides the default.
	srv.Enqueue(llmtest.Text("<statement>Yes.<cite>[0-0]</cite></statement>"))
	if _, err := ask(t, env, Name, engine.Request{Question: "Is this the Declaration?", Options: engine.Settings("format", "one-shot")}, nil); err != nil {
		t.Fatal(err)
	}
	if p := srv.ChatRequests()[1].Last(); !strings.Contains(p, "Here is an example") {
		t.Error("format=one-shot did not give the one-shot prompt")
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	for _, c := range []struct {
		name string
		opts []engine.Setting
		want string
	}{
		{Name, engine.Settings("k", "5"), "retrieval settings are for the rag strategy"},
		{Name, engine.Settings("format", "few-shot"), "format=\"few-shot\""},
		{Name, engine.Settings("max_citations", "-1"), "max_citations"},
		{RAGName, engine.Settings("k", "0"), "k=\"0\""},
		{RAGName, engine.Settings("level", "page"), "level=\"page\""},
		{RAGName, engine.Settings("level", "chunk", "format", "longcite-model"), "were not trained on chunks"},
		{RAGName, engine.Settings("top", "3"), "takes format, max_citations, k, level"},
	} {
		_, err := ask(t, env, c.name, engine.Request{Question: "q?", Options: c.opts}, nil)
		if !errors.Is(err, engine.ErrOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: err %v, want one mentioning %q", c.name, c.opts, err, c.want)
		}
	}
	if len(srv.ChatRequests()) != 0 {
		t.Error("a bad option still reached the model")
	}
}

func TestUnavailableWithoutModel(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	env := engine.NewEnv(lib, config.Default())
	for _, name := range []string{Name, RAGName} {
		_, err := engine.New(name, env)
		if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), config.EnvBaseURL) {
			t.Errorf("%s without a model: %v", name, err)
		}
	}
}

func TestMaxCitations(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	reply := "<statement>Many.<cite>[1-1][3-3][5-5][7-7][9-9]</cite></statement>"
	srv.Enqueue(llmtest.Text(reply), llmtest.Text(reply))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, env, Name, engine.Request{Question: "q?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := ans.Statements[0]; len(st.Citations) != citations.LongBenchCiteCap || len(st.Warnings) != 1 {
		t.Errorf("default cap: %d citations, warnings %q", len(st.Citations), st.Warnings)
	}
	ans, err = ask(t, env, Name, engine.Request{Question: "q?", Options: engine.Settings("max_citations", "0")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := ans.Statements[0]; len(st.Citations) != 5 {
		t.Errorf("max_citations=0: %d citations", len(st.Citations))
	}
}

// Faults, through the strategy and engine.Run.

func TestTwoServerErrorsThenSuccess(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Status(500), llmtest.Status(500), llmtest.Text("<statement>Fine.<cite>[0-0]</cite></statement>"))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev collect
	ans, err := ask(t, env, Name, engine.Request{Question: "q?"}, ev.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 1 || ans.Partial || len(srv.ChatRequests()) != 3 {
		t.Errorf("answer %+v after %d requests", ans, len(srv.ChatRequests()))
	}
	retries := 0
	for _, s := range ev.stages {
		if strings.Contains(s, "HTTP 500") && strings.Contains(s, "retrying") {
			retries++
		}
	}
	if retries != 2 {
		t.Errorf("stages %q: want two retry notices", ev.stages)
	}
}

func TestRateLimitWaitsRetryAfter(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.RateLimited("1"), llmtest.Text("<statement>Fine.<cite>[0-0]</cite></statement>"))
	env := enginetest.Env(t, lib, enginetest.Config(srv), enginetest.RealWaits)
	ans, err := ask(t, env, Name, engine.Request{Question: "q?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Chat != nil {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 || len(ans.Statements) != 1 {
		t.Fatalf("%d chat requests, answer %+v", len(reqs), ans)
	}
	if wait := reqs[1].At.Sub(reqs[0].At); wait < time.Second {
		t.Errorf("retried after %v; the server asked for 1s", wait)
	}
}

func TestDropMidStreamKeepsStatements(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{
		"<statement>One.<cite>[0-0]</cite></statement>", "<statement>Two.<cite>[1-1]</cite></statement>", "<statement>Thr", "ee.",
	}, Drop: true, DropAfter: 3})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	var ev collect
	ans, err := ask(t, env, Name, engine.Request{Question: "q?"}, ev.emit)
	if !errors.Is(err, llm.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(err.Error(), srv.URL) || le.Fix() == "" {
		t.Errorf("error %v does not name the URL or suggest a fix", err)
	}
	if ans == nil || !ans.Partial || ans.Error == "" || len(ans.Statements) != 3 || ans.Statements[1].Text != "Two." || ev.statements != 3 {
		t.Fatalf("answer %+v: want a partial answer with the two finished statements and the unfinished one", ans)
	}
	if u := ans.Statements[2]; !u.Unfinished || u.Text != "Thr" || len(u.Citations) != 0 {
		t.Errorf("the statement being written when the stream dropped: %+v, want it unfinished, uncited", u)
	}
	if len(srv.ChatRequests()) != 1 {
		t.Error("a stream that had shown text was retried")
	}
}

func TestDeadEndpoint(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now
	cfg := config.Default()
	cfg.BaseURL, cfg.Model, cfg.ConnectTimeout = url, "m", 2*time.Second
	env := enginetest.Env(t, lib, cfg, enginetest.RealWaits)
	start := time.Now()
	ans, err := ask(t, env, Name, engine.Request{Question: "q?"}, nil)
	if took := time.Since(start); took > cfg.ConnectTimeout+time.Second {
		t.Errorf("failed after %v, beyond the connect timeout of %v", took, cfg.ConnectTimeout)
	}
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), url) {
		t.Errorf("err %v: want ErrUnreachable naming %s", err, url)
	}
	if ans == nil || !ans.Partial || len(ans.Statements) != 0 {
		t.Errorf("answer %+v", ans)
	}
}

// TestCancelKeepsStatements: cancelling mid-answer returns the statements
// emitted so far, marked cancelled.
func TestCancelKeepsStatements(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Deltas: []string{
		"<statement>One.<cite>[0-0]</cite></statement>", "<statement>Two", " and more", " and more.</statement>",
	}, ChunkDelay: 50 * time.Millisecond})
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ans, err := engine.Run(ctx, env, mustNew(t, env), engine.Request{Question: "q?"}, func(ev engine.Event) {
		if _, ok := ev.(engine.Statement); ok {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if ans == nil || !ans.Partial || ans.Error != "cancelled" || len(ans.Statements) != 1 || ans.Statements[0].Text != "One." {
		t.Errorf("answer %+v", ans)
	}
}
