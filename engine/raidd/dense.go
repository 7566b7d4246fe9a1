package raidd

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/internal/textproc"
)

// meaning is a request's dense side: the question's embedding and the
// scope's embedded derived units, ranked by cosine similarity.
type meaning struct {
	rt     *engine.Runtime
	sc     *dense.Scorer
	set    docstore.DerivedSet
	kinds  []docstore.DerivedKind
	healed bool
}

// meaning prepares ranking by meaning: with an embedding model configured,
// it embeds the variant's derived units the scope lacks (once; stored in
// the library, with stages and usage) and the question. Without one it
// returns nil and makes no call. When embedding fails, it says so in a
// stage and returns nil, so the strategy ranks by BM25 alone, as rag
// does; only a cancellation is an error.
func (v Variant) meaning(ctx context.Context, rt *engine.Runtime, set docstore.DerivedSet) (*meaning, error) {
	if !dense.Enabled(rt.Env()) {
		return nil, nil
	}
	sc, err := dense.DerivedForEnv(ctx, rt.Env(), rt.IDs(), set, v.Kinds, rt)
	if err == nil && sc != nil {
		_, err = sc.QueryVector(ctx, rt.Question())
	}
	switch {
	case err != nil && (ctx.Err() != nil || engine.Canceled(err)):
		return nil, err
	case err != nil:
		rt.Stagef("ranking by meaning is unavailable (%s); ranking by words only", textproc.OneLine(err.Error()))
		return nil, nil
	case sc == nil:
		return nil, nil
	}
	return &meaning{rt: rt, sc: sc, set: set, kinds: v.Kinds}, nil
}

// model is the embedding model, "" for none.
func (m *meaning) model() string {
	if m == nil {
		return ""
	}
	return m.sc.Model()
}

// search ranks the scope's units of kinds by the cosine similarity of
// their stored embeddings to the question's, the best n. Vectors of
// another length than the question's mean the model behind the name
// changed: they are embedded again, once.
func (m *meaning) search(ctx context.Context, question string, kinds []docstore.DerivedKind, n int) ([]docstore.DerivedHit, error) {
	qv, err := m.sc.QueryVector(ctx, question)
	if err != nil {
		return nil, err
	}
	lib, ids := m.rt.Library(), m.rt.IDs()
	opt := docstore.DerivedSearchOptions{Set: m.set, Docs: ids, Kinds: kinds, K: n}
	hits, err := lib.SearchDerivedVectors(m.sc.Model(), qv, opt)
	if !errors.Is(err, docstore.ErrBadVectors) || m.healed {
		return hits, err
	}
	m.healed = true
	m.rt.Stagef("the stored embeddings of the derived documents do not fit %s's question embedding (the model changed): embedding them again", m.sc.Model())
	for _, id := range ids {
		if err := lib.RemoveDerivedVectors(id, m.set, m.sc.Model()); err != nil {
			return nil, err
		}
	}
	rep, err := m.sc.EnsureDerived(ctx, ids, m.set, m.kinds, dense.ThrottledStages(m.rt, m.sc.Model()))
	m.rt.Usage(rep.Usage)
	if err != nil {
		return nil, err
	}
	return lib.SearchDerivedVectors(m.sc.Model(), qv, opt)
}

// fuseScores puts BM25 hits and cosine hits of the same units on one
// scale, as retrieve.Fusion does: each score min-max normalised over its
// own list, weighted dense.DefaultLexicalWeight : dense.DefaultDenseWeight
// (1:1) and added; a unit missing from one list gets nothing from it.
// The result is best first (ties in the order the lists gave them).
func fuseScores(lexical, near []docstore.DerivedHit) []docstore.DerivedHit {
	type unitKey struct {
		doc  docstore.DocID
		kind docstore.DerivedKind
		unit int
	}
	norm := func(hits []docstore.DerivedHit) func(float64) float64 {
		if len(hits) == 0 {
			return func(float64) float64 { return 0 }
		}
		lo, hi := hits[0].Score, hits[0].Score
		for _, h := range hits {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		if hi-lo <= 0 {
			return func(float64) float64 { return 1 }
		}
		return func(x float64) float64 { return (x - lo) / (hi - lo) }
	}
	ln, dn := norm(lexical), norm(near)
	at := map[unitKey]int{}
	var out []docstore.DerivedHit
	for _, h := range lexical {
		at[unitKey{h.Doc, h.Kind, h.Unit}] = len(out)
		h.Score = dense.DefaultLexicalWeight * ln(h.Score)
		out = append(out, h)
	}
	for _, h := range near {
		score := dense.DefaultDenseWeight * dn(h.Score)
		if i, ok := at[unitKey{h.Doc, h.Kind, h.Unit}]; ok {
			out[i].Score += score
			continue
		}
		h.Score = score
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b docstore.DerivedHit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
