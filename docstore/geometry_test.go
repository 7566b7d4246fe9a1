package docstore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// addPaged writes a fixture document of two pages with page geometry,
// as a PDF is added, and returns it as the library reads it back.
func addPaged(t *testing.T, l *Library, name, topic string) *Document {
	t.Helper()
	var b strings.Builder
	for page := range 2 {
		for i := range 30 {
			fmt.Fprintf(&b, "Paragraph %d of page %d is about %s and its history. It goes on for a while.\n", i, page+1, topic)
		}
		if page == 0 {
			b.WriteString("\f")
		}
	}
	d := fixture(name, b.String())
	d.Kind = "pdf"
	info, _, err := writeDoc(l, d, fixtureGeometry(d))
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestNoGeometry(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	info, _, err := writeText(l, "a.txt", "Plain text has no pages to draw.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Geometry().SpanRects(info.ID, 0, 5); !errors.Is(err, ErrNoGeometry) || !strings.Contains(err.Error(), "citelens reindex") {
		t.Errorf("text file: %v, want ErrNoGeometry naming the fix", err)
	}
	if _, _, err := l.Geometry().PageSize("0123456789abcdef", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown document: %v", err)
	}
}

// TestSalvageKeepsGeometry: a salvaged PDF keeps its page view, the same
// rectangles for the same bytes; one whose geometry is damaged is copied
// without it (its text is what matters), not lost.
func TestSalvageKeepsGeometry(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addPaged(t, l, "r-intro.pdf", "rivers")
	other := addPaged(t, l, "two-column.pdf", "courts")
	s := d.Sentences[len(d.Sentences)/2]
	want, err := l.Geometry().SpanRects(d.ID, int(s.Start), int(s.End))
	if err != nil || len(want) == 0 {
		t.Fatalf("SpanRects = %v, %v", want, err)
	}
	// page 1 of the other document's geometry: bytes that do not decode
	if err := rawBolt(l).Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketGeometry).Bucket([]byte(other.ID)).Put(pageKey(1), []byte{0xff, 0xff, 0xff})
	}); err != nil {
		t.Fatal(err)
	}

	dst := openTestLibrary(t)
	rep, err := l.Salvage(t.Context(), dst, fixtureSplit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Copied) != 2 || len(rep.Lost) != 0 {
		t.Fatalf("salvage copied %d documents and lost %v", len(rep.Copied), rep.Lost)
	}
	got, err := dst.Geometry().SpanRects(d.ID, int(s.Start), int(s.End))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("salvaged SpanRects = %v, %v; want %v", got, err, want)
	}
	if _, err := dst.Geometry().SpanRects(other.ID, 0, 10); !errors.Is(err, ErrNoGeometry) {
		t.Errorf("the document whose geometry was damaged: SpanRects = %v, want ErrNoGeometry", err)
	}
	if _, err := dst.Document(other.ID); err != nil {
		t.Errorf("the document whose geometry was damaged was not copied whole: %v", err)
	}
}

// TestRebuildKeepsOrReplacesGeometry: a document rebuilt from its stored
// text without geometry keeps the geometry stored; one rebuilt with
// geometry (read again from its file) gets that; removing a document
// removes its geometry.
func TestRebuildKeepsOrReplacesGeometry(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addPaged(t, l, "a.pdf", "rivers")
	s := d.Sentences[len(d.Sentences)/2]
	want, err := l.Geometry().SpanRects(d.ID, int(s.Start), int(s.End))
	if err != nil || len(want) == 0 {
		t.Fatalf("SpanRects = %v, %v", want, err)
	}
	rebuild := func(geometry func(*Document) [][]byte, sameText bool) {
		t.Helper()
		rb, err := l.Rebuild()
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range rb.Documents() {
			nd, err := rb.Stored(info)
			if err != nil {
				t.Fatal(err)
			}
			fixtureSplit(nd)
			p, err := Prepare(nd, geometry(nd))
			if err != nil {
				t.Fatal(err)
			}
			if err := rb.Replace(p, sameText); err != nil {
				t.Fatal(err)
			}
		}
		if err := rb.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	rebuild(func(*Document) [][]byte { return nil }, true)
	if got, err := l.Geometry().SpanRects(d.ID, int(s.Start), int(s.End)); err != nil || !slices.Equal(got, want) {
		t.Errorf("rebuilt from its stored text: SpanRects = %v, %v; want %v", got, err, want)
	}
	rebuild(func(*Document) [][]byte { return nil }, false)
	if _, err := l.Geometry().SpanRects(d.ID, 0, 10); !errors.Is(err, ErrNoGeometry) {
		t.Errorf("rebuilt from a changed text without geometry: SpanRects = %v, want ErrNoGeometry", err)
	}
	rebuild(fixtureGeometry, false)
	if got, err := l.Geometry().SpanRects(d.ID, int(s.Start), int(s.End)); err != nil || !slices.Equal(got, want) {
		t.Errorf("rebuilt with its geometry: SpanRects = %v, %v; want %v", got, err, want)
	}
	if err := l.Remove(d.ID); err != nil {
		t.Fatal(err)
	}
	err = rawBolt(l).View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketGeometry).Bucket([]byte(d.ID)) != nil {
			return errors.New("the removed document's geometry is still stored")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}
