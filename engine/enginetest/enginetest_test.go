package enginetest_test

import (
	"slices"
	"testing"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// The documents come back in the order of the pairs, named by them, with
// their text verbatim.
func TestTextLibraryKeepsOrderAndNames(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "b.txt", "Second file. It comes first.\n", "a.txt", "First file.\n")
	if len(docs) != 2 || docs[0].Name != "b.txt" || docs[1].Name != "a.txt" || docs[1].Text != "First file.\n" {
		t.Fatalf("documents %v", docs)
	}
	if list, err := lib.List(); err != nil || len(list) != 2 {
		t.Fatalf("library lists %d documents (%v)", len(list), err)
	}
}

// Env's client talks to the server it was configured for, and a
// retryable failure is retried.
func TestEnvRetriesAgainstServer(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Status(503), llmtest.Text("Hello."))
	env := enginetest.Env(t, lib, enginetest.Config(srv))
	reply, err := env.LLM.Chat(t.Context(), llm.ChatRequest{Messages: []llm.Message{llm.User("Hi?")}})
	if err != nil || reply.Text != "Hello." || len(srv.Requests()) != 2 {
		t.Fatalf("reply %+v, err %v, %d requests", reply, err, len(srv.Requests()))
	}
}

func TestNumbered(t *testing.T) {
	t.Parallel()
	nums, texts := enginetest.Numbered("Intro <C3>First. <C4>Second.\n<C10>Last")
	if !slices.Equal(nums, []int{3, 4, 10}) || texts[3] != "First. " || texts[4] != "Second.\n" || texts[10] != "Last" || len(texts) != 3 {
		t.Errorf("Numbered = %v, %v", nums, texts)
	}
	if nums, texts := enginetest.Numbered("no tags"); nums != nil || len(texts) != 0 {
		t.Errorf("untagged text: %v, %v", nums, texts)
	}
}
