package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/topk"
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

// DenseSearcher is a DenseScorer whose vectors are stored in the library
// (engine/dense embeds them there), so retrieval can search them: with
// one, dense search proposes candidates of its own — the units of the
// scope most similar in meaning to the query, found whether or not they
// share a word with it — and retrieval is hybrid for real. Retrieval
// scans the stored vectors itself (docstore.Vectors.ScanCosines,
// docstore.Derived.ScanCosines) with the query's vector.
type DenseSearcher interface {
	DenseScorer
	// Model names the embedding model whose stored vectors the query
	// vectors are compared with.
	Model() string
	// QueryVector is query's embedding.
	QueryVector(ctx context.Context, query string) ([]float32, error)
}

// Reranker orders texts by a cross-encoder's relevance to a query: one
// score per text, in the order given, higher is more relevant
// (engine/rerank speaks to a /v1/rerank endpoint).
type Reranker interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}

// Fusion combines the lexical ranking with dense similarity and a
// reranker. When Dense is a DenseSearcher it proposes its own Candidates,
// joined to BM25's; every candidate gets a dense score, and the two are
// combined by Rule (reciprocal rank by default). DenseOnly ranks by
// meaning alone. Rerank, when set, reorders the best candidates last.
//
// A strategy whose paper fixes the fusion asks for it by name: OkraLong's
// assembled retriever is MinMax over the top 20 at 3:2, 2:3 or 1:1 with a
// cut-off at 0.1 of the best (Options.Cutoff); RAIDD ranks its derived
// units in OneIndex (Retriever.Derived).
type Fusion struct {
	Dense DenseScorer // nil: lexical ranking only
	// Rule is how the lexical and dense scores combine ("" is RRF).
	Rule Rule
	// LexicalWeight and DenseWeight weigh the two (both zero is 1:1).
	LexicalWeight, DenseWeight float64
	// Top bounds the candidates fused: under RRF only the Top best by
	// lexical score are scored densely and fused; under MinMax each
	// retriever's list is its Top best (0: every candidate).
	Top int
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

// Rule names a way of combining rankings.
type Rule string

// The rules of fusion.
const (
	// RRF fuses the lexical and dense rankings by reciprocal rank
	// (Cormack et al. 2009), weighted: a candidate's score is the sum of
	// weight/(60 + rank) over the two rankings. Ranks, unlike raw scores,
	// are comparable whatever the scorers' scales.
	RRF Rule = "rrf"
	// MinMax is OkraLong's assembled retriever (Appendix B.3): each
	// retriever's top Top candidates, its scores min-max normalised over
	// that list, added with the weights (see FuseMinMax). Unlike RRF the
	// fused scores keep their gaps, so a relative cut-off can act.
	MinMax Rule = "minmax"
	// OneIndex ranks every unit in one index by one similarity: the
	// cosine of the embeddings with a DenseSearcher, else BM25 (RAIDD's
	// derived units, Retriever.Derived).
	OneIndex Rule = "one-index"
	// Words ranks by words alone: no dense scores and no reranker, even
	// when the environment has them (engine.Retrieval adds neither).
	Words Rule = "words"
)

// rrfK is reciprocal-rank fusion's constant (Cormack et al. 2009): a rank
// r counts 1/(rrfK + r).
const rrfK = 60

// normalise checks the rule and fills in the defaults: RRF for no rule,
// no models for Words, dense similarity alone for OneIndex.
func (f *Fusion) normalise() error {
	switch f.Rule {
	case "":
		f.Rule = RRF
	case RRF, MinMax:
	case Words:
		f.Dense, f.Rerank = nil, nil
	case OneIndex:
		f.DenseOnly = f.Dense != nil
	default:
		return fmt.Errorf("%w: unknown fusion rule %q", ErrBadOptions, f.Rule)
	}
	if f.RerankTop <= 0 {
		f.RerankTop = 50
	}
	return nil
}

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

// denseCandidates returns dense search's own candidates of level in
// docs, as index hits scored by cosine, when the fusion has a searcher:
// the f.candidates() units whose stored vectors are most similar to the
// question's, those without any similarity (cosine ≤ 0) left out.
func (r *Retriever) denseCandidates(ctx context.Context, f Fusion, question string, docs []docstore.DocID, level docstore.Level) ([]Hit, error) {
	s := f.searcher()
	if s == nil {
		return nil, nil
	}
	docs, err := r.list(docs) // every document's vectors, for a library-wide scope
	if err != nil {
		return nil, err
	}
	qv, err := s.QueryVector(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDense, err)
	}
	top := topk.New(f.candidates(), func(h Hit) float64 { return h.Score })
	for _, doc := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		err := r.lib.Vectors().ScanCosines(docstore.VectorKey{Doc: doc, Model: s.Model(), Level: level}, qv, func(u int, cos float64) {
			if cos > 0 && top.Admits(cos) {
				top.Offer(Hit{Doc: doc, Index: u, Score: cos})
			}
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDense, err)
		}
	}
	out := top.Items()
	SortHits(out)
	return out, nil
}

// fuse gives candidates a dense score and combines it with the lexical
// one by the fusion's rule; selection then ranks by the fused score (see
// gain). proposed are dense search's own candidates, which MinMax keeps
// whatever their lexical rank.
func (rk *ranker) fuse(ctx context.Context, question string, cands []*candidate, f Fusion, proposed map[Hit]bool) ([]*candidate, error) {
	cands = fusedPool(cands, f, func(c *candidate) float64 { return c.base },
		func(c *candidate) bool { return proposed[Hit{Doc: c.doc.ID(), Index: c.idx}] })
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
	fused := combine(f, lex, ds)
	for i, c := range cands {
		c.fused = true
		c.fusedScore = fused[i] * rk.noise(c)
		c.scores.Dense = ds[i]
	}
	return cands, nil
}

// fusedPool is what a fusion scores of cands: under RRF the f.Top best by
// lexical score; under MinMax the f.Top best by lexical score and every
// candidate dense search proposed, each retriever's list being chosen
// from them; everything with DenseOnly or no Top.
func fusedPool[T any](cands []T, f Fusion, lexical func(T) float64, proposed func(T) bool) []T {
	if f.Top <= 0 || f.DenseOnly {
		return cands
	}
	slices.SortStableFunc(cands, func(a, b T) int { return cmp.Compare(lexical(b), lexical(a)) })
	if f.Rule != MinMax {
		return cands[:min(f.Top, len(cands))]
	}
	out := cands[:0:0]
	for i, c := range cands {
		if i < f.Top || proposed(c) {
			out = append(out, c)
		}
	}
	return out
}

// combine is the fusion's rule applied to the lexical and dense scores of
// the same candidates.
func combine(f Fusion, lex, dense []float64) []float64 {
	lw, dw := f.weights()
	switch {
	case f.DenseOnly:
		return dense
	case f.Rule == MinMax:
		l := make([]float64, len(lex))
		for i, x := range lex {
			l[i] = x
			if x <= 0 {
				l[i] = nan // BM25 did not retrieve it
			}
		}
		return FuseMinMax(l, dense, lw, dw, f.Top)
	}
	return rrf(lex, dense, lw, dw)
}

// FuseMinMax fuses two retrievers' scores of the same candidates as
// OkraLong's assembled retriever does (Hui et al. 2025, Appendix B.3:
// "We normalize the relevance scores of the top 20 text chunks using
// min-max normalization and aggregate them"): each retriever's list is
// its top best candidates (all it scored when top is 0), NaN marking a
// candidate it did not score; its scores are min-max normalised over that
// list, its best 1 and its last 0 (all 1 when they are equal); and a
// candidate's fused score is
//
//	S = wl·S_lexical + wd·S_dense
//
// with the weights scaled to sum to 1, a list the candidate is not in
// counting 0. Fused scores thus lie within 0..1, and a relative cut-off
// (Options.Cutoff) drops what both retrievers rank low or only one ranks
// at its bottom.
func FuseMinMax(lexical, dense []float64, wl, wd float64, top int) []float64 {
	if wl+wd <= 0 {
		wl, wd = 1, 1
	}
	out := make([]float64, max(len(lexical), len(dense)))
	for _, l := range []struct {
		xs []float64
		w  float64
	}{{lexical, wl / (wl + wd)}, {dense, wd / (wl + wd)}} {
		for i, n := range normalisedTop(l.xs, top) {
			out[i] += l.w * n
		}
	}
	return out
}

// nan marks a score a retriever did not give.
var nan = math.NaN()

// normalisedTop min-max normalises the top best of xs (NaN: not scored)
// over themselves, by index.
func normalisedTop(xs []float64, top int) map[int]float64 {
	idx := make([]int, 0, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[b], xs[a]) })
	if top > 0 {
		idx = idx[:min(top, len(idx))]
	}
	out := make(map[int]float64, len(idx))
	if len(idx) == 0 {
		return out
	}
	hi, lo := xs[idx[0]], xs[idx[len(idx)-1]]
	for _, i := range idx {
		out[i] = 1
		if hi > lo {
			out[i] = (xs[i] - lo) / (hi - lo)
		}
	}
	return out
}

// noise is the factor a candidate's score is scaled by for being a
// contents line, furniture, code or a fragment (Weights.Noise), 1 for body
// text: meaning and a reranker's relevance are scaled too, so noise never
// outranks body text that matches as well.
func (rk *ranker) noise(c *candidate) float64 {
	if flags(c.doc, c.idx).Noise() && rk.weights.Noise > 0 {
		return rk.weights.Noise
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
// similarity, combined by the fusion's rule, best first. proposed are the
// passages dense search proposed (by first sentence), which MinMax keeps
// whatever their lexical rank.
func fusePassages(ctx context.Context, f Fusion, question string, ps []Passage, proposed map[Hit]bool) ([]Passage, error) {
	sortPassages(ps)
	ps = fusedPool(ps, f, func(p Passage) float64 { return p.Score },
		func(p Passage) bool { return proposed[Hit{Doc: p.Doc, Index: p.First}] })
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
	fused := combine(f, lex, ds)
	for i := range ps {
		ps[i].Scores.Dense = ds[i]
		ps[i].Score = fused[i]
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
