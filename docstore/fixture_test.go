package docstore

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore/pagegeom"
	"github.com/citelens/citelens/internal/textproc"
)

// The store's tests write documents made here, through the write path
// (write.go) as the add pipeline does: a text cut into sentences after
// each ". " and at each line break, into pages after each form feed, and
// every fixtureChunk sentences a chunk. It is data for tests of the store,
// which stores what it is given; how citelens splits text is ingest's,
// and tested there.

// fixtureChunk is how many sentences a fixture's chunk holds.
const fixtureChunk = 4

// fixtureAdded is when every fixture document was added.
var fixtureAdded = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture is the document of text, named name.
func fixture(name, text string) *Document {
	d := &Document{
		DocInfo: DocInfo{ID: IDFor([]byte(text)), Name: name, Path: "/fixtures/" + name, Kind: "text", Added: fixtureAdded},
		Text:    text,
	}
	d.PageStarts = []int32{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\f' {
			d.PageStarts = append(d.PageStarts, int32(i+1))
		}
	}
	fixtureSplit(d)
	return d
}

// fixtureSplit fills d's sentences and chunks from its text and page
// starts, as fixture cuts them, and its counts: the tests' Splitter for
// Salvage.
func fixtureSplit(d *Document) {
	text := d.Text
	d.Sentences, d.Chunks, d.Sections, d.Tables = nil, nil, nil, nil
	start := -1
	for i := 0; i <= len(text); i++ {
		if start < 0 {
			if i < len(text) && !isFixtureSpace(text[i]) {
				start = i
			}
			continue
		}
		end := -1
		switch {
		case i == len(text), text[i] == '\n', text[i] == '\f':
			end = i
		case text[i] == '.' && i+1 < len(text) && text[i+1] == ' ':
			end = i + 1
		}
		if end < 0 {
			continue
		}
		for end > start && isFixtureSpace(text[end-1]) {
			end--
		}
		d.Sentences = append(d.Sentences, Sentence{Start: int32(start), End: int32(end),
			Page: int32(pageOf(d.PageStarts, start)), Section: -1, Table: -1})
		start = -1
	}
	for first := 0; first < len(d.Sentences); first += fixtureChunk {
		last := min(first+fixtureChunk, len(d.Sentences)) - 1
		s, e := d.Sentences[first].Start, d.Sentences[last].End
		d.Chunks = append(d.Chunks, Chunk{First: int32(first), Last: int32(last), Tokens: int32(textproc.EstimateTokens(text[s:e]))})
	}
	d.Pages = max(d.Pages, len(d.PageStarts))
	d.Bytes, d.NumSents, d.NumChunks = len(text), len(d.Sentences), len(d.Chunks)
}

func isFixtureSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' }

// fixtureGeometry is page geometry for d, as a PDF's loader gives it: on
// each page of US Letter, a line part a sentence down the page, a word
// box a word across it.
func fixtureGeometry(d *Document) [][]byte {
	pages := make([]pagegeom.Page, len(d.PageStarts))
	for _, s := range d.Sentences {
		p := &pages[s.Page-1]
		y := 0.05 + 0.02*float32(len(p.Lines)%45)
		ln := pagegeom.Line{Start: s.Start, End: s.End, Dir: pagegeom.LeftToRight, Box: pagegeom.Rect{X0: 0.1, Y0: y, X1: 0.1, Y1: y + 0.015}}
		x := float32(0.1)
		textproc.Words(d.Text[s.Start:s.End], func(ws, we int) {
			to := min(x+0.01*float32(we-ws), 0.95)
			ln.Words = append(ln.Words, pagegeom.Word{Start: s.Start + int32(ws), End: s.Start + int32(we), From: x, To: to})
			ln.Box.X1, x = to, min(to+0.01, 0.95)
		})
		p.Lines = append(p.Lines, ln)
	}
	geom := make([][]byte, len(pages))
	for i := range pages {
		pages[i].Width, pages[i].Height = 612, 792
		geom[i] = pagegeom.Append(nil, &pages[i])
	}
	return geom
}

// writeDoc writes d (with geometry, which may be nil) to l and tidies the
// index, as an add does; existed reports that the library had it.
func writeDoc(l *Library, d *Document, geometry [][]byte) (DocInfo, bool, error) {
	p, err := Prepare(d, geometry)
	if err != nil {
		return DocInfo{}, false, err
	}
	w, err := l.Write(p)
	if err != nil {
		return DocInfo{}, false, err
	}
	return w[0].Info, w[0].Existed, l.Tidy()
}

// writeText writes the fixture document of text, named name, to l.
func writeText(l *Library, name, text string) (DocInfo, bool, error) {
	return writeDoc(l, fixture(name, text), nil)
}

// addText writes the fixture document of text to l and returns it as the
// library reads it back, failing the test on an error.
func addText(t testing.TB, l *Library, name, text string) *Document {
	t.Helper()
	info, _, err := writeText(l, name, text)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// addFile is addText of the file at path, under its base name.
func addFile(t testing.TB, l *Library, path string) *Document {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return addText(t, l, path[strings.LastIndexByte(path, '/')+1:], string(b))
}

// TestFixture: the fixture's documents are what the store's tests take
// them for.
func TestFixture(t *testing.T) {
	t.Parallel()
	d := fixture("f.txt", "One. Two words here.\n\nThree\fFour. Five. ")
	var got []string
	for i := range d.Sentences {
		got = append(got, d.SentenceText(i))
	}
	if strings.Join(got, "|") != "One.|Two words here.|Three|Four.|Five." {
		t.Errorf("sentences %q", got)
	}
	if d.Pages != 2 || d.Sentences[3].Page != 2 || d.Sentences[2].Page != 1 || len(d.Chunks) != 2 || d.Chunks[1].First != 4 {
		t.Errorf("pages %d, sentences %+v, chunks %+v", d.Pages, d.Sentences, d.Chunks)
	}
	if err := validateLayout(d); err != nil {
		t.Error(err)
	}
	geom := fixtureGeometry(d)
	if err := CheckGeometry(geom, d.Pages, len(d.Text)); err != nil {
		t.Error(err)
	}
}
