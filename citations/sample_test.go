package citations

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
)

// loadSample loads a sample document from testdata/citations with its
// fixed sentence table (see the README there), so tests do not depend on
// the segmenter's exact boundaries. Chunks are runs of chunkSize sentences.
func loadSample(t testing.TB, name string, chunkSize int) *docstore.Document {
	t.Helper()
	dir := filepath.Join("..", "testdata", "citations")
	text, err := os.ReadFile(filepath.Join(dir, name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, name+".sentences"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &docstore.Document{
		DocInfo: docstore.DocInfo{
			ID: docstore.DocID("sample-" + strings.TrimPrefix(name, "hotpotqa-")), Name: name + ".txt",
			Kind: "text", Pages: 1, Bytes: len(text),
		},
		Text:       string(text),
		PageStarts: []int32{0},
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		a, b, ok := strings.Cut(sc.Text(), "\t")
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || start > end || end > len(text) {
			t.Fatalf("%s.sentences: bad line %q", name, sc.Text())
		}
		d.Sentences = append(d.Sentences, docstore.Sentence{Start: int32(start), End: int32(end), Page: 1})
	}
	for i := 0; i < len(d.Sentences); i += chunkSize {
		last := min(i+chunkSize, len(d.Sentences)) - 1
		d.Chunks = append(d.Chunks, docstore.Chunk{First: int32(i), Last: int32(last)})
	}
	d.NumSents, d.NumChunks = len(d.Sentences), len(d.Chunks)
	return d
}

// samples returns the two sample documents: A (46 sentences) and B (27).
func samples(t testing.TB) (a, b *docstore.Document) {
	return loadSample(t, "hotpotqa-a", 5), loadSample(t, "hotpotqa-b", 5)
}

// handDoc builds a document from sentences joined by single spaces, with a
// hand-made sentence table, and a page break before sentence pageBreak (0:
// none).
func handDoc(id string, pageBreak int, sentences ...string) *docstore.Document {
	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: docstore.DocID(id), Name: id + ".txt"}}
	var b strings.Builder
	page := int32(1)
	d.PageStarts = []int32{0}
	for i, s := range sentences {
		if i > 0 {
			b.WriteByte(' ')
		}
		if pageBreak > 0 && i == pageBreak {
			page++
			d.PageStarts = append(d.PageStarts, int32(b.Len()))
		}
		d.Sentences = append(d.Sentences, docstore.Sentence{Start: int32(b.Len()), End: int32(b.Len() + len(s)), Page: page})
		b.WriteString(s)
	}
	d.Text = b.String()
	d.Pages = int(page)
	return d
}
