package docstore

import (
	bolt "go.etcd.io/bbolt"
)

// TermStats are a scope's statistics for some terms: what a re-ranker
// needs to weigh terms and score text the way Search does.
type TermStats struct {
	Units  int     // sentences (or chunks) in the scope
	AvgLen float64 // mean index terms per unit (at least 1)
	DF     []int   // per term: the units containing it
}

// IDF returns term t's BM25 idf, the same (Lucene, non-negative) formula
// Search uses.
func (s TermStats) IDF(t int) float64 {
	return bm25IDF(float64(s.Units), float64(s.DF[t]))
}

// TermStats returns the statistics of terms over the scope of opt (Docs and
// Level; the other fields are ignored), read from the index without
// decoding postings.
func (l *Library) TermStats(terms []string, opt SearchOptions) (TermStats, error) {
	st := TermStats{DF: make([]int, len(terms)), AvgLen: 1}
	docs, err := l.scope(opt.Docs)
	if err != nil {
		return st, err
	}
	var total float64
	err = l.db.View(func(tx *bolt.Tx) error {
		for _, id := range docs {
			di, err := l.loadIndex(tx, id)
			if err != nil {
				return err
			}
			pb, err := levelPostings(tx, id, opt.Level)
			if err != nil {
				return err
			}
			lookupTerms(pb, terms, nil, st.DF)
			st.Units += len(di.lens[opt.Level])
			total += di.sum[opt.Level]
		}
		return nil
	})
	if st.Units > 0 {
		st.AvgLen = max(total/float64(st.Units), 1)
	}
	return st, err
}
