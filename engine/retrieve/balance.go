package retrieve

import (
	"math"

	"github.com/citelens/citelens/docstore"
)

// DocumentWeight is how much a document's share of the question weighs
// on its sentences when a question is asked of several documents (see
// documentPriors): a sentence of the document least about the question
// keeps 1-DocumentWeight of its score. 0.75 rather than 0.6 once
// LocalWeight moved the weight of a manual's own name onto its other
// words: library-qa answered in the first three 0.609 → 0.623 (0.9 the
// same), HotpotQA and papers-qa unchanged.
const DocumentWeight = 0.75

// LocalWeight is how far a term's weight for one document's sentences
// moves from its idf in the scope toward its idf in that document (see
// localWeights): 0 keeps the scope's, 1 would take the document's. On
// testdata/library-qa (seven manuals asked at once) 0.5 lifted answered
// in the first three from 0.551 to 0.580; 1 lowered it; sets asked of one
// document at a time do not use it.
const LocalWeight = 0.5

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
func (r *Retriever) documentPriors(ss *sentenceSearch) (map[docstore.DocID]float64, map[docstore.DocID][]float64, error) {
	docs, err := r.list(ss.docs)
	if err != nil || len(docs) < 2 || ss.st.Units == 0 {
		return nil, nil, err
	}
	q := ss.q
	score := make(map[docstore.DocID]float64, len(docs))
	local := make(map[docstore.DocID][]float64, len(docs))
	best := 0.0
	for _, id := range docs {
		st, err := r.lib.Index().Stats([]docstore.DocID{id}, docstore.FieldSentences, q.q.Terms)
		if err != nil {
			return nil, nil, err
		}
		if st.Units == 0 {
			continue
		}
		local[id] = localWeights(ss.st, st, q.orig)
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
		return nil, local, nil
	}
	out := make(map[docstore.DocID]float64, len(score))
	for id, s := range score {
		out[id] = 1 - DocumentWeight*(1-s/best)
	}
	return out, local, nil
}

// localWeights scales each of the question's first n terms for the
// sentences of one document by how well the term tells that document's
// sentences apart: the geometric mean of its idf in the document and in
// the scope, relative to the scope's. A term rare in the library but
// everywhere in one manual ("bzip2" in bzip2's manual) picks that manual
// out (documentPriors), yet says little about which of its sentences
// answers; asked of the manual alone, its own idf would say as much.
func localWeights(scope, doc docstore.FieldStats, n int) []float64 {
	out := make([]float64, n)
	for t := range n {
		out[t] = 1
		if t >= len(doc.DF) || doc.DF[t] == 0 || scope.DF[t] == 0 {
			continue
		}
		lib, own := fieldIDF(scope, t), fieldIDF(doc, t)
		if lib <= 0 || own >= lib {
			continue
		}
		out[t] = math.Pow(max(own, 0)/lib, LocalWeight)
	}
	// Keep the document's total: the terms' weights move among them, so
	// the balance across documents stays documentPriors'.
	var sum, scaled float64
	for t := range n {
		if t < len(doc.DF) && doc.DF[t] > 0 {
			w := fieldIDF(scope, t)
			sum += w
			scaled += w * out[t]
		}
	}
	if scaled > 0 {
		for t := range out {
			if t < len(doc.DF) && doc.DF[t] > 0 {
				out[t] *= sum / scaled
			}
		}
	}
	return out
}
