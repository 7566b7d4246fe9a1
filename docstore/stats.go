package docstore

import (
	"fmt"
	"math"

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
	n, df := float64(s.Units), float64(s.DF[t])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// TermStats returns the statistics of terms over the scope of opt (Docs and
// Level; the other fields are ignored), read from the index without
// decoding postings.
func (l *Library) TermStats(terms []string, opt SearchOptions) (TermStats, error) {
	st := TermStats{DF: make([]int, len(terms)), AvgLen: 1}
	docs := opt.Docs
	if len(docs) == 0 {
		infos, err := l.List()
		if err != nil {
			return st, err
		}
		for _, d := range infos {
			docs = append(docs, d.ID)
		}
	}
	var total float64
	err := l.db.View(func(tx *bolt.Tx) error {
		for _, id := range docs {
			di, err := l.loadIndex(tx, id)
			if err != nil {
				return err
			}
			pb := tx.Bucket(bucketPostings).Bucket([]byte(id))
			if pb != nil {
				pb = pb.Bucket(opt.Level.key())
			}
			if pb == nil {
				return fmt.Errorf("document %s has no index: %w", id, ErrCorrupt)
			}
			for t, term := range terms {
				if v := pb.Get([]byte(term)); v != nil {
					st.DF[t] += postingsLen(v)
				}
			}
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
