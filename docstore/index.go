package docstore

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/textproc"
)

// Level says what an index entry is: a sentence or a chunk.
type Level uint8

// Index levels.
const (
	SentenceLevel Level = iota
	ChunkLevel
)

func (lv Level) key() []byte {
	if lv == ChunkLevel {
		return []byte("c")
	}
	return []byte("s")
}

// BM25 holds the ranking function's parameters.
type BM25 struct {
	K1 float64 // term-frequency saturation (default 1.2)
	B  float64 // length normalisation (default 0.75)
}

// DefaultBM25 is the usual BM25 setting.
var DefaultBM25 = BM25{K1: 1.2, B: 0.75}

// Query is an analysed query: index terms with a weight each.
type Query struct {
	Terms   []string
	Weights []float64 // nil means weight 1 for every term
}

// ParseQuery analyses text into a query with the index's own analysis;
// repeated terms keep one entry, weighted by how often they occur.
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

// SearchOptions restrict and tune a search.
type SearchOptions struct {
	Level Level
	Docs  []DocID // nil or empty: every document
	K     int     // hits wanted (default 10)
	BM25  BM25    // zero: DefaultBM25
	// Filter, if set, keeps only the units it returns true for (a caller's
	// page or section restriction).
	Filter func(doc DocID, index int) bool
}

// Hit is one ranked sentence or chunk.
type Hit struct {
	Doc   DocID
	Index int // sentence or chunk index in the document
	Score float64
}

// docIndex is a document's per-unit term counts, loaded once.
type docIndex struct {
	lens [2][]uint16 // by Level
	sum  [2]float64  // total terms, for the average length
}

func (l *Library) loadIndex(tx *bolt.Tx, id DocID) (*docIndex, error) {
	l.mu.Lock()
	di, ok := l.idx[id]
	l.mu.Unlock()
	if ok {
		return di, nil
	}
	b := tx.Bucket(bucketLengths).Bucket([]byte(id))
	if b == nil {
		return nil, errorf(ErrNotFound, "no document %s in the library", id)
	}
	di = &docIndex{}
	for lv := SentenceLevel; lv <= ChunkLevel; lv++ {
		di.lens[lv] = decodeLengths(b.Get(lv.key()))
		for _, n := range di.lens[lv] {
			di.sum[lv] += float64(n)
		}
	}
	l.mu.Lock()
	l.idx[id] = di
	l.mu.Unlock()
	return di, nil
}

// Search ranks the sentences (or chunks) of the given documents against q
// with BM25. Statistics (document frequency, average length) are taken over
// the whole scope, so a search across documents ranks them on one scale.
func (l *Library) Search(q Query, opt SearchOptions) ([]Hit, error) {
	if opt.K <= 0 {
		opt.K = 10
	}
	if opt.BM25 == (BM25{}) {
		opt.BM25 = DefaultBM25
	}
	docs, err := l.scope(opt.Docs)
	if err != nil {
		return nil, err
	}
	if len(q.Terms) == 0 || len(docs) == 0 {
		return nil, nil
	}
	var top topHits[Hit]
	err = l.db.View(func(tx *bolt.Tx) error {
		// Pass 1: scope statistics.
		type docTerms struct {
			di    *docIndex
			lists [][]byte // per query term, nil if absent
		}
		per := make([]docTerms, len(docs))
		df := make([]int, len(q.Terms))
		var units, total float64
		for i, id := range docs {
			di, err := l.loadIndex(tx, id)
			if err != nil {
				return err
			}
			pb, err := levelPostings(tx, id, opt.Level)
			if err != nil {
				return err
			}
			per[i] = docTerms{di: di, lists: make([][]byte, len(q.Terms))}
			lookupTerms(pb, q.Terms, per[i].lists, df)
			units += float64(len(di.lens[opt.Level]))
			total += di.sum[opt.Level]
		}
		if units == 0 {
			return nil
		}
		avg := max(total/units, 1)
		idf := q.idf(units, df)
		// Pass 2: score each document's units.
		for i, id := range docs {
			lens := per[i].di.lens[opt.Level]
			var scores []float32
			for t, list := range per[i].lists {
				if list == nil {
					continue
				}
				if scores == nil {
					scores = make([]float32, len(lens))
				}
				if err := addBM25(scores, list, idf[t], lens, avg, opt.BM25); err != nil {
					return fmt.Errorf("document %s postings: %w", id, err)
				}
			}
			for idx, s := range scores {
				if s <= 0 || (len(top) == opt.K && float64(s) <= top[0].Score) {
					continue
				}
				if opt.Filter != nil && !opt.Filter(id, idx) {
					continue
				}
				top.offer(Hit{Doc: id, Index: idx, Score: float64(s)}, opt.K)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := []Hit(top)
	slices.SortFunc(out, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.Doc != b.Doc:
			if a.Doc < b.Doc {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	return out, nil
}

// scope returns docs, or every document of the library when docs is
// empty: the scope of a search.
func (l *Library) scope(docs []DocID) ([]DocID, error) {
	if len(docs) > 0 {
		return docs, nil
	}
	infos, err := l.List()
	if err != nil {
		return nil, err
	}
	ids := make([]DocID, len(infos))
	for i, d := range infos {
		ids[i] = d.ID
	}
	return ids, nil
}

// levelPostings returns the bucket of document id's postings at level lv.
func levelPostings(tx *bolt.Tx, id DocID, lv Level) (*bolt.Bucket, error) {
	pb := tx.Bucket(bucketPostings).Bucket([]byte(id))
	if pb != nil {
		pb = pb.Bucket(lv.key())
	}
	if pb == nil {
		return nil, fmt.Errorf("document %s has no index: %w", id, ErrCorrupt)
	}
	return pb, nil
}

// lookupTerms reads the postings of terms from pb: each term's list into
// lists (unless lists is nil; a term pb lacks stays nil) and the number of
// units holding it added to df.
func lookupTerms(pb *bolt.Bucket, terms []string, lists [][]byte, df []int) {
	for t, term := range terms {
		if v := pb.Get([]byte(term)); v != nil {
			if lists != nil {
				lists[t] = v
			}
			df[t] += postingsLen(v)
		}
	}
}

// bm25IDF is Lucene's non-negative BM25 idf of a term found in df of
// units units.
func bm25IDF(units, df float64) float64 {
	return math.Log(1 + (units-df+0.5)/(df+0.5))
}

// idf returns each query term's BM25 idf over units units, df[t] of which
// hold term t, times the term's weight.
func (q Query) idf(units float64, df []int) []float64 {
	idf := make([]float64, len(q.Terms))
	for t := range q.Terms {
		w := 1.0
		if q.Weights != nil {
			w = q.Weights[t]
		}
		idf[t] = w * bm25IDF(units, float64(df[t]))
	}
	return idf
}

// addBM25 adds one query term's BM25 contribution to scores, indexed by
// unit: list is the term's postings, idf its (weighted) idf, lens the
// units' lengths and avg their average. Search and the derived-document
// index (derived.go) score with it.
func addBM25(scores []float32, list []byte, idf float64, lens []uint16, avg float64, p BM25) error {
	k1, b := p.K1, p.B
	return forEachPosting(list, func(idx, tf int32) {
		if int(idx) >= len(lens) || int(idx) >= len(scores) {
			return
		}
		norm := k1 * (1 - b + b*float64(lens[idx])/avg)
		scores[idx] += float32(idf * float64(tf) * (k1 + 1) / (float64(tf) + norm))
	})
}

// topHits is a min-heap on score, holding the best hits seen so far: of
// Search (Hit) and of the derived-document searches (DerivedHit).
type topHits[H interface{ score() float64 }] []H

func (h Hit) score() float64        { return h.Score }
func (h DerivedHit) score() float64 { return h.Score }

// offer keeps hit if it is among the k best so far.
func (h *topHits[H]) offer(hit H, k int) {
	switch {
	case len(*h) < k:
		heap.Push(h, hit)
	case hit.score() > (*h)[0].score():
		(*h)[0] = hit
		heap.Fix(h, 0)
	}
}

func (h topHits[H]) Len() int           { return len(h) }
func (h topHits[H]) Less(i, j int) bool { return h[i].score() < h[j].score() }
func (h topHits[H]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topHits[H]) Push(x any)        { *h = append(*h, x.(H)) }
func (h *topHits[H]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// builtIndex is a document's index before it is written.
type builtIndex struct {
	lens     [2][]int32
	postings [2]map[string][]posting
}

// buildIndex computes the sentence- and chunk-level postings of d. Chunk
// postings are the sums of their sentences', so the text is analysed once.
func buildIndex(d *Document) *builtIndex {
	bi := &builtIndex{}
	bi.lens[SentenceLevel] = make([]int32, len(d.Sentences))
	bi.lens[ChunkLevel] = make([]int32, len(d.Chunks))
	bi.postings[SentenceLevel] = make(map[string][]posting, 1<<14)
	bi.postings[ChunkLevel] = make(map[string][]posting, 1<<14)
	chunkOf := make([]int32, len(d.Sentences))
	for i := range chunkOf {
		chunkOf[i] = -1
	}
	for c, ch := range d.Chunks {
		for s := ch.First; s <= ch.Last && int(s) < len(chunkOf); s++ {
			if chunkOf[s] < 0 {
				chunkOf[s] = int32(c)
			}
		}
	}
	var terms []string
	counts := map[string]int32{}
	for i, s := range d.Sentences {
		terms = textproc.AppendTerms(terms[:0], d.Text[s.Start:s.End])
		bi.lens[SentenceLevel][i] = int32(len(terms))
		clear(counts)
		for _, t := range terms {
			counts[t]++
		}
		c := chunkOf[i]
		if c >= 0 {
			bi.lens[ChunkLevel][c] += int32(len(terms))
		}
		for t, tf := range counts {
			sp := bi.postings[SentenceLevel]
			sp[t] = append(sp[t], posting{idx: int32(i), tf: tf})
			if c < 0 {
				continue
			}
			cp := bi.postings[ChunkLevel]
			list := cp[t]
			if n := len(list); n > 0 && list[n-1].idx == c {
				list[n-1].tf += tf
			} else {
				cp[t] = append(list, posting{idx: c, tf: tf})
			}
		}
	}
	return bi
}

// write stores the index under the document's buckets.
func (bi *builtIndex) write(tx *bolt.Tx, id DocID) error {
	lb, err := tx.Bucket(bucketLengths).CreateBucket([]byte(id))
	if err != nil {
		return err
	}
	pb, err := tx.Bucket(bucketPostings).CreateBucket([]byte(id))
	if err != nil {
		return err
	}
	for lv := SentenceLevel; lv <= ChunkLevel; lv++ {
		if err := lb.Put(lv.key(), encodeLengths(bi.lens[lv])); err != nil {
			return err
		}
		if err := putPostings(pb, lv.key(), bi.postings[lv]); err != nil {
			return err
		}
	}
	return nil
}

// putPostings writes postings, term by term, as the new bucket key of
// parent: Search's (and SearchDerived's) inverted index of one level or
// kind.
func putPostings(parent *bolt.Bucket, key []byte, postings map[string][]posting) error {
	b, err := parent.CreateBucket(key)
	if err != nil {
		return err
	}
	// Sorted keys fill bbolt's pages sequentially, and 90% full pages
	// suit a bucket that is written once and then only read.
	b.FillPercent = 0.9
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	var buf []byte
	for _, t := range terms {
		if len(t) > bolt.MaxKeySize {
			continue
		}
		buf = encodePostings(buf[:0], postings[t])
		if err := b.Put([]byte(t), slices.Clone(buf)); err != nil {
			return err
		}
	}
	return nil
}
