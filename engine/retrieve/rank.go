package retrieve

import (
	"context"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore"
)

// Weights are the sentence re-ranker's weights. See the package comment for
// how they combine and what each was measured to do.
type Weights struct {
	// Heading is the term frequency a query term in the sentence's heading
	// line counts for in the sentence's own BM25 (BM25F-style).
	Heading float64
	// Neighbour is the term frequency a query term in an adjacent sentence
	// of the paragraph counts for, divided by its distance.
	Neighbour float64
	// Radius is how many sentences either side count as neighbours.
	Radius int
	// Proximity, Phrase and Answer scale the multiplicative bonuses for
	// query terms standing close together, for the question's phrases
	// found in order, and for holding the kind of fact the question asks
	// for ("when": a year or date; "how many": a number; "who": a name).
	Proximity, Phrase, Answer float64
	// Quantity is Answer for a question that asks how much, how many or
	// how far, and a sentence that states a quantity (a number that is
	// not the question's own, nor part of a name such as "bzip2"): a
	// quantity is seldom stated by chance, so it weighs more than a
	// name or a date.
	Quantity float64
	// Command is the term frequency a query term in the command a
	// sentence leads in to (a line under "…like this:") counts for in
	// the sentence.
	Command float64
	// Lead scales the bonus for a sentence that opens a section (the
	// first after a heading): lead sentences say what the section is
	// about.
	Lead float64
	// Subject scales the bonus for query terms among the sentence's first
	// words (see unit.subject): the sentence is about them.
	Subject float64
	// HeadingPhrases lets the question's phrases found in the heading
	// count for the sentence's phrase bonus.
	HeadingPhrases bool
	// Covered is the share of its weight a query term keeps once a
	// selected sentence (or its heading) has it: below 1, the selection
	// favours sentences that bring the question's other terms.
	Covered float64
	// Duplicate is the term-set overlap (Jaccard) above which a sentence
	// counts as a near-duplicate of a selected one and is skipped.
	Duplicate float64
	// PerParagraph caps the sentences selected from one paragraph (0: no
	// cap).
	PerParagraph int
	// Hop is the weight (relative to the question's terms) of the names
	// taken from the HopFrom best sentences for a second round of
	// ranking; 0 turns the second hop off. At most HopTerms names, the
	// rarest, are taken.
	Hop               float64
	HopFrom, HopTerms int
	// HeadingFollowers is how many sentences after a matching heading
	// join the candidates even without a match of their own, from the
	// HeadingSections best sections by their headings.
	HeadingFollowers, HeadingSections int
	// Ancestor scales Heading for each level up the heading path: a
	// sentence under "7 Data import > 7.1 Spreadsheets" gets Heading for
	// the terms of "7.1 Spreadsheets" and Heading×Ancestor for those of
	// "7 Data import".
	Ancestor float64
	// TableContext is the term frequency a query term in a table row's
	// caption or column headers counts for in the row.
	TableContext float64
	// Noise scales the score of contents lines, page furniture, code and
	// fragments, so they never outrank body text with the same terms.
	Noise float64
	// Section scales the bonus for the share of the question a
	// candidate's section covers (see sectionCover).
	Section float64
	// Default is the weight "default" joins the query with when the
	// question asks for a default without the word (see asksDefault).
	Default float64
}

// DefaultWeights is the measured default; see the package comment.
var DefaultWeights = Weights{
	Heading:          1.5,
	HeadingFollowers: 3,
	HeadingSections:  20,
	Neighbour:        0.3,
	Radius:           1,
	Phrase:           0.3,
	HeadingPhrases:   true,
	Proximity:        0.5,
	Subject:          0.5,
	Answer:           0.2,
	Quantity:         0.4,
	Command:          0.5,
	Lead:             0.3,
	Covered:          0.5,
	Duplicate:        0.8,
	Hop:              0.5,
	HopFrom:          2,
	HopTerms:         8,
	Ancestor:         0.5,
	TableContext:     1,
	Noise:            0.3,
	Default:          0.5,
	Section:          0.5,
}

type unitKey struct {
	doc docstore.DocID
	at  int // sentence index, or -1-section for a section's heading, or -(1<<30)-table for a table's context
}

// ranker is one request's re-ranking state.
type ranker struct {
	// followers are the sentences that open the sections whose headings
	// match best (Weights.HeadingFollowers), candidates without a match of
	// their own.
	followers []Hit
	q         *query
	weights   *Weights
	bm        BM25
	avg       float64
	dc        *docCache
	keep      func(docstore.DocID, int) bool
	units     map[unitKey]*unit
	// prior scales each document's sentences by how much the document is
	// about the question (documentPriors); nil for one document.
	prior map[docstore.DocID]float64
	// local scales the question's terms for each document's sentences
	// (localWeights); nil for one document.
	local map[docstore.DocID][]float64
	// within lists, for a term that counts only in some documents (the
	// other name a document gives: see throughAliases), those documents.
	within map[int]map[docstore.DocID]bool
}

// candidate is a sentence being ranked.
type candidate struct {
	doc     *docstore.View
	idx     int
	own     *unit
	contrib []float64 // per query term: weight x saturated (context) tf
	covers  []bool    // per query term: in the sentence or its heading
	bonus   float64   // multiplicative
	para    int       // first sentence of its paragraph
	heading string
	scores  Scores
	base    float64 // standalone lexical score
	// fusedScore is the reciprocal-rank fusion of lexical and dense
	// ranks (when fused); rerankScore the reranker's (when reranked).
	fusedScore, rerankScore float64
	fused, reranked         bool
}

func (rk *ranker) sentence(d *docstore.View, i int, keepTerms bool) *unit {
	k := unitKey{d.ID(), i}
	if u, ok := rk.units[k]; ok && (!keepTerms || u.terms != nil) {
		return u
	}
	u := rk.dc.tokens(k, func() string { return d.SentenceText(i) }, d.Compound).against(rk.q, keepTerms)
	rk.units[k] = u
	return u
}

// headingUnit is section s's heading, analysed.
func (rk *ranker) headingUnit(d *docstore.View, s int) *unit {
	k := unitKey{d.ID(), -1 - s}
	if u, ok := rk.units[k]; ok {
		return u
	}
	u := rk.dc.tokens(k, func() string {
		if h := d.Sections()[s].Heading; h.Valid(d.Len()) {
			return d.Slice(int(h.Start), int(h.End))
		}
		return ""
	}, d.Compound).against(rk.q, false)
	rk.units[k] = u
	return u
}

// tableUnit is the caption and column headers of the table sentence i is
// a row of, analysed, or nil.
func (rk *ranker) tableUnit(d *docstore.View, i int) *unit {
	t := int(d.Sentence(i).Table)
	if t < 0 || t >= len(d.Tables()) {
		return nil
	}
	k := unitKey{d.ID(), -(1 << 30) - t}
	if u, ok := rk.units[k]; ok {
		return u
	}
	u := rk.dc.tokens(k, func() string { return strings.Join(d.TableContext(i), "\n") }, d.Compound).against(rk.q, false)
	rk.units[k] = u
	return u
}

// plain turns index hits into passages as they are.
func (rk *ranker) plain(hits []Hit, k int) ([]Passage, error) {
	var out []Passage
	for _, h := range hits[:min(k, len(hits))] {
		d, err := rk.dc.get(h.Doc)
		if err != nil {
			return nil, err
		}
		p := passage(d, h.Index, h.Index, h.Score)
		p.Scores.BM25, p.Scores.Lexical = h.Score, h.Score
		out = append(out, p)
	}
	return out, nil
}

// candidates expands the index hits with their context and scores them.
func (rk *ranker) candidates(ctx context.Context, hits []Hit) ([]*candidate, error) {
	// A document read in pieces reads those around the hits at once.
	if err := rk.dc.prefetch(hits, rk.weights.Radius); err != nil {
		return nil, err
	}
	seen := map[unitKey]bool{}
	cands := make([]*candidate, 0, len(hits))
	add := func(d *docstore.View, i int) {
		k := unitKey{d.ID(), i}
		if seen[k] || i < 0 || i >= d.NumSentences() {
			return
		}
		seen[k] = true
		if isHeading(d, i) || (rk.keep != nil && !rk.keep(d.ID(), i)) {
			return
		}
		cands = append(cands, &candidate{doc: d, idx: i})
	}
	for n, h := range hits {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		d, err := rk.dc.get(h.Doc)
		if err != nil {
			return nil, err
		}
		add(d, h.Index)
	}
	for _, f := range rk.followers {
		d, err := rk.dc.get(f.Doc)
		if err != nil {
			return nil, err
		}
		add(d, f.Index)
	}
	for _, c := range cands {
		rk.score(c)
	}
	rk.sectionCover(cands)
	return cands, nil
}

// sectionCover raises each candidate by how much of the question its
// section covers: the idf-weighted share of the query terms found in the
// section's candidates or its headings. A sentence that matches one rare
// word of the question in an unrelated section falls behind the sentences
// of the section that is about the question (Weights.Section).
func (rk *ranker) sectionCover(cands []*candidate) {
	if rk.weights.Section <= 0 || len(cands) == 0 {
		return
	}
	type key struct {
		doc docstore.DocID
		sec int
	}
	nt := len(rk.q.q.Terms)
	covered := map[key][]bool{}
	for _, c := range cands {
		k := key{c.doc.ID(), sectionOf(c.doc, c.idx)}
		if k.sec < 0 {
			continue
		}
		cv := covered[k]
		if cv == nil {
			cv = make([]bool, nt)
			covered[k] = cv
		}
		for t, ok := range c.covers {
			cv[t] = cv[t] || ok
		}
	}
	for _, c := range cands {
		cv := covered[key{c.doc.ID(), sectionOf(c.doc, c.idx)}]
		if cv == nil {
			continue
		}
		var w float64
		for t, ok := range cv {
			if ok && t < rk.q.orig {
				w += rk.q.weight[t]
			}
		}
		f := 1 + rk.weights.Section*w/max(rk.q.total, 1e-9)
		c.bonus *= f
		c.base *= f
		c.scores.Lexical = c.base
	}
}

// score computes a candidate's standalone score and its parts.
func (rk *ranker) score(c *candidate) {
	q, wt, d, i := rk.q, rk.weights, c.doc, c.idx
	c.own = rk.sentence(d, i, true)
	nt := len(q.q.Terms)
	ctxTF := make([]float64, nt)
	c.covers = make([]bool, nt)
	for t := range nt {
		c.covers[t] = c.own.tf[t] > 0
	}
	// The heading path, innermost first: a sentence is about what its
	// headings name (BM25F: the heading field's terms count as
	// occurrences in the sentence, less for each level up).
	var hu *unit
	w := wt.Heading
	sections := d.Sections()
	for s, depth := sectionOf(d, i), 0; s >= 0 && depth < maxPath; s, depth = int(sections[s].Parent), depth+1 {
		if headingSentence(d, s) == i {
			continue // a heading is not its own context
		}
		u := rk.headingUnit(d, s)
		if hu == nil {
			hu = u
			c.heading = d.HeadingTrail(i)
		}
		for t := range nt {
			if u.tf[t] > 0 {
				ctxTF[t] += w
				c.covers[t] = true
			}
		}
		w *= wt.Ancestor
		if s >= len(sections) || int(sections[s].Parent) >= s {
			break // a damaged parent chain
		}
	}
	if tu := rk.tableUnit(d, i); tu != nil && wt.TableContext > 0 {
		for t := range nt {
			if tu.tf[t] > 0 {
				ctxTF[t] += wt.TableContext
				c.covers[t] = true
			}
		}
	}
	first, last := paragraph(d, i, wt.Radius)
	c.para = first
	if wt.Neighbour > 0 {
		for j := first; j <= last; j++ {
			if j == i {
				continue
			}
			nu := rk.sentence(d, j, false)
			dist := float64(max(j-i, i-j))
			for t := range nt {
				if nu.tf[t] > 0 {
					ctxTF[t] += wt.Neighbour / dist
				}
			}
		}
	}
	// A lead-in and the command under it are one passage ("Use this
	// command line:" over "valgrind --leak-check=yes myprog"): the
	// statement cites both, so the command's words count for the
	// lead-in nearly as its own.
	if wt.Command > 0 && i+1 < d.NumSentences() && endsLeadIn(d.SentenceText(i)) && commandLine(d, i+1) {
		nu := rk.sentence(d, i+1, false)
		in := i+1 <= last // a neighbour already counted
		for t := range nt {
			if nu.tf[t] > 0 {
				ctxTF[t] += wt.Command
				if in {
					ctxTF[t] -= wt.Neighbour
				}
				c.covers[t] = true
			}
		}
	}
	c.contrib = make([]float64, nt)
	var own, total, cover float64
	n := float64(c.own.length)
	local := rk.local[d.ID()]
	for t := range nt {
		tf := float64(c.own.tf[t])
		w := q.weight[t]
		if t < len(local) {
			w *= local[t]
		}
		if ds, ok := rk.within[t]; ok && !ds[d.ID()] {
			w = 0
		}
		own += w * bm25(tf, n, rk.avg, rk.bm)
		c.contrib[t] = w * bm25(tf+ctxTF[t], n, rk.avg, rk.bm)
		total += c.contrib[t]
		if c.covers[t] {
			cover += q.weight[t]
		}
	}
	c.scores.BM25 = own
	c.scores.Context = total - own
	c.scores.Proximity = c.own.proximity(q)
	c.scores.Phrase = c.own.phrases(q)
	if hu != nil && wt.HeadingPhrases {
		// A name in the heading is the name of what the sentence is about.
		c.scores.Phrase = max(c.scores.Phrase, hu.phrases(q))
	}
	// A how-to question wants the command: a sentence whose paragraph
	// leads in to one holds the kind of answer asked for.
	// A quantity asked for, or the default a line gives the question's
	// word, is a value: it weighs Weights.Quantity, more than other kinds.
	value := q.want == CountAnswer && c.own.wants(q.want) || q.def && assignsQuestionTerm(q, d.SentenceText(i))
	c.scores.Answer = value || q.want != AnyAnswer && c.own.wants(q.want) || q.how && (leadsToCommand(d, i) || namesOption(d.SentenceText(i)))
	c.scores.Coverage = cover / max(q.total, 1e-9)
	c.scores.Lead = isLead(d, i)
	c.scores.Subject = c.own.subject(q)
	c.bonus = 1 + wt.Proximity*c.scores.Proximity + wt.Phrase*c.scores.Phrase + wt.Subject*c.scores.Subject
	if c.scores.Lead {
		c.bonus += wt.Lead
	}
	if c.scores.Answer {
		c.bonus += wt.Answer
		if value {
			c.bonus += wt.Quantity - wt.Answer
		}
	}

	c.base = total * c.bonus
	if m := machinery(q, flags(d, i), d.SentenceText(i), wt.Noise); m != 1 {
		c.bonus *= m
		c.base *= m
	}
	if p, ok := rk.prior[d.ID()]; ok {
		c.bonus *= p
		c.base *= p
	}
	c.scores.Lexical = c.base
}

// gain is a candidate's score given the query terms already covered.
func (rk *ranker) gain(c *candidate, covered []bool) float64 {
	var s float64
	for t, v := range c.contrib {
		if covered[t] {
			v *= rk.weights.Covered
		}
		s += v
	}
	s *= c.bonus
	if !c.fused && !c.reranked {
		return s
	}
	// Fused or reranked: the candidate's standalone score, lowered as the
	// lexical gain is by what the chosen ones already cover.
	ratio := 1.0
	if c.base > 0 {
		ratio = s / c.base
	}
	return rk.standalone(c) * ratio
}

// selectSet picks k candidates greedily: each step takes the candidate
// with the best gain given what the selected ones already cover, skipping
// near-duplicates and full paragraphs. Gains only fall as terms get
// covered, so stale gains are upper bounds and a lazy greedy is exact.
func (rk *ranker) selectSet(cands []*candidate, k int, dedupe bool) []Passage {
	covered := make([]bool, len(rk.q.q.Terms))
	type entry struct {
		c     *candidate
		gain  float64
		fresh int // len(selected) when gain was computed
	}
	es := make([]entry, len(cands))
	for i, c := range cands {
		es[i] = entry{c: c, gain: rk.gain(c, covered)}
	}
	byGain := func(a, b entry) int {
		switch {
		case a.gain > b.gain:
			return -1
		case a.gain < b.gain:
			return 1
		case a.c.doc.ID() != b.c.doc.ID():
			if a.c.doc.ID() < b.c.doc.ID() {
				return -1
			}
			return 1
		}
		return a.c.idx - b.c.idx
	}
	slices.SortFunc(es, byGain)
	var chosen []*candidate
	var out []Passage
	perPara := map[unitKey]int{}
	for len(out) < k && len(es) > 0 {
		e := es[0]
		if e.fresh != len(chosen) {
			es[0].gain, es[0].fresh = rk.gain(e.c, covered), len(chosen)
			// Re-sort the head: insertion of the refreshed entry.
			j := 0
			for j+1 < len(es) && byGain(es[j+1], es[j]) < 0 {
				es[j], es[j+1] = es[j+1], es[j]
				j++
			}
			continue
		}
		es = es[1:]
		c := e.c
		pk := unitKey{c.doc.ID(), c.para}
		if rk.weights.PerParagraph > 0 && perPara[pk] >= rk.weights.PerParagraph {
			continue
		}
		if dedupe && rk.duplicate(c, chosen) {
			continue
		}
		perPara[pk]++
		chosen = append(chosen, c)
		for t, cv := range c.covers {
			covered[t] = covered[t] || cv
		}
		p := passage(c.doc, c.idx, c.idx, e.gain)
		p.Heading = c.heading
		p.Scores = c.scores
		out = append(out, p)
	}
	return out
}

// duplicate reports whether c nearly repeats a chosen sentence.
func (rk *ranker) duplicate(c *candidate, chosen []*candidate) bool {
	if rk.weights.Duplicate <= 0 || rk.weights.Duplicate >= 1 {
		return false
	}
	for _, o := range chosen {
		if jaccard(c.own.terms, o.own.terms) >= rk.weights.Duplicate {
			return true
		}
	}
	return false
}

// maxPath bounds the heading path a sentence's context reads.
const maxPath = 6
