package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/engine/llm/llmtest"

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
// answer cites the document.
func TestEveryStrategyRuns(t *testing.T) {
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
	for _, info := range engine.Strategies() {
		for _, q := range questions {
			t.Run(info.Name()+"/"+q[:12], func(t *testing.T) {
				s, err := engine.New(info.Name(), env)
				if err != nil {
					t.Fatal(err)
				}
				var opts []engine.Setting
				if strings.HasPrefix(info.Name(), "raidd") {
					opts = engine.Settings("derive", "yes")
				}
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
				if cites == 0 {
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
	p := "Conversation:\nQ: Who is Scott Derrickson?\nA: A director.\nQ: What did Ed Wood make?\nA: Films.\n\nFollow-up question: when was he born?\n\nStandalone question:"
	if got := standalone(p); got != "when was he born (about Ed Wood)?" {
		t.Errorf("standalone = %q", got)
	}
}
