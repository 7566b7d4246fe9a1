package docstore

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// TestWriteStoresWhatItIsGiven: a written document reads back as it was
// given — its text byte for byte, its pages, sentences, chunks, sections
// and tables — and content the library has already, earlier or in the
// same Write, is reported as existing and not written again.
func TestWriteStoresWhatItIsGiven(t *testing.T) {
	t.Parallel()
	forBackends(t, testWriteStoresWhatItIsGiven)
}

func testWriteStoresWhatItIsGiven(t *testing.T, bk backend) {
	l := bk.library(t)
	raw, err := os.ReadFile(sampleText)
	if err != nil {
		t.Fatal(err)
	}
	d := fixture("declaration.txt", string(raw))
	d.Title = "The Declaration of Independence"
	d.Sections = []structure.Section{{Heading: structure.Span{Start: d.Sentences[0].Start, End: d.Sentences[0].End}, Level: 1, Parent: -1, Sentence: 0}}
	for i := range d.Sentences {
		d.Sentences[i].Section = 0
	}
	d.Sentences[0].Flags = structure.FlagHeading
	row := d.Sentences[5]
	d.Tables = []structure.Table{{Rows: []structure.Span{{Start: row.Start, End: row.End}}}}
	d.Sentences[5].Table, d.Sentences[5].Flags = 0, structure.FlagTableRow
	p, err := Prepare(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Prepare(fixture("copy.txt", string(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := l.Write(p, again)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 2 || w[0].Existed || w[0].Info.ID != d.ID || !w[1].Existed || w[1].Info.Name != "declaration.txt" {
		t.Fatalf("Write = %+v", w)
	}
	got, err := l.Document(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != string(raw) || got.Title != d.Title || got.Bytes != len(raw) || got.NumSents != len(d.Sentences) || got.NumChunks != len(d.Chunks) {
		t.Fatalf("read back %+v", got.DocInfo)
	}
	if !slices.Equal(got.Sentences, d.Sentences) || !slices.Equal(got.Chunks, d.Chunks) || !slices.Equal(got.PageStarts, d.PageStarts) ||
		!slices.Equal(got.Sections, d.Sections) || len(got.Tables) != 1 || !slices.Equal(got.Tables[0].Rows, d.Tables[0].Rows) {
		t.Error("the layout read back is not the one written")
	}
	if got.HeadingTrail(3) != "The Declaration of Independence" || got.TableContext(5) != nil {
		t.Errorf("heading trail %q, table context %q", got.HeadingTrail(3), got.TableContext(5))
	}
	if n, err := matchCount(l, d.ID, "unalienable rights"); err != nil || n == 0 {
		t.Errorf("not searchable: %d, %v", n, err)
	}
	// Written again later: nothing changes.
	if info, existed, err := writeText(l, "again.txt", string(raw)); err != nil || !existed || info.Name != "declaration.txt" {
		t.Errorf("a second write: %+v, %v, %v", info, existed, err)
	}
	if docs, _ := l.List(); len(docs) != 1 {
		t.Errorf("%d documents", len(docs))
	}
}

// TestPrepareRefusesBrokenDocuments: a document whose layout lies about
// its text, whose counts are not its own, or whose geometry does not fit
// it is refused before anything is written, naming what is wrong.
func TestPrepareRefusesBrokenDocuments(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		fn   func(d *Document) [][]byte
		want string
	}{
		"a sentence past the text": {func(d *Document) [][]byte { d.Sentences[1].End = 1 << 20; return nil }, "sentence 1"},
		"a chunk past the sentences": {func(d *Document) [][]byte {
			d.Chunks[0].Last = int32(len(d.Sentences))
			return nil
		}, "chunk 0"},
		"a section under a later one": {func(d *Document) [][]byte {
			d.Sections = []structure.Section{{Heading: structure.Span{Start: 0, End: 3}, Level: 1, Parent: 0, Sentence: 0}}
			return nil
		}, "section 0"},
		"counts not its own": {func(d *Document) [][]byte { d.NumSents++; return nil }, "sentences"},
		"no pages":           {func(d *Document) [][]byte { d.PageStarts = nil; return nil }, "no pages"},
		"geometry of another page count": {func(d *Document) [][]byte {
			g := fixtureGeometry(d)
			return append(g, g[0])
		}, "geometry for 2 pages of 1"},
		"geometry past the text": {func(d *Document) [][]byte {
			return fixtureGeometry(fixture("longer.txt", d.Text+" And a fourth, past its end."))
		}, "page 1's geometry"},
	} {
		t.Run(name, func(t *testing.T) {
			d := fixture("doc.txt", "One sentence here. Another one there. A third to close.")
			geom := c.fn(d)
			if _, err := Prepare(d, geom); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), string(d.ID)) {
				t.Errorf("Prepare = %v, want an error naming the document and %q", err, c.want)
			}
		})
	}
}

// pieces cuts a fixture document of text into pieces of about size bytes,
// each ending at a line break, in the whole document's terms.
func pieces(text string, size int) []*Piece {
	var out []*Piece
	sents, chunks := 0, 0
	for base := 0; base < len(text); {
		end := len(text)
		if base+size < len(text) {
			end = base + size + strings.IndexByte(text[base+size:], '\n') + 1
		}
		d := fixture("", text[base:end])
		p := &Piece{Text: d.Text}
		for _, s := range d.Sentences {
			s.Start += int32(base)
			s.End += int32(base)
			p.Sentences = append(p.Sentences, s)
		}
		for _, c := range d.Chunks {
			c.First += int32(sents)
			c.Last += int32(sents)
			p.Chunks = append(p.Chunks, c)
		}
		sents, chunks = sents+len(d.Sentences), chunks+len(d.Chunks)
		out = append(out, p)
		base = end
	}
	return out
}

// markedText is a text of many lines, each naming its marker.
func markedText(lines int) string {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "Line %d discusses marker%04d at length. It adds a second sentence about the harbour.\n", i, i)
	}
	return b.String()
}

// TestPieceWriter: a document written a piece at a time is invisible
// until published, then the same as one written whole: its text byte for
// byte, every sentence searchable, a word of every piece's postings read
// in unit order, each sentence's once; nothing is left building or
// pending. A second writer of the same document finds it published,
// and abandoned, leaves nothing of its own.
func TestPieceWriter(t *testing.T) {
	t.Parallel()
	forBackends(t, testPieceWriter)
}

func testPieceWriter(t *testing.T, bk backend) {
	l := bk.library(t)
	text := markedText(400)
	id := IDFor([]byte(text))
	ps := pieces(text, 4<<10)
	if len(ps) < 4 {
		t.Fatalf("%d pieces", len(ps))
	}
	pw, err := l.NewPieceWriter(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if err := pw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := l.Count(); n != 0 || len(holders(t, l, textproc.Terms("harbour")[0])) != 0 {
		t.Fatal("the pieces are seen before the document is published")
	}
	info, existed, err := pw.Publish(&Document{DocInfo: DocInfo{ID: id, Name: "big.txt", Kind: "text", Pages: 1, Added: fixtureAdded}, PageStarts: []int32{0}})
	if err != nil || existed {
		t.Fatalf("Publish: %v, existed %v", err, existed)
	}
	d, err := l.Document(id)
	if err != nil {
		t.Fatal(err)
	}
	whole := fixture("big.txt", text)
	if d.Text != text || info.Bytes != len(text) || info.NumSents != len(whole.Sentences) || !slices.Equal(d.Sentences, whole.Sentences) {
		t.Fatalf("the published document is not the text: %+v", info)
	}
	if n := segmentCount(t, l); n < 4 {
		t.Fatalf("%d segments: the text was not written a piece at a time", n)
	}
	for i := range 400 {
		term := textproc.Terms(fmt.Sprintf("marker%04d", i))[0]
		if n, err := matchCount(l, id, term); err != nil || n != 1 {
			t.Fatalf("%s: %d sentences, %v", term, n, err)
		}
	}
	var units []int
	err = l.Index().Read([]DocID{id}, FieldSentences, textproc.Terms("harbour"), func(r *IndexReader) error {
		p := r.Postings(0)
		for p.Next() {
			if err := p.Each(func(unit, tf, length int) { units = append(units, unit) }); err != nil {
				return err
			}
		}
		return p.Err()
	})
	if err != nil || len(units) != 400 || !slices.IsSorted(units) || len(slices.Compact(slices.Clone(units))) != len(units) {
		t.Fatalf("harbour: %d postings (sorted %v), %v", len(units), slices.IsSorted(units), err)
	}
	for _, u := range units {
		if !strings.Contains(d.SentenceText(u), "harbour") {
			t.Fatalf("sentence %d does not hold harbour: %q", u, d.SentenceText(u))
		}
	}
	nothingLeft := func(what string) {
		t.Helper()
		err := l.store.View(func(tx storage.Tx) error {
			segs, err := readSegments(tx, segBuilding)
			if len(segs) > 0 {
				t.Errorf("%s: %d segments left building", what, len(segs))
			}
			if k, _ := tx.Bucket(bucketPending).Cursor().First(); k != nil {
				t.Errorf("%s: a pending record is left: %x", what, k)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	nothingLeft("published")

	// A second writer of the same text: published first by the other,
	// its own pieces go.
	textPieces := func() int {
		n := 0
		l.store.View(func(tx storage.Tx) error { n = tx.Bucket(bucketText).KeyCount(); return nil })
		return n
	}
	before := textPieces()
	pw, err = l.NewPieceWriter(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := pw.Write(ps[0]); err != nil {
		t.Fatal(err)
	}
	if info, existed, err := pw.Publish(&Document{DocInfo: DocInfo{ID: id, Name: "again.txt"}, PageStarts: []int32{0}}); err != nil || !existed || info.Name != "big.txt" {
		t.Fatalf("second Publish: %+v, %v, existed %v", info, err, existed)
	}
	if err := pw.Abandon(); err != nil {
		t.Fatal(err)
	}
	nothingLeft("abandoned")
	if n := textPieces(); n != before {
		t.Errorf("%d text pieces after the abandoned writer, %d before", n, before)
	}
}

// TestPieceWriterRefusesPiecesOutOfPlace: a piece whose sentences are not
// in it, or a header that does not match the pieces, is refused.
func TestPieceWriterRefusesPiecesOutOfPlace(t *testing.T) {
	t.Parallel()
	forBackends(t, testPieceWriterRefusesPiecesOutOfPlace)
}

func testPieceWriterRefusesPiecesOutOfPlace(t *testing.T, bk backend) {
	l := bk.library(t)
	text := markedText(40)
	ps := pieces(text, 1<<10)
	pw, err := l.NewPieceWriter(IDFor([]byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Abandon()
	if err := pw.Write(ps[1]); err == nil || !strings.Contains(err.Error(), "outside the piece") {
		t.Errorf("the second piece first: %v", err)
	}
	if err := pw.Write(ps[0]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pw.Publish(&Document{DocInfo: DocInfo{ID: "0123456789abcdef"}, PageStarts: []int32{0}}); err == nil {
		t.Error("a header of another document was published")
	}
	if _, _, err := pw.Publish(&Document{DocInfo: DocInfo{ID: IDFor([]byte(text))}, PageStarts: []int32{0, 1 << 20}}); err == nil {
		t.Error("a page past the text was published")
	}
	if n, _ := l.Count(); n != 0 {
		t.Errorf("%d documents", n)
	}
}
