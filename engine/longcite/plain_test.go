package longcite

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// TestPlain: the plain strategy sends the whole document and the
// question in CoF's draft prompt (LongCite's LQA setting) and answers with
// the model's sentences, uncited.
func TestPlain(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, "../../testdata/declaration.txt")
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("Governments derive their powers from the consent of the governed. They secure rights.")
	}))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	ans, err := ask(t, env, PlainName, engine.Request{Question: "Where do governments derive their powers from?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Statements) != 2 || ans.Statements[0].Text != "Governments derive their powers from the consent of the governed." || len(ans.Statements[0].Citations) != 0 {
		t.Errorf("statements %+v", ans.Statements)
	}
	reqs := srv.ChatRequests()
	// C_LQA feeds the context and the question, nothing else: no
	// instruction about citations or plain text (CoF's step 1 has those).
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].Last(), "[Document Start]\n") || strings.Contains(reqs[0].Last(), "citation") ||
		!strings.Contains(reqs[0].Last(), docs[0].SentenceText(len(docs[0].Sentences)-1)) || !strings.HasSuffix(reqs[0].Last(), "[Question]\nWhere do governments derive their powers from?") {
		t.Errorf("%d requests; the prompt is not the document and the question alone:\n%.200s", len(reqs), reqs[0].Last())
	}
	if !strings.HasPrefix(ans.Stages[0], "answering without citations with test-model (") {
		t.Errorf("stages %q", ans.Stages)
	}
}
