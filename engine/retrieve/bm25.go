package retrieve

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/internal/topk"
)

// BM25 holds the ranking function's parameters.
type BM25 struct {
	K1 float64 // term-frequency saturation (default 1.2)
	B  float64 // length normalisation (default 0.75)
}

// DefaultBM25 is the usual BM25 setting.
var DefaultBM25 = BM25{K1: 1.2, B: 0.75}

func (p BM25) orDefault() BM25 {
	if p == (BM25{}) {
		return DefaultBM25
	}
	return p
}

// tf is the BM25 term-frequency factor for frequency tf in a unit of
// length n, scope average avg.
func (p BM25) tf(tf, n, avg float64) float64 {
	if tf <= 0 {
		return 0
	}
	return tf * (p.K1 + 1) / (tf + p.K1*(1-p.B+p.B*n/math.Max(avg, 1)))
}

// IDF is Lucene's non-negative BM25 idf of a term held by df of units
// units.
func IDF(units, df float64) float64 {
	return math.Log(1 + (units-df+0.5)/(df+0.5))
}

// Query is an analysed query: index terms with a weight each.
type Query struct {
	Terms   []string
	Weights []float64 // nil means weight 1 for every term
}

// ParseQuery analyses text into a query with the index's own analysis
// (textproc.Terms); repeated terms keep one entry, weighted by how often
// they occur.
func ParseQuery(text string) Query {
	var q Query
	seen := map[string]int{}
	for _, t := range textproc.Terms(text) {
		if i, ok := seen[t]; ok {
			q.Weights[i]++
			continue
		}
		seen[t] = len(q.Terms)
		q.Terms = append(q.Terms, t)
		q.Weights = append(q.Weights, 1)
	}
	return q
}

// weight is term t's query weight.
func (q Query) weight(t int) float64 {
	if q.Weights == nil {
		return 1
	}
	return q.Weights[t]
}

// idf returns each term's idf over units, df[t] of which hold term t, times
// the term's weight.
func (q Query) idf(units float64, df []int) []float64 {
	idf := make([]float64, len(q.Terms))
	for t := range q.Terms {
		idf[t] = q.weight(t) * IDF(units, float64(df[t]))
	}
	return idf
}

// SearchOptions restrict and tune a Search.
type SearchOptions struct {
	Field docstore.Field   // what is ranked (default sentences)
	Docs  []docstore.DocID // nil or empty: every document
	K     int              // hits wanted (default 10)
	BM25  BM25             // zero: DefaultBM25
	// Filter, if set, keeps only the units it returns true for.
	Filter func(doc docstore.DocID, unit int) bool
}

// Hit is one ranked unit: a sentence, chunk, section or table of a
// document.
type Hit struct {
	Doc   docstore.DocID
	Index int
	Score float64
}

// Search ranks the units of a field of the scope against q with BM25.
// Statistics (document frequency, average length) are taken over the whole
// scope, so a search across documents ranks them on one scale. It reads
// the query terms' lists in the library's index, document by document, and
// nothing of the documents that hold none of the terms.
func Search(lib *docstore.Library, q Query, opt SearchOptions) ([]Hit, error) {
	if opt.K <= 0 {
		opt.K = 10
	}
	if len(q.Terms) == 0 {
		return nil, nil
	}
	bm := opt.BM25.orDefault()
	top := topk.New(opt.K, func(h Hit) float64 { return h.Score })
	err := lib.Index().Read(opt.Docs, opt.Field, q.Terms, func(r *docstore.IndexReader) error {
		// The scope's statistics first, so every document is scored on
		// one scale.
		st, err := r.Stats()
		if err != nil || st.Units == 0 {
			return err
		}
		idf := q.idf(float64(st.Units), st.DF)
		threshold := func() float64 {
			if top.Full() {
				return top.Min()
			}
			return 0
		}
		return scoreLists(r, st, idf, bm, threshold, func(doc docstore.DocNum, unit int, s float32) error {
			if s <= 0 || !top.Admits(float64(s)) {
				return nil
			}
			id, err := r.DocID(doc)
			if err != nil {
				return err
			}
			if opt.Filter != nil && !opt.Filter(id, unit) {
				return nil
			}
			top.Offer(Hit{Doc: id, Index: unit, Score: float64(s)})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	out := top.Items()
	SortHits(out)
	return out, nil
}

// scoreLists scores, document by document, the units of the reader's
// scope that hold query terms (weighted idfs idf) and may score above
// threshold(), calling offer with each: the lists of the terms are walked
// together, so a document is read once whatever number of terms it holds.
//
// It skips what cannot make the cut, exactly (MaxScore, Turtle and Flood
// 1995): no unit gains more from a term than the term's bound (its idf
// times the BM25 factor of its highest frequency in its shortest unit),
// so once the terms with the smallest bounds add up to no more than the
// threshold, a document holding only those cannot score above it, and
// only the lists of the other terms are walked; the others are looked up
// in the documents those name. A document whose blocks bound its score at
// the threshold is skipped unread. Common words, whose lists are long and
// idfs small, are mostly looked up rather than walked, so a question's
// cost grows with the library far slower than its terms' lists do.
func scoreLists(r *docstore.IndexReader, st docstore.FieldStats, idf []float64, bm BM25, threshold func() float64, offer func(doc docstore.DocNum, unit int, s float32) error) error {
	if !pruning {
		threshold = func() float64 { return -1 }
	}
	avg := st.AvgLen
	bound := func(t, maxTF, minLen int) float64 {
		// A little above, so float rounding never makes it a little below.
		return idf[t] * bm.tf(float64(maxTF), float64(max(minLen, 0)), avg) * (1 + 1e-6)
	}
	type cursor struct {
		t  int
		p  *docstore.TermPostings
		ub float64
	}
	var cs []*cursor
	for t := range idf {
		if p := r.Postings(t); p.Next() {
			cs = append(cs, &cursor{t, p, bound(t, st.MaxTF[t], st.MinLen[t])})
		} else if err := p.Err(); err != nil {
			return err
		}
	}
	// Smallest bounds first: cs[:e] are the terms not walked.
	slices.SortStableFunc(cs, func(a, b *cursor) int { return cmp.Compare(a.ub, b.ub) })
	prefix := make([]float64, len(cs)+1)
	for i, c := range cs {
		prefix[i+1] = prefix[i] + c.ub
	}
	done := make([]bool, len(cs))
	// One stream per list, its buffers reused from document to document,
	// and the lists in query order, in which a unit's scores are added.
	streams := make([]termStream, len(cs))
	var on []*termStream // the streams of the document being scored
	byQuery := make([]int, len(cs))
	for i := range byQuery {
		byQuery[i] = i
	}
	slices.SortFunc(byQuery, func(a, b int) int { return cs[a].t - cs[b].t })
	e := 0
	for {
		th := threshold()
		for e < len(cs) && prefix[e+1] <= th {
			e++
		}
		// The next document of the walked lists.
		doc, any := docstore.DocNum(0), false
		for i := e; i < len(cs); i++ {
			if !done[i] && (!any || cs[i].p.Doc() < doc) {
				doc, any = cs[i].p.Doc(), true
			}
		}
		if !any {
			return nil
		}
		// What the document can score at most.
		ceiling := prefix[e]
		for i := e; i < len(cs); i++ {
			if !done[i] && cs[i].p.Doc() == doc {
				tf, ln := cs[i].p.Bound()
				ceiling += min(cs[i].ub, bound(cs[i].t, tf, ln))
			}
		}
		if ceiling > th {
			on = on[:0]
			for _, i := range byQuery {
				c := cs[i]
				if done[i] {
					continue
				}
				if i < e && !c.p.Seek(doc) {
					if err := c.p.Err(); err != nil {
						return err
					}
					done[i] = true
					continue
				}
				if c.p.Doc() != doc {
					continue
				}
				st := &streams[i]
				var err error
				if st.runs, err = c.p.Runs(st.runs[:0]); err != nil {
					return err
				}
				st.w, st.next, st.buf, st.at = idf[c.t], 0, st.buf[:0], 0
				on = append(on, st)
			}
			if err := mergeStreams(on, bm, avg, doc, offer); err != nil {
				return err
			}
		}
		// Move the walked lists off the document.
		for i := e; i < len(cs); i++ {
			if !done[i] && cs[i].p.Doc() == doc && !cs[i].p.Next() {
				if err := cs[i].p.Err(); err != nil {
					return err
				}
				done[i] = true
			}
		}
	}
}

// unitScore is one term's score in one unit of a document.
type unitScore struct {
	unit int
	s    float32
}

// termStream is one query term's postings in the document being scored,
// read a run at a time: buf holds the scores of the run being merged.
type termStream struct {
	w    float64 // the term's weighted idf
	runs []docstore.PostingRun
	next int // the run to decode when buf is used up
	buf  []unitScore
	at   int
}

// head makes the stream's next score buf[at], decoding its next run when
// the last is used up, and reports false when none is left.
func (s *termStream) head(bm BM25, avg float64) (bool, error) {
	for s.at == len(s.buf) {
		if s.next == len(s.runs) {
			return false, nil
		}
		// Room for the run at once: a fresh stream's buffer would
		// otherwise grow posting by posting.
		s.buf, s.at = slices.Grow(s.buf[:0], s.runs[s.next].Len()), 0
		err := s.runs[s.next].Each(func(unit, tf, length int) {
			s.buf = append(s.buf, unitScore{unit, float32(s.w * bm.tf(float64(tf), float64(length), avg))})
		})
		s.next++
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// mergeStreams offers each unit of doc that the streams (in query order)
// name, in unit order, with its terms' scores added up in query order (as
// scoring one document at a time always has, so scores do not change with
// the order lists are walked in). A question has a few terms, so a linear
// pick of the smallest head beats a heap; a stream holds one run of
// postings at a time, so a huge document costs no more memory than a
// small one.
func mergeStreams(ss []*termStream, bm BM25, avg float64, doc docstore.DocNum, offer func(doc docstore.DocNum, unit int, s float32) error) error {
	for {
		// A stream is decoded a run at a time, and dropped, keeping the
		// others' order, once used up (ss is the caller's, rebuilt for
		// each document).
		unit := -1
		for i := 0; i < len(ss); {
			s := ss[i]
			if s.at == len(s.buf) {
				ok, err := s.head(bm, avg)
				if err != nil {
					return err
				}
				if !ok {
					ss = slices.Delete(ss, i, i+1)
					continue
				}
			}
			if u := s.buf[s.at].unit; unit < 0 || u < unit {
				unit = u
			}
			i++
		}
		if unit < 0 {
			return nil
		}
		sum := float32(0)
		for _, s := range ss {
			// A unit is in one run of a term: runs do not overlap.
			for s.at < len(s.buf) && s.buf[s.at].unit == unit {
				sum += s.buf[s.at].s
				s.at++
			}
		}
		if err := offer(doc, unit, sum); err != nil {
			return err
		}
	}
}

// pruning turns MaxScore off when false: for the test that checks it
// changes nothing.
var pruning = true

// SortHits orders hits best first, ties by document and unit.
func SortHits(hs []Hit) {
	slices.SortFunc(hs, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Doc, b.Doc); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
}

// SearchDerived ranks the units of opt.Kinds in the scope's derived
// indexes against q with BM25, as one collection: a term's idf counts the
// units of every kind that hold it, and each unit's length is normalised
// against the average of its own kind (a question is short, a raw chunk
// long; BM25F's per-field normalisation), so a summary, a question and a
// raw chunk that match the query equally score equally. Each kind of each
// document is scored as Search scores a field (scoreLists): the derived
// index stores its postings as the library's index does.
func SearchDerived(lib *docstore.Library, q Query, opt docstore.DerivedSearchOptions, bm BM25) ([]docstore.DerivedHit, error) {
	if opt.K <= 0 {
		opt.K = 10
	}
	if len(q.Terms) == 0 || len(opt.Docs) == 0 || len(opt.Kinds) == 0 {
		return nil, nil
	}
	bm = bm.orDefault()
	top := topk.New(opt.K, func(h docstore.DerivedHit) float64 { return h.Score })
	err := lib.Derived().ReadPostings(opt, q.Terms, func(ps []*docstore.DerivedPostings) error {
		// Statistics over every kind together, lengths per kind.
		df := make([]int, len(q.Terms))
		var units float64
		kindUnits := map[docstore.DerivedKind]float64{}
		kindLen := map[docstore.DerivedKind]float64{}
		for _, p := range ps {
			st, err := p.Stats()
			if err != nil {
				return err
			}
			for t := range q.Terms {
				df[t] += st.DF[t]
			}
			units += float64(p.Units)
			kindUnits[p.Kind] += float64(p.Units)
			kindLen[p.Kind] += p.Sum
		}
		if units == 0 {
			return nil
		}
		idf := q.idf(units, df)
		// Score, documents in the order given, kinds in the order given,
		// units in order, so that ties are offered as they always were.
		threshold := func() float64 {
			if top.Full() {
				return top.Min()
			}
			return 0
		}
		for _, p := range ps {
			st, err := p.Stats() // as read above
			if err != nil {
				return err
			}
			if st.Units == 0 {
				continue
			}
			st.AvgLen = max(kindLen[p.Kind]/max(kindUnits[p.Kind], 1), 1)
			err = scoreLists(p.IndexReader, st, idf, bm, threshold, func(_ docstore.DocNum, unit int, s float32) error {
				if s <= 0 || !top.Admits(float64(s)) {
					return nil
				}
				h, err := p.Hit(unit, float64(s))
				if err != nil {
					return err
				}
				top.Offer(h)
				return nil
			})
			if err != nil {
				return fmt.Errorf("derived index: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docstore.SortDerivedHits(top.Items()), nil
}

// IDFs returns each term's idf over the sentences of docs (every document
// when empty).
func IDFs(lib *docstore.Library, docs []docstore.DocID, terms []string) ([]float64, error) {
	st, err := lib.Index().Stats(docs, docstore.FieldSentences, terms)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(terms))
	for t := range terms {
		out[t] = fieldIDF(st, t)
	}
	return out, nil
}
