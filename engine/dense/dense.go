// Package dense is dense retrieval over embeddings kept in the library.
//
// With an embedding model configured (CITELENS_EMBED_MODEL, embed_model in
// the config file), each document's sentences and chunks are embedded once
// — in batches, through the model endpoint, with progress — and stored in
// the library (docstore.Vectors.Put: int8 with a per-vector scale, keyed by
// document, model and level, resumable batch by batch, removed with the
// document). A Scorer then implements retrieve.DenseScorer: it embeds the
// query (one call; Prime embeds many queries in one) and scores units by
// cosine against the stored vectors: a unit that is exactly a stored chunk
// by the chunk's vector, a sentence by its own, any other run of
// sentences by the mean of its sentences' vectors. Units whose vectors are
// not stored are embedded with the query in the same call, not stored.
//
// A Scorer is what engine/retrieve needs of an embedding model: it
// implements retrieve.DenseSearcher (the query's vector, and scores for
// any unit), and retrieve searches the stored vectors with it. An
// answer's retrieval (engine.Retrieval) makes the Scorer, embeds what the
// scope lacks first, and decides what happens when embedding fails.
//
// A derivation's units (RAIDD's summaries, questions and chunks) are
// embedded the same way by EnsureDerived, and ranked by
// retrieve.Retriever.Derived.
package dense

import (
	"context"
	"fmt"
	"github.com/citelens/citelens/internal/fix"
	"math"
	"slices"
	"sync"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/llm"
)

// Fusion defaults of an answer's retrieval (engine.Retrieval): BM25 and
// dense similarity weigh the same
// (OkraLong's 1:1), over the top DefaultTop lexical candidates, enough for
// any k a strategy retrieves by default (rag's 40, CoF's 10 per sentence)
// while letting meaning promote a candidate from well down the word
// ranking.
const (
	DefaultTop           = 100
	DefaultLexicalWeight = 1.0
	DefaultDenseWeight   = 1.0
)

// Scorer scores units against queries with stored embeddings. It is safe
// for concurrent use.
type Scorer struct {
	docs    documents    // the library
	vectors vectorStore  // the library's Vectors()
	derived derivedTexts // the library's Derived()
	client  *llm.Client
	model   string

	// OnUsage, if set, receives the usage of each embedding call the
	// Scorer makes (queries, and units embedded on the fly), so a strategy
	// can report it as Usage events. It is called on the goroutine that
	// made the call.
	OnUsage func(llm.Usage)

	mu      sync.Mutex
	queries map[string][]float32 // query vectors, by text
}

// What a Scorer uses of the library: the documents whose units it
// embeds, where it keeps their vectors, and the texts of a derivation's
// units. Nothing else (it adds, removes and ranks nothing).
type (
	// documents reads documents (a *docstore.Library).
	documents interface {
		Document(id docstore.DocID) (*docstore.Document, error)
	}
	// vectorStore keeps the vectors of documents' units (a
	// *docstore.Vectors).
	vectorStore interface {
		Gaps(k docstore.VectorKey) ([]docstore.UnitRange, int, error)
		Put(k docstore.VectorKey, start int, vecs [][]float32) error
		Get(k docstore.VectorKey, units []int) ([]docstore.Vector, int, error)
		Writable() bool
	}
	// derivedTexts reads the texts of a derivation's units (a
	// *docstore.Derived).
	derivedTexts interface {
		Texts(doc docstore.DocID, set docstore.DerivedSet, kind docstore.DerivedKind) ([]string, error)
	}
)

// New returns a Scorer over lib (its documents, vectors and derived
// texts) embedding with client's embedding model, or an error wrapping
// ErrNoEmbedModel when it has none.
func New(lib *docstore.Library, client *llm.Client) (*Scorer, error) {
	if lib == nil || client == nil {
		return nil, fmt.Errorf("%w: dense retrieval needs a library and a model endpoint", ErrNoEmbedModel)
	}
	model := client.Config().EmbedModel
	if model == "" {
		return nil, fmt.Errorf("%w: set %s (or embed_model in the config file) to an embedding model the server serves", ErrNoEmbedModel, config.EnvEmbedModel)
	}
	return &Scorer{docs: lib, vectors: lib.Vectors(), derived: lib.Derived(), client: client, model: model, queries: map[string][]float32{}}, nil
}

// Stores reports whether what the Scorer embeds is kept in the library:
// not in one opened for reading only, where Ensure would embed the whole
// scope for nothing (ScoreDense embeds the candidates it is given).
func (s *Scorer) Stores() bool { return s.vectors.Writable() }

// Model is the embedding model the Scorer uses.
func (s *Scorer) Model() string { return s.model }

// Levels is every level, for Ensure.
var Levels = []docstore.Level{docstore.SentenceLevel, docstore.ChunkLevel}

// Progress is how an embedding run is going, reported after each stored
// batch and once before the first.
type Progress struct {
	Doc   docstore.DocID
	Name  string // the document's file name
	Level docstore.Level
	// Derived is set (its Model named) when the units are a derivation's
	// (EnsureDerived), of Kind; Level is then not used.
	Derived docstore.DerivedSet
	Kind    docstore.DerivedKind
	// Done and Total count the level's units of this document, including
	// those stored by earlier runs.
	Done, Total int
}

// Unit names the units: "sentences" or "chunks", or a derivation's
// "summaries", "questions" or "chunks".
func (p Progress) Unit() string {
	if p.Derived.Model != "" {
		return kindName(p.Kind)
	}
	return unitName(p.Level)
}

func kindName(k docstore.DerivedKind) string {
	switch k {
	case docstore.DerivedSummary:
		return "summaries"
	case docstore.DerivedQuestion:
		return "questions"
	}
	return "chunks"
}

func unitName(lv docstore.Level) string {
	if lv == docstore.ChunkLevel {
		return "chunks"
	}
	return "sentences"
}

// Ensure embeds whatever units of docs at levels (every level when none
// are given) have no stored vector for the Scorer's model, batch by batch,
// storing each batch as it arrives: an interrupted run keeps its batches
// and the next one starts where it stopped. progress, if not nil, is
// called before each document level with work to do and after each batch.
// It returns the usage of the embedding calls.
func (s *Scorer) Ensure(ctx context.Context, docs []docstore.DocID, levels []docstore.Level, progress func(Progress)) (llm.Usage, error) {
	if len(levels) == 0 {
		levels = Levels
	}
	var total llm.Usage
	for _, id := range docs {
		d, err := s.docs.Document(id)
		if err != nil {
			return total, err
		}
		for _, lv := range levels {
			if err := s.ensure(ctx, d, lv, &total, progress); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

func (s *Scorer) ensure(ctx context.Context, d *docstore.Document, lv docstore.Level, total *llm.Usage, progress func(Progress)) error {
	key := docstore.VectorKey{Doc: d.ID, Model: s.model, Level: lv}
	_, err := s.fill(ctx, d, key, func() ([]string, error) {
		n := len(d.Sentences)
		if lv == docstore.ChunkLevel {
			n = len(d.Chunks)
		}
		texts := make([]string, n)
		for i := range texts {
			texts[i] = unitText(d, lv, i)
		}
		return texts, nil
	}, Progress{Doc: d.ID, Name: d.Name, Level: lv}, total, progress)
	return err
}

// fill embeds the units of key that have no stored vector, storing each
// batch as it arrives, and returns how many it embedded. texts gives every
// unit's text; it is called only when something is missing.
func (s *Scorer) fill(ctx context.Context, d *docstore.Document, key docstore.VectorKey, texts func() ([]string, error),
	p Progress, total *llm.Usage, progress func(Progress)) (int, error) {
	gaps, n, err := s.vectors.Gaps(key)
	if err != nil || len(gaps) == 0 {
		return 0, err
	}
	if !s.vectors.Writable() {
		// Embedding them all would cost the model calls and keep
		// nothing: say so before the first call.
		return 0, fix.With(fmt.Errorf("%w: %s of %s have no vectors from %s, and the library is open for reading only, so none made now could be kept",
			ErrEmbed, p.Unit(), docName(d), s.model), "Run 'citelens embed' (or 'citelens derive', for derived units) on the library once; it stores them.")
	}
	all, err := texts()
	if err != nil {
		return 0, err
	}
	if len(all) != n {
		return 0, fmt.Errorf("%w: %d texts for %d %s of %s", ErrEmbed, len(all), n, p.Unit(), docName(d))
	}
	p.Done, p.Total = n, n
	for _, g := range gaps {
		p.Done -= g.Last - g.First + 1
	}
	report := func() {
		if progress != nil {
			progress(p)
		}
	}
	report()
	embedded := 0
	for _, g := range gaps {
		u, err := s.client.EmbedEach(ctx, all[g.First:g.Last+1], func(start int, vecs [][]float32) error {
			if err := s.vectors.Put(key, g.First+start, vecs); err != nil {
				return err
			}
			p.Done += len(vecs)
			embedded += len(vecs)
			report()
			return nil
		})
		total.Add(u)
		if err != nil {
			return embedded, embedError(ctx, d, p.Unit(), err)
		}
	}
	return embedded, nil
}

// embedError says which document failed, keeping the client's error (and
// its Fix) reachable; a cancellation is passed on as it is.
func embedError(ctx context.Context, d *docstore.Document, units string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return fmt.Errorf("%w: the %s of %s: %w", ErrEmbed, units, docName(d), err)
}

func docName(d *docstore.Document) string {
	if d.Name != "" {
		return d.Name
	}
	return string(d.ID)
}

// unitText is the text embedded for unit i of the level: the unit in its
// context (docstore.Document.InContext), so a sentence is embedded with
// the headings it lies under and a table row with its column headers.
func unitText(d *docstore.Document, lv docstore.Level, i int) string {
	if lv == docstore.ChunkLevel {
		c := d.Chunks[i]
		return d.InContext(int(c.First), int(c.Last))
	}
	return d.InContext(i, i)
}

// QueryVector returns query's embedding, embedding it (one call) unless
// it was embedded before by this Scorer.
func (s *Scorer) QueryVector(ctx context.Context, query string) ([]float32, error) {
	if err := s.Prime(ctx, []string{query}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[query], nil
}

// Prime embeds queries in one call (those not embedded already), so that
// scoring each of them later costs no call. CoF retrieves chunks for every
// sentence of its draft answer and primes them all at once.
func (s *Scorer) Prime(ctx context.Context, queries []string) error {
	var todo []string
	s.mu.Lock()
	for _, q := range queries {
		if _, ok := s.queries[q]; !ok && !slices.Contains(todo, q) {
			todo = append(todo, q)
		}
	}
	s.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	vecs, err := s.embed(ctx, todo)
	if err != nil {
		return err
	}
	s.mu.Lock()
	for i, q := range todo {
		s.queries[q] = vecs[i]
	}
	s.mu.Unlock()
	return nil
}

func (s *Scorer) embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, u, err := s.client.Embed(ctx, texts)
	if u.LLMCalls > 0 && s.OnUsage != nil {
		s.OnUsage(u)
	}
	return vecs, err
}

// need is one stored vector a unit needs: unit Index of a level.
type need struct {
	level docstore.Level
	index int
}

// ScoreDense returns the cosine similarity of each unit to query, from
// stored vectors; units without them are embedded in the same call as the
// query. It implements retrieve.DenseScorer.
func (s *Scorer) ScoreDense(ctx context.Context, query string, units []retrieve.Unit) ([]float64, error) {
	// Which stored vectors each unit needs, by document.
	plans := make([][][]need, len(units))
	byDoc := map[docstore.DocID]map[docstore.Level][]int{}
	for i, u := range units {
		d, err := s.docs.Document(u.Doc)
		if err != nil {
			return nil, err
		}
		plans[i] = unitPlans(d, u.First, u.Last)
		if byDoc[u.Doc] == nil {
			byDoc[u.Doc] = map[docstore.Level][]int{}
		}
		for _, p := range plans[i] {
			for _, n := range p {
				byDoc[u.Doc][n.level] = append(byDoc[u.Doc][n.level], n.index)
			}
		}
	}
	stored := map[docstore.DocID]map[docstore.Level]map[int]docstore.Vector{}
	for doc, levels := range byDoc {
		stored[doc] = map[docstore.Level]map[int]docstore.Vector{}
		for lv, idx := range levels {
			slices.Sort(idx)
			idx = slices.Compact(idx)
			vs, _, err := s.vectors.Get(docstore.VectorKey{Doc: doc, Model: s.model, Level: lv}, idx)
			if err != nil {
				return nil, err
			}
			m := make(map[int]docstore.Vector, len(idx))
			for j, i := range idx {
				if vs[j].Stored() {
					m[i] = vs[j]
				}
			}
			stored[doc][lv] = m
		}
	}
	// Build each unit's vector, or mark it for embedding.
	vecs := make([][]float32, len(units))
	var missing []int
	for i, u := range units {
		var v []float32
		ok := false
		for _, p := range plans[i] {
			if v, ok = combine(stored[u.Doc], p); ok {
				break
			}
		}
		if !ok {
			missing = append(missing, i)
			continue
		}
		vecs[i] = v
	}
	s.mu.Lock()
	qv, haveQuery := s.queries[query]
	s.mu.Unlock()
	var texts []string
	if !haveQuery {
		texts = append(texts, query)
	}
	for _, i := range missing {
		texts = append(texts, units[i].Text)
	}
	if len(texts) > 0 {
		got, err := s.embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if !haveQuery {
			qv, got = got[0], got[1:]
			s.mu.Lock()
			s.queries[query] = qv
			s.mu.Unlock()
		}
		for j, i := range missing {
			vecs[i] = got[j]
		}
	}
	out := make([]float64, len(units))
	for i, v := range vecs {
		out[i] = Cosine(qv, v)
	}
	return out, nil
}

// plans_ says which stored vectors can stand for sentences first..last
// of d, best first: a stored chunk's own vector when they are exactly that
// chunk, else their sentences' vectors. A one-sentence chunk has both (the
// same text), the sentence's first, so a unit is scored from whichever
// level is stored.
func unitPlans(d *docstore.Document, first, last int) [][]need {
	if first < 0 || last < first || last >= len(d.Sentences) {
		return nil
	}
	sentences := make([]need, 0, last-first+1)
	for i := first; i <= last; i++ {
		sentences = append(sentences, need{docstore.SentenceLevel, i})
	}
	c, ok := slices.BinarySearchFunc(d.Chunks, first, func(c docstore.Chunk, f int) int { return int(c.First) - f })
	if !ok || int(d.Chunks[c].Last) != last {
		return [][]need{sentences}
	}
	chunk := []need{{docstore.ChunkLevel, c}}
	if first == last {
		return [][]need{sentences, chunk}
	}
	return [][]need{chunk, sentences}
}

// combine returns the unit's vector from stored ones — one, or the mean of
// several, each scaled to unit length first so long and short sentences
// weigh the same — and false if any is missing.
func combine(stored map[docstore.Level]map[int]docstore.Vector, needs []need) ([]float32, bool) {
	if len(needs) == 0 {
		return nil, false
	}
	var sum []float32
	var buf []float32
	for _, n := range needs {
		v, ok := stored[n.level][n.index]
		if !ok {
			return nil, false
		}
		buf = v.Float32s(buf)
		if len(needs) == 1 {
			return slices.Clone(buf), true
		}
		if sum == nil {
			sum = make([]float32, len(buf))
		}
		norm := math.Sqrt(dot(buf, buf))
		if norm == 0 || len(buf) != len(sum) {
			continue
		}
		for j := range sum {
			sum[j] += float32(float64(buf[j]) / norm)
		}
	}
	return sum, true
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Cosine is the cosine similarity of a and b, 0 when either is zero or
// their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	na, nb := dot(a, a), dot(b, b)
	if na == 0 || nb == 0 {
		return 0
	}
	return dot(a, b) / math.Sqrt(na*nb)
}

var _ retrieve.DenseScorer = (*Scorer)(nil)

var _ retrieve.DenseSearcher = (*Scorer)(nil)

// StageText describes embedding progress for the user: "embedding
// 12,000/150,000 sentences of manual.pdf with text-embedding-3-small
// (once; kept in the library)".
func StageText(p Progress, model string) string {
	name := p.Name
	if name == "" {
		name = string(p.Doc)
	}
	return fmt.Sprintf("embedding %s/%s %s of %s with %s (once; kept in the library)",
		humanize.Count(p.Done), humanize.Count(p.Total), p.Unit(), name, model)
}
