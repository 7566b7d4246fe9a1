// Package librarytest makes libraries for tests: a library in a
// temporary folder with documents added, checked for consistency and
// closed when the test ends, and the files to add. It is the part of the
// engine's test rig (engine/enginetest) that needs no engine, so the
// engine's lower layers (engine/retrieve, engine/dense) test with it too.
// It is imported by tests only.
package librarytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// DerivedSet is the derivation Derive stores: llmtest's model's, chunks
// of 256 tokens overlapping by 50.
var DerivedSet = docstore.DerivedSet{Model: "test-model", Tokens: 256, Overlap: 50, Version: 1}

// Derive stores and indexes a derivation of d as engine/raidd would
// through a model, without one: chunks of four sentences, each with a
// summary naming its part and its first words ("Part 3 concerns …") and
// two questions naming its part ("What opens part 3?", "Who is named in
// part 3?").
func Derive(t testing.TB, lib *docstore.Library, d *docstore.Document) docstore.DerivedSet {
	t.Helper()
	var chunks []docstore.Chunk
	for first := 0; first < len(d.Sentences); first += 4 {
		chunks = append(chunks, docstore.Chunk{First: int32(first), Last: int32(min(first+3, len(d.Sentences)-1))})
	}
	if _, err := lib.Derived().Begin(d.ID, DerivedSet, chunks); err != nil {
		t.Fatal(err)
	}
	var recs []docstore.DerivedChunk
	for i, c := range chunks {
		words := strings.Fields(d.SentenceText(int(c.First)))
		recs = append(recs, docstore.DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last),
			Summary:   fmt.Sprintf("Part %d concerns %s.", i, strings.Join(words[:min(5, len(words))], " ")),
			Questions: []string{fmt.Sprintf("What opens part %d?", i), fmt.Sprintf("Who is named in part %d?", i)}})
	}
	if err := lib.Derived().Put(d.ID, DerivedSet, recs...); err != nil {
		t.Fatal(err)
	}
	if err := lib.Derived().Index(d.ID, DerivedSet); err != nil {
		t.Fatal(err)
	}
	return DerivedSet
}
