package docstore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

const manualMD = `# Installing

The installer needs a C compiler.

## Governing law

This agreement is construed under the laws of the State of Delaware.
`

// downgrade rewrites a library as citelens wrote schema version (1 to
// 3): text and layout records by DocID, the layout of pages, sentences
// (start, end, page) and chunks only, and none of schema 4's records.
func downgrade(t *testing.T, path, version string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		var docs []*Document
		c := tx.Bucket(bucketDocs).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			d, err := readDocument(tx, DocID(k))
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		for _, name := range slices.Concat([][]byte{bucketRecords}, contentBuckets) {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		for _, k := range [][]byte{keyLive, keyTotals, keyNextDoc} {
			tx.Bucket(bucketMeta).Delete(k)
		}
		text, _ := tx.CreateBucket(bucketTextV2)
		layout, _ := tx.CreateBucket(bucketLayoutV2)
		lengths, _ := tx.CreateBucket(bucketLengthsV2)
		postings, _ := tx.CreateBucket(bucketPostingsV2)
		for _, d := range docs {
			k := []byte(d.ID)
			v1 := putInt32s(nil, int32(len(d.PageStarts)))
			v1 = putInt32s(v1, d.PageStarts...)
			v1 = putInt32s(v1, int32(len(d.Sentences)))
			for _, s := range d.Sentences {
				v1 = putInt32s(v1, s.Start, s.End, s.Page)
			}
			v1 = putInt32s(v1, int32(len(d.Chunks)))
			for _, ch := range d.Chunks {
				v1 = putInt32s(v1, ch.First, ch.Last, ch.Tokens)
			}
			text.Put(k, []byte(d.Text))
			layout.Put(k, v1)
			lengths.CreateBucket(k)
			postings.CreateBucket(k)
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(version))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOlderSchemaIsReindexed(t *testing.T) {
	for _, version := range []string{"1", "3"} {
		t.Run("schema "+version, func(t *testing.T) { testOlderSchemaIsReindexed(t, version) })
	}
}

func testOlderSchemaIsReindexed(t *testing.T, version string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	l.Close()
	downgrade(t, path, version)
	os.Remove(gone) // rebuilt from its stored text
	// Geometry is kept by DocID in every schema: a document rebuilt from
	// its stored text keeps what it has.
	markGeometry(t, path, b.ID)

	// An older library is refused with what to do, not misread.
	if _, err := Open(path, nil); !errors.Is(err, ErrOlderSchema) || !strings.Contains(err.Error(), "citelens reindex") {
		t.Fatalf("opening a version-1 library: %v", err)
	}
	if _, err := Open(path, &Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) {
		t.Fatalf("opening it read-only: %v", err)
	}

	l, err = Open(path, &Options{Upgrade: true})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	rep, err := l.Reindex(t.Context(), func(p ReindexProgress) { seen = append(seen, p.Name) })
	if err != nil || rep.Documents != 2 || rep.FromFile != 1 {
		t.Fatalf("reindex: %+v, %v", rep, err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	l.Close()

	l = openAt(t, path)
	for _, id := range []DocID{a.ID, b.ID} {
		d, err := l.Document(id)
		if err != nil {
			t.Fatal(err)
		}
		i := len(d.Sentences) - 1
		if got := d.HeadingTrail(i); got != "Installing > Governing law" {
			t.Errorf("%s: last sentence under %q", d.Name, got)
		}
	}
	if n, err := matchCount(l, b.ID, "delaware texas"); err != nil || n == 0 {
		t.Errorf("the rebuilt document is not searchable: %d, %v", n, err)
	}
	if err := l.db.View(func(tx *bolt.Tx) error {
		if g := tx.Bucket(bucketGeometry).Bucket([]byte(b.ID)); g == nil || g.Get(pageKey(1)) == nil {
			t.Errorf("the document rebuilt from its stored text lost its geometry")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// markGeometry stores a (placeholder) geometry record for document id.
func markGeometry(t *testing.T, path string, id DocID) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		g, err := tx.Bucket(bucketGeometry).CreateBucketIfNotExists([]byte(id))
		if err != nil {
			return err
		}
		return g.Put(pageKey(1), []byte("page 1"))
	}); err != nil {
		t.Fatal(err)
	}
}
