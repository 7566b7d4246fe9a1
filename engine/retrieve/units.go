package retrieve

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// Chunks ranks the stored chunks of the scope with the index's chunk-level
// BM25 (and dense fusion when set). Pages and Filter keep a chunk when any
// of its sentences passes. Weights and the diversity settings do not apply:
// chunks do not overlap.
func (r *Retriever) Chunks(ctx context.Context, question string, opt Options) ([]Passage, error) {
	if err := opt.normalise(); err != nil {
		return nil, err
	}
	q := ParseQuery(question)
	if len(q.Terms) == 0 {
		return nil, nil
	}
	docs, any, err := r.scope(&opt)
	if err != nil || !any {
		return nil, err
	}
	dc := newDocCache(r.lib)
	keep, err := r.filter(&opt, docs, dc)
	if err != nil {
		return nil, err
	}
	var chunkKeep func(docstore.DocID, int) bool
	if keep != nil {
		if len(opt.Pages) == 0 { // filter did not load them
			all, err := r.list(docs)
			if err != nil {
				return nil, err
			}
			for _, id := range all {
				if _, err := dc.get(id); err != nil {
					return nil, err
				}
			}
		}
		chunkKeep = func(id docstore.DocID, c int) bool {
			d := dc.docs[id]
			if d == nil || c >= d.NumChunks() {
				return false
			}
			ch := d.Chunk(c)
			for s := ch.First; s <= ch.Last; s++ {
				if keep(id, int(s)) {
					return true
				}
			}
			return false
		}
	}
	k := opt.K
	if opt.Fusion.Dense != nil {
		k = max(k, opt.Fusion.Top, 20)
	}
	var hits []Hit
	if !opt.Fusion.DenseOnly {
		if hits, err = Search(r.lib, q, SearchOptions{
			Field: docstore.FieldChunks, Docs: docs, K: k, BM25: opt.BM25, Filter: chunkKeep,
		}); err != nil {
			return nil, err
		}
	}
	// Dense search's own chunks join BM25's, unscored: fusion ranks them.
	dh, err := r.denseCandidates(ctx, opt.Fusion, question, docs, docstore.ChunkLevel)
	if err != nil {
		return nil, err
	}
	proposed := map[Hit]bool{}
	for _, h := range dh {
		if chunkKeep == nil || chunkKeep(h.Doc, h.Index) {
			hits = append(hits, Hit{Doc: h.Doc, Index: h.Index})
			proposed[Hit{Doc: h.Doc, Index: h.Index}] = true
		}
	}
	ps := make([]Passage, 0, len(hits))
	seen := map[Hit]bool{}
	for _, h := range hits {
		if seen[Hit{Doc: h.Doc, Index: h.Index}] {
			continue
		}
		seen[Hit{Doc: h.Doc, Index: h.Index}] = true
		d, err := dc.get(h.Doc)
		if err != nil {
			return nil, err
		}
		if h.Index >= d.NumChunks() {
			continue
		}
		c := d.Chunk(h.Index)
		p := passage(d, int(c.First), int(c.Last), h.Score)
		p.Scores.BM25, p.Scores.Lexical = h.Score, h.Score
		ps = append(ps, p)
		if proposed[Hit{Doc: h.Doc, Index: h.Index}] {
			delete(proposed, Hit{Doc: h.Doc, Index: h.Index})
			proposed[Hit{Doc: h.Doc, Index: p.First}] = true
		}
	}
	return r.finish(ctx, question, ps, dc, &opt, proposed)
}

// finish applies fusion, the cut-off, reranking, the K cap and context
// expansion to passages ranked by lexical score; proposed are those dense
// search proposed (by document and first sentence). The cut-off is
// relative to the best fused (or lexical) score, before the reranker
// reorders what is left.
func (r *Retriever) finish(ctx context.Context, question string, ps []Passage, dc *docCache, opt *Options, proposed map[Hit]bool) ([]Passage, error) {
	var err error
	switch {
	case opt.Fusion.Dense != nil && len(ps) > 0:
		if ps, err = fusePassages(ctx, opt.Fusion, question, ps, proposed); err != nil {
			return nil, err
		}
	case opt.Fusion.Rule == MinMax && opt.Cutoff > 0 && len(ps) > 0:
		// B.3 with BM25 alone: the one list, its top Top min-max
		// normalised, is the fused score the cut-off is defined on (the
		// best 1, the Top-th and those below it 0), not BM25's own.
		lex := make([]float64, len(ps))
		for i, p := range ps {
			lex[i] = p.Score
		}
		for i, f := range FuseMinMax(lex, nil, 1, 0, opt.Fusion.Top) {
			ps[i].Score = f
		}
	}
	ps = cutoff(ps, opt.Cutoff)
	ps = rerankPassages(ctx, opt.Fusion.Rerank, question, ps, opt.Fusion.RerankTop, opt.Fusion.Warn)
	sortPassages(ps)
	ps = ps[:min(opt.K, len(ps))]
	for i := range ps {
		d, err := dc.get(ps[i].Doc)
		if err != nil {
			return nil, err
		}
		ps[i].Context = expand(d, ps[i].First, ps[i].Last, opt.Expand)
	}
	if err := dc.err(); err != nil {
		return nil, err
	}
	return ps, nil
}

// Windowing describes windows over a document's sentences: runs of whole
// sentences of about Tokens tokens (textproc.EstimateTokens), each
// starting where the last Overlap tokens of the one before begin: RAIDD's
// 256/50 chunks, OkraLong's segments of 150, 256 or 400, dag's chunks of
// about 80 words. They are computed when asked for, not stored (the
// index's segments are another thing).
type Windowing struct {
	Tokens, Overlap int
}

func (w Windowing) check() error {
	if w.Tokens <= 0 || w.Overlap < 0 || w.Overlap >= w.Tokens {
		return fmt.Errorf("%w: windows need Tokens > 0 and 0 <= Overlap < Tokens (got %d and %d)", ErrBadOptions, w.Tokens, w.Overlap)
	}
	return nil
}

// CutWindows cuts d into windows as w says, in order. A sentence longer
// than Tokens is a window of its own; every sentence is in at least one
// window.
func CutWindows(d *docstore.Document, w Windowing) ([]Range, error) {
	return cutWindows(docstore.ViewOf(d), w)
}

func cutWindows(d *docstore.View, w Windowing) ([]Range, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	n := d.NumSentences()
	tokens := make([]int, n)
	for i := range n {
		tokens[i] = textproc.EstimateTokens(d.SentenceText(i))
	}
	var out []Range
	for first := 0; first < n; {
		last, sum := first, tokens[first]
		for last+1 < n && sum+tokens[last+1] <= w.Tokens {
			last++
			sum += tokens[last]
		}
		out = append(out, Range{First: first, Last: last,
			Start: int(d.Sentence(first).Start), End: int(d.Sentence(last).End)})
		if last == n-1 {
			break
		}
		// The next window starts at the sentences making up the last
		// Overlap tokens, but always moves forward.
		next, over := last+1, 0
		for next-1 > first && over+tokens[next-1] <= w.Overlap {
			next--
			over += tokens[next]
		}
		first = next
	}
	return out, nil
}

// windowCache keeps each document's windows per Windowing.
type windowKey struct {
	doc docstore.DocID
	w   Windowing
}

var (
	windowMu    sync.Mutex
	windowCache = map[windowKey][]Range{}
)

func windowsOf(d *docstore.View, w Windowing) ([]Range, error) {
	k := windowKey{d.ID(), w}
	windowMu.Lock()
	rs, ok := windowCache[k]
	windowMu.Unlock()
	if ok {
		return rs, nil
	}
	rs, err := cutWindows(d, w)
	if err != nil {
		return nil, err
	}
	windowMu.Lock()
	if len(windowCache) > 64 { // a long-running process asks of many documents
		clear(windowCache)
	}
	windowCache[k] = rs
	windowMu.Unlock()
	return rs, nil
}

// Windows ranks windows of the scope cut as w says (see CutWindows) with
// BM25 over the windows' own text: sentence hits from the index propose
// the windows that contain them, and the best few times K of those are
// scored as units (idf from the scope's sentences). Pages and Filter
// apply to the proposing sentences.
func (r *Retriever) Windows(ctx context.Context, question string, w Windowing, opt Options) ([]Passage, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	ss, err := r.searchSentences(ctx, question, &opt, 500)
	if ss == nil {
		return nil, err
	}
	q, dc, hits := ss.q, ss.dc, ss.hits
	// Dense search's own sentences propose their windows too, scored on
	// the lexical hits' scale (the best hit's score times the cosine).
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	if best == 0 {
		best = 1
	}
	lexical := len(hits)
	for _, h := range ss.dense {
		hits = append(hits, Hit{Doc: h.Doc, Index: h.Index, Score: best * h.Score})
	}
	// Propose: each window's summed sentence scores; dense says a dense
	// hit proposed it.
	type cand struct {
		d     *docstore.View
		r     Range
		score float64
		dense bool
	}
	type rangeKey struct {
		doc         docstore.DocID
		first, last int
	}
	byKey := map[rangeKey]int{}
	var cands []cand
	for n, h := range hits {
		d, err := dc.get(h.Doc)
		if err != nil {
			return nil, err
		}
		rs, err := windowsOf(d, w)
		if err != nil {
			return nil, err
		}
		// Windows are in order of First; those containing h.Index start
		// at or before it and end at or after it.
		j := sort.Search(len(rs), func(j int) bool { return rs[j].First > h.Index })
		for j--; j >= 0 && rs[j].Last >= h.Index; j-- {
			k := rangeKey{d.ID(), rs[j].First, rs[j].Last}
			if i, ok := byKey[k]; ok {
				cands[i].score += h.Score
				cands[i].dense = cands[i].dense || n >= lexical
				continue
			}
			byKey[k] = len(cands)
			cands = append(cands, cand{d: d, r: rs[j], score: h.Score, dense: n >= lexical})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	// The best few times K go on; under MinMax dense search's own
	// proposals too, each retriever's list being chosen from them.
	keep := cands[:0]
	for i, c := range cands {
		if i < max(4*opt.K, 40) || c.dense && opt.Fusion.Rule == MinMax && opt.Fusion.Dense != nil {
			keep = append(keep, c)
		}
	}
	cands = keep
	proposed := map[Hit]bool{}
	for _, c := range cands {
		if c.dense {
			proposed[Hit{Doc: c.d.ID(), Index: c.r.First}] = true
		}
	}
	// Score: BM25 of each window's text as one unit.
	rk := &ranker{q: q, units: map[unitKey]*unit{}}
	nt := len(q.q.Terms)
	tfs := make([][]float64, len(cands))
	lens := make([]float64, len(cands))
	var total float64
	for i, c := range cands {
		tfs[i] = make([]float64, nt)
		for s := c.r.First; s <= c.r.Last; s++ {
			u := rk.sentence(c.d, s, false)
			lens[i] += float64(u.length)
			for t := range nt {
				tfs[i][t] += float64(u.tf[t])
			}
		}
		total += lens[i]
	}
	avg := total / float64(max(len(cands), 1))
	ps := make([]Passage, 0, len(cands))
	for i, c := range cands {
		var score float64
		for t := range nt {
			score += q.weight[t] * bm25(tfs[i][t], lens[i], avg, opt.BM25)
		}
		p := passage(c.d, c.r.First, c.r.Last, score)
		p.Scores.BM25, p.Scores.Lexical = score, score
		ps = append(ps, p)
	}
	return r.finish(ctx, question, ps, dc, &opt, proposed)
}
