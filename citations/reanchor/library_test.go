package reanchor

import (
	"errors"
	"testing"

	"github.com/citelens/citelens/docstore"
)

// A line of three versions leads its first two to the third; a damaged
// link that loops stops at a version seen instead of running for ever.
func TestLatestVersions(t *testing.T) {
	t.Parallel()
	infos := []docstore.DocInfo{{ID: "a"}, {ID: "b", Previous: "a"}, {ID: "c", Previous: "b"}, {ID: "x"},
		{ID: "p", Previous: "q"}, {ID: "q", Previous: "p"}}
	got := LatestVersions(infos)
	for id, want := range map[docstore.DocID]docstore.DocID{"a": "c", "b": "c"} {
		if got[id] != want {
			t.Errorf("latest of %s = %q, want %q", id, got[id], want)
		}
	}
	if _, ok := got["c"]; ok {
		t.Error("the latest version is given a newer one")
	}
	if _, ok := got["x"]; ok {
		t.Error("a document with one version is given a newer one")
	}
	if got["p"] == "" || got["q"] == "" {
		t.Errorf("a loop of links: %v", got)
	}
}

type countingDocs struct {
	docs  map[docstore.DocID]*docstore.Document
	reads int
}

func (c *countingDocs) Document(id docstore.DocID) (*docstore.Document, error) {
	c.reads++
	if d, ok := c.docs[id]; ok {
		return d, nil
	}
	return nil, docstore.ErrNotFound
}

// InLibrary aligns a pair once and reads neither version again; a
// version missing from the library is an error, not a silent "latest".
func TestInLibraryAlignsOnce(t *testing.T) {
	t.Parallel()
	docs := &countingDocs{docs: map[docstore.DocID]*docstore.Document{
		"a": {Text: "One sentence. Two."}, "b": {Text: "One sentence. Two!"}}}
	newer := InLibrary(docs, []docstore.DocInfo{{ID: "a"}, {ID: "b", Previous: "a"}}, NewAligner(4))
	for range 3 {
		p, ok, err := newer("a")
		if err != nil || !ok || p.To != "b" || p.Alignment == nil {
			t.Fatalf("newer(a) = %+v, %v, %v", p, ok, err)
		}
	}
	if docs.reads != 2 {
		t.Errorf("%d document reads for three looks at one pair, want 2", docs.reads)
	}
	if _, ok, err := newer("b"); ok || err != nil {
		t.Errorf("the latest version: ok %v, err %v", ok, err)
	}
	gone := InLibrary(docs, []docstore.DocInfo{{ID: "a"}, {ID: "z", Previous: "a"}}, NewAligner(4))
	if _, _, err := gone("a"); !errors.Is(err, docstore.ErrNotFound) {
		t.Errorf("a latest version that cannot be read: %v", err)
	}
}
