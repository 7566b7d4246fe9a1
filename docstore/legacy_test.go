package docstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/docstoretest"
)

// salvageInto salvages the library at path into a new one and returns
// the report and the texts of the documents the new library holds.
func salvageInto(t *testing.T, path string) (*SalvageReport, []string) {
	t.Helper()
	src, err := Open(path, &Options{ReadDamaged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := openAtUnchecked(t, filepath.Join(t.TempDir(), "salvaged.db"))
	defer dst.Close()
	rep, err := src.Salvage(t.Context(), dst, fixtureSplit, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := dst.List()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, d := range docs {
		doc, err := dst.Document(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, doc.Text)
	}
	return rep, texts
}

// TestOlderSchemaCheckAndSalvage (issue 34, item 9): check and salvage
// read every schema citelens has written. A healthy library of schema 1
// or 3 is healthy to check (older, with what carries it forward), not
// "damaged, 0 readable", and salvage copies every document with its
// text; when the old library is damaged too, salvage still recovers the
// text that is in the file.
func TestOlderSchemaCheckAndSalvage(t *testing.T) {
	for _, version := range []string{"1", "3"} {
		t.Run("schema "+version+"/healthy", func(t *testing.T) {
			t.Parallel()
			path := reportsLibrary(t)
			want := listTexts(t, path)
			downgrade(t, path, version)
			in, err := inspectDamaged(t, path)
			if err != nil || !in.OK() || in.Documents != len(want) || in.Readable != len(want) || !strings.Contains(in.Older, "schema "+version) {
				t.Fatalf("check of a healthy schema %s library = %+v, %v", version, in, err)
			}
			rep, texts := salvageInto(t, path)
			if len(rep.Copied) != len(want) || len(rep.Lost)+len(rep.Resegmented) != 0 {
				t.Fatalf("salvage copied %d, re-segmented %d, lost %d of %d documents", len(rep.Copied), len(rep.Resegmented), len(rep.Lost), len(want))
			}
			checkTexts(t, rep, texts, want)
		})
		t.Run("schema "+version+"/damaged", func(t *testing.T) {
			t.Parallel()
			path := reportsLibrary(t)
			want := listTexts(t, path)
			downgrade(t, path, version)
			docstoretest.FreeLivePage(t, path)
			in, err := inspectDamaged(t, path)
			if err != nil || in.OK() || in.Readable != len(want) {
				t.Fatalf("check of a damaged schema %s library = %+v, %v; want the damage and every document readable", version, in, err)
			}
			rep, texts := salvageInto(t, path)
			if len(rep.Copied) != len(want) {
				t.Fatalf("salvage copied %d, re-segmented %d, lost %d of %d documents", len(rep.Copied), len(rep.Resegmented), len(rep.Lost), len(want))
			}
			checkTexts(t, rep, texts, want)
		})
		t.Run("schema "+version+"/metadata lost", func(t *testing.T) {
			t.Parallel()
			path := reportsLibrary(t)
			want := listTexts(t, path)
			downgrade(t, path, version)
			breakBucketRoot(t, path, bucketDocs)
			docstoretest.Within(t, "check and salvage", func() {
				in, err := inspectDamaged(t, path)
				if err != nil || in.OK() || in.Documents != len(want) {
					t.Fatalf("check of a schema %s library without its metadata = %+v, %v", version, in, err)
				}
				rep, texts := salvageInto(t, path)
				if len(rep.Resegmented) != len(want) {
					t.Fatalf("salvage copied %d, re-segmented %d, lost %d of %d documents", len(rep.Copied), len(rep.Resegmented), len(rep.Lost), len(want))
				}
				checkTexts(t, rep, texts, want)
			})
		})
	}
}

// breakBucketRoot damages the library file at path so that the root
// page of its top-level bucket name is no page of records: everything in
// that bucket is out of reach.
func breakBucketRoot(t *testing.T, path string, name []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	pageSize := db.Info().PageSize
	err = db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket(name).Root())
		return nil
	})
	db.Close()
	if err != nil || root == 0 {
		t.Fatalf("bucket %s: root %d, %v", name, root, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte{0x7f, 0x7f}, int64(root)*int64(pageSize)+8); err != nil {
		t.Fatal(err)
	}
}

// listTexts returns the text of each document of the library at path,
// by name.
func listTexts(t *testing.T, path string) map[string]string {
	t.Helper()
	l := openAtUnchecked(t, path)
	defer l.Close()
	docs, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		doc, err := l.Document(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[d.Name] = doc.Text
	}
	return out
}

// checkTexts fails the test unless the documents salvaged (their names,
// rep; their texts, got) are those added (want: texts by name).
func checkTexts(t *testing.T, rep *SalvageReport, got []string, want map[string]string) {
	t.Helper()
	for _, d := range rep.Copied {
		if _, ok := want[d.Name]; !ok {
			t.Errorf("salvaged a document named %q, which was not added", d.Name)
		}
	}
	texts := map[string]bool{}
	for _, text := range want {
		texts[text] = true
	}
	for _, text := range got {
		if !texts[text] {
			t.Errorf("salvaged a text not added: %.40q", text)
		}
	}
	if len(got) != len(want) {
		t.Errorf("salvaged %d documents of %d", len(got), len(want))
	}
}
