package docstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/internal/textproc"
)

// holders returns the documents whose postings of term the index reads,
// over the whole library.
func holders(t *testing.T, l *Library, term string) map[DocID]int {
	t.Helper()
	out := map[DocID]int{}
	err := l.Index().Read(nil, FieldSentences, []string{term}, func(r *IndexReader) error {
		p := r.Postings(0)
		for p.Next() {
			id, err := r.DocID(p.Doc())
			if err != nil {
				return err
			}
			out[id] = p.Count()
		}
		return p.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// segmentCount is the number of active segments.
func segmentCount(t *testing.T, l *Library) int {
	t.Helper()
	n := 0
	err := l.db.View(func(tx *bolt.Tx) error {
		segs, err := readSegments(tx, segActive)
		n = len(segs)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// smallDocs writes n small documents, each naming its number, the last
// word shared by all.
func smallDocs(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d.txt", i))
		text := fmt.Sprintf("Document number%d talks about rivers and lakes.\n\nIts second paragraph mentions item%d and the common harbour.\n", i, i)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestSegmentsMergeAndDropRemoved: documents added a transaction at a
// time make a segment each; they are merged mergeFactor at a time, with
// every posting kept; a removed document's postings stop counting at once
// and are dropped by the merge of their segment.
func TestSegmentsMergeAndDropRemoved(t *testing.T) {
	l := openTestLibrary(t)
	paths := smallDocs(t, 2*mergeFactor+3)
	var ids []DocID
	for _, p := range paths {
		info, _, err := l.Add(t.Context(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	if n := segmentCount(t, l); n >= mergeFactor {
		t.Errorf("%d segments after %d adds: never merged", n, len(paths))
	}
	harbour := textproc.Terms("harbour")[0]
	if got := holders(t, l, harbour); len(got) != len(paths) {
		t.Fatalf("%d documents hold %q, want %d", len(got), harbour, len(paths))
	}
	for i, id := range ids {
		term := textproc.Terms(fmt.Sprintf("item%d", i))[0]
		if got := holders(t, l, term); len(got) != 1 || got[id] != 1 {
			t.Fatalf("item%d: %v", i, got)
		}
	}
	// Remove a third of the documents: gone from the postings at once.
	removed := ids[:len(ids)/3+1]
	if err := l.Remove(removed...); err != nil {
		t.Fatal(err)
	}
	got := holders(t, l, harbour)
	for _, id := range removed {
		if _, ok := got[id]; ok {
			t.Errorf("removed document %s still holds %q", id, harbour)
		}
	}
	if len(got) != len(ids)-len(removed) {
		t.Errorf("%d holders after removal, want %d", len(got), len(ids)-len(removed))
	}
	// The removal rewrote the segments it emptied by a third: none holds
	// a removed document's postings any more.
	err := l.db.View(func(tx *bolt.Tx) error {
		segs, err := readSegments(tx, segActive)
		for _, s := range segs {
			if 3*s.rec.dead >= len(s.rec.docs) && len(s.rec.docs) > 0 {
				t.Errorf("segment %d: %d of %d documents removed, not rewritten", s.id, s.rec.dead, len(s.rec.docs))
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := l.Index().Stats(nil, FieldSentences, []string{harbour})
	if err != nil || st.DF[0] > len(ids) || st.DF[0] < len(ids)-len(removed) {
		t.Errorf("df of %q = %v, %v", harbour, st.DF, err)
	}
}

// TestAddFilesBatches: files added together are written several to a
// transaction, reported in the order given, a duplicate as existing, a
// bad file as failed without failing the others.
func TestAddFilesBatches(t *testing.T) {
	l := openTestLibrary(t)
	paths := smallDocs(t, 30)
	bad := writeFile(t, "bad.txt", "\x00binary")
	dup := writeFile(t, "dup.txt", mustRead(t, paths[4]))
	all := append(append(append([]string{}, paths[:10]...), bad, dup), paths[10:]...)
	var got []AddResult
	if err := l.AddFiles(t.Context(), all, AddOptions{Jobs: 3, Done: func(r AddResult) { got = append(got, r) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("%d results for %d files", len(got), len(all))
	}
	for i, r := range got {
		if r.Path != all[i] {
			t.Fatalf("result %d is %s's, want %s's", i, r.Path, all[i])
		}
		switch r.Path {
		case bad:
			if r.Err == nil {
				t.Error("a binary file was added")
			}
		case dup:
			if r.Err != nil || !r.Existed {
				t.Errorf("duplicate: %+v", r)
			}
		default:
			if r.Err != nil || r.Existed {
				t.Errorf("%s: %+v", r.Path, r)
			}
		}
	}
	entries, total, err := l.Listing(0, 0)
	if err != nil || total != len(paths) || len(entries) != len(paths) {
		t.Fatalf("listing %d of %d, %v", len(entries), total, err)
	}
	for i, e := range entries[:10] {
		if e.Name != filepath.Base(paths[i]) {
			t.Errorf("listing %d is %s, want %s: not in the order added", i, e.Name, filepath.Base(paths[i]))
		}
	}
	page, total, err := l.Listing(25, 10)
	if err != nil || total != len(paths) || len(page) != 5 || page[0].Name != entries[25].Name {
		t.Errorf("page from 25: %v (of %d), %v", page, total, err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStreamedText: a text over the streaming threshold is added in
// pieces, and is the same document as one added whole: its text byte for
// byte, every sentence within it, headings nesting across the pieces'
// seams, and every word searchable.
func TestStreamedText(t *testing.T) {
	defer func(th int64, p int) { streamThreshold, streamPiece = th, p }(streamThreshold, streamPiece)
	streamThreshold, streamPiece = 4<<10, 8<<10
	var b strings.Builder
	for ch := 1; ch <= 6; ch++ {
		fmt.Fprintf(&b, "%d Chapter about topic%d\n\n", ch, ch)
		for sec := 1; sec <= 3; sec++ {
			fmt.Fprintf(&b, "%d.%d Section heading%d%d\n\n", ch, sec, ch, sec)
			for p := range 20 {
				fmt.Fprintf(&b, "Paragraph %d of section %d.%d discusses marker%d%d%02d at length. It adds a second sentence about the harbour.\n\n", p, ch, sec, ch, sec, p)
			}
		}
	}
	text := b.String()
	path := writeFile(t, "big.txt", text)
	l := openTestLibrary(t)
	var stages []string
	info, existed, err := l.Add(t.Context(), path, func(p Progress) { stages = append(stages, p.Stage) })
	if err != nil || existed {
		t.Fatalf("Add: %v, existed %v", err, existed)
	}
	if !strings.Contains(strings.Join(stages, " "), StageIndexing) {
		t.Errorf("stages %v", stages)
	}
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != text || info.ID != IDFor([]byte(text)) {
		t.Fatal("the stored text is not the file's")
	}
	if len(text) < 4*streamPiece {
		t.Fatalf("a %d-byte text is not many pieces of %d", len(text), streamPiece)
	}
	if n := segmentCount(t, l); n < 4 {
		t.Fatalf("%d segments: the text was not written a piece at a time", n)
	}
	// Headings nest across the seams: every section's parent is its
	// chapter.
	last := len(d.Sentences) - 1
	if got := d.HeadingTrail(last); got != "6 Chapter about topic6 > 6.3 Section heading63" {
		t.Errorf("last sentence under %q", got)
	}
	for ch := 1; ch <= 6; ch++ {
		for sec := 1; sec <= 3; sec++ {
			for p := range 20 {
				term := textproc.Terms(fmt.Sprintf("marker%d%d%02d", ch, sec, p))[0]
				if n, err := matchCount(l, info.ID, term); err != nil || n != 1 {
					t.Fatalf("%s: %d sentences, %v", term, n, err)
				}
			}
		}
	}
	// A word of every paragraph has postings in every piece's segment:
	// Each gives them all, in unit order, each sentence's once.
	var units []int
	err = l.Index().Read([]DocID{info.ID}, FieldSentences, textproc.Terms("harbour"), func(r *IndexReader) error {
		p := r.Postings(0)
		for p.Next() {
			if err := p.Each(func(unit, tf, length int) { units = append(units, unit) }); err != nil {
				return err
			}
		}
		return p.Err()
	})
	if err != nil || len(units) != 6*3*20 || !slices.IsSorted(units) || len(slices.Compact(slices.Clone(units))) != len(units) {
		t.Fatalf("harbour: %d postings (sorted %v), %v", len(units), slices.IsSorted(units), err)
	}
	for _, u := range units {
		if !strings.Contains(d.SentenceText(u), "harbour") {
			t.Fatalf("sentence %d does not hold harbour: %q", u, d.SentenceText(u))
		}
	}
	// Adding it again finds it, and nothing building is left.
	if _, existed, err := l.Add(t.Context(), path, nil); err != nil || !existed {
		t.Errorf("second add: %v, existed %v", err, existed)
	}
	err = l.db.View(func(tx *bolt.Tx) error {
		segs, err := readSegments(tx, segBuilding)
		if len(segs) > 0 {
			t.Errorf("%d segments left building", len(segs))
		}
		if k, _ := tx.Bucket(bucketPending).Cursor().First(); k != nil {
			t.Errorf("a pending record is left: %x", k)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStreamedTextRefusedLeavesNothing: a large file found not to be text
// halfway through its first pass is refused, naming the byte, and writes
// nothing.
func TestStreamedTextRefusedLeavesNothing(t *testing.T) {
	defer func(th int64) { streamThreshold = th }(streamThreshold)
	streamThreshold = 1 << 10
	text := strings.Repeat("A plain sentence of text. ", 200) + "\xff" + strings.Repeat("More text. ", 100)
	path := writeFile(t, "bad.txt", text)
	l := openTestLibrary(t)
	_, _, err := l.Add(t.Context(), path, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", 200*26)) {
		t.Fatalf("got %v", err)
	}
	if n, _ := l.Count(); n != 0 {
		t.Fatal("a document was added")
	}
}

// TestLargeUTF16TextIsAdded: a UTF-16 text over the streaming threshold
// is read whole (it is not streamed) and stored; it used to come back
// from the whole-file path as a stream and be reported added with
// nothing stored.
func TestLargeUTF16TextIsAdded(t *testing.T) {
	defer func(th int64) { streamThreshold = th }(streamThreshold)
	streamThreshold = 1 << 10
	text := strings.Repeat("A plain sentence of text about rivers. ", 100)
	raw := []byte{0xff, 0xfe} // UTF-16LE
	for _, r := range text {
		raw = append(raw, byte(r), 0)
	}
	path := writeFile(t, "wide.txt", string(raw))
	l := openTestLibrary(t)
	info, existed, err := l.Add(t.Context(), path, nil)
	if err != nil || existed || info.ID == "" {
		t.Fatalf("Add = %+v, %v, %v", info, existed, err)
	}
	d, err := l.Document(info.ID)
	if err != nil || !strings.HasPrefix(d.Text, "A plain sentence of text about rivers.") {
		t.Fatalf("Document = %v; text %q", err, d.Text[:min(len(d.Text), 60)])
	}
	if n, _ := l.Count(); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}

// TestOverlappingRunsAreDamage: runs of one document's postings that
// overlap (only a damaged index has them) are ErrCorrupt, not postings
// out of order.
func TestOverlappingRunsAreDamage(t *testing.T) {
	a := appendGroups(nil, 1, []groupPosting{{1, 1, 5}, {5, 1, 5}, {9, 2, 5}})
	b := appendGroups(nil, 1, []groupPosting{{3, 1, 4}, {7, 1, 4}})
	c := appendGroups(nil, 1, []groupPosting{{12, 1, 4}})
	p := &TermPostings{term: "harbour", read: -1}
	run := func(g group) PostingRun {
		return PostingRun{data: g.data, n: g.n, first: runStart(g.data), p: p}
	}
	var units []int
	each := func(unit, tf, length int) { units = append(units, unit) }
	if err := run(a[0]).Each(each); err != nil {
		t.Fatal(err)
	}
	if err := run(c[0]).Each(each); err != nil || !slices.Equal(units, []int{1, 5, 9, 12}) {
		t.Fatalf("units %v, %v", units, err)
	}
	if err := run(b[0]).Each(each); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "harbour") {
		t.Errorf("an overlapping run: %v", err)
	}
}
