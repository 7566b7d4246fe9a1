package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/docstore"
)

// TestReindexFromKeptFile: a library that keeps files reindexes a PDF
// whose file is gone from its bytes, as from the file (its layout, so its
// geometry), where one that does not keep them rebuilds it from its text.
func TestReindexFromKeptFile(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{true, false} {
		dir := t.TempDir()
		data, err := os.ReadFile("../testdata/licenses-qa/docs/mpl-2.0.pdf")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "mpl.pdf")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		policy := docstore.FilesSkip
		if keep {
			policy = docstore.FilesKeep
		}
		lib, err := docstore.Open(filepath.Join(dir, "library.db"), &docstore.Options{Files: policy})
		if err != nil {
			t.Fatal(err)
		}
		p := New(lib, nil)
		info, _, err := p.Add(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (info.File != nil) != keep {
			t.Errorf("keep %v: the document's file record is %+v", keep, info.File)
		}
		if keep && info.File.Size != int64(len(data)) {
			t.Errorf("the kept file's size: %d, want %d", info.File.Size, len(data))
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		rep, err := p.Reindex(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if keep {
			want = 1
		}
		if rep.Documents != 1 || rep.FromFile != want {
			t.Errorf("keep %v: reindex without the file: %+v, want %d from the file", keep, rep, want)
		}
		after, err := lib.Info(info.ID)
		if err != nil || (after.File == nil) != !keep || after.AddedBy == nil {
			t.Errorf("keep %v: after reindex: file %+v, added by %+v, %v", keep, after.File, after.AddedBy, err)
		}
		if keep {
			if _, ok, err := lib.Files().Original(info.ID); !ok || err != nil {
				t.Errorf("the kept file after reindex: %v %v", ok, err)
			}
		}
		lib.Close()
	}
}

// TestReindexStoresFiles: a library that keeps files, holding documents
// added without theirs (copied in from a library file), gets each file
// whose original is on this disk when reindexed.
func TestReindexStoresFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mpl.pdf")
	data, err := os.ReadFile("../testdata/licenses-qa/docs/mpl-2.0.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	libPath := filepath.Join(dir, "library.db")
	lib, err := docstore.Open(libPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := New(lib, nil).Add(context.Background(), path, nil)
	lib.Close()
	if err != nil || info.File != nil {
		t.Fatalf("added to a library that keeps no files: %+v %v", info.File, err)
	}
	lib, err = docstore.Open(libPath, &docstore.Options{Files: docstore.FilesKeep})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if _, err := New(lib, nil).Reindex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got, ok, err := lib.Files().Original(info.ID)
	if err != nil || !ok || string(got) != string(data) {
		t.Errorf("after reindex, the kept file: %d bytes, %v, %v", len(got), ok, err)
	}
}
