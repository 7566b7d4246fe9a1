package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
)

// Retriever ranks the sentences, chunks and windows of a library's
// documents against questions. It is safe for concurrent use.
type Retriever struct {
	lib *docstore.Library
}

// New returns a Retriever over lib.
func New(lib *docstore.Library) *Retriever { return &Retriever{lib: lib} }

// Options restrict and tune a retrieval. The zero value ranks every
// document of the library with the default model and returns 10 passages.
type Options struct {
	// Docs is the scope; empty means every document.
	Docs []docstore.DocID
	// Pages, if not empty, keeps only sentences starting on these pages.
	Pages []PageRange
	// Filter, if set, keeps only the sentences it returns true for.
	Filter func(doc docstore.DocID, sentence int) bool
	// K is the number of passages wanted (default 10).
	K int
	// Pool is the number of BM25 candidates re-ranked (default 200: 100 to
	// 300 gave the same evidence recall on every data set, and the
	// re-ranking reads every candidate and its neighbours, so 300 cost a
	// third more time for nothing).
	Pool int
	// Expand sets Passage.Context to the hit with up to Expand neighbouring
	// sentences on each side, within its paragraph.
	Expand int
	// Cutoff drops passages scoring below Cutoff times the best (0 keeps
	// all; OkraLong uses 0.1).
	Cutoff float64
	// Plain returns the index's BM25 ranking as it is: no re-ranking, no
	// diversity. For measuring, and for callers that want the raw order.
	Plain bool
	// KeepDuplicates turns off the near-duplicate filter.
	KeepDuplicates bool
	// Weights are the re-ranker's weights; nil means DefaultWeights.
	Weights *Weights
	// BM25 parameters; zero means DefaultBM25.
	BM25 BM25
	// Fusion, when its Dense scorer is set, fuses dense similarity into
	// the ranking.
	Fusion Fusion
	// Context is text the question follows up on (the previous question
	// of a conversation, engine.Runtime.Previous): its words that the
	// question lacks join the query at ContextWeight, so "and the
	// second one?" still finds what the conversation is about. Coverage
	// counts the question's own words only.
	Context string
	// Feedback, if set, turns on pseudo-relevance feedback for a weak
	// first pass (see FeedbackBelow) and is told the words it added to
	// the question, for the answer's plan, as the passages write them.
	Feedback func(added []string)
	// Aliases, if set, lets a question's word reach the other names the
	// documents give it ("X, also known as Y", "X (or Y)", acronyms) at
	// AliasWeight, and is told the aliases used, with where each is said.
	Aliases func(found []Alias)
}

// ContextWeight is the weight of Options.Context's words, relative to
// the question's own.
const ContextWeight = 0.4

// PageRange is an inclusive range of 1-based pages.
type PageRange struct{ First, Last int }

// Passage is one retrieved unit: a sentence, or a run of sentences for
// chunks and windows.
type Passage struct {
	Doc         docstore.DocID
	DocName     string
	First, Last int    // sentence indices, inclusive
	Start, End  int    // byte range in the document's text
	Page        int    // page of the first sentence
	Text        string // the document's text[Start:End]
	// Context is the passage with its neighbours (Options.Expand).
	Context Range
	// Heading is the heading line the passage sits under ("" if none).
	Heading string
	// Score ranks the passages: higher is better. For sentences it is the
	// score the passage was selected with (its gain over the passages
	// above it, see Weights).
	Score  float64
	Scores Scores
}

// Range is a run of sentences First..Last and the bytes they cover.
type Range struct {
	First, Last int
	Start, End  int
}

// Scores are a passage's component scores, for explaining and tuning.
type Scores struct {
	BM25      float64 // BM25 of the passage's own text
	Lexical   float64 // the re-ranked lexical score (BM25 with context and bonuses)
	Context   float64 // what the heading and neighbours add to BM25
	Proximity float64 // closeness of the query terms (0..1)
	Phrase    float64 // question phrases found (0..1)
	Answer    bool    // holds the kind of fact the question asks for
	Lead      bool    // opens a section
	Subject   float64 // share of the query among its first words (0..1)
	Coverage  float64 // idf-weighted share of the query terms in the passage and its heading
	Dense     float64 // dense similarity, when fused
	Rerank    float64 // the reranker's relevance, when reranked
}

func (o *Options) normalise() error {
	if o.K < 0 || o.Pool < 0 || o.Expand < 0 || o.Cutoff < 0 || o.Cutoff > 1 {
		return fmt.Errorf("%w: K, Pool and Expand must not be negative and Cutoff must be within 0..1", ErrBadOptions)
	}
	if o.K == 0 {
		o.K = 10
	}
	if o.Pool == 0 {
		o.Pool = 200
	}
	if err := o.Fusion.normalise(); err != nil {
		return err
	}
	o.Pool = max(o.Pool, o.K)
	if o.Weights == nil {
		wt := DefaultWeights
		o.Weights = &wt
	}
	if o.BM25 == (BM25{}) {
		o.BM25 = DefaultBM25
	}
	return nil
}

// scope is the options' documents: nil for the whole library, which the
// index reads without listing its documents. It reports whether there is
// anything to search.
func (r *Retriever) scope(opt *Options) ([]docstore.DocID, bool, error) {
	if len(opt.Docs) > 0 {
		return opt.Docs, true, nil
	}
	n, err := r.lib.Count()
	return nil, n > 0, err
}

// list is the scope as a list of documents, for what visits every
// document of it (dense search, a page filter).
func (r *Retriever) list(docs []docstore.DocID) ([]docstore.DocID, error) {
	if len(docs) > 0 {
		return docs, nil
	}
	return r.lib.IDs()
}

// docCache opens the request's documents once each, as views: a large
// document is read in the pieces the ranking looks at.
type docCache struct {
	lib  *docstore.Library
	docs map[docstore.DocID]*docstore.View
	// toks are the texts read so far (sentences, headings, tables'
	// context), kept for the request: every ranking of it (the first,
	// the second hop's, the aliases', feedback's) reads them against its
	// own query without reading them again.
	toks map[unitKey]*tokens
}

func newDocCache(lib *docstore.Library) *docCache {
	return &docCache{lib: lib, docs: map[docstore.DocID]*docstore.View{}, toks: map[unitKey]*tokens{}}
}

// tokens returns unit k's text read, reading text() the first time.
func (c *docCache) tokens(k unitKey, text func() string, compounds func(string) []string) *tokens {
	if c == nil {
		return tokenise(text(), compounds) // a ranker of passages it was given (Windows)
	}
	if tk, ok := c.toks[k]; ok {
		return tk
	}
	tk := tokenise(text(), compounds)
	c.toks[k] = tk
	return tk
}

func (c *docCache) get(id docstore.DocID) (*docstore.View, error) {
	if d, ok := c.docs[id]; ok {
		return d, nil
	}
	d, err := c.lib.View(id)
	if err != nil {
		return nil, err
	}
	c.docs[id] = d
	return d, nil
}

// err is the first error met reading the views in pieces.
func (c *docCache) err() error {
	for _, d := range c.docs {
		if err := d.Err(); err != nil {
			return err
		}
	}
	return nil
}

// prefetch reads the pieces around hits (and their neighbours) of the
// documents read in pieces, a transaction per document.
func (c *docCache) prefetch(hits []Hit, radius int) error {
	byDoc := map[docstore.DocID][]int{}
	for _, h := range hits {
		for i := h.Index - radius - 2; i <= h.Index+radius+2; i++ {
			byDoc[h.Doc] = append(byDoc[h.Doc], i)
		}
	}
	for id, is := range byDoc {
		d, err := c.get(id)
		if err != nil {
			return err
		}
		d.Prefetch(is)
	}
	return nil
}

// filter combines the page restriction and the caller's filter. Documents
// are loaded before the search, since the index's Filter runs inside its
// read transaction.
func (r *Retriever) filter(opt *Options, docs []docstore.DocID, dc *docCache) (func(docstore.DocID, int) bool, error) {
	if len(opt.Pages) == 0 {
		return opt.Filter, nil
	}
	docs, err := r.list(docs)
	if err != nil {
		return nil, err
	}
	for _, id := range docs {
		if _, err := dc.get(id); err != nil {
			return nil, err
		}
	}
	user := opt.Filter
	return func(id docstore.DocID, i int) bool {
		d := dc.docs[id]
		if d == nil || i >= d.NumSentences() {
			return false
		}
		p := int(d.Sentence(i).Page)
		in := false
		for _, pr := range opt.Pages {
			if p >= pr.First && p <= pr.Last {
				in = true
				break
			}
		}
		return in && (user == nil || user(id, i))
	}, nil
}

// sentenceSearch is where Sentences and Windows start from: the
// question's query weighted by the scope's statistics, the scope with its
// documents' cache and filter, and the index's sentence hits.
type sentenceSearch struct {
	q    *query
	docs []docstore.DocID
	dc   *docCache
	keep func(docstore.DocID, int) bool
	st   docstore.FieldStats
	hits []Hit
	// dense are dense search's own candidates (Score: cosine), when the
	// fusion has a searcher.
	dense []Hit
}

// searchSentences normalises opt and takes the scope's best sentences for
// question by BM25: opt.Pool of them, at least minPool. With dense search
// (opt.Fusion) its own candidates join them. It returns nil when there is
// nothing to rank (no index terms in the question and no dense search, an
// empty scope, no hits) or with an error.
func (r *Retriever) searchSentences(ctx context.Context, question string, opt *Options, minPool int) (*sentenceSearch, error) {
	if err := opt.normalise(); err != nil {
		return nil, err
	}
	ss := &sentenceSearch{q: parseQuery(question)}
	if opt.Context != "" {
		ss.q = ss.q.withContext(opt.Context)
	}
	dense := opt.Fusion.searcher() != nil && !opt.Plain
	if len(ss.q.q.Terms) == 0 && !dense {
		return nil, nil
	}
	if _, has := ss.q.index[defaultTerm]; !has && opt.Weights.Default > 0 && !opt.Plain && asksDefault(question) {
		ss.q = ss.q.extend([]string{defaultTerm}, opt.Weights.Default)
	}
	var err error
	var any bool
	if ss.docs, any, err = r.scope(opt); err != nil || !any {
		return nil, err
	}
	ss.dc = newDocCache(r.lib)
	if ss.keep, err = r.filter(opt, ss.docs, ss.dc); err != nil {
		return nil, err
	}
	if ss.st, err = r.lib.Index().Stats(ss.docs, docstore.FieldSentences, ss.q.q.Terms); err != nil {
		return nil, err
	}
	ss.q.setWeights(ss.st)
	if !opt.Fusion.DenseOnly {
		ss.hits, err = Search(r.lib, ss.q.q, SearchOptions{
			Field: docstore.FieldSentences, Docs: ss.docs, K: max(opt.Pool, minPool), BM25: opt.BM25, Filter: ss.keep,
		})
		if err != nil {
			return nil, err
		}
	}
	if dense {
		dh, err := r.denseCandidates(ctx, opt.Fusion, question, ss.docs, docstore.SentenceLevel)
		if err != nil {
			return nil, err
		}
		for _, h := range dh {
			if ss.keep == nil || ss.keep(h.Doc, h.Index) {
				ss.dense = append(ss.dense, h)
			}
		}
	}
	if len(ss.hits) == 0 && len(ss.dense) == 0 {
		return nil, nil
	}
	return ss, nil
}

// Sentences ranks the sentences of the scope against question: BM25
// candidates from the index, re-ranked with their context (see Weights), then
// selected greedily for coverage of the question and without near-
// duplicates.
func (r *Retriever) Sentences(ctx context.Context, question string, opt Options) ([]Passage, error) {
	ss, err := r.searchSentences(ctx, question, &opt, 0)
	if ss == nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, docs, dc, keep := ss.q, ss.docs, ss.dc, ss.keep
	hits := append(slices.Clone(ss.hits), ss.dense...)
	rk := &ranker{q: q, weights: opt.Weights, bm: opt.BM25, avg: ss.st.AvgLen, dc: dc, keep: keep,
		units: map[unitKey]*unit{}}
	if !opt.Plain {
		if rk.prior, rk.local, err = r.documentPriors(ss); err != nil {
			return nil, err
		}
		if rk.followers, err = r.sectionFollowers(q.q, docs, dc, opt.Weights); err != nil {
			return nil, err
		}
	}
	var out []Passage
	if opt.Plain {
		out, err = rk.plain(hits, opt.K)
		if err != nil {
			return nil, err
		}
	} else {
		cands, err := rk.candidates(ctx, hits)
		if err != nil {
			return nil, err
		}
		if opt.Weights.Hop > 0 {
			if rk, cands, err = r.hop(ctx, rk, hits, cands, docs, &opt); err != nil {
				return nil, err
			}
		}
		// Aliases and feedback widen a words-only ranking; with an
		// embedding model, dense search already reaches the paraphrase
		// and a widened lexical rank would only blur the fusion.
		wordsOnly := opt.Fusion.Dense == nil
		var found []Alias
		if opt.Aliases != nil && wordsOnly {
			if rk, cands, found, err = r.throughAliases(ctx, rk, hits, cands, docs, &opt); err != nil {
				return nil, err
			}
		}
		if opt.Feedback != nil && wordsOnly {
			var added []string
			if rk, cands, added, err = r.feedback(ctx, rk, hits, cands, docs, &opt); err != nil {
				return nil, err
			}
			if len(added) > 0 {
				opt.Feedback(added)
			}
		}
		if opt.Fusion.Dense != nil {
			proposed := map[Hit]bool{}
			for _, h := range ss.dense {
				proposed[Hit{Doc: h.Doc, Index: h.Index}] = true
			}
			if cands, err = rk.fuse(ctx, question, cands, opt.Fusion, proposed); err != nil {
				return nil, err
			}
		}
		cands = rk.rerank(ctx, question, cands, opt.Fusion.Rerank, opt.Fusion.RerankTop, opt.Fusion.Warn)
		out = rk.selectSet(cands, opt.K, !opt.KeepDuplicates)
		if used := aliasesUsed(found, out); len(used) > 0 {
			opt.Aliases(used)
		}
	}
	out = cutoff(out, opt.Cutoff)
	for i := range out {
		d, err := dc.get(out[i].Doc)
		if err != nil {
			return nil, err
		}
		out[i].Context = expand(d, out[i].First, out[i].Last, opt.Expand)
	}
	if err := dc.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// sectionFollowers returns the sentences that open the sections whose
// headings match q best: the first wt.HeadingFollowers sentences under each
// of the wt.HeadingSections best headings. They join the candidates even
// when they share no term with the question, so a sentence that answers
// "what law governs the agreement?" under "Governing Law" is found.
func (r *Retriever) sectionFollowers(q Query, docs []docstore.DocID, dc *docCache, wt *Weights) ([]Hit, error) {
	if wt.HeadingFollowers <= 0 || wt.HeadingSections <= 0 {
		return nil, nil
	}
	secs, err := Search(r.lib, q, SearchOptions{Field: docstore.FieldHeadings, Docs: docs, K: wt.HeadingSections})
	if err != nil {
		return nil, err
	}
	var out []Hit
	for _, h := range secs {
		d, err := dc.get(h.Doc)
		if err != nil {
			return nil, err
		}
		first := headingSentence(d, h.Index)
		if first < 0 {
			continue
		}
		n := 0
		for i := first + 1; i < d.NumSentences() && n < wt.HeadingFollowers && sectionOf(d, i) == h.Index; i++ {
			if flags(d, i)&(structure.FlagFurniture|structure.FlagHeading) != 0 {
				continue
			}
			out = append(out, Hit{Doc: h.Doc, Index: i, Score: h.Score})
			n++
		}
	}
	return out, nil
}

// hop is the second hop of multi-hop questions: the names in the best
// sentences found so far (capitalised words the question does not have)
// join the query at weight Weights.Hop, and the candidates are ranked again.
// A question about "the woman who portrayed Corliss Archer" finds the film
// sentence naming Shirley Temple, then Shirley Temple's own sentences.
func (r *Retriever) hop(ctx context.Context, rk *ranker, hits []Hit, cands []*candidate, docs []docstore.DocID, opt *Options) (*ranker, []*candidate, error) {
	wt := opt.Weights
	top := rk.selectSet(slices.Clone(cands), max(wt.HopFrom, 1), !opt.KeepDuplicates)
	var names []string
	seen := map[string]bool{}
	for _, p := range top {
		if d, err := rk.dc.get(p.Doc); err == nil && labels(d, p.First) {
			continue
		}
		for _, t := range nameTerms(p.Text) {
			if _, inQuery := rk.q.index[t]; !inQuery && !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	if len(names) == 0 {
		return rk, cands, nil
	}
	st, err := r.lib.Index().Stats(docs, docstore.FieldSentences, names)
	if err != nil {
		return nil, nil, err
	}
	// The rarest names identify best; common capitalised words ("The",
	// "American") carry little.
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(fieldIDF(st, b), fieldIDF(st, a)) })
	keep := make([]string, 0, wt.HopTerms)
	for _, i := range idx[:min(len(idx), max(wt.HopTerms, 1))] {
		keep = append(keep, names[i])
	}
	// rk ranks with opt.Weights (Retrieve makes it so), which requery keeps.
	return r.requery(ctx, rk, hits, docs, opt, keep, wt.Hop)
}

// cutoff drops passages scoring below frac of the best.
func cutoff(ps []Passage, frac float64) []Passage {
	if frac <= 0 || len(ps) == 0 {
		return ps
	}
	best := ps[0].Score
	for _, p := range ps {
		best = max(best, p.Score)
	}
	return slices.DeleteFunc(ps, func(p Passage) bool { return p.Score < frac*best })
}

// expand returns sentences first..last with up to n neighbours each side,
// within the paragraph.
func expand(d *docstore.View, first, last, n int) Range {
	if n > 0 {
		f, _ := paragraph(d, first, n)
		_, l := paragraph(d, last, n)
		first, last = f, l
	}
	return Range{First: first, Last: last,
		Start: int(d.Sentence(first).Start), End: int(d.Sentence(last).End)}
}

// passage builds the Passage of sentences first..last of d.
func passage(d *docstore.View, first, last int, score float64) Passage {
	s, e := int(d.Sentence(first).Start), int(d.Sentence(last).End)
	return Passage{
		Doc: d.ID(), DocName: d.Info().Name, First: first, Last: last, Start: s, End: e,
		Page: int(d.Sentence(first).Page), Text: d.Slice(s, e), Score: score,
		Context: Range{First: first, Last: last, Start: s, End: e},
	}
}

// sortPassages orders passages best first, ties by document and position
// so results are deterministic.
func sortPassages(ps []Passage) {
	slices.SortStableFunc(ps, func(a, b Passage) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Doc, b.Doc); c != 0 {
			return c
		}
		return cmp.Compare(a.First, b.First)
	})
}

// bm25 is the BM25 term-frequency factor for frequency tf in a unit of
// length n, scope average avg.
func bm25(tf, n, avg float64, p BM25) float64 { return p.tf(tf, n, avg) }

// fieldIDF is term t's idf in the scope st describes.
func fieldIDF(st docstore.FieldStats, t int) float64 {
	return IDF(float64(st.Units), float64(st.DF[t]))
}
