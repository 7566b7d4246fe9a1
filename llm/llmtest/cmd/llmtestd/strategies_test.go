package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"

	_ "github.com/citelens/citelens/engine/cof"
	_ "github.com/citelens/citelens/engine/dag"
	_ "github.com/citelens/citelens/engine/extractive"
	_ "github.com/citelens/citelens/engine/longcite"
	_ "github.com/citelens/citelens/engine/okra"
	_ "github.com/citelens/citelens/engine/raidd"
)

// films is a small document in HotpotQA's shape: titled paragraphs.
const films = `Scott Derrickson

Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. He lives in Los Angeles, California. He is best known for directing horror films such as Sinister.

Ed Wood

Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director. Ed Wood is known for low-budget science fiction films.

Kiss and Tell

Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer. The film was directed by Richard Wallace.

Shirley Temple

Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress, singer, dancer, businesswoman, and diplomat. As an adult, she was named United States ambassador to Ghana and to Czechoslovakia and also served as Chief of Protocol of the United States.
`

// Every registered strategy runs end to end against the scripted model:
// each of its prompts is recognised (none gets the fallback "OK.") and the
// answer cites the document (plain's, the LQA baseline, answers uncited).
func TestEveryStrategyRuns(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.TextLibrary(t, "films.txt", films)
	var (
		mu      sync.Mutex
		unknown []string
	)
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		reply := respondTo(r, 2)
		if reply.Text == "OK." {
			mu.Lock()
			unknown = append(unknown, r.Text())
			mu.Unlock()
		}
		return reply
	}))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	questions := []string{
		"Were Scott Derrickson and Ed Wood of the same nationality?",
		"What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
	}
	type run struct {
		name string
		opts []engine.Setting
	}
	var runs []run
	for _, info := range engine.Strategies() {
		var opts []engine.Setting
		if strings.HasPrefix(info.Name(), "raidd") {
			opts = engine.Settings("derive", "yes")
		}
		runs = append(runs, run{info.Name(), opts})
	}
	runs = append(runs, run{"dag", engine.Settings("algorithm", "1")}) // dag's default is Algorithm 2
	for _, r := range runs {
		for _, q := range questions {
			t.Run(r.name+fmt.Sprint(r.opts)+"/"+q[:12], func(t *testing.T) {
				s, err := engine.New(r.name, env)
				if err != nil {
					t.Fatal(err)
				}
				opts := r.opts
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				ans, err := engine.Run(ctx, env, s, engine.Request{Question: q, Options: opts}, nil)
				if err != nil {
					t.Fatal(err)
				}
				cites := 0
				for _, st := range ans.Statements {
					cites += len(st.Citations)
				}
				switch {
				case r.name == "plain" && (cites != 0 || len(ans.Statements) == 0):
					t.Errorf("the plain answer: %+v", ans.Statements) // uncited by design
				case r.name != "plain" && cites == 0:
					t.Errorf("no citations: %+v", ans.Statements)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, u := range unknown {
					t.Errorf("a prompt was not recognised:\n%.300s", u)
				}
				unknown = nil
			})
		}
	}
}

func TestTimerStats(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "a b c", ChunkDelay: 20 * time.Millisecond}
	}))
	path := filepath.Join(t.TempDir(), "stats.json")
	base, stop, err := serveTimed(srv.URL, "127.0.0.1:0", path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.BaseURL, cfg.Model, cfg.EmbedModel = base, llmtest.DefaultModel, llmtest.DefaultEmbedModel
	client, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if r, err := client.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("hi")}}); err != nil || r.Text != "a b c" || r.Retries > 0 {
				t.Errorf("%q %v, %d retries", r.Text, err, r.Retries)
			}
		})
	}
	wg.Wait()
	if _, _, err := client.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	// Two streams of three 20 ms words ran side by side: each took at
	// least 60 ms, together not twice as long in wall time.
	if st.Requests != 3 || st.ChatRequests != 2 || st.EmbedRequests != 1 ||
		st.RequestSeconds < 0.12 || st.BusySeconds < 0.06 || st.BusySeconds >= st.RequestSeconds {
		t.Errorf("stats %+v", st)
	}
}

func TestAnswerable(t *testing.T) {
	t.Parallel()
	prompt := func(question string) string {
		return "…Now get ready to handle the following test case.\n\n[Document Start]\n<C3>Ed Wood was an American filmmaker. <C9>Scott Derrickson lives in Los Angeles.\n[Document End]\n\n[Question]\n" +
			question + "\n\n(If the document does not contain the information needed to answer the question, " + unanswerableHint + "\n\n[Remind]\n…"
	}
	if !answerable(prompt("Was Ed Wood a filmmaker?")) {
		t.Error("a sentence holds the question's terms")
	}
	if answerable(prompt("Which prizes did the novelist Irene Nemirovsky win?")) {
		t.Error("no sentence holds the question's terms")
	}
	r := respondTo(llmtest.ChatRequest{Messages: []llmtest.Message{{Role: "user", Content: prompt("Which prizes did Irene Nemirovsky win?")}}}, 2)
	if !strings.Contains(r.Text, "Unanswerable") {
		t.Errorf("reply %q", r.Text)
	}
}

func TestStandalone(t *testing.T) {
	t.Parallel()
	p := "Conversation:\nQ: Who is Scott Derrickson?\nA: A director.\nQ: What did Ed Wood make?\nA: Films.\n\nFollow-up question: when was he born?\n\nStandalone question:"
	if got := standalone(p); got != "when was he born (about Ed Wood)?" {
		t.Errorf("standalone = %q", got)
	}
}

// paraphrase holds the answer to paraphraseQuestion in words the question
// does not use: BM25 cannot find it, an embedding model that knows the
// paraphrase (WithConcepts) can.
const (
	paraphrase = "\nAnnual report\n\nPurchases of property, plant and equipment totalled 4.2 million dollars, mostly new presses.\n"
	// filler keeps the paraphrase out of the films' chunks and segments.
	filler             = "The river rose after the long rains of spring, and the farmers waited on the hills for the water to fall. "
	paraphraseAnswer   = "Purchases of property, plant and equipment"
	paraphraseQuestion = "What capital expenditure did the film studio make?"
)

// retrievers are the strategies that rank units through the answer's
// retrieval, with the options each needs; longcite reads the whole
// documents. Those that retrieve for the question itself (every one but
// cof, which retrieves for its draft's sentences) must show the
// paraphrase that only meaning finds, when their keys hold it.
var retrievers = []struct {
	name       string
	opts       []string
	byQuestion bool
	// whole: the strategy may read the whole documents after retrieving
	// (okra-precise's reread), so the paraphrase can reach the model
	// without the embedding model.
	whole bool
}{
	{"extractive", nil, true, false},
	{"cof", nil, false, true},
	{"rag", nil, true, false},
	{"rag", []string{"level", "chunk"}, true, false},
	{"dag", nil, true, false},
	{"okra", nil, true, false},
	{"okra-precise", nil, true, true},
	{"raidd-s", []string{"derive", "yes"}, true, false},
	// The scripted model's questions name a chunk's capitalised words,
	// not the paraphrase, so raidd-q's keys cannot carry it.
	{"raidd-q", []string{"derive", "yes"}, false, false},
	{"raidd-s+", []string{"derive", "yes"}, true, false},
	{"raidd-q+", []string{"derive", "yes"}, true, false},
	{"raidd-u", []string{"derive", "yes"}, true, false},
}

// TestEveryStrategyUsesRetrievalModels: every strategy that retrieves
// uses a configured embedding model and reranker the same way: the
// embedding model proposes candidates (the paraphrase reaches the model)
// and the reranker is called (the server counts /v1/rerank requests);
// when the embedding endpoint fails, one warning says so and the answer
// is ranked by words; when the reranker fails, one warning says so and it
// is not asked again in that answer.
func TestEveryStrategyUsesRetrievalModels(t *testing.T) {
	t.Parallel()
	for _, s := range retrievers {
		name := s.name + strings.Join(s.opts, "=")
		t.Run(name, func(t *testing.T) {
			lib, _ := enginetest.TextLibrary(t, "films.txt", films+"\nRains\n\n"+strings.Repeat(filler, 40)+"\n"+paraphrase)
			srv := llmtest.New(t, llmtest.WithConcepts([]string{"capital expenditure", "purchases of property, plant and equipment"}),
				llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply { return respondTo(r, 2) }))
			cfg := enginetest.Config(srv)
			cfg.EmbedModel, cfg.RerankModel = llmtest.DefaultEmbedModel, llmtest.DefaultRerankModel
			env := enginetest.Env(t, lib, cfg, llm.WithMaxRetries(0))
			ask := func(env *engine.Env) (*engine.Answer, *enginetest.Events, []llmtest.ChatRequest, int) {
				t.Helper()
				chats, reranks := len(srv.ChatRequests()), len(srv.RerankRequests())
				strategy, err := engine.New(s.name, env)
				if err != nil {
					t.Fatal(err)
				}
				var ev enginetest.Events
				ans, err := engine.Run(t.Context(), env, strategy, engine.Request{Question: paraphraseQuestion, Options: engine.Settings(s.opts...)}, ev.Emit)
				// By words alone a strategy may find nothing to answer
				// from; it says so, as without the models.
				if err != nil && !(errors.Is(err, engine.ErrNothingRetrieved) && ans != nil) {
					t.Fatal(err)
				}
				return ans, &ev, srv.ChatRequests()[chats:], len(srv.RerankRequests()) - reranks
			}

			// Both models work.
			ans, ev, chats, reranks := ask(env)
			if reranks == 0 || !ev.HasStage("by meaning (test-embed), reordered by test-rerank") || retrievalWarnings(ans) != 0 {
				t.Errorf("%d rerank requests; stages %q; warnings %q", reranks, ev.Stages, ans.Warnings)
			}
			if s.byQuestion && !shown(ans, chats, paraphraseAnswer) {
				t.Errorf("the paraphrase only meaning finds never reached the model or the answer: %+v", ans.Statements)
			}

			// The embedding endpoint fails: words only, said once.
			bad := cfg
			bad.EmbedModel = "no-such-embedder"
			ans, ev, chats, _ = ask(enginetest.Env(t, lib, bad, llm.WithMaxRetries(0)))
			if off := countPrefix(ans.Warnings, "dense retrieval is off for this answer ("); off != 1 || retrievalWarnings(ans) != 1 || ev.HasStage("by meaning") {
				t.Errorf("a failing embedding model: warnings %q; stages %q", ans.Warnings, ev.Stages)
			}
			if !s.whole && shown(ans, chats, paraphraseAnswer) {
				t.Errorf("the paraphrase was found without the embedding model")
			}

			// The reranker fails: the fused order, said once, not asked
			// again.
			srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Status(http.StatusInternalServerError)})
			ans, _, _, reranks = ask(env)
			if failed := countPrefix(ans.Warnings, "the reranker failed ("); failed != 1 || reranks != 1 || retrievalWarnings(ans) != 1 {
				t.Errorf("a failing reranker: %d rerank requests; warnings %q", reranks, ans.Warnings)
			}
		})
	}
}

// shown reports whether text reached the model in one of the answer's
// requests, or its statements.
func shown(ans *engine.Answer, chats []llmtest.ChatRequest, text string) bool {
	for _, r := range chats {
		if strings.Contains(r.Text(), text) && !strings.Contains(r.Text(), "Annual report\n\nPurchases") {
			return true // shown as retrieved, not as the whole document
		}
	}
	for _, st := range ans.Statements {
		if strings.Contains(st.Text, text) {
			return true
		}
	}
	return false
}

// retrievalWarnings counts the answer's warnings about retrieval's
// models.
func retrievalWarnings(ans *engine.Answer) int {
	return countPrefix(ans.Warnings, "dense retrieval is off") + countPrefix(ans.Warnings, "the reranker failed")
}

func countPrefix(xs []string, prefix string) int {
	n := 0
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			n++
		}
	}
	return n
}
