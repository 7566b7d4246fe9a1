package generate

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
)

// SentenceRef is sentence Sentence of the Doc-th document of a scope: what
// a ranking returns to FitScope and FitRanked. Score is the ranking's
// score (higher is better); FitScope uses it to weigh a hit's neighbours
// against other hits, and takes rank order when scores are absent (0).
type SentenceRef struct {
	Doc, Sentence int
	Score         float64
}

// Fit is what of a scope a sentence-level prompt shows.
type Fit struct {
	// Parts number the shown sentences (citations.NewSentenceNumbering),
	// one per document in scope order. A part's Sentences is nil when the
	// whole document is shown.
	Parts []citations.Part
	// Shown and Total count sentences: shown, and in the scope.
	Shown, Total int
	// Ranked is how many of the shown sentences the ranking returned; the
	// others were kept as their context. 0 when nothing was trimmed.
	Ranked int
	// Tokens estimates the prompt showing the whole scope (or, for
	// FitRanked, every ranked sentence); Budget is the prompt budget it
	// was fitted to.
	Tokens, Budget int
	// Trimmed reports that the scope did not fit and Parts show part of it.
	Trimmed bool
}

// Context weighting of FitScope: a sentence within ContextRadius of a hit
// is worth the hit's score times ContextDecay per sentence of distance, so
// the best hits bring the sentences around them before weaker hits come in
// (an answer is often told across neighbouring sentences, and a sentence
// read alone loses its subject).
const (
	ContextRadius = 2
	ContextDecay  = 0.5
)

// FitScope decides what a sentence-level prompt of format f shows of docs
// within budget tokens (config.Config.PromptBudget): every sentence when the
// whole prompt fits. Otherwise it calls rank for the sentences ranked
// against the question, weighs each by its own score or its context value
// (see ContextRadius), keeps the best that fit, and spends what is left
// growing the kept runs outward. With no ranked sentence at all it keeps
// the beginning and the end of each document (LongCite's own code
// truncates from the middle). The shown sentences keep their real indices
// and document order. The estimate per sentence is SentenceTokens, the
// rest Overhead.
//
// The work is linear in the number of sentences plus a sort of the
// candidates, and builds no strings.
func FitScope(ctx context.Context, f Format, question string, docs []*docstore.Document, budget int,
	rank func(context.Context) ([]SentenceRef, error)) (Fit, error) {
	fit := Fit{Budget: budget, Parts: make([]citations.Part, len(docs))}
	over := Overhead(f, citations.SentenceMode, question, docs)
	tokens, num := over, 0
	for i, d := range docs {
		fit.Parts[i] = citations.Part{Doc: d}
		for _, s := range d.Sentences {
			tokens += SentenceTokens(num, d.Text[s.Start:s.End])
			num++
		}
	}
	fit.Total, fit.Tokens = num, tokens
	if tokens <= budget {
		fit.Shown = num
		return fit, nil
	}
	var ranked []SentenceRef
	if rank != nil {
		var err error
		if ranked, err = rank(ctx); err != nil {
			return fit, err
		}
	}
	sel := newSelection(docs, budget-over)
	hit := make([][]bool, len(docs))
	for i, d := range docs {
		hit[i] = make([]bool, len(d.Sentences))
	}
	for _, r := range weigh(docs, ranked) {
		sel.add(r)
	}
	for _, r := range ranked {
		if sel.valid(r) {
			hit[r.Doc][r.Sentence] = true
		}
	}
	seeds := sel.picked
	if len(seeds) == 0 {
		for d, doc := range docs {
			if n := len(doc.Sentences); n > 0 {
				sel.add(SentenceRef{Doc: d, Sentence: 0})
				sel.add(SentenceRef{Doc: d, Sentence: n - 1})
			}
		}
		seeds = sel.picked
	}
	sel.expand(seeds)
	for d, ch := range sel.chosen {
		for i, ok := range ch {
			if ok && hit[d][i] {
				fit.Ranked++
			}
		}
	}
	fit.Shown, fit.Trimmed = sel.shown, true
	sel.parts(fit.Parts)
	return fit, nil
}

// weigh returns the candidates of a trimmed scope, best first: every
// ranked sentence and every sentence within ContextRadius of one, each
// worth the most of its own score and its context value.
func weigh(docs []*docstore.Document, ranked []SentenceRef) []SentenceRef {
	worth := make([][]float64, len(docs))
	var out []SentenceRef
	for i, r := range ranked {
		if r.Doc < 0 || r.Doc >= len(docs) || r.Sentence < 0 || r.Sentence >= len(docs[r.Doc].Sentences) {
			continue
		}
		score := r.Score
		if score <= 0 {
			score = 1 / float64(i+1)
		}
		w := worth[r.Doc]
		if w == nil {
			w = make([]float64, len(docs[r.Doc].Sentences))
			worth[r.Doc] = w
		}
		v := score
		for d := 0; d <= ContextRadius; d++ {
			for _, j := range [2]int{r.Sentence - d, r.Sentence + d} {
				if j >= 0 && j < len(w) && v > w[j] {
					if w[j] == 0 {
						out = append(out, SentenceRef{Doc: r.Doc, Sentence: j})
					}
					w[j] = v
				}
			}
			v *= ContextDecay
		}
	}
	for i := range out {
		out[i].Score = worth[out[i].Doc][out[i].Sentence]
	}
	slices.SortStableFunc(out, func(a, b SentenceRef) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), a.Doc-b.Doc, a.Sentence-b.Sentence)
	})
	return out
}

// FitRanked decides what a sentence-level prompt shows of ranked
// sentences (best first, as retrieval returns them): all of them if the
// prompt fits in budget, else the best that fit, in rank order. The parts
// show them in document order with their real indices.
func FitRanked(f Format, question string, docs []*docstore.Document, ranked []SentenceRef, budget int) Fit {
	fit := Fit{Budget: budget, Parts: make([]citations.Part, len(docs))}
	for i, d := range docs {
		fit.Parts[i] = citations.Part{Doc: d, Sentences: []int{}}
		fit.Total += len(d.Sentences)
	}
	over := Overhead(f, citations.SentenceMode, question, docs)
	sel := newSelection(docs, budget-over)
	fit.Tokens = over
	for _, r := range ranked {
		if !sel.valid(r) || sel.chosen[r.Doc][r.Sentence] {
			continue
		}
		fit.Tokens += sel.cost(r)
		if !sel.add(r) {
			fit.Trimmed = true
		}
	}
	fit.Shown, fit.Ranked = sel.shown, sel.shown
	sel.parts(fit.Parts)
	return fit
}

// Warning says what of the scope a trimmed fit read, for the reader:
// "read 4,304 of 70,257 sentences (6%): the documents (412k tokens)
// exceed the model's 128k window; the sentences read are the most
// relevant to the question and those around them". contextWindow is the
// model's context in tokens. A strategy that promises to read the whole
// scope reports it as a warning (Runtime.Warn), so the answer says on
// screen and in its exports that it rests on part of the scope.
func (f Fit) Warning(contextWindow int) string {
	what, verb := "the documents", "exceed"
	if len(f.Parts) == 1 {
		what, verb = "the document", "exceeds"
	}
	pct := 0
	if f.Total > 0 {
		pct = int(float64(f.Shown) * 100 / float64(f.Total))
	}
	var which string
	switch {
	case f.Ranked == 0:
		which = "from the beginning and the end (none matched the question's words)"
	case f.Ranked == f.Shown:
		which = "the most relevant to the question"
	default:
		which = "the most relevant to the question and those around them"
	}
	return fmt.Sprintf("read %s of %s sentences (%d%%): %s (%s tokens) %s the model's %s window; the sentences read are %s",
		humanize.Count(f.Shown), humanize.Count(f.Total), pct, what, humanize.Tokens(f.Tokens), verb, humanize.Tokens(contextWindow), which)
}

// selection tracks chosen sentences and the budget left.
type selection struct {
	docs   []*docstore.Document
	offset []int // global number of each document's first sentence
	chosen [][]bool
	avail  int
	shown  int
	picked []SentenceRef // chosen by add, in order
}

func newSelection(docs []*docstore.Document, avail int) *selection {
	s := &selection{docs: docs, avail: avail, offset: make([]int, len(docs)), chosen: make([][]bool, len(docs))}
	n := 0
	for i, d := range docs {
		s.offset[i] = n
		s.chosen[i] = make([]bool, len(d.Sentences))
		n += len(d.Sentences)
	}
	return s
}

func (s *selection) valid(r SentenceRef) bool {
	return r.Doc >= 0 && r.Doc < len(s.docs) && r.Sentence >= 0 && r.Sentence < len(s.docs[r.Doc].Sentences)
}

func (s *selection) cost(r SentenceRef) int {
	d := s.docs[r.Doc]
	st := d.Sentences[r.Sentence]
	return SentenceTokens(s.offset[r.Doc]+r.Sentence, d.Text[st.Start:st.End])
}

// add chooses r if it is valid, new, and fits; it reports whether it did.
func (s *selection) add(r SentenceRef) bool {
	if !s.valid(r) || s.chosen[r.Doc][r.Sentence] {
		return false
	}
	c := s.cost(r)
	if c > s.avail {
		return false
	}
	s.chosen[r.Doc][r.Sentence] = true
	s.avail -= c
	s.shown++
	s.picked = append(s.picked, r)
	return true
}

// expand grows the selection outward from each seed, one sentence per seed
// and side per round, seeds in order, until nothing more fits. A side stops
// at a sentence already chosen (its own seed, or the frontier that chose
// it, carries on from there), so the work is linear.
func (s *selection) expand(seeds []SentenceRef) {
	type front struct {
		doc, lo, hi int
		loOK, hiOK  bool
	}
	fs := make([]front, 0, len(seeds))
	for _, r := range seeds {
		if s.valid(r) {
			fs = append(fs, front{doc: r.Doc, lo: r.Sentence, hi: r.Sentence, loOK: true, hiOK: true})
		}
	}
	for s.avail > 0 {
		progress := false
		for i := range fs {
			f := &fs[i]
			if f.loOK {
				f.lo--
				switch {
				case f.lo < 0 || s.chosen[f.doc][f.lo]:
					f.loOK = false
				case s.add(SentenceRef{Doc: f.doc, Sentence: f.lo}):
					progress = true
				default:
					f.loOK = false // does not fit; smaller ones further out would read out of context
				}
			}
			if f.hiOK {
				f.hi++
				switch {
				case f.hi >= len(s.chosen[f.doc]) || s.chosen[f.doc][f.hi]:
					f.hiOK = false
				case s.add(SentenceRef{Doc: f.doc, Sentence: f.hi}):
					progress = true
				default:
					f.hiOK = false
				}
			}
		}
		if !progress {
			return
		}
	}
}

// parts writes the chosen sentences into ps, in document order.
func (s *selection) parts(ps []citations.Part) {
	for d, ch := range s.chosen {
		idx := make([]int, 0, 64)
		for i, ok := range ch {
			if ok {
				idx = append(idx, i)
			}
		}
		ps[d].Sentences = idx
	}
}
