package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
)

const manualMD = `# Installing

The installer needs a C compiler.

## Governing law

This agreement is construed under the laws of the State of Delaware.
`

// TestReindexFromFileAndStoredText: reindex reads a document again from
// its file when the file is where it was added from, unchanged, and
// rebuilds the other from its stored text; both come back with their
// headings nested and searchable, under the names they had. (A library of
// an older schema carried forward by a rebuild is docstore's
// TestOlderSchemaIsRebuilt.)
func TestReindexFromFileAndStoredText(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "library.db")
	l := openAt(t, path, nil)
	kept := writeFile(t, "manual.md", manualMD)
	gone := writeFile(t, "gone.md", strings.Replace(manualMD, "Delaware", "Texas", 1))
	a, _, err := l.Add(t.Context(), kept, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := l.Add(t.Context(), gone, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(gone) // rebuilt from its stored text
	var seen []string
	rep, err := l.Reindex(t.Context(), func(p ReindexProgress) { seen = append(seen, p.Name) })
	if err != nil || rep.Documents != 2 || rep.FromFile != 1 {
		t.Fatalf("reindex: %+v, %v", rep, err)
	}
	if !slices.Equal(seen, []string{"manual.md", "gone.md", ""}) {
		t.Errorf("progress named %q", seen)
	}
	for _, want := range []docstore.DocInfo{a, b} {
		d, err := l.Document(want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Name != want.Name || d.Path != want.Path || !d.Added.Equal(want.Added) || d.Title != want.Title {
			t.Errorf("%s: reindexed as %+v", want.Name, d.DocInfo)
		}
		i := len(d.Sentences) - 1
		if got := d.HeadingTrail(i); got != "Installing > Governing law" {
			t.Errorf("%s: last sentence under %q", d.Name, got)
		}
	}
	if n, err := matchCount(l.Library, b.ID, "delaware texas"); err != nil || n == 0 {
		t.Errorf("the rebuilt document is not searchable: %d, %v", n, err)
	}
}
