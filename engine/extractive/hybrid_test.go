package extractive

import (
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm/llmtest"
)

// paraphraseDoc holds the answer to paraphraseQuestion in words the
// question does not use, among sentences that share its words.
const paraphraseDoc = `Annual report

The company invested heavily during the year. Capital markets were calm for most of the year.
Purchases of property, plant and equipment totalled 4.2 million dollars, mostly new presses.
The board met eleven times. Expenditure on travel fell by a third.
Revenue grew by eight percent, driven by export sales.
`

const (
	paraphraseQuestion = "How much capital expenditure did the firm make?"
	paraphraseAnswer   = "Purchases of property, plant and equipment"
)

// paraphraseEnv is a library holding paraphraseDoc and, unless words
// only, a scripted embedding model that knows the paraphrase, as a real
// one does.
func paraphraseEnv(t *testing.T, embed bool) (*engine.Env, docstore.DocID) {
	lib, docs := enginetest.TextLibrary(t, "report.txt", paraphraseDoc)
	if !embed {
		return engine.NewEnv(lib, config.Default()), docs[0].ID
	}
	srv := llmtest.New(t, llmtest.WithConcepts(
		[]string{"capital expenditure", "purchases of property, plant and equipment", "capex"},
	))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	return enginetest.Env(t, lib, cfg), docs[0].ID
}

func askExtractive(t *testing.T, env *engine.Env, doc docstore.DocID, settings ...string) (*engine.Answer, error) {
	t.Helper()
	s, err := engine.New(Name, env)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Run(t.Context(), env, s, engine.Request{Question: paraphraseQuestion, Docs: []docstore.DocID{doc},
		Options: engine.Settings(settings...)}, nil)
}

// TestHybridFindsParaphrase: the sentence that answers shares no content
// word with the question, so BM25 alone cannot find it; with an embedding
// model dense retrieval proposes it and it comes first.
func TestHybridFindsParaphrase(t *testing.T) {
	t.Parallel()
	env, doc := paraphraseEnv(t, false)
	ans, err := askExtractive(t, env, doc, "k", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ans.Statements {
		if strings.Contains(st.Text, paraphraseAnswer) {
			t.Fatalf("BM25 alone found the paraphrase; the test proves nothing: %q", st.Text)
		}
	}

	env, doc = paraphraseEnv(t, true)
	ans, err = askExtractive(t, env, doc, "k", "2")
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) == 0 || !strings.Contains(ans.Statements[0].Text, paraphraseAnswer) {
		t.Fatalf("hybrid answer does not start with the paraphrase: %+v", ans.Statements)
	}
	c := ans.Statements[0].Citations[0]
	d, err := env.Library.Document(doc)
	if err != nil || d.Text[c.Start:c.End] != c.Text {
		t.Errorf("citation %d-%d is not the document's bytes (%v)", c.Start, c.End, err)
	}
}

// TestRetrievalModes: words ignores the embedding model, meaning ranks by
// it alone, and meaning without one is refused with the fix.
func TestRetrievalModes(t *testing.T) {
	t.Parallel()
	env, doc := paraphraseEnv(t, true)
	words, err := askExtractive(t, env, doc, "k", "1", "retrieval", "words")
	if err != nil || len(words.Statements) != 1 || strings.Contains(words.Statements[0].Text, paraphraseAnswer) {
		t.Fatalf("words: %+v %v", words, err)
	}
	meaning, err := askExtractive(t, env, doc, "k", "1", "retrieval", "meaning")
	if err != nil || len(meaning.Statements) != 1 || !strings.Contains(meaning.Statements[0].Text, paraphraseAnswer) {
		t.Fatalf("meaning: %+v %v", meaning, err)
	}
	plain, doc := paraphraseEnv(t, false)
	if _, err := askExtractive(t, plain, doc, "retrieval", "meaning"); !errors.Is(err, engine.ErrOption) || !strings.Contains(err.Error(), "embedding model") {
		t.Errorf("meaning without a model: %v", err)
	}
}
