package retrieve

import (
	"github.com/citelens/citelens/docstore"
)

// DocumentWeight is how much a document's share of the question weighs
// on its sentences when a question is asked of several documents (see
// documentPriors): a sentence of the document least about the question
// keeps 1-DocumentWeight of its score.
const DocumentWeight = 0.6

// documentPriors balances a question asked of several documents: a
// document's sentences are scaled by how much the document as a whole is
// about the question, so one huge document, which holds every word
// somewhere, does not crowd out the small one written about the matter.
//
// A document is about a query term as far as the term is denser in its
// sentences than in the scope's: with p the share of the document's
// sentences holding the term and c the scope's share, it scores p/(p+c)
// (a half when the document is average), weighted by the term's weight.
// The best document keeps its scores; the others are scaled down to
// 1-DocumentWeight in proportion to how far behind they are. Nil for a
// scope of one document.
func (r *Retriever) documentPriors(ss *sentenceSearch) (map[docstore.DocID]float64, error) {
	docs, err := r.list(ss.docs)
	if err != nil || len(docs) < 2 || ss.st.Units == 0 {
		return nil, err
	}
	q := ss.q
	score := make(map[docstore.DocID]float64, len(docs))
	best := 0.0
	for _, id := range docs {
		st, err := r.lib.Index().Stats([]docstore.DocID{id}, docstore.FieldSentences, q.q.Terms)
		if err != nil {
			return nil, err
		}
		if st.Units == 0 {
			continue
		}
		var s float64
		for t := range q.q.Terms {
			if t >= q.orig || ss.st.DF[t] == 0 || st.DF[t] == 0 {
				continue
			}
			p := float64(st.DF[t]) / float64(st.Units)
			c := float64(ss.st.DF[t]) / float64(ss.st.Units)
			s += q.weight[t] * p / (p + c)
		}
		score[id] = s
		best = max(best, s)
	}
	if best <= 0 {
		return nil, nil
	}
	out := make(map[docstore.DocID]float64, len(score))
	for id, s := range score {
		out[id] = 1 - DocumentWeight*(1-s/best)
	}
	return out, nil
}
