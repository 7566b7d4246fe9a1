package dense

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

const declaration = "../../testdata/declaration.txt"

// client is a model client for srv with the embedding model set (or
// not), embedding batch texts per request, and retries immediate.
func client(t testing.TB, srv *llmtest.Server, embed string, batch int, opts ...llm.Option) *llm.Client {
	t.Helper()
	cfg := config.Default()
	cfg.BaseURL, cfg.Model = srv.URL, llmtest.DefaultModel
	cfg.Timeout, cfg.ConnectTimeout = 20*time.Second, 2*time.Second
	cfg.EmbedModel, cfg.EmbedBatch = embed, batch
	noWaits := llm.WithSleep(func(context.Context, time.Duration) error { return nil })
	c, err := llm.New(cfg, append([]llm.Option{noWaits}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scorer is a Scorer over lib for srv's embedding model.
func scorer(t testing.TB, lib *docstore.Library, srv *llmtest.Server, batch int, opts ...llm.Option) *Scorer {
	t.Helper()
	s, err := New(lib, client(t, srv, llmtest.DefaultEmbedModel, batch, opts...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// embedInputs counts the texts sent to the embeddings endpoint.
func embedInputs(srv *llmtest.Server) (requests, inputs int) {
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			requests++
			inputs += len(r.Embed.Input)
		}
	}
	return requests, inputs
}

func ids(docs []*docstore.Document) []docstore.DocID {
	out := make([]docstore.DocID, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

// TestStoredOnceAndReused embeds a document, then again: the second time
// nothing is embedded, and scoring embeds only the query.
func TestStoredOnceAndReused(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 16)
	var usage llm.Usage
	s.OnUsage = func(u llm.Usage) { usage.Add(u) }
	var progress []Progress
	u, err := s.Ensure(t.Context(), ids(docs), nil, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	reqs, inputs := embedInputs(srv)
	want := len(d.Sentences) + len(d.Chunks)
	wantReqs := (len(d.Sentences)+15)/16 + (len(d.Chunks)+15)/16
	if inputs != want || reqs != wantReqs {
		t.Errorf("embedded %d texts in %d requests, want %d in %d", inputs, reqs, want, wantReqs)
	}
	if u.LLMCalls != reqs || u.PromptTokens == 0 {
		t.Errorf("usage %+v for %d requests", u, reqs)
	}
	if len(progress) < 2 || !strings.Contains(StageText(progress[0], s.Model()), fmt.Sprintf("embedding 0/%d sentences of declaration.txt with %s", len(d.Sentences), llmtest.DefaultEmbedModel)) ||
		progress[len(progress)-1].Unit() != "chunks" || progress[len(progress)-1].Done != len(d.Chunks) {
		t.Errorf("progress %+v", progress)
	}
	// Stored: exactly the server's vectors, up to int8 rounding.
	for _, lv := range Levels {
		gaps, _, err := lib.Vectors().Gaps(docstore.VectorKey{Doc: d.ID, Model: llmtest.DefaultEmbedModel, Level: lv})
		if err != nil || len(gaps) != 0 {
			t.Fatalf("level %d: gaps %v %v", lv, gaps, err)
		}
	}
	vs, _, _ := lib.Vectors().Get(docstore.VectorKey{Doc: d.ID, Model: llmtest.DefaultEmbedModel, Level: docstore.SentenceLevel}, []int{5})
	if c := Cosine(vs[0].Float32s(nil), llmtest.Embed(d.InContext(5, 5), llmtest.DefaultDim)); c < 0.99 {
		t.Errorf("stored vector's cosine to the server's: %.4f", c)
	}

	// A second run: nothing to embed; scoring makes one call, the query's.
	progress = nil
	if _, err := s.Ensure(t.Context(), ids(docs), nil, func(p Progress) { progress = append(progress, p) }); err != nil {
		t.Fatal(err)
	}
	if r2, _ := embedInputs(srv); r2 != reqs || len(progress) != 0 {
		t.Fatalf("the second run embedded again (%d requests, progress %+v)", r2-reqs, progress)
	}
	units := []retrieve.Unit{
		{Doc: d.ID, First: 5, Last: 5, Text: d.SentenceText(5)},
		{Doc: d.ID, First: int(d.Chunks[1].First), Last: int(d.Chunks[1].Last)},
		{Doc: d.ID, First: 2, Last: 4},
	}
	q := d.InContext(5, 5)
	scores, err := s.ScoreDense(t.Context(), q, units)
	if err != nil {
		t.Fatal(err)
	}
	r3, in3 := embedInputs(srv)
	if r3 != reqs+1 || in3 != want+1 || usage.LLMCalls != 1 {
		t.Errorf("scoring made %d requests with %d texts (%d reported), want 1 with the query", r3-reqs, in3-want, usage.LLMCalls)
	}
	if scores[0] < 0.99 || scores[1] >= scores[0] || scores[2] >= scores[0] {
		t.Errorf("scores %v: the sentence itself should score about 1 and best", scores)
	}
	// The same query again costs nothing.
	if _, err := s.ScoreDense(t.Context(), q, units[:1]); err != nil {
		t.Fatal(err)
	}
	if r4, _ := embedInputs(srv); r4 != r3 {
		t.Error("a query already embedded was embedded again")
	}
}

// TestScoresMatchServerVectors checks each kind of unit against cosines
// computed from the server's own vectors: a stored chunk by its vector, a
// run of sentences by the mean of theirs.
func TestScoresMatchServerVectors(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 64)
	if _, err := s.Ensure(t.Context(), ids(docs), nil, nil); err != nil {
		t.Fatal(err)
	}
	q := "the consent of the governed and the pursuit of happiness"
	c := d.Chunks[2]
	units := []retrieve.Unit{
		{Doc: d.ID, First: int(c.First), Last: int(c.Last)},
		{Doc: d.ID, First: 3, Last: 5},
	}
	got, err := s.ScoreDense(t.Context(), q, units)
	if err != nil {
		t.Fatal(err)
	}
	qv := llmtest.Embed(q, llmtest.DefaultDim)
	wantChunk := Cosine(qv, llmtest.Embed(d.InContext(int(c.First), int(c.Last)), llmtest.DefaultDim))
	mean := make([]float32, llmtest.DefaultDim)
	for i := 3; i <= 5; i++ {
		for j, x := range llmtest.Embed(d.InContext(i, i), llmtest.DefaultDim) {
			mean[j] += x
		}
	}
	wantMean := Cosine(qv, mean)
	if diff(got[0], wantChunk) > 0.01 || diff(got[1], wantMean) > 0.01 {
		t.Errorf("scores %.4f %.4f, want %.4f %.4f", got[0], got[1], wantChunk, wantMean)
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestScoreWithoutStoredVectors: units whose vectors are not stored are
// embedded with the query, in one call, and not stored.
func TestScoreWithoutStoredVectors(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 64)
	var calls int
	s.OnUsage = func(u llm.Usage) { calls += u.LLMCalls }
	units := []retrieve.Unit{
		{Doc: d.ID, First: 1, Last: 1, Text: d.SentenceText(1)},
		{Doc: d.ID, First: 1, Last: 2, Text: d.Text[d.Sentences[1].Start:d.Sentences[2].End]},
	}
	got, err := s.ScoreDense(t.Context(), d.SentenceText(1), units)
	if err != nil {
		t.Fatal(err)
	}
	reqs, inputs := embedInputs(srv)
	if reqs != 1 || inputs != 3 || calls != 1 {
		t.Errorf("%d requests, %d texts, %d calls reported; want 1, 3, 1", reqs, inputs, calls)
	}
	if got[0] < 0.99 || got[1] >= got[0] {
		t.Errorf("scores %v", got)
	}
	if sets, _ := lib.Vectors().Sets(d.ID); len(sets) != 0 {
		t.Errorf("scoring stored vectors: %+v", sets)
	}
}

// TestResumesAfterFailure: a failed batch leaves the batches before it
// stored, and the next run embeds only the rest.
func TestResumesAfterFailure(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 8, llm.WithMaxRetries(0))
	srv.EnqueueEmbeddings(llmtest.Reply{}, llmtest.Reply{}, llmtest.Status(http.StatusServiceUnavailable))
	_, err := s.Ensure(t.Context(), ids(docs), []docstore.Level{docstore.SentenceLevel}, nil)
	var le *llm.Error
	if !errors.Is(err, ErrEmbed) || !errors.As(err, &le) || le.Fix() == "" || !strings.Contains(err.Error(), "declaration.txt") {
		t.Fatalf("Ensure: %v", err)
	}
	key := docstore.VectorKey{Doc: d.ID, Model: llmtest.DefaultEmbedModel, Level: docstore.SentenceLevel}
	gaps, n, _ := lib.Vectors().Gaps(key)
	if len(gaps) != 1 || gaps[0] != (docstore.UnitRange{First: 16, Last: n - 1}) {
		t.Fatalf("after the failure: gaps %v", gaps)
	}
	_, before := embedInputs(srv)
	var last Progress
	if _, err := s.Ensure(t.Context(), ids(docs), []docstore.Level{docstore.SentenceLevel}, func(p Progress) { last = p }); err != nil {
		t.Fatal(err)
	}
	_, after := embedInputs(srv)
	if after-before != n-16 {
		t.Errorf("resumed run embedded %d texts, want the %d left", after-before, n-16)
	}
	if last.Done != n || last.Total != n {
		t.Errorf("last progress %+v", last)
	}
}

// TestCancelKeepsBatches: cancelling mid-run keeps the stored batches.
func TestCancelKeepsBatches(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 4)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := s.Ensure(ctx, ids(docs), []docstore.Level{docstore.SentenceLevel}, func(p Progress) {
		if p.Done >= 8 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ensure: %v", err)
	}
	gaps, _, _ := lib.Vectors().Gaps(docstore.VectorKey{Doc: docs[0].ID, Model: llmtest.DefaultEmbedModel, Level: docstore.SentenceLevel})
	if len(gaps) != 1 || gaps[0].First < 8 {
		t.Errorf("gaps after cancelling: %v", gaps)
	}
}

// TestRemovedWithDocument: removing the document removes its vectors.
func TestRemovedWithDocument(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 64)
	if _, err := s.Ensure(t.Context(), ids(docs), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := lib.Remove(docs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ingest.New(lib, nil).Add(t.Context(), declaration, nil); err != nil {
		t.Fatal(err)
	}
	_, before := embedInputs(srv)
	if _, err := s.Ensure(t.Context(), ids(docs), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, after := embedInputs(srv); after-before != len(docs[0].Sentences)+len(docs[0].Chunks) {
		t.Errorf("after removal and re-adding, %d texts embedded, want all %d", after-before, len(docs[0].Sentences)+len(docs[0].Chunks))
	}
}

// TestNoEmbedModel: without an embedding model there is no Scorer.
func TestNoEmbedModel(t *testing.T) {
	t.Parallel()
	lib, _ := librarytest.Library(t, declaration)
	srv := llmtest.New(t)
	if _, err := New(lib, client(t, srv, "", 64)); !errors.Is(err, ErrNoEmbedModel) {
		t.Errorf("New: %v", err)
	}
	if _, err := New(lib, nil); !errors.Is(err, ErrNoEmbedModel) {
		t.Errorf("New without an endpoint: %v", err)
	}
}

// TestUnknownEmbedModel: a model the server does not serve fails with
// the client's error and its fix.
func TestUnknownEmbedModel(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	srv := llmtest.New(t)
	s, err := New(lib, client(t, srv, "no-such-embedder", 64))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ensure(t.Context(), ids(docs), nil, nil); !errors.Is(err, ErrEmbed) || !errors.Is(err, llm.ErrNotFound) {
		t.Fatalf("Ensure: %v", err)
	}
}

// fusionDoc is a document where words and meaning disagree. The question
// asks about pruning apple trees in the orchard in winter. Paragraph A is
// full of the rare word "grafting" and little else of the question; BM25
// favours it for "grafting". Paragraph B shares most of the question's
// words, each common in the document, so BM25 ranks it lower, but its bag
// of words is the closest to the question's.
func fusionDoc() string {
	var b strings.Builder
	b.WriteString("Orchard Notes\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "Entry %d. The apple trees in the orchard were watered in winter and pruning tools were cleaned. ", i)
		fmt.Fprintf(&b, "Visitors walked between the rows on day %d.\n\n", i)
	}
	b.WriteString("Grafting grafting grafting: grafting season notes, grafting knives, grafting wax, grafting tape, grafting records for the nursery ledger and its invoices.\n\n")
	b.WriteString("Pruning apple trees in the orchard in winter keeps them healthy.\n\n")
	return b.String()
}

func TestFusionRanksMeaningCloserUnit(t *testing.T) {
	lib, docs := librarytest.Library(t, librarytest.WriteFile(t, "orchard.txt", fusionDoc()))
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 64)
	r := retrieve.New(lib)
	q := "pruning apple trees orchard winter grafting"
	opt := retrieve.Options{Docs: ids(docs), K: 1, Plain: true}
	lex, err := r.Sentences(t.Context(), q, opt)
	if err != nil || len(lex) == 0 {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lex[0].Text, "Grafting") {
		t.Fatalf("BM25's best is %q; the test needs the grafting paragraph first", lex[0].Text)
	}
	if _, err := s.Ensure(t.Context(), ids(docs), nil, nil); err != nil {
		t.Fatal(err)
	}
	f := retrieve.Fusion{Dense: s, LexicalWeight: DefaultLexicalWeight, DenseWeight: DefaultDenseWeight, Top: DefaultTop}
	for _, level := range []string{"sentences", "chunks"} {
		var got []retrieve.Passage
		var lexical []retrieve.Passage
		o := retrieve.Options{Docs: ids(docs), K: 1}
		if level == "chunks" {
			lexical, _ = r.Chunks(t.Context(), q, o)
			o.Fusion = f
			got, err = r.Chunks(t.Context(), q, o)
		} else {
			lexical, _ = r.Sentences(t.Context(), q, o)
			o.Fusion = f
			got, err = r.Sentences(t.Context(), q, o)
		}
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v", level, err)
		}
		if len(lexical) == 0 || !strings.Contains(lexical[0].Text, "Grafting") {
			t.Fatalf("%s: lexical best %q; the test needs the grafting paragraph first", level, lexical[0].Text)
		}
		if !strings.Contains(got[0].Text, "Pruning apple trees in the orchard in winter") || got[0].Scores.Dense == 0 {
			t.Errorf("%s: fused best is %q (dense %.3f); want the pruning sentence", level, got[0].Text, got[0].Scores.Dense)
		}
	}
	_ = d
}

// BenchmarkScoreDense scores DefaultTop units against a primed query from
// stored vectors: the cost dense fusion adds to a retrieval.
func BenchmarkScoreDense(b *testing.B) {
	lib, docs := librarytest.Library(b, librarytest.WriteFile(b, "orchard.txt", strings.Repeat(fusionDoc(), 4)))
	d := docs[0]
	srv := llmtest.New(b)
	s := scorer(b, lib, srv, 64)
	if _, err := s.Ensure(b.Context(), ids(docs), nil, nil); err != nil {
		b.Fatal(err)
	}
	q := "pruning apple trees orchard winter"
	if err := s.Prime(b.Context(), []string{q}); err != nil {
		b.Fatal(err)
	}
	var units []retrieve.Unit
	for i := 0; len(units) < DefaultTop && i < len(d.Sentences); i++ {
		units = append(units, retrieve.Unit{Doc: d.ID, First: i, Last: i})
	}
	for i := 0; i < len(d.Chunks) && i < DefaultTop/2; i++ {
		units[i] = retrieve.Unit{Doc: d.ID, First: int(d.Chunks[i].First), Last: int(d.Chunks[i].Last)}
	}
	for b.Loop() {
		if _, err := s.ScoreDense(b.Context(), q, units); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChunkLevelOnly: with only chunk vectors stored, every chunk —
// one-sentence chunks too — is scored from them: the query is the only
// text embedded.
func TestChunkLevelOnly(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	s := scorer(t, lib, srv, 64)
	if _, err := s.Ensure(t.Context(), ids(docs), []docstore.Level{docstore.ChunkLevel}, nil); err != nil {
		t.Fatal(err)
	}
	var units []retrieve.Unit
	single := 0
	for i, c := range d.Chunks {
		start, end := d.ChunkSpan(i)
		units = append(units, retrieve.Unit{Doc: d.ID, First: int(c.First), Last: int(c.Last), Text: d.Text[start:end]})
		if c.First == c.Last {
			single++
		}
	}
	if single == 0 {
		t.Fatal("the test needs a one-sentence chunk")
	}
	reqs, _ := embedInputs(srv)
	if _, err := s.ScoreDense(t.Context(), "consent of the governed", units); err != nil {
		t.Fatal(err)
	}
	if r2, in2 := embedInputs(srv); r2 != reqs+1 || in2 != len(d.Chunks)+1 {
		t.Errorf("scoring %d chunks (%d of one sentence) embedded %d texts in %d requests; want only the query", len(units), single, in2-len(d.Chunks), r2-reqs)
	}
}
