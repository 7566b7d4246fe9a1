package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
)

// TestPGPagesWithoutTheFile: a library in PostgreSQL keeps a PDF's bytes,
// so once the file is gone from the disk that added it, its page is still
// drawn (the same picture) and reindex still reads it as a PDF; in a
// library file, which keeps no files, the page view says the file is
// missing.
func TestPGPagesWithoutTheFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", pagerendertest.CacheHome())
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		name string
		addr string
	}{{"pg", pgtest.New(t).URL()}, {"bolt", filepath.Join(t.TempDir(), "library.db")}} {
		c := newCLIAt(t, b.addr)
		path := filepath.Join(t.TempDir(), "r-intro.pdf")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c.ok("add", path)
		before := filepath.Join(t.TempDir(), "before.png")
		c.ok("show", "--page", "2", "--image", before, "--dpi", "50", "r-intro")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		after := filepath.Join(t.TempDir(), "after.png")
		_, errs, code := c.run("show", "--page", "2", "--image", after, "--dpi", "50", "r-intro")
		if b.name == "bolt" {
			if code == 0 || !strings.Contains(errs, "missing") {
				t.Errorf("bolt: the page of a missing file: status %d, %s", code, errs)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("pg: show --image without the file: status %d, %s", code, errs)
		}
		x, y := decodePNG(t, before), decodePNG(t, after)
		if string(x.Pix) != string(y.Pix) {
			t.Error("pg: the page drawn from the kept bytes differs from the file's")
		}
		if out := c.ok("reindex"); !strings.Contains(out, "1 read again from their files") {
			t.Errorf("pg: reindex without the file: %s", out)
		}
	}
}
