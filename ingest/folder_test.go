package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"b.txt", "a.md", "notes.xlsx", "data.xlsx", "README", ".hidden.txt",
		".git/config.txt", "sub/c.pdf", "sub/d.html", "sub/e.bin"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Folder(context.Background(), dir, MaxFolderFiles)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range c.Files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if want := []string{"a.md", "b.txt", "sub/c.pdf", "sub/d.html"}; !slices.Equal(rel, want) {
		t.Errorf("files %v, want %v", rel, want)
	}
	if c.Hidden != 2 || c.Unsupported[".xlsx"] != 2 || c.Unsupported[""] != 1 || c.Unsupported[".bin"] != 1 || c.Skipped() != 6 || c.More {
		t.Errorf("passed over: %+v (skipped %d)", c, c.Skipped())
	}
	if kinds := c.UnsupportedKinds(); !slices.Equal(kinds, []string{".xlsx", "", ".bin"}) {
		t.Errorf("kinds %q", kinds)
	}
	if _, err := Folder(context.Background(), filepath.Join(dir, "missing"), 0); err == nil {
		t.Error("a missing folder is no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Folder(ctx, dir, MaxFolderFiles); err == nil {
		t.Error("a cancelled walk is no error")
	}
}
