package docstore

import (
	bolt "go.etcd.io/bbolt"
)

// FieldStats are a scope's statistics of one field for some terms: what
// a ranking function needs to weigh terms and normalise lengths.
type FieldStats struct {
	Units  int     // units (sentences, chunks, sections, tables) in the scope
	AvgLen float64 // mean index terms per unit (at least 1)
	DF     []int   // per term: the units containing it
}

// FieldStats returns the statistics of terms over field in docs (every
// document when empty), read from the index without decoding postings.
func (l *Library) FieldStats(docs []DocID, field Field, terms []string) (FieldStats, error) {
	st := FieldStats{DF: make([]int, len(terms)), AvgLen: 1}
	docs, err := l.scope(docs)
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
			pb := tx.Bucket(bucketPostings).Bucket([]byte(id))
			if pb != nil {
				pb = pb.Bucket(field.key())
			}
			if pb == nil {
				continue // a field this document has no index of
			}
			lookupTerms(pb, terms, nil, st.DF)
			st.Units += len(di.lens[field])
			total += di.sum[field]
		}
		return nil
	})
	if st.Units > 0 {
		st.AvgLen = max(total/float64(st.Units), 1)
	}
	return st, err
}
