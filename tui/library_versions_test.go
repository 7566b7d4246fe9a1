package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/library"
)

// The library pane reads the compact listing, which keeps each
// document's previous version: a document with a newer version is known
// as older, and a whole-library question is asked of the latest
// versions only (issue 35), as on the command line.
func TestLibraryListingKnowsVersions(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	b, err := os.ReadFile(declaration)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "declaration.txt")
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "Taxes", "Duties", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	v2, _, err := ingest.New(lib, &ingest.Options{NewVersionOf: docs[0].ID}).Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := loadLibrary(lib)().(libraryMsg)
	if !ok || msg.err != nil || len(msg.docs) != 2 {
		t.Fatalf("the listing: %+v", msg)
	}
	sel, err := themes.NewSelector("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := library.New(sel.Initial())
	m.SetDocs(msg.docs)
	if got := m.Scope(); !slices.Equal(got, []docstore.DocID{v2.ID}) {
		t.Errorf("the whole library's scope is %v, want the latest version %s only", got, v2.ID)
	}
}
