package docstore

// FieldStats are a scope's statistics of one field for some terms: what
// a ranking function needs to weigh terms and normalise lengths.
type FieldStats struct {
	Units  int     // units (sentences, chunks, sections, tables) in the scope
	AvgLen float64 // mean index terms per unit (at least 1)
	DF     []int   // per term: the units containing it
	// MaxTF and MinLen bound each term's postings: no unit of the scope
	// holds it more often than MaxTF[t], or is shorter than MinLen[t]
	// (in index terms) and holds it. A ranking function bounds what the
	// term can add to a unit's score with them (retrieve's MaxScore).
	MaxTF, MinLen []int
}

// Stats returns the statistics of terms over field in docs (every
// document when empty), read from the index: the library's totals (or the
// named documents' records) and the terms' lists, never the documents
// that hold none of the terms.
func (l *Index) Stats(docs []DocID, field Field, terms []string) (FieldStats, error) {
	var st FieldStats
	err := l.Read(docs, field, terms, func(r *IndexReader) error {
		var err error
		st, err = r.Stats()
		return err
	})
	if st.DF == nil {
		st.DF, st.MaxTF, st.MinLen, st.AvgLen = make([]int, len(terms)), make([]int, len(terms)), make([]int, len(terms)), 1
	}
	return st, err
}
