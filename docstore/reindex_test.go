package docstore

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/storage/boltkv"
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
			d, err := readDocument(boltkv.WrapTx(tx), DocID(k))
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

// manualDoc is the fixture document of a manual's text with its two
// headings, "# Installing" and "## Governing law", as sections over the
// lines under them: the layout the add pipeline gives it, made here.
func manualDoc(d *Document) *Document {
	fixtureSplit(d)
	for i, s := range d.Sentences {
		line := d.Text[s.Start:s.End]
		if level := len(line) - len(strings.TrimLeft(line, "#")); level > 0 {
			d.Sections = append(d.Sections, structure.Section{Heading: structure.Span{Start: s.Start + int32(level) + 1, End: s.End},
				Level: level, Parent: int32(len(d.Sections)) - 1, Sentence: int32(i)})
		}
		d.Sentences[i].Section = int32(len(d.Sections)) - 1
	}
	return d
}

func TestOlderSchemaIsRebuilt(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"1", "3"} {
		t.Run("schema "+version, func(t *testing.T) { testOlderSchemaIsRebuilt(t, version) })
	}
}

// testOlderSchemaIsRebuilt: a library of an older schema is refused with
// what to do; opened to upgrade, a rebuild lists its documents, reads
// their stored text from its old records, and carries each forward in
// this schema's records — the one rebuilt from its stored text keeping
// its geometry — and records the current schema.
func testOlderSchemaIsRebuilt(t *testing.T, version string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(manualMD, "Delaware", "Texas", 1)
	a, _, err := writeDoc(l, manualDoc(fixture("manual.md", manualMD)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := writeDoc(l, manualDoc(fixture("gone.md", other)), nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	downgrade(t, path, version)
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
	rb, err := l.Rebuild()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, info := range rb.Documents() {
		names = append(names, info.Name)
		var d *Document
		if info.ID == a.ID {
			// read again from its file
			d = manualDoc(fixture("manual.md", manualMD))
		} else {
			// rebuilt from its stored text
			if d, err = rb.Stored(info); err != nil {
				t.Fatal(err)
			}
			if d.Text != other || !slices.Equal(d.PageStarts, []int32{0}) || d.Name != "gone.md" {
				t.Fatalf("stored: %+v, text %q", d.DocInfo, d.Text)
			}
			manualDoc(d)
		}
		p, err := Prepare(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := rb.Replace(p, info.ID != a.ID); err != nil {
			t.Fatal(err)
		}
	}
	// oldest first, by name among documents added the same second
	if !slices.Equal(names, []string{"gone.md", "manual.md"}) {
		t.Fatalf("rebuilt %q", names)
	}
	if err := rb.Finish(); err != nil {
		t.Fatal(err)
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
	if err := rawBolt(l).View(func(tx *bolt.Tx) error {
		if g := tx.Bucket(bucketGeometry).Bucket([]byte(b.ID)); g == nil || g.Get(pageKey(1)) == nil {
			t.Errorf("the document rebuilt from its stored text lost its geometry")
		}
		for _, name := range [][]byte{bucketTextV2, bucketLayoutV2, bucketLengthsV2, bucketPostingsV2} {
			if tx.Bucket(name) != nil {
				t.Errorf("the old schema's bucket %s is left", name)
			}
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
