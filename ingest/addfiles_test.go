package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

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

// TestAddFilesBatches: files added together are written several to a
// transaction, reported in the order given, a duplicate as existing, a
// bad file as failed without failing the others.
func TestAddFilesBatches(t *testing.T) {
	t.Parallel()
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
	before := streamedPieces.Load()
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
	if d.Text != text || info.ID != docstore.IDFor([]byte(text)) {
		t.Fatal("the stored text is not the file's")
	}
	if len(text) < 4*streamPiece {
		t.Fatalf("a %d-byte text is not many pieces of %d", len(text), streamPiece)
	}
	if n := streamedPieces.Load() - before; n < 4 {
		t.Fatalf("%d pieces: the text was not written a piece at a time", n)
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
				if n, err := matchCount(l.Library, info.ID, term); err != nil || n != 1 {
					t.Fatalf("%s: %d sentences, %v", term, n, err)
				}
			}
		}
	}
	// A word of every paragraph has postings in every piece's segment:
	// Each gives them all, in unit order, each sentence's once.
	var units []int
	err = l.Index().Read([]docstore.DocID{info.ID}, docstore.FieldSentences, textproc.Terms("harbour"), func(r *docstore.IndexReader) error {
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
	// Adding it again finds it, without streaming it again. (That the
	// published pieces leave nothing building or pending is docstore's
	// TestPieceWriter's.)
	before = streamedPieces.Load()
	if _, existed, err := l.Add(t.Context(), path, nil); err != nil || !existed {
		t.Errorf("second add: %v, existed %v", err, existed)
	}
	if n := streamedPieces.Load() - before; n != 0 {
		t.Errorf("the second add streamed %d pieces", n)
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
