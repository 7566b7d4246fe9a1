package retrieve

import (
	"github.com/citelens/citelens/docstore"
	"strings"
	"testing"
)

// TestContextFollowUp: a follow-up that names nothing itself finds what
// the conversation is about through the previous question's words, and
// one that names something keeps it first.
func TestContextFollowUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	// "what did he direct?" alone finds Sinister's director; after a
	// question about Ed Wood, the film about him comes first.
	alone, err := f.r.Sentences(ctx, "what did he direct?", Options{Docs: []docstore.DocID{f.films}, K: 2})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := f.r.Sentences(ctx, "what did he direct?", Options{Docs: []docstore.DocID{f.films}, K: 2, Context: "Who is Ed Wood?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone) == 0 || strings.Contains(alone[0].Text, "Ed Wood") || len(ps) == 0 || !strings.Contains(ps[0].Text, "Ed Wood") {
		t.Errorf("follow-up: alone %q, with the context %q", texts(alone), texts(ps))
	}
	// A question with no index terms at all takes the context's.
	if ps, _ := f.r.Sentences(ctx, "and then?", Options{Docs: []docstore.DocID{f.manual}, K: 2}); len(ps) != 0 {
		t.Errorf("a question without words found %q", texts(ps))
	}
	ps, err = f.r.Sentences(ctx, "and then?", Options{Docs: []docstore.DocID{f.manual}, K: 2, Context: "how are lists created?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || !strings.Contains(ps[0].Text, "Lists are created with list()") {
		t.Errorf("wordless follow-up: %q", texts(ps))
	}
	// The question's own words outweigh the context's.
	ps, err = f.r.Sentences(ctx, "what is Sinister?", Options{Docs: []docstore.DocID{f.films}, K: 1, Context: "Who is Ed Wood?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || !strings.Contains(ps[0].Text, "Sinister") {
		t.Errorf("the context outweighed the question: %q", texts(ps))
	}
}

func texts(ps []Passage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}
