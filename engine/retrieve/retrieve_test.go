package retrieve

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/internal/textproc"
)

// A small collection in HotpotQA's shape: titled paragraphs.
const films = `Ed Wood (film)
Ed Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton. The film concerns the period in Wood's life when he made his best-known films.

Scott Derrickson
Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. He lives in Los Angeles, California. He is best known for directing horror films such as "Sinister".

Ed Wood
Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director.

Woodson, Arkansas
Woodson is a census-designated place in Pulaski County, Arkansas. Its population was 403 at the 2010 census.

Sinister (film)
Sinister is a 2012 supernatural horror film directed by Scott Derrickson. It stars Ethan Hawke as a true crime writer.
`

// A manual in another shape, with a repeated sentence.
const manual = `1 Vectors
A vector is an ordered collection of numbers. Vectors are created with the function c().
The function length() gives the number of elements of a vector.
The function length() gives the number of elements of a vector.
The function length() gives the number of elements of a vector!

2 Lists
A list is an ordered collection of objects of any mode. Lists are created with list().
Components of a list are selected with double square brackets.
`

type fixture struct {
	lib             *docstore.Library
	films, manual   docstore.DocID
	filmDoc, manDoc *docstore.Document
	r               *Retriever
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	lib, docs := librarytest.TextLibrary(t, "films.txt", films, "manual.txt", manual)
	return &fixture{lib: lib, r: New(lib),
		films: docs[0].ID, filmDoc: docs[0],
		manual: docs[1].ID, manDoc: docs[1]}
}

func checkPassage(t *testing.T, f *fixture, p Passage) {
	t.Helper()
	d, err := f.lib.Document(p.Doc)
	if err != nil {
		t.Fatal(err)
	}
	if p.Start != int(d.Sentences[p.First].Start) || p.End != int(d.Sentences[p.Last].End) {
		t.Errorf("byte range %d-%d does not match sentences %d-%d", p.Start, p.End, p.First, p.Last)
	}
	if p.Text != d.Text[p.Start:p.End] {
		t.Errorf("Text %q is not the document's bytes", p.Text)
	}
	if p.DocName != d.Name || p.Page != int(d.Sentences[p.First].Page) {
		t.Errorf("DocName %q page %d, want %q page %d", p.DocName, p.Page, d.Name, d.Sentences[p.First].Page)
	}
	if p.Context.First > p.First || p.Context.Last < p.Last {
		t.Errorf("context %d-%d does not contain %d-%d", p.Context.First, p.Context.Last, p.First, p.Last)
	}
}

func TestSentencesHeadingContextAndCoverage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ps, err := f.r.Sentences(t.Context(), "Were the director Scott Derrickson and the filmmaker Ed Wood of the same nationality?", Options{Docs: []docstore.DocID{f.films}, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no passages")
	}
	texts := ""
	for _, p := range ps {
		checkPassage(t, f, p)
		if isHeading(docstore.ViewOf(f.filmDoc), p.First) {
			t.Errorf("a heading line was returned: %q", p.Text)
		}
		texts += p.Text + "\n"
	}
	// Both people's defining sentences: Edward Davis Wood's has only
	// "Wood" of the question and is found through its heading "Ed Wood".
	for _, want := range []string{"Scott Derrickson (born", "Edward Davis Wood Jr."} {
		if !strings.Contains(texts, want) {
			t.Errorf("top 3 lack %q:\n%s", want, texts)
		}
	}
	for _, p := range ps {
		if strings.HasPrefix(p.Text, "Edward Davis") && p.Heading != "Ed Wood" {
			t.Errorf("heading of %q = %q, want Ed Wood", p.Text, p.Heading)
		}
	}
}

func TestSentencesNearDuplicates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ps, err := f.r.Sentences(t.Context(), "number of elements of a vector length", Options{Docs: []docstore.DocID{f.manual}, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range ps {
		if strings.HasPrefix(p.Text, "The function length()") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d copies of the repeated sentence in the top 3, want 1", n)
	}
	ps, err = f.r.Sentences(t.Context(), "number of elements of a vector length", Options{Docs: []docstore.DocID{f.manual}, K: 3, KeepDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, p := range ps {
		if strings.HasPrefix(p.Text, "The function length()") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("KeepDuplicates: %d copies, want the repeats", n)
	}
}

func TestSentencesScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	q := "ordered collection"
	all, err := f.r.Sentences(ctx, q, Options{})
	if err != nil || len(all) == 0 {
		t.Fatalf("%v, %d passages", err, len(all))
	}
	films, err := f.r.Sentences(ctx, "film", Options{Docs: []docstore.DocID{f.films}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range films {
		if p.Doc != f.films {
			t.Errorf("passage from %s outside the scope", p.Doc)
		}
	}
	none, err := f.r.Sentences(ctx, q, Options{Pages: []PageRange{{2, 5}}})
	if err != nil || len(none) != 0 {
		t.Errorf("pages 2-5 of one-page documents: %v, %d passages", err, len(none))
	}
	page1, err := f.r.Sentences(ctx, q, Options{Pages: []PageRange{{1, 1}}})
	if err != nil || len(page1) != len(all) {
		t.Errorf("page 1: %v, %d passages, want %d", err, len(page1), len(all))
	}
	odd, err := f.r.Sentences(ctx, q, Options{Filter: func(_ docstore.DocID, i int) bool { return i%2 == 1 }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range odd {
		if p.First%2 != 1 {
			t.Errorf("filter let sentence %d through", p.First)
		}
	}
}

func TestSentencesPlainIsIndexOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := "horror film director"
	ps, err := f.r.Sentences(t.Context(), q, Options{K: 4, Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := Search(f.lib, ParseQuery(q), SearchOptions{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(hits) {
		t.Fatalf("%d passages, %d hits", len(ps), len(hits))
	}
	for i := range ps {
		if ps[i].Doc != hits[i].Doc || ps[i].First != hits[i].Index || ps[i].Score != hits[i].Score {
			t.Errorf("#%d: passage %s/%d %.3f, hit %s/%d %.3f", i, ps[i].Doc, ps[i].First, ps[i].Score, hits[i].Doc, hits[i].Index, hits[i].Score)
		}
	}
}

func TestSentencesExpandAndCutoff(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ps, err := f.r.Sentences(t.Context(), "Los Angeles California", Options{Docs: []docstore.DocID{f.films}, K: 1, Expand: 1})
	if err != nil || len(ps) != 1 {
		t.Fatalf("%v, %d passages", err, len(ps))
	}
	p := ps[0]
	if !strings.HasPrefix(p.Text, "He lives in Los Angeles") {
		t.Fatalf("best passage %q", p.Text)
	}
	if p.Context.First != p.First-1 || p.Context.Last != p.Last+1 {
		t.Errorf("context %d-%d, want %d-%d", p.Context.First, p.Context.Last, p.First-1, p.Last+1)
	}
	ctxText := f.filmDoc.Text[p.Context.Start:p.Context.End]
	if !strings.HasPrefix(ctxText, "Scott Derrickson (born") || !strings.HasSuffix(ctxText, `"Sinister".`) {
		t.Errorf("context text %q", ctxText)
	}
	all, err := f.r.Sentences(t.Context(), "American film director", Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := f.r.Sentences(t.Context(), "American film director", Options{K: 10, Cutoff: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut) == 0 || len(cut) >= len(all) {
		t.Errorf("cut-off 0.9 kept %d of %d", len(cut), len(all))
	}
	for _, c := range cut {
		if c.Score < 0.9*cut[0].Score {
			t.Errorf("score %.3f below 0.9 of the best %.3f", c.Score, cut[0].Score)
		}
	}
}

func TestSentencesBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, opt := range []Options{{K: -1}, {Pool: -3}, {Cutoff: 1.5}, {Expand: -1}} {
		if _, err := f.r.Sentences(t.Context(), "film", opt); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: err = %v, want ErrBadOptions", opt, err)
		}
	}
	ps, err := f.r.Sentences(t.Context(), "what is it?", Options{})
	if err != nil || ps != nil {
		t.Errorf("a question of stop words: %v, %v", ps, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.r.Sentences(ctx, "film", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := f.r.Sentences(t.Context(), "film", Options{Docs: []docstore.DocID{"nosuchdoc"}}); !errors.Is(err, docstore.ErrNotFound) {
		t.Errorf("unknown document: err = %v", err)
	}
}

// preferring is a dense scorer that likes texts containing a word.
type preferring struct {
	word  string
	calls int
	fail  error
	short bool
}

func (s *preferring) ScoreDense(_ context.Context, _ string, units []Unit) ([]float64, error) {
	s.calls++
	if s.fail != nil {
		return nil, s.fail
	}
	out := make([]float64, len(units))
	for i, u := range units {
		if strings.Contains(u.Text, s.word) {
			out[i] = 1
		}
	}
	if s.short {
		out = out[1:]
	}
	return out, nil
}

func TestFusion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := "American film director"
	lex, err := f.r.Sentences(t.Context(), q, Options{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(lex[0].Text, "Hawke") {
		t.Fatal("the test needs a lexical winner without Hawke")
	}
	dense := &preferring{word: "Tim Burton"}
	fused, err := f.r.Sentences(t.Context(), q, Options{K: 3, Fusion: Fusion{Dense: dense, LexicalWeight: 1, DenseWeight: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if dense.calls != 1 || !strings.Contains(fused[0].Text, "Tim Burton") || fused[0].Scores.Dense != 1 {
		t.Errorf("dense-heavy fusion: %d calls, best %q (dense %.1f)", dense.calls, fused[0].Text, fused[0].Scores.Dense)
	}
	chunks, err := f.r.Chunks(t.Context(), q, Options{K: 2, Fusion: Fusion{Dense: &preferring{word: "Arkansas"}, DenseWeight: 5, LexicalWeight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	boom := errors.New("endpoint down")
	if _, err := f.r.Sentences(t.Context(), q, Options{Fusion: Fusion{Dense: &preferring{fail: boom}}}); !errors.Is(err, ErrDense) || !errors.Is(err, boom) {
		t.Errorf("failing scorer: err = %v", err)
	}
	if _, err := f.r.Sentences(t.Context(), q, Options{Fusion: Fusion{Dense: &preferring{short: true}}}); !errors.Is(err, ErrDense) {
		t.Errorf("scorer returning too few scores: err = %v", err)
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ps, err := f.r.Chunks(t.Context(), "square brackets list components", Options{K: 2})
	if err != nil || len(ps) == 0 {
		t.Fatalf("%v, %d chunks", err, len(ps))
	}
	for _, p := range ps {
		checkPassage(t, f, p)
		d, _ := f.lib.Document(p.Doc)
		found := slices.ContainsFunc(d.Chunks, func(c docstore.Chunk) bool {
			return int(c.First) == p.First && int(c.Last) == p.Last
		})
		if !found {
			t.Errorf("passage %d-%d is not a stored chunk", p.First, p.Last)
		}
	}
	if !strings.Contains(ps[0].Text, "double square brackets") {
		t.Errorf("best chunk %q", ps[0].Text)
	}
}

func TestCutWindows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.filmDoc
	for _, s := range []Windowing{{Tokens: 40, Overlap: 10}, {Tokens: 64, Overlap: 0}, {Tokens: 5, Overlap: 2}} {
		rs, err := CutWindows(d, s)
		if err != nil {
			t.Fatal(err)
		}
		covered := make([]bool, len(d.Sentences))
		for i, r := range rs {
			if r.First > r.Last || r.Start != int(d.Sentences[r.First].Start) || r.End != int(d.Sentences[r.Last].End) {
				t.Fatalf("%+v: bad range %+v", s, r)
			}
			if i > 0 && r.First <= rs[i-1].First {
				t.Fatalf("%+v: window %d does not move forward", s, i)
			}
			if r.First < r.Last && estimate(d, r) > s.Tokens {
				t.Errorf("%+v: window %+v has %d tokens", s, r, estimate(d, r))
			}
			for j := r.First; j <= r.Last; j++ {
				covered[j] = true
			}
		}
		if slices.Contains(covered, false) {
			t.Errorf("%+v: a sentence is in no window", s)
		}
	}
	for _, s := range []Windowing{{Tokens: 0}, {Tokens: 10, Overlap: 10}, {Tokens: 10, Overlap: -1}} {
		if _, err := CutWindows(d, s); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: err = %v", s, err)
		}
	}
}

func estimate(d *docstore.Document, r Range) int {
	n := 0
	for i := r.First; i <= r.Last; i++ {
		n += textproc.EstimateTokens(d.SentenceText(i))
	}
	return n
}

func TestWindows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ps, err := f.r.Windows(t.Context(), "Woodson population census", Windowing{Tokens: 40, Overlap: 10}, Options{K: 2})
	if err != nil || len(ps) == 0 {
		t.Fatalf("%v, %d windows", err, len(ps))
	}
	checkPassage(t, f, ps[0])
	if !strings.Contains(ps[0].Text, "Its population was 403") {
		t.Errorf("best window %q", ps[0].Text)
	}
	if _, err := f.r.Windows(t.Context(), "film", Windowing{}, Options{}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("zero windowing: err = %v", err)
	}
}

// TestMinMaxCutoffActs: fused by reciprocal rank every candidate scores
// within a few percent of the best, so a cut-off at 0.1 of the best
// drops nothing; OkraLong's min-max sum keeps the gaps, so it drops what
// both retrievers rank low.
func TestMinMaxCutoffActs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := "American film director"
	for _, tc := range []struct {
		rule    Rule
		dropped bool
	}{{RRF, false}, {MinMax, true}} {
		opt := Options{K: 10, Cutoff: 0.1, Fusion: Fusion{Rule: tc.rule, Dense: &preferring{word: "Tim Burton"}, LexicalWeight: 3, DenseWeight: 2, Top: 20}}
		all, err := f.r.Windows(t.Context(), q, Windowing{Tokens: 40}, Options{K: 10, Fusion: opt.Fusion})
		if err != nil {
			t.Fatal(err)
		}
		cut, err := f.r.Windows(t.Context(), q, Windowing{Tokens: 40}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) < 4 || (len(cut) < len(all)) != tc.dropped {
			t.Errorf("%s: %d windows, %d after the cut-off (scores %v)", tc.rule, len(all), len(cut), scoresOf(all))
		}
		if tc.rule == MinMax && (all[0].Score > 1 || all[len(all)-1].Score < 0) {
			t.Errorf("min-max scores outside 0..1: %v", scoresOf(all))
		}
	}
}

func scoresOf(ps []Passage) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.Score
	}
	return out
}

// TestFrameWordsWeighLess: "happens" frames "What happens if I violate
// the licence?"; a rare sentence that only says something happens must
// not outrank the one about violating it.
func TestFrameWordsWeighLess(t *testing.T) {
	t.Parallel()
	licence := `8. Termination.

You may not propagate the work except as this licence allows. If you violate this licence, your rights under it end automatically. Copies received from you stay licensed to their recipients. A holder who finds a violation must tell you of it. Once you cease to violate the licence, your rights come back. A second violation ends them for good. Nothing here lets anyone violate the rights of others.

9. Acceptance.

You need not accept this licence to run a copy.
`
	session := `Ending a session

A workspace is saved when you quit. It happens. Old images are kept as backups. Images are files of the workspace. Backups are images kept before a save. A quit asks for a save first.
`
	lib, docs := librarytest.TextLibrary(t, "licence.txt", licence, "session.txt", session)
	ps, err := New(lib).Sentences(t.Context(), "What happens if I violate the licence?", Options{K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[0].Doc != docs[0].ID || !strings.Contains(ps[0].Text, "violate") {
		t.Errorf("first passage %+v, want the sentence about violating the licence", ps)
	}
	if got := frameTerms("What does RAIDD stand for?"); !slices.Equal(got, []string{textproc.Term("stand")}) {
		t.Errorf("frameTerms(stand for) = %q", got)
	}
	if got := frameTerms("What happened to trial by jury?"); len(got) != 1 {
		t.Errorf("frameTerms(happened to) = %q", got)
	}
	if got := frameTerms("When does it happen?"); len(got) != 0 {
		t.Errorf("frameTerms of a question that asks about a happening = %q", got)
	}
}

// TestMinMaxCutoffWithoutDense: with no dense scores, OkraLong's cut-off
// still acts on its min-max normalised list (the top Top BM25 scores, the
// best 1, the Top-th 0), not on raw BM25, whose scores sit close to one
// another: what the normalised list puts under 0.1 of the best goes.
func TestMinMaxCutoffWithoutDense(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := "American film director"
	fusion := Fusion{Rule: MinMax, LexicalWeight: 3, DenseWeight: 2, Top: 5}
	all, err := f.r.Windows(t.Context(), q, Windowing{Tokens: 40}, Options{K: 40, Fusion: fusion})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := f.r.Windows(t.Context(), q, Windowing{Tokens: 40}, Options{K: 40, Cutoff: 0.1, Fusion: fusion})
	if err != nil {
		t.Fatal(err)
	}
	raw := all[len(all)-1].Score / all[0].Score
	if len(all) <= 5 || raw < 0.1 {
		t.Fatalf("the fixture should give more than 5 windows, the last over 0.1 of the best in BM25 (%d, %.2f)", len(all), raw)
	}
	if len(cut) >= 5 || len(cut) == 0 || cut[0].Score != 1 || cut[len(cut)-1].Score < 0.1 {
		t.Errorf("%d windows after the cut-off, scores %v; want fewer than the 5 of the list, normalised", len(cut), scoresOf(cut))
	}
}

// The second hop takes no names from a table row: "MEMORY" and "Monitor"
// label a debug level, they name nothing the question is about.
func TestHopSkipsLabels(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "manual.txt", "Debugging\n\n"+
		"| Name | Value | Meaning |\n| --- | --- | --- |\n| MEMORY | 512 | Monitor fontconfig memory usage |\n| CONFIG | 1024 | Monitor config files |\n\n"+
		"Debug output of fontconfig is controlled by the FC_DEBUG variable.\n")
	d, err := lib.View(docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	row := -1
	for i := range d.NumSentences() {
		if strings.Contains(d.SentenceText(i), "MEMORY") {
			row = i
		}
	}
	if row < 0 || !labels(d, row) {
		t.Fatalf("sentence %d (%q) is no table row", row, d.SentenceText(max(row, 0)))
	}
	if labels(d, d.NumSentences()-1) {
		t.Error("the prose sentence counts as labels")
	}
}
