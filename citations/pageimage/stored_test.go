package pageimage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/ingest"
)

// TestStoredFile: in a library that keeps files, a PDF's pages are drawn
// from the bytes it kept when the file is gone from this disk, and when
// another file stands at its path (the kept bytes are what was cited);
// the page is the same picture as from the file.
func TestStoredFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r-intro.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := docstore.Open(filepath.Join(dir, "library.db"), &docstore.Options{Files: docstore.FilesKeep})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	info, _, err := ingest.New(lib, nil).Add(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := lib.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := pagerendertest.Renderer(t)
	ctx := context.Background()
	draw := func() []byte {
		t.Helper()
		// A new Source each time: nothing kept open from before.
		s := pageimage.New(lib.Geometry(), r)
		defer s.Close()
		page, err := s.Page(ctx, doc, 2, nil, 72)
		if err != nil {
			t.Fatal(err)
		}
		return page.Image.Pix
	}
	fromFile := draw()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := draw(); string(got) != string(fromFile) {
		t.Error("the page drawn from the kept bytes differs from the file's")
	}
	if err := os.WriteFile(path, []byte("%PDF-1.4 another file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := draw(); string(got) != string(fromFile) {
		t.Error("with another file at the path, the page differs from the kept file's")
	}
}
