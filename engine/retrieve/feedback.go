package retrieve

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/citelens/citelens/docstore"
)

// Pseudo-relevance feedback (RM3, Rocchio and BM25-PRF's idea, kept
// small): when the first pass is weak — no candidate covers much of the
// question — the best passages are read and the words they share join
// the question at a low weight, and the candidates are ranked again. A
// question in a reader's words ("put my work aside") reaches the
// document's ("stash") through the passages that use both.
const (
	// FeedbackBelow: the first pass is weak when no candidate covers this
	// idf-weighted share of the question.
	FeedbackBelow = 0.5
	// FeedbackFrom is how many of the best passages, with their paragraph
	// neighbours, are read.
	FeedbackFrom = 3
	// FeedbackTerms is how many words join the question, at FeedbackWeight
	// of a question word.
	FeedbackTerms  = 4
	FeedbackWeight = 0.3
)

// weak reports whether the best candidate covers less than FeedbackBelow
// of the question.
func weak(cands []*candidate) bool {
	best := 0.0
	for _, c := range cands {
		best = max(best, c.scores.Coverage)
	}
	return best < FeedbackBelow
}

// feedback ranks again with the words of the best passages when the
// first pass is weak; it returns the ranking to use and the words added
// (none when the first pass was strong or nothing was found to add).
func (r *Retriever) feedback(ctx context.Context, rk *ranker, hits []Hit, cands []*candidate, docs []docstore.DocID, opt *Options) (*ranker, []*candidate, []string, error) {
	if !weak(cands) {
		return rk, cands, nil, nil
	}
	top := rk.selectSet(slices.Clone(cands), FeedbackFrom, !opt.KeepDuplicates)
	// Each word counts once per passage read: a word the best passages
	// share is about the question, one a single passage repeats is not.
	count := map[string]int{}
	var words, read []string
	for _, p := range top {
		d, err := rk.dc.get(p.Doc)
		if err != nil {
			return nil, nil, nil, err
		}
		first, last := paragraph(d, p.First, 1)
		seen := map[string]bool{}
		for i := first; i <= last; i++ {
			read = append(read, d.SentenceText(i))
			for _, t := range rk.sentence(d, i, true).terms {
				if _, inQuery := rk.q.index[t]; inQuery || seen[t] || len(t) < 3 || allDigits(t) {
					continue
				}
				seen[t] = true
				if count[t] == 0 {
					words = append(words, t)
				}
				count[t]++
			}
		}
	}
	if len(words) == 0 {
		return rk, cands, nil, nil
	}
	st, err := r.lib.Index().Stats(docs, docstore.FieldSentences, words)
	if err != nil {
		return nil, nil, nil, err
	}
	score := make(map[string]float64, len(words))
	for i, t := range words {
		if count[t] < 2 {
			continue // in one passage only: no agreement
		}
		score[t] = float64(count[t]) * fieldIDF(st, i)
	}
	keep := make([]string, 0, FeedbackTerms)
	for t := range score {
		keep = append(keep, t)
	}
	slices.SortFunc(keep, func(a, b string) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	keep = keep[:min(len(keep), FeedbackTerms)]
	if len(keep) == 0 {
		return rk, cands, nil, nil
	}
	rk2, cands2, err := r.requery(ctx, rk, hits, docs, opt, keep, FeedbackWeight)
	return rk2, cands2, asWritten(keep, read), err
}

// asWritten is each of terms as the first of texts that holds it writes
// it ("memori" is "memory"), or the term itself: the plan tells a reader
// the words searched for, not their stems.
func asWritten(terms, texts []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t
		for _, text := range texts {
			if w := said(text, t); w != "" {
				out[i] = w
				break
			}
		}
	}
	return out
}

// requery ranks the candidates again with terms added to rk's query at
// weight w: the index's hits for the wider query join the first hits.
func (r *Retriever) requery(ctx context.Context, rk *ranker, hits []Hit, docs []docstore.DocID, opt *Options, terms []string, w float64) (*ranker, []*candidate, error) {
	return r.requeryWithin(ctx, rk, hits, docs, opt, terms, w, nil)
}

// requeryWithin is requery where an added term listed in within counts
// only in the documents it lists there.
func (r *Retriever) requeryWithin(ctx context.Context, rk *ranker, hits []Hit, docs []docstore.DocID, opt *Options, terms []string, w float64, within map[string]map[docstore.DocID]bool) (*ranker, []*candidate, error) {
	q2 := rk.q.extend(terms, w)
	st2, err := r.lib.Index().Stats(docs, docstore.FieldSentences, q2.q.Terms)
	if err != nil {
		return nil, nil, err
	}
	q2.setWeights(st2)
	hits2, err := Search(r.lib, q2.q, SearchOptions{
		Field: docstore.FieldSentences, Docs: docs, K: opt.Pool, BM25: opt.BM25, Filter: rk.keep,
	})
	if err != nil {
		return nil, nil, err
	}
	rk2 := &ranker{q: q2, weights: rk.weights, bm: rk.bm, avg: st2.AvgLen, dc: rk.dc, keep: rk.keep, units: map[unitKey]*unit{},
		followers: rk.followers, prior: rk.prior, local: rk.local, within: maps.Clone(rk.within)}
	for t, ds := range within {
		if i, ok := q2.index[t]; ok {
			if rk2.within == nil {
				rk2.within = map[int]map[docstore.DocID]bool{}
			}
			rk2.within[i] = ds
		}
	}
	cands2, err := rk2.candidates(ctx, append(slices.Clone(hits), hits2...))
	return rk2, cands2, err
}
