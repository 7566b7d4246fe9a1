package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/citelens/citelens/docstore"
)

// Unit is a run of sentences of one document, as handed to a DenseScorer.
type Unit struct {
	Doc         docstore.DocID
	First, Last int // sentence indices, inclusive
	Text        string
}

// DenseScorer scores units by their meaning's similarity to a query (the
// cosine of embeddings, say); higher is closer. Implementations may cache
// vectors; they are called once per retrieval with the fused candidates.
type DenseScorer interface {
	ScoreDense(ctx context.Context, query string, units []Unit) ([]float64, error)
}

// DenseSearcher is a DenseScorer that also proposes candidates of its
// own: the units of a level most similar to the query across the scope.
// With one, retrieval is hybrid for real: a paraphrase that shares no word
// with the question is found by meaning and fused with BM25's finds.
type DenseSearcher interface {
	DenseScorer
	SearchDense(ctx context.Context, query string, docs []docstore.DocID, level docstore.Level, n int) ([]Hit, error)
}

// Reranker orders texts by a cross-encoder's relevance to a query: one
// score per text, in the order given, higher is more relevant
// (engine/rerank speaks to a /v1/rerank endpoint).
type Reranker interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}

// Fusion fuses dense similarity with the lexical ranking. When Dense is a
// DenseSearcher it proposes its own Candidates, unioned with BM25's; every
// candidate gets a dense score, and the lexical and dense rankings are
// fused by reciprocal rank (weighted by LexicalWeight and DenseWeight;
// both zero is 1:1). DenseOnly ranks by meaning alone, for experiments.
// Top, when set, keeps only that many candidates by lexical score before
// fusing (OkraLong fuses the top 20 at 3:2 or 1:1 and cuts at 0.1 of the
// best, Options.Cutoff).
type Fusion struct {
	Dense                      DenseScorer // nil: lexical ranking only
	LexicalWeight, DenseWeight float64
	Top                        int
	// Candidates is how many units a DenseSearcher proposes (default 100).
	Candidates int
	// DenseOnly: no lexical ranking at all.
	DenseOnly bool
	// Rerank, if set, orders the RerankTop best fused candidates (default
	// 50) by a cross-encoder's relevance. If it fails the fused order
	// stands and Warn, if set, is told why.
	Rerank    Reranker
	RerankTop int
	Warn      func(string)
}

// rrfK is reciprocal-rank fusion's constant (Cormack et al. 2009): a rank
// r counts 1/(rrfK + r).
const rrfK = 60

func (f Fusion) weights() (lw, dw float64) {
	lw, dw = f.LexicalWeight, f.DenseWeight
	if lw == 0 && dw == 0 {
		lw, dw = 1, 1
	}
	return lw, dw
}

func (f Fusion) candidates() int {
	if f.Candidates <= 0 {
		return 100
	}
	return f.Candidates
}

// searcher is f's DenseSearcher, if it has one.
func (f Fusion) searcher() DenseSearcher {
	s, _ := f.Dense.(DenseSearcher)
	return s
}

// denseScores asks the scorer for units and checks its answer.
func denseScores(ctx context.Context, f Fusion, question string, units []Unit) ([]float64, error) {
	ds, err := f.Dense.ScoreDense(ctx, question, units)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDense, err)
	}
	if len(ds) != len(units) {
		return nil, fmt.Errorf("%w: %d scores for %d passages", ErrDense, len(ds), len(units))
	}
	return ds, nil
}

// rrf fuses two scorings of the same items by reciprocal rank: each item's
// rank by lex and by dense (ties share the better rank), weighted.
func rrf(lex, dense []float64, lw, dw float64) []float64 {
	rl, rd := ranks(lex), ranks(dense)
	out := make([]float64, len(lex))
	for i := range out {
		out[i] = lw/float64(rrfK+rl[i]) + dw/float64(rrfK+rd[i])
	}
	return out
}

// ranks returns each score's 1-based rank, highest first; equal scores
// share a rank.
func ranks(xs []float64) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[b], xs[a]) })
	out := make([]int, len(xs))
	for r, i := range idx {
		out[i] = r + 1
		if r > 0 && xs[i] == xs[idx[r-1]] {
			out[i] = out[idx[r-1]]
		}
	}
	return out
}

// denseCandidates returns dense search's own sentence candidates, as index
// hits, when the fusion has a searcher.
func denseCandidates(ctx context.Context, f Fusion, question string, docs []docstore.DocID, level docstore.Level) ([]Hit, error) {
	s := f.searcher()
	if s == nil {
		return nil, nil
	}
	hits, err := s.SearchDense(ctx, question, docs, level, f.candidates())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDense, err)
	}
	return hits, nil
}

// fuse gives every candidate a dense score and fuses it with the lexical
// ranking; selection then ranks by the fused score (see gain).
func (rk *ranker) fuse(ctx context.Context, question string, cands []*candidate, f Fusion) ([]*candidate, error) {
	if f.Top > 0 && !f.DenseOnly {
		slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(b.base, a.base) })
		cands = cands[:min(f.Top, len(cands))]
	}
	if len(cands) == 0 {
		return cands, nil
	}
	units := make([]Unit, len(cands))
	lex := make([]float64, len(cands))
	for i, c := range cands {
		units[i] = Unit{Doc: c.doc.ID(), First: c.idx, Last: c.idx, Text: c.doc.InContext(c.idx, c.idx)}
		lex[i] = c.base
	}
	ds, err := denseScores(ctx, f, question, units)
	if err != nil {
		return nil, err
	}
	lw, dw := f.weights()
	fused := rrf(lex, ds, lw, dw)
	if f.DenseOnly {
		fused = ds
	}
	for i, c := range cands {
		c.fused = true
		c.fusedScore = fused[i] * rk.noise(c)
		c.scores.Dense = ds[i]
	}
	return cands, nil
}

// noise is the factor a candidate's score is scaled by for being a
// contents line, furniture, code or a fragment (Model.Noise), 1 for body
// text: meaning and a reranker's relevance are scaled too, so noise never
// outranks body text that matches as well.
func (rk *ranker) noise(c *candidate) float64 {
	if flags(c.doc, c.idx).Noise() && rk.m.Noise > 0 {
		return rk.m.Noise
	}
	return 1
}

// rerank orders the best top candidates by the reranker's relevance: the
// reranked ones come first, in its order, the rest after as they were. On
// failure it leaves the order alone and says why through warn.
func (rk *ranker) rerank(ctx context.Context, question string, cands []*candidate, rr Reranker, top int, warn func(string)) []*candidate {
	if rr == nil || len(cands) == 0 {
		return cands
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(rk.standalone(b), rk.standalone(a)) })
	n := min(max(top, 1), len(cands))
	texts := make([]string, n)
	for i, c := range cands[:n] {
		texts[i] = rerankText(c)
	}
	scores, ok := rerankScores(ctx, rr, question, texts, warn)
	if !ok {
		return cands
	}
	// Above every candidate it did not see, in its order (relevance scaled
	// to 0..1, then by noise).
	lo, span := minMax(scores)
	for i, c := range cands[:n] {
		c.reranked = true
		c.rerankScore = (scores[i] - lo) / span * rk.noise(c)
		c.scores.Rerank = scores[i]
	}
	return cands
}

// rerankScores asks the reranker for one score per text; on failure it
// tells warn why (unless the answer was cancelled) and reports false, and
// the caller keeps its order.
func rerankScores(ctx context.Context, rr Reranker, question string, texts []string, warn func(string)) ([]float64, bool) {
	scores, err := rr.Rerank(ctx, question, texts)
	if err == nil && len(scores) != len(texts) {
		err = fmt.Errorf("%d scores for %d passages", len(scores), len(texts))
	}
	if err != nil {
		if warn != nil && !errors.Is(err, context.Canceled) {
			warn(fmt.Sprintf("the reranker failed (%v); the passages keep their fused order", err))
		}
		return nil, false
	}
	return scores, true
}

// rerankText is what the reranker reads of a candidate: the sentence in
// its context (heading path, a row's table headers), so it is judged with
// what it is about.
func rerankText(c *candidate) string { return c.doc.InContext(c.idx, c.idx) }

// standalone is a candidate's score before selection: the reranker's, the
// fused, or the lexical one.
func (rk *ranker) standalone(c *candidate) float64 {
	switch {
	case c.reranked:
		return rerankBase + c.rerankScore
	case c.fused:
		return c.fusedScore
	}
	return c.base
}

// rerankBase lifts reranked candidates above every other score.
const rerankBase = 1e6

// minMax returns the low end and the span of xs (span 1 when all equal).
func minMax(xs []float64) (lo, span float64) {
	if len(xs) == 0 {
		return 0, 1
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if hi-lo <= 0 {
		return lo, 1
	}
	return lo, hi - lo
}

// fusePassages re-scores passages ranked by a lexical Score with dense
// similarity, fused by reciprocal rank, best first.
func fusePassages(ctx context.Context, f Fusion, question string, ps []Passage) ([]Passage, error) {
	sortPassages(ps)
	if f.Top > 0 && !f.DenseOnly {
		ps = ps[:min(f.Top, len(ps))]
	}
	units := make([]Unit, len(ps))
	lex := make([]float64, len(ps))
	for i, p := range ps {
		units[i] = Unit{Doc: p.Doc, First: p.First, Last: p.Last, Text: p.Text}
		lex[i] = p.Score
	}
	ds, err := denseScores(ctx, f, question, units)
	if err != nil {
		return nil, err
	}
	lw, dw := f.weights()
	fused := rrf(lex, ds, lw, dw)
	for i := range ps {
		ps[i].Scores.Dense = ds[i]
		ps[i].Score = fused[i]
		if f.DenseOnly {
			ps[i].Score = ds[i]
		}
	}
	sortPassages(ps)
	return ps, nil
}

// rerankPassages orders the best top passages by the reranker, the rest
// after; on failure it warns and keeps the order.
func rerankPassages(ctx context.Context, rr Reranker, question string, ps []Passage, top int, warn func(string)) []Passage {
	if rr == nil || len(ps) == 0 {
		return ps
	}
	sortPassages(ps)
	n := min(max(top, 1), len(ps))
	texts := make([]string, n)
	for i, p := range ps[:n] {
		texts[i] = p.Text
		if p.Heading != "" {
			texts[i] = p.Heading + "\n" + p.Text
		}
	}
	scores, ok := rerankScores(ctx, rr, question, texts, warn)
	if !ok {
		return ps
	}
	// The reranked passages score 1..2 by relevance, the rest below 1 in
	// their order, so a cut-off relative to the best still means something.
	lo, span := minMax(scores)
	rest := 0.0
	for _, p := range ps[n:] {
		rest = max(rest, p.Score)
	}
	for i := range ps {
		if i < n {
			ps[i].Scores.Rerank = scores[i]
			ps[i].Score = 1 + (scores[i]-lo)/span
		} else if rest > 0 {
			ps[i].Score = 0.99 * ps[i].Score / rest
		}
	}
	sortPassages(ps)
	return ps
}
