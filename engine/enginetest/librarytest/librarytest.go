// Package librarytest makes libraries for tests: a library in a
// temporary folder with documents added, checked for consistency and
// closed when the test ends, and the files to add. It is the part of the
// engine's test rig (engine/enginetest) that needs no engine, so the
// engine's lower layers (engine/retrieve, engine/dense) test with it too.
// It is imported by tests only.
package librarytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/docstore"
)

// Library opens a library in a temporary folder and adds the files at
// paths, returning it with their documents in the same order. When the
// test ends the library is checked (Library.Check) and closed, so a test
// that leaves it inconsistent fails even if its own assertions pass.
func Library(t testing.TB, paths ...string) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	lib, err := docstore.Open(filepath.Join(t.TempDir(), "library.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lib.Check(); err != nil {
			t.Errorf("library inconsistent at the end of the test: %v", err)
		}
		if err := lib.Close(); err != nil {
			t.Error(err)
		}
	})
	docs := make([]*docstore.Document, 0, len(paths))
	for _, p := range paths {
		info, _, err := lib.Add(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := lib.Document(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	return lib, docs
}

// TextLibrary is Library over texts written to files first: nameText
// holds name, text pairs ("a.txt", textA, "b.txt", textB…), and the
// documents come back in the order of the pairs. The name is the file's,
// so it is what citations and prompts call the document.
func TextLibrary(t testing.TB, nameText ...string) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	if len(nameText)%2 != 0 {
		t.Fatalf("enginetest.TextLibrary takes name, text pairs; got %d strings", len(nameText))
	}
	paths := make([]string, 0, len(nameText)/2)
	for i := 0; i < len(nameText); i += 2 {
		paths = append(paths, WriteFile(t, nameText[i], nameText[i+1]))
	}
	return Library(t, paths...)
}

// WriteFile writes text to a file called name in a new temporary folder
// (so two calls with one name do not collide) and returns its path.
func WriteFile(t testing.TB, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteTree writes files (slash-separated paths relative to dir, and
// their text) under dir, making the folders they need, and returns dir.
func WriteTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
