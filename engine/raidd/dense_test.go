package raidd

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// withEmbed is the fixture's environment with the embedding model set,
// embedding batch texts per request, against srv (the fixture's server
// when nil).
func (f *fixture) withEmbed(t *testing.T, srv *llmtest.Server, batch int, opts ...llm.Option) *engine.Env {
	t.Helper()
	if srv == nil {
		srv = f.srv
	}
	cfg := enginetest.Config(srv)
	cfg.EmbedModel, cfg.EmbedBatch = llmtest.DefaultEmbedModel, batch
	return enginetest.Env(t, f.lib, cfg, opts...)
}

// askIn asks strategy in env.
func (f *fixture) askIn(t *testing.T, env *engine.Env, strategy, question string, opts []engine.Setting) (*engine.Answer, *enginetest.Events) {
	t.Helper()
	s, err := engine.New(strategy, env)
	if err != nil {
		t.Fatal(err)
	}
	var ev enginetest.Events
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: question, Options: opts}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	return ans, &ev
}

// unitTexts are the texts of the scope's units of kinds, every document.
func unitTexts(t *testing.T, f *fixture, kinds ...docstore.DerivedKind) []string {
	t.Helper()
	var out []string
	for _, d := range f.docs {
		for _, k := range kinds {
			texts, err := f.lib.Derived().Texts(d.ID, SetFor(llmtest.DefaultModel), k)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range texts {
				if strings.TrimSpace(s) != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// sameTexts reports whether a and b hold the same texts as often.
func sameTexts(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestDenseRanksByMeaning: with an embedding model, the question's
// embedding ranks the derived units too, and the chunk of the unit
// closest in meaning (llmtest's vectors: shared words, whatever their
// rarity) comes first, where BM25 alone put first the chunk of a unit
// sharing the question's rarest words. Without an embedding model nothing
// is embedded.
func TestDenseRanksByMeaning(t *testing.T) {
	f := newFixture(t)
	const question = "Which station on the eastern ridge had the old mill?"
	opts := engine.Settings("k", "3")
	_, ev := f.askIn(t, f.env, "raidd-q", question, opts)
	if n := len(f.srv.EmbeddedTexts()); n != 0 {
		t.Fatalf("%d texts embedded with no embedding model", n)
	}
	lexical := ev.Plan().(Retrieval)
	if !strings.Contains(lexical.Chunks[0].Key, "mill") {
		t.Fatalf("BM25 alone: %s; the test expects the mill question first", lexical)
	}
	// The unit closest in meaning, by llmtest's vectors.
	qv := llmtest.Embed(question, llmtest.DefaultDim)
	closest, best := "", -1.0
	for _, text := range unitTexts(t, f, docstore.DerivedQuestion) {
		if c := dense.Cosine(qv, llmtest.Embed(text, llmtest.DefaultDim)); c > best {
			closest, best = text, c
		}
	}
	if closest == lexical.Chunks[0].Key {
		t.Fatalf("the closest question %q is BM25's best already", closest)
	}

	// By default with an embedding model: the paper's one index, every
	// unit ranked by its cosine to the question.
	env := f.withEmbed(t, nil, 64)
	_, ev = f.askIn(t, env, "raidd-q", question, opts)
	plan := ev.Plan().(Retrieval)
	top := plan.Chunks[0]
	if top.Key != closest || !top.ByMeaning || top.Ranks != nil || plan.Fusion != "one-index" || top.Score < best-0.01 || top.Score > best+0.01 {
		t.Errorf("with embeddings: %s (%+v); want first the chunk of %q by meaning, scoring its cosine %.3f", plan, top, closest, best)
	}
	if !slices.ContainsFunc(ev.Stages, func(s string) bool {
		return strings.HasPrefix(s, "matching the question against ") && strings.HasSuffix(s, "by their meaning, in one index (embeddings by test-embed)")
	}) {
		t.Errorf("stages do not say the question is matched by meaning in one index: %q", ev.Stages)
	}

	// Rank fusion of the rankings by words and by meaning.
	_, ev = f.askIn(t, env, "raidd-q", question, engine.Settings("k", "3", "fuse", "rank"))
	plan = ev.Plan().(Retrieval)
	top = plan.Chunks[0]
	if top.Key != closest || top.DenseRanks["question"] != 1 {
		t.Errorf("fuse=rank with embeddings: %s; want first the chunk of %q, ranked 1 by meaning", plan, closest)
	}
	for i, c := range plan.Chunks {
		want := 0.0
		for _, r := range c.Ranks {
			want += 1 / float64(rrfK+r)
		}
		for _, r := range c.DenseRanks {
			want += 1 / float64(rrfK+r)
		}
		if d := c.Score - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("chunk %d scores %v; its ranks %v and %v fuse to %v", c.Chunk, c.Score, c.Ranks, c.DenseRanks, want)
		}
		if i > 0 && c.Score > plan.Chunks[i-1].Score {
			t.Errorf("chunks out of order: %s", plan)
		}
	}
	if !slices.ContainsFunc(ev.Stages, func(s string) bool {
		return strings.HasPrefix(s, "matching the question against ") && strings.HasSuffix(s, "by their words and by their meaning (embeddings by test-embed)")
	}) {
		t.Errorf("stages do not say the question is matched by words and meaning: %q", ev.Stages)
	}
	if s := plan.String(); !strings.Contains(s, "questions by meaning #1") {
		t.Errorf("plan summary %q", s)
	}

	// One collection (fuse=score): BM25 and cosine min-max normalised and
	// added 1:1 (each half of the score); the closest question wins there
	// too, found by both.
	_, ev = f.askIn(t, env, "raidd-q", question, engine.Settings("k", "3", "fuse", "score"))
	plan = ev.Plan().(Retrieval)
	if plan.Chunks[0].Key != closest || plan.Chunks[0].Ranks != nil || plan.Chunks[0].Score <= 0.5 {
		t.Errorf("fuse=score with embeddings: %s (%+v)", plan, plan.Chunks[0])
	}
}

// TestDenseEmbedsOnce: the first ask embeds every unit the variant ranks
// (summaries, questions and the chunks' own text for raidd-u) once, with
// stages and the cost in the answer's usage; the next ask embeds only its
// question.
func TestDenseEmbedsOnce(t *testing.T) {
	f := newFixture(t)
	env := f.withEmbed(t, nil, 32)
	chatBefore := len(f.srv.ChatRequests())
	const question = "How far did the river rise near the mill?"
	ans, ev := f.askIn(t, env, "raidd-u", question, nil)
	got := f.srv.EmbeddedTexts()
	want := append(unitTexts(t, f, docstore.DerivedSummary, docstore.DerivedQuestion, docstore.DerivedRaw), question)
	if !sameTexts(got, want) {
		t.Fatalf("embedded %d texts; want each of the %d units once and the question", len(got), len(want)-1)
	}
	embedCalls := 0
	for _, r := range f.srv.Requests() {
		if r.Embed != nil {
			embedCalls++
		}
	}
	if chat := len(f.srv.ChatRequests()) - chatBefore; ans.Usage.LLMCalls != chat+embedCalls {
		t.Errorf("the answer's usage counts %d calls; %d chat and %d embedding calls were made", ans.Usage.LLMCalls, chat, embedCalls)
	}
	for _, want := range []string{" summaries of survey.txt with test-embed", " questions of declaration.txt with test-embed", " chunks of survey.txt with test-embed"} {
		if !slices.ContainsFunc(ev.Stages, func(s string) bool { return strings.HasPrefix(s, "embedding ") && strings.Contains(s, want) }) {
			t.Errorf("no stage says %q: %q", want, ev.Stages)
		}
	}
	if plan := ev.Plan().(Retrieval); !slices.ContainsFunc(plan.Chunks, byMeaning) {
		t.Errorf("no chunk was ranked by meaning: %s", plan)
	}

	// The next ask: the question only, and no stage about embedding units.
	before := len(got)
	const other = "Which crew calibrated the gauge?"
	_, ev = f.askIn(t, env, "raidd-u", other, nil)
	if got := f.srv.EmbeddedTexts()[before:]; !slices.Equal(got, []string{other}) {
		t.Errorf("the second ask embedded %q", got)
	}
	if slices.ContainsFunc(ev.Stages, func(s string) bool { return strings.HasPrefix(s, "embedding ") }) {
		t.Errorf("the second ask reports embedding: %q", ev.Stages)
	}
}

// TestDenseResumes: embedding cut short by a failing endpoint leaves the
// answer to BM25 (saying so) and keeps the batches stored; the next ask
// embeds only the rest.
func TestDenseResumes(t *testing.T) {
	f := newFixture(t)
	env := f.withEmbed(t, nil, 8, llm.WithMaxRetries(0))
	f.srv.EnqueueEmbeddings(llmtest.Reply{}, llmtest.Reply{}, llmtest.Status(http.StatusServiceUnavailable))
	const question = "Which station on the eastern ridge had the old mill?"
	_, ev := f.askIn(t, env, "raidd-s", question, nil)
	if !slices.ContainsFunc(ev.Warnings, func(s string) bool { return strings.HasPrefix(s, "dense retrieval is off for this answer (") }) {
		t.Errorf("warnings do not say ranking by meaning failed: %q", ev.Warnings)
	}
	if plan := ev.Plan().(Retrieval); slices.ContainsFunc(plan.Chunks, byMeaning) {
		t.Errorf("ranked by meaning though embedding failed: %s", plan)
	}
	// What is stored, and what is left.
	var missing []string
	stored := 0
	for _, d := range f.docs {
		key := docstore.DerivedVectorKey(d.ID, llmtest.DefaultEmbedModel, SetFor(llmtest.DefaultModel), docstore.DerivedSummary)
		gaps, n, err := f.lib.Vectors().Gaps(key)
		if err != nil {
			t.Fatal(err)
		}
		texts, _ := f.lib.Derived().Texts(d.ID, SetFor(llmtest.DefaultModel), docstore.DerivedSummary)
		stored += n
		for _, g := range gaps {
			missing = append(missing, texts[g.First:g.Last+1]...)
			stored -= g.Last - g.First + 1
		}
	}
	// Two requests went through (batches of 8, a document's last one
	// shorter), the third failed.
	if stored < 9 || stored > 16 || len(missing) == 0 {
		t.Fatalf("%d summaries stored before the failure, %d left; want two batches", stored, len(missing))
	}
	before := len(f.srv.EmbeddedTexts())
	_, ev = f.askIn(t, env, "raidd-s", question, nil)
	if got := f.srv.EmbeddedTexts()[before:]; !sameTexts(got, append(missing, question)) {
		t.Errorf("the resumed ask embedded %d texts; want the %d summaries left and the question", len(got), len(missing))
	}
	if plan := ev.Plan().(Retrieval); !slices.ContainsFunc(plan.Chunks, byMeaning) {
		t.Errorf("not ranked by meaning once embedded: %s %q", plan, ev.Stages)
	}
}

// TestDenseRemovedWithDocument: removing a document removes its derived
// units' vectors; added and derived again, they are embedded again.
func TestDenseRemovedWithDocument(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env := f.withEmbed(t, nil, 64)
	f.askIn(t, env, "raidd-q", "Who carried the survey crew?", nil)
	survey := f.docs[1]
	if survey.Name != "survey.txt" {
		t.Fatalf("document order: %s", survey.Name)
	}
	key := docstore.DerivedVectorKey(survey.ID, llmtest.DefaultEmbedModel, SetFor(llmtest.DefaultModel), docstore.DerivedQuestion)
	if gaps, _, err := f.lib.Vectors().Gaps(key); err != nil || len(gaps) != 0 {
		t.Fatalf("questions not all embedded: %v, %v", gaps, err)
	}
	if err := f.lib.Remove(survey.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.lib.Check(); err != nil {
		t.Fatal(err)
	}
	if info, _, err := ingest.New(f.lib, nil).Add(t.Context(), enginetest.WriteFile(t, "survey.txt", survey.Text), nil); err != nil || info.ID != survey.ID {
		t.Fatalf("added again as %s (%v), was %s", info.ID, err, survey.ID)
	}
	if _, err := (&Deriver{Library: f.lib, Client: f.env.LLM}).Derive(t.Context(), []docstore.DocID{survey.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if gaps, n, err := f.lib.Vectors().Gaps(key); err != nil || len(gaps) != 1 || gaps[0] != (docstore.UnitRange{First: 0, Last: n - 1}) {
		t.Fatalf("question vectors survived the document: gaps %v, %v", gaps, err)
	}
	before := len(f.srv.EmbeddedTexts())
	f.askIn(t, env, "raidd-q", "Who carried the survey crew?", nil)
	texts, _ := f.lib.Derived().Texts(survey.ID, SetFor(llmtest.DefaultModel), docstore.DerivedQuestion)
	if n := len(f.srv.EmbeddedTexts()) - before; n != len(texts)+1 {
		t.Errorf("embedded %d texts after re-adding; want the %d questions and the question", n, len(texts))
	}
}

// TestDenseModelChanged: vectors of another length than the question's
// (the model behind the name changed) are embedded again, once.
func TestDenseModelChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.askIn(t, f.withEmbed(t, nil, 64), "raidd-s", "Where did the survey crew cross?", nil)
	other := llmtest.New(t, llmtest.WithResponder(f.m.respond), llmtest.WithEmbeddingDim(64))
	_, ev := f.askIn(t, f.withEmbed(t, other, 64), "raidd-s", "Where did the survey crew cross?", nil)
	if !slices.ContainsFunc(ev.Stages, func(s string) bool { return strings.Contains(s, "embedding them again") }) {
		t.Errorf("stages %q", ev.Stages)
	}
	summaries := unitTexts(t, f, docstore.DerivedSummary)
	if n := len(other.EmbeddedTexts()); n != len(summaries)+1 {
		t.Errorf("embedded %d texts with the changed model; want the %d summaries and the question", n, len(summaries))
	}
	if plan := ev.Plan().(Retrieval); !slices.ContainsFunc(plan.Chunks, byMeaning) {
		t.Errorf("not ranked by meaning after embedding again: %s", plan)
	}
}

// byMeaning reports whether a chunk was found by meaning: in one index,
// or among the rankings fused.
func byMeaning(c RetrievedChunk) bool { return c.ByMeaning || len(c.DenseRanks) > 0 }

// rrfK is reciprocal-rank fusion's constant, retrieve's.
const rrfK = 60
