package retrieve

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/synthetic"
)

// syntheticLibrary adds n seeded synthetic documents to a library, a
// batch at a time so that the index has several segments, and returns it
// with their texts.
func syntheticLibrary(t *testing.T, n int) (*docstore.Library, []string) {
	t.Helper()
	lib, _ := librarytest.Library(t)
	c := synthetic.New(7, 20_000)
	dir := t.TempDir()
	var texts, paths []string
	for i := range n {
		var b strings.Builder
		if err := c.Document(&b, c.DocSize()/4); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("doc%03d.txt", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		texts, paths = append(texts, b.String()), append(paths, p)
	}
	for len(paths) > 0 {
		k := min(len(paths), 7)
		if err := ingest.New(lib, nil).AddFiles(t.Context(), paths[:k], ingest.AddOptions{Jobs: 2}); err != nil {
			t.Fatal(err)
		}
		paths = paths[k:]
	}
	return lib, texts
}

// TestSearchPruningIsExact: the search that skips what cannot make the
// cut (MaxScore) returns exactly what scoring every posting returns, for
// the whole library and for part of it, at several depths.
func TestSearchPruningIsExact(t *testing.T) {
	lib, texts := syntheticLibrary(t, 60)
	ids, err := lib.IDs()
	if err != nil {
		t.Fatal(err)
	}
	c := synthetic.New(11, 20_000)
	defer func() { pruning = true }()
	for i := range 40 {
		q := ParseQuery(c.QuestionAbout(texts[(i*7)%len(texts)]))
		for _, opt := range []SearchOptions{
			{K: 5}, {K: 50}, {K: 300},
			{K: 10, Docs: ids[3:9]},
			{K: 20, Field: docstore.FieldChunks},
			{K: 5, Field: docstore.FieldHeadings},
		} {
			pruning = true
			pruned, err := Search(lib, q, opt)
			if err != nil {
				t.Fatal(err)
			}
			pruning = false
			all, err := Search(lib, q, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(pruned, all) {
				t.Fatalf("query %v, %+v:\npruned %v\nall    %v", q.Terms, opt, pruned, all)
			}
			if len(all) == 0 && opt.Docs == nil && opt.Field == docstore.FieldSentences {
				t.Errorf("query %v found nothing: the test proves little", q.Terms)
			}
		}
	}
}
