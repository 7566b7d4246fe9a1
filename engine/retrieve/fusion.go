package retrieve

import (
	"cmp"
	"context"
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

// Fusion fuses dense similarity with the lexical ranking: the Top
// candidates by lexical score get a dense score, both scores are min-max
// normalised over them, and the passage score becomes
// LexicalWeight·lexical + DenseWeight·dense. Candidates outside the Top
// are dropped. OkraLong fuses the top 20 at 3:2 or 1:1 and cuts at 0.1 of
// the best (Options.Cutoff).
type Fusion struct {
	Dense                      DenseScorer // nil: lexical ranking only
	LexicalWeight, DenseWeight float64     // both zero: 1:1
	Top                        int         // default 20
}

func (f Fusion) weights() (lw, dw float64, top int) {
	lw, dw, top = f.LexicalWeight, f.DenseWeight, f.Top
	if lw == 0 && dw == 0 {
		lw, dw = 1, 1
	}
	if top <= 0 {
		top = 20
	}
	return lw, dw, top
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

// fuse keeps the Top candidates by standalone score and gives them dense
// scores; selection then ranks by the fused gain.
func (rk *ranker) fuse(ctx context.Context, question string, cands []*candidate, f Fusion) ([]*candidate, error) {
	lw, dw, top := f.weights()
	slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(b.base, a.base) })
	cands = cands[:min(top, len(cands))]
	units := make([]Unit, len(cands))
	lex := make([]float64, len(cands))
	for i, c := range cands {
		units[i] = Unit{Doc: c.doc.ID, First: c.idx, Last: c.idx, Text: c.doc.SentenceText(c.idx)}
		lex[i] = c.base
	}
	ds, err := denseScores(ctx, f, question, units)
	if err != nil {
		return nil, err
	}
	llo, lspan := minMax(lex)
	dlo, dspan := minMax(ds)
	for i, c := range cands {
		c.fused, c.lw, c.dw = true, lw, dw
		c.lexLo, c.lexSpan = llo, lspan
		c.dense = (ds[i] - dlo) / dspan
		c.scores.Dense = ds[i]
	}
	return cands, nil
}

// fusePassages re-scores passages ranked by a lexical Score with dense
// similarity, keeping the Top, best first.
func fusePassages(ctx context.Context, f Fusion, question string, ps []Passage) ([]Passage, error) {
	lw, dw, top := f.weights()
	sortPassages(ps)
	ps = ps[:min(top, len(ps))]
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
	llo, lspan := minMax(lex)
	dlo, dspan := minMax(ds)
	for i := range ps {
		ps[i].Scores.Dense = ds[i]
		ps[i].Score = lw*(lex[i]-llo)/lspan + dw*(ds[i]-dlo)/dspan
	}
	sortPassages(ps)
	return ps, nil
}
