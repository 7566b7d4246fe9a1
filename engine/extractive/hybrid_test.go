package extractive

import (
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/llm/llmtest"
)

// paraphraseDoc holds the answer to paraphraseQuestion in words the
// question does not use, among sentences that share its words.
const paraphraseDoc = `Annual report

The company invested heavily during the year. Capital markets were calm for most of the year.
Purchases of property, plant and equipment totalled 4.2 million dollars, mostly new presses.
The board met eleven times. Expenditure on travel fell by a third.
Revenue grew by eight percent, driven by export sales.
`

const paraphraseQuestion = "How much capital expenditure did the firm make?"

// paraphraseServer is a scripted embedding model that knows the
// paraphrase, as a real one does.
func paraphraseServer(t *testing.T) *llmtest.Server {
	return llmtest.New(t, llmtest.WithConcepts(
		[]string{"capital expenditure", "purchases of property, plant and equipment", "capex"},
	))
}

// TestHybridFindsParaphrase: the sentence that answers shares no content
// word with the question, so BM25 alone cannot find it; with an embedding
// model dense retrieval proposes it and it comes first.
func TestHybridFindsParaphrase(t *testing.T) {
	lib, docs := enginetest.TextLibrary(t, "report.txt", paraphraseDoc)
	req := engine.Request{Question: paraphraseQuestion, Docs: []docstore.DocID{docs[0].ID}, Options: map[string]string{"k": "2"}}
	const want = "Purchases of property, plant and equipment"

	// Words only: the answer is not among the quotes.
	ans, err := New(lib).Answer(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ans.Statements {
		if strings.Contains(st.Text, want) {
			t.Fatalf("BM25 alone found the paraphrase; the test proves nothing: %q", st.Text)
		}
	}

	// With an embedding model: it is the first quote.
	srv := paraphraseServer(t)
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	s, err := engine.New(Name, enginetest.Env(t, lib, cfg))
	if err != nil {
		t.Fatal(err)
	}
	ans, err = s.Answer(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) == 0 || !strings.Contains(ans.Statements[0].Text, want) {
		t.Fatalf("hybrid answer does not start with the paraphrase: %+v", ans.Statements)
	}
	if c := ans.Statements[0].Citations[0]; docs[0].Text[c.Start:c.End] != c.Text {
		t.Errorf("citation %d-%d is not the document's bytes", c.Start, c.End)
	}
}

// TestRetrievalModes: words ignores the embedding model, meaning ranks by
// it alone, and meaning without one is refused.
func TestRetrievalModes(t *testing.T) {
	lib, docs := enginetest.TextLibrary(t, "report.txt", paraphraseDoc)
	srv := paraphraseServer(t)
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	s, err := engine.New(Name, enginetest.Env(t, lib, cfg))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(mode string) (*engine.Answer, error) {
		return s.Answer(t.Context(), engine.Request{Question: paraphraseQuestion, Docs: []docstore.DocID{docs[0].ID},
			Options: map[string]string{"k": "1", "retrieval": mode}}, nil)
	}
	words, err := ask("words")
	if err != nil || len(words.Statements) != 1 || strings.Contains(words.Statements[0].Text, "Purchases") {
		t.Fatalf("words: %+v %v", words, err)
	}
	meaning, err := ask("meaning")
	if err != nil || len(meaning.Statements) != 1 || !strings.Contains(meaning.Statements[0].Text, "Purchases") {
		t.Fatalf("meaning: %+v %v", meaning, err)
	}
	if _, err := New(lib).Answer(t.Context(), engine.Request{Question: "capital", Options: map[string]string{"retrieval": "meaning"}}, nil); !errors.Is(err, engine.ErrOption) {
		t.Errorf("meaning without a model: %v", err)
	}
}
