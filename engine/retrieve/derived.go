package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/topk"
)

// Derived documents (engine/raidd: a model's summaries of a document's
// chunks and questions about them, docstore's derived index) are keys to
// the chunks they were written from: Derived ranks their units against a
// question, by words and by meaning, and returns the chunks behind the
// best, each once. The store only stores the units and their vectors
// (docstore.Derived.ReadPostings and ScanCosines); the
// ranking, its fusion and the reranker are this package's, as for
// sentences, chunks and windows.

// DerivedOptions say which derived units Derived ranks and how.
type DerivedOptions struct {
	Set   docstore.DerivedSet
	Docs  []docstore.DocID // the scope; every document must have Set indexed
	Kinds []docstore.DerivedKind
	// K is the number of chunks wanted (default 10). Pool is how many
	// units each ranking takes before a chunk's repeats are dropped
	// (default K × 32: a chunk has several questions).
	K, Pool int
	// Fusion says how the rankings combine (Rule):
	//
	//   - RRF (the default): each kind ranks the chunks by its units, by
	//     words and (with a DenseSearcher) by meaning, and the rankings
	//     are fused by reciprocal rank: a chunk several keys find comes
	//     first, and scores of different kinds never meet.
	//   - MinMax: every kind's units in one collection, BM25 and cosine
	//     each min-max normalised over the pool and added with the
	//     weights.
	//   - OneIndex: every kind's units in one index ranked by one
	//     similarity — the cosine of the embeddings with a DenseSearcher,
	//     else BM25 (each kind's lengths normalised against its own
	//     average) — RAIDD's rule: a raw chunk is taken only when it
	//     scores higher than the derived keys.
	//
	// Rerank, when set, reorders the best chunks by their own text.
	Fusion Fusion
	BM25   BM25
}

// DerivedChunk is a chunk retrieved through its derived units: the unit
// that brought it (the best-ranked of its units), with Score the chunk's
// score in the fused ranking.
type DerivedChunk struct {
	docstore.DerivedHit
	// ByMeaning says that unit was found by the similarity of its
	// embedding to the question's, not by BM25.
	ByMeaning bool
	// Ranks are the chunk's ranks (1 is best) in each ranking fused, when
	// rankings were fused by rank (RRF).
	Ranks map[DerivedRanking]int
	// Rerank is the reranker's relevance, when reranked.
	Rerank float64
	// best is the unit's rank in its ranking (RRF), for ties.
	best int
}

// DerivedRanking names one ranking of the chunks: a kind's units by
// BM25, or by cosine similarity when ByMeaning.
type DerivedRanking struct {
	Kind      docstore.DerivedKind
	ByMeaning bool
}

// Derived ranks the units of opt.Kinds of the scope's derivation against
// question and returns the first opt.K distinct chunks behind them, best
// first (see DerivedOptions for the rules). A DenseSearcher's failure is
// an error wrapping ErrDense; the lexical ranking is then still usable.
func (r *Retriever) Derived(ctx context.Context, question string, opt DerivedOptions) ([]DerivedChunk, error) {
	if opt.K <= 0 {
		opt.K = 10
	}
	if opt.Pool <= 0 {
		opt.Pool = 32 * opt.K
	}
	if err := opt.Fusion.normalise(); err != nil {
		return nil, err
	}
	if len(opt.Docs) == 0 || len(opt.Kinds) == 0 {
		return nil, nil
	}
	q := ParseQuery(question)
	search := func(kinds []docstore.DerivedKind, byMeaning bool) ([]docstore.DerivedHit, error) {
		if byMeaning {
			return r.nearestDerived(ctx, opt, question, kinds)
		}
		return SearchDerived(r.lib, q, docstore.DerivedSearchOptions{Set: opt.Set, Docs: opt.Docs, Kinds: kinds, K: opt.Pool}, opt.BM25)
	}
	dense := opt.Fusion.searcher() != nil
	var ranked []DerivedChunk
	switch opt.Fusion.Rule {
	case OneIndex:
		hits, err := search(opt.Kinds, dense)
		if err != nil {
			return nil, err
		}
		ranked = distinctChunks(hits, dense)
	case MinMax:
		hits, err := search(opt.Kinds, false)
		if err != nil {
			return nil, err
		}
		if dense {
			near, err := search(opt.Kinds, true)
			if err != nil {
				return nil, err
			}
			lw, dw := opt.Fusion.weights()
			hits = fuseDerivedScores(hits, near, lw, dw)
		}
		ranked = distinctChunks(hits, false)
	default:
		var lists [][]DerivedChunk
		var names []DerivedRanking
		for _, byMeaning := range []bool{false, true} {
			if byMeaning && !dense {
				break
			}
			for _, kind := range opt.Kinds {
				hits, err := search([]docstore.DerivedKind{kind}, byMeaning)
				if err != nil {
					return nil, err
				}
				lists = append(lists, distinctChunks(hits, byMeaning))
				names = append(names, DerivedRanking{kind, byMeaning})
			}
		}
		ranked = lists[0]
		if len(lists) > 1 {
			ranked = fuseChunkRanks(names, lists)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ranked, err := r.rerankDerived(ctx, question, ranked, opt.Fusion)
	if err != nil {
		return nil, err
	}
	return ranked[:min(opt.K, len(ranked))], nil
}

// nearestDerived ranks the scope's units of kinds by the cosine
// similarity of their stored embeddings to the question's, the best
// opt.Pool of them (those without any similarity left out).
func (r *Retriever) nearestDerived(ctx context.Context, opt DerivedOptions, question string, kinds []docstore.DerivedKind) ([]docstore.DerivedHit, error) {
	s := opt.Fusion.searcher()
	qv, err := s.QueryVector(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDense, err)
	}
	top := topk.New(opt.Pool, func(h docstore.DerivedHit) float64 { return h.Score })
	err = r.lib.Derived().ScanCosines(s.Model(), qv, docstore.DerivedSearchOptions{Set: opt.Set, Docs: opt.Docs, Kinds: kinds}, func(h docstore.DerivedHit) {
		if h.Score > 0 && top.Admits(h.Score) {
			top.Offer(h)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDense, err)
	}
	return docstore.SortDerivedHits(top.Items()), nil
}

// derivedChunkKey identifies a chunk of the scope.
type derivedChunkKey struct {
	doc   docstore.DocID
	chunk int
}

// distinctChunks keeps each chunk's best unit, in order.
func distinctChunks(hits []docstore.DerivedHit, byMeaning bool) []DerivedChunk {
	seen := map[derivedChunkKey]bool{}
	var out []DerivedChunk
	for _, h := range hits {
		if key := (derivedChunkKey{h.Doc, h.Chunk}); !seen[key] {
			seen[key] = true
			out = append(out, DerivedChunk{DerivedHit: h, ByMeaning: byMeaning})
		}
	}
	return out
}

// fuseChunkRanks fuses rankings of the chunks by reciprocal rank. A chunk
// is represented by the unit of the ranking where it ranks best (the
// first such ranking on a tie: words before meaning, kinds in the order
// asked).
func fuseChunkRanks(names []DerivedRanking, lists [][]DerivedChunk) []DerivedChunk {
	byKey := map[derivedChunkKey]*DerivedChunk{}
	var order []derivedChunkKey
	fused := map[derivedChunkKey]float64{}
	for i, list := range lists {
		for r, c := range list {
			key := derivedChunkKey{c.Doc, c.Chunk}
			fused[key] += 1 / float64(rrfK+r+1)
			if h, ok := byKey[key]; ok {
				h.Ranks[names[i]] = r + 1
				if r+1 < h.best {
					h.DerivedHit, h.ByMeaning, h.best = c.DerivedHit, c.ByMeaning, r+1
				}
				continue
			}
			c.Ranks = map[DerivedRanking]int{names[i]: r + 1}
			c.best = r + 1
			byKey[key] = &c
			order = append(order, key)
		}
	}
	out := make([]DerivedChunk, 0, len(order))
	for _, key := range order {
		h := byKey[key]
		h.Score = fused[key]
		out = append(out, *h)
	}
	slices.SortStableFunc(out, func(a, b DerivedChunk) int { return cmp.Or(cmp.Compare(b.Score, a.Score), a.best-b.best) })
	return out
}

// fuseDerivedScores puts BM25 hits and cosine hits of the same units on
// one scale (FuseMinMax over each whole list, weighted lw:dw); a unit
// missing from one list gets nothing from it. The result is best first
// (ties in the order the lists gave them).
func fuseDerivedScores(lexical, near []docstore.DerivedHit, lw, dw float64) []docstore.DerivedHit {
	type unitKey struct {
		doc  docstore.DocID
		kind docstore.DerivedKind
		unit int
	}
	at := map[unitKey]int{}
	var all []docstore.DerivedHit
	var lex, dense []float64
	for _, h := range lexical {
		at[unitKey{h.Doc, h.Kind, h.Unit}] = len(all)
		all = append(all, h)
		lex, dense = append(lex, h.Score), append(dense, nan)
	}
	for _, h := range near {
		if i, ok := at[unitKey{h.Doc, h.Kind, h.Unit}]; ok {
			dense[i] = h.Score
			continue
		}
		all = append(all, h)
		lex, dense = append(lex, nan), append(dense, h.Score)
	}
	fused := FuseMinMax(lex, dense, lw, dw, 0)
	for i := range all {
		all[i].Score = fused[i]
	}
	slices.SortStableFunc(all, func(a, b docstore.DerivedHit) int { return cmp.Compare(b.Score, a.Score) })
	return all
}

// rerankDerived reorders the best chunks by the reranker's relevance of
// their own text (the text the answer reads), the rest after in their
// order; on failure it warns and keeps the order.
func (r *Retriever) rerankDerived(ctx context.Context, question string, cs []DerivedChunk, f Fusion) ([]DerivedChunk, error) {
	if f.Rerank == nil || len(cs) == 0 {
		return cs, nil
	}
	dc := newDocCache(r.lib)
	ps := make([]Passage, len(cs))
	for i, c := range cs {
		d, err := dc.get(c.Doc)
		if err != nil {
			return nil, err
		}
		if c.First < 0 || c.Last < c.First || c.Last >= d.NumSentences() {
			return nil, fmt.Errorf("derived chunk %d of document %s lies outside it", c.Chunk, c.Doc)
		}
		// What is not reranked keeps its rank order, which a score tie
		// would not: the passages are scored by rank.
		ps[i] = passage(d, c.First, c.Last, float64(len(cs)-i))
		ps[i].Text = d.InContext(c.First, c.Last)
	}
	at := make(map[Hit]int, len(cs))
	for i, c := range cs {
		at[Hit{Doc: c.Doc, Index: c.First}] = i
	}
	ps = rerankPassages(ctx, f.Rerank, question, ps, f.RerankTop, f.Warn)
	out := make([]DerivedChunk, len(ps))
	for i, p := range ps {
		out[i] = cs[at[Hit{Doc: p.Doc, Index: p.First}]]
		out[i].Rerank = p.Scores.Rerank
	}
	return out, nil
}
