// Package extractive is citelens's offline default strategy: it answers a
// question with the document sentences that best support it, each quoted
// as a statement that cites itself. It needs no model.
//
// The ranking is engine/retrieve's sentence ranking (BM25 candidates
// re-ranked with their context and selected for coverage of the question;
// see that package). On top of it the strategy decides how many sentences
// to give and how to present them:
//
//   - With option "k", at most k sentences. Without it, the strategy stops
//     at the first sentence whose score falls below StopRatio of the best
//     (at most MaxStatements): a question with one clear answer gets a
//     short answer, a vague one a longer list.
//   - Selected sentences that are adjacent in a document merge into one
//     statement citing the range, so a fact told across two sentences
//     reads as one quote.
//   - Statements come in rank order, best first: the reader (and the auto
//     stop) sees the strongest evidence first, and a merged statement takes
//     the rank of its best sentence. Document order would scatter the best
//     answer among weaker ones.
//
// Every statement is verified offline by citations.Verify like any other
// strategy's; an exact quote is supported by construction, so each also
// carries its Relevance to the question (the question's words it holds,
// and a band of retrieve's coverage), which front ends show instead.
//
// A follow-up question (Runtime.Previous) adds the previous question's
// words to the search at a lower weight.
package extractive

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/fix"
)

// Name is the strategy's registered name.
const Name = "extractive"

// Defaults of the auto-stop.
const (
	// StopRatio: without "k", sentences scoring below this share of the
	// best one are left out.
	StopRatio = 0.35
	// MaxStatements caps an auto-stopped answer.
	MaxStatements = 8
)

func init() {
	engine.Register(engine.Info{
		Strategy:    Strategy{},
		Description: "offline: quotes the document sentences that best answer the question, no model needed",
		Lazy:        true,
		Purpose:     "Quotes the sentences that best match the question. Offline and instant; it writes no answer of its own.",
	})
}

// Strategy is the extractive strategy.
type Strategy struct {
	// Weights, if set, replace the retriever's default ranking weights
	// (for experiments).
	Weights *retrieve.Weights
}

// Name returns "extractive".
func (Strategy) Name() string { return Name }

// options are the strategy's settings.
var options = engine.Options{
	{Name: "k", Kind: engine.Int, Min: 1, Help: "statements at most; by default the answer stops at the first sentence scoring under stop of the best"},
	{Name: "stop", Kind: engine.Ratio, Default: strconv.FormatFloat(StopRatio, 'g', -1, 64), Help: "auto-stop: sentences scoring under this share of the best are left out"},
	{Name: "pages", Kind: engine.Custom, Parse: parsePages, Syntax: "pages like 12 or 3-5,9", Help: "only sentences on these pages"},
	{Name: "merge", Kind: engine.Bool, Default: "yes", Help: "adjacent sentences make one statement citing the range"},
	{Name: "retrieval", Kind: engine.OneOf, Default: RetrievalHybrid, Help: "how sentences are found", Choices: []engine.Choice{
		{Value: RetrievalHybrid, Help: "words, and meaning when an embedding model is set"},
		{Value: RetrievalWords, Help: "BM25 and the document's structure only"},
		{Value: RetrievalMeaning, Help: "the embedding model only, for experiments"},
	}},
}

// Retrieval modes.
const (
	RetrievalHybrid  = "hybrid"
	RetrievalWords   = "words"
	RetrievalMeaning = "meaning"
)

// Options are k, stop, pages, merge and retrieval.
func (Strategy) Options() engine.Options { return options }

// parsePages reads "3", "3-5", "3-5,9".
func parsePages(s string) (any, error) {
	var out []retrieve.PageRange
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(part, "-")
		first, err1 := strconv.Atoi(strings.TrimSpace(a))
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = strconv.Atoi(strings.TrimSpace(b))
		}
		if err1 != nil || err2 != nil || first < 1 || last < first {
			return nil, fmt.Errorf("not a page list")
		}
		out = append(out, retrieve.PageRange{First: first, Last: last})
	}
	return out, nil
}

// Answer answers with a "retrieving…" stage, then one statement per
// selected sentence (or run of adjacent sentences), best first.
func (s Strategy) Answer(ctx context.Context, rt *engine.Runtime) error {
	rt.Stage("retrieving…")
	sts, err := s.statements(ctx, rt)
	if err != nil {
		return err
	}
	for _, st := range sts {
		if err := ctx.Err(); err != nil {
			return err
		}
		rt.Statement(st)
	}
	return nil
}

// statements ranks the scope's sentences and turns the best into verified
// statements.
func (s Strategy) statements(ctx context.Context, rt *engine.Runtime) ([]citations.Statement, error) {
	opt := rt.Options()
	var fusion retrieve.Fusion
	switch opt.String("retrieval") {
	case RetrievalWords:
		fusion.Rule = retrieve.Words
	case RetrievalMeaning:
		model, why, err := rt.Retrieval().Dense(ctx, docstore.SentenceLevel)
		if err != nil {
			return nil, err
		}
		if model == "" {
			return nil, fix.With(fmt.Errorf("%w: retrieval=meaning needs an embedding model (%s)", engine.ErrOption, why),
				"Set CITELENS_EMBED_MODEL (or embed_model in the config file), or use retrieval=hybrid.")
		}
		fusion.DenseOnly = true
	}
	k := opt.Int("k")
	if k == 0 {
		k = MaxStatements
	}
	// Adjacent sentences merge into one statement, so ask for more than k
	// and keep k statements after merging.
	want := k
	if opt.Bool("merge") {
		want = 2 * k
	}
	pages, _ := opt.Value("pages").([]retrieve.PageRange)
	var plan searchPlan
	ps, err := rt.Retrieval().Sentences(ctx, rt.Question(), retrieve.Options{
		Pages: pages, K: want, Weights: s.Weights, Fusion: fusion, Context: rt.Previous(),
		// A weak first pass reads its best passages and asks again; the
		// answer and its plan say with which words.
		Feedback: func(added []string) {
			plan.Added = added
			rt.Warn("few passages held the question's words; also searched for words the best ones share: " + strings.Join(added, ", "))
		},
		// An alias the document gives found passages: say so, and where
		// the document said it, in the answer and in its plan.
		Aliases: func(found []retrieve.Alias) {
			for _, a := range found[:min(len(found), 3)] {
				plan.Aliases = append(plan.Aliases, a.String())
				rt.Warn("searched through an alias the document gives: " + a.String())
			}
		},
	})
	if err != nil {
		return nil, err
	}
	if len(plan.Added) > 0 || len(plan.Aliases) > 0 {
		rt.Plan(plan)
	}
	if !opt.Given("k") {
		embed, rerank := rt.Retrieval().Models()
		ps = autoStop(ps, opt.Ratio("stop"), fusion.Rule != retrieve.Words && (embed != "" || rerank != ""))
	}
	groups := make([]group, 0, len(ps))
	for _, p := range ps {
		groups = append(groups, group{doc: p.Doc, first: p.First, last: p.Last, coverage: p.Scores.Coverage})
	}
	views := viewCache{rt: rt, views: map[docstore.DocID]*docstore.View{}}
	if opt.Bool("merge") {
		groups = merge(groups)
		if err := complete(views.get, groups); err != nil {
			return nil, err
		}
		groups = merge(groups)
		for i := range groups {
			d, err := views.get(groups[i].doc)
			if err != nil {
				return nil, err
			}
			groups[i] = passageOf(d, groups[i])
		}
		// Only overlaps join now: a passage that ends where another
		// selected sentence begins must not carry it along.
		groups = mergeOverlaps(groups)
	}
	groups = groups[:min(k, len(groups))]
	out := make([]citations.Statement, 0, len(groups))
	for _, g := range groups {
		d, err := views.get(g.doc)
		if err != nil {
			return nil, err
		}
		span := citations.SpanOfView(d, g.first, g.last)
		if err := d.Err(); err != nil {
			return nil, err
		}
		st := citations.Statement{Text: span.Text, Citations: []citations.Span{span}}
		if first, last := tableHeader(d, g.first); first >= 0 {
			// A row's cells say what they are only under their column
			// names: "-9 7600k 3700k" is read as "Flag, Compress usage,
			// Decompress usage". The header is quoted above the row and
			// cited after it.
			head := citations.SpanOfView(d, first, last)
			st.Text = underHeader(head.Text, span.Text)
			st.Citations = append(st.Citations, head)
		}
		citations.Verify(&st)
		// The words of the question a follow-up leaves unsaid are the
		// previous question's.
		q := rt.Question()
		if terms, _ := questionWords(q); len(terms) == 0 && rt.Previous() != "" {
			q = rt.Previous()
		}
		st.Relevance = relevance(q, span.Text, span.Heading, g.coverage)
		out = append(out, st)
	}
	return out, nil
}

// complete widens each group to whole statements: a group whose last
// sentence breaks off ("…and LEN !=" before "0. With this instruction…")
// takes the sentence that finishes it, and one that starts mid-sentence
// takes the one it continues. Extraction cuts sentences at page breaks,
// hyphens and list-like numbers; a quote should not.
func complete(view func(docstore.DocID) (*docstore.View, error), gs []group) error {
	for i := range gs {
		d, err := view(gs[i].doc)
		if err != nil {
			return err
		}
		g := &gs[i]
		for n := 0; n < maxWiden && g.last+1 < d.NumSentences() && breaksOff(d, g.last); n++ {
			g.last++
		}
		for n := 0; n < maxWiden && g.first > 0 && continues(d, g.first); n++ {
			g.first--
		}
	}
	return nil
}

// viewCache opens each cited document once for an answer.
type viewCache struct {
	rt    *engine.Runtime
	views map[docstore.DocID]*docstore.View
}

func (c viewCache) get(id docstore.DocID) (*docstore.View, error) {
	if v, ok := c.views[id]; ok {
		return v, nil
	}
	v, err := c.rt.View(id)
	if err != nil {
		return nil, err
	}
	c.views[id] = v
	return v, nil
}

// maxWiden bounds how far complete widens a group each way.
const maxWiden = 2

// breaksOff reports whether sentence i of d stops mid-sentence, with the
// next sentence of its paragraph finishing it: no closing punctuation.
func breaksOff(d *docstore.View, i int) bool {
	t := strings.TrimRight(d.SentenceText(i), " \t\n\"'’”)]")
	const apart = structure.FlagHeading | structure.FlagFurniture | structure.FlagContents
	if cutWord(t, d.SentenceText(i+1)) && (d.Sentence(i).Flags|d.Sentence(i+1).Flags)&apart == 0 {
		// A word cut at a line's end ("--leak-check-" / "heuristics=…",
		// "year-on-" / "year growth") goes on past the blank line or the
		// page break the extraction put between its halves.
		return strings.TrimSpace(d.Slice(int(d.Sentence(i).End), int(d.Sentence(i+1).Start))) == ""
	}
	if t == "" || d.Sentence(i).Flags.Noise() || d.Sentence(i+1).Flags.Noise() {
		return false
	}
	switch r, _ := utf8.DecodeLastRuneInString(t); r {
	case '.', '!', '?', ':', ';', '。', '！', '？':
		return false
	}
	gap := d.Slice(int(d.Sentence(i).End), int(d.Sentence(i+1).Start))
	return strings.Count(gap, "\n") <= 1 && !strings.ContainsRune(gap, '\f')
}

// cutWord reports whether text ends in a word cut at a hyphen that next,
// the following sentence, finishes: a letter and "-" at its very end, and
// next opening in lower case.
func cutWord(text, next string) bool {
	if len(text) < 2 || text[len(text)-1] != '-' || !isLetter(text[len(text)-2]) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(next))
	return unicode.IsLower(r)
}

// isLetter reports whether b is an ASCII letter.
func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// continues reports whether sentence i of d carries on the sentence before
// it: it starts in lower case, on the line the previous one ended.
func continues(d *docstore.View, i int) bool {
	r, _ := utf8.DecodeRuneInString(d.SentenceText(i))
	if !unicode.IsLower(r) || d.Sentence(i-1).Flags.Noise() {
		return false
	}
	gap := d.Slice(int(d.Sentence(i-1).End), int(d.Sentence(i).Start))
	return strings.Count(gap, "\n") <= 1 && !strings.ContainsRune(gap, '\f') && breaksOff(d, i-1)
}

// autoStop keeps the passages scoring at least ratio of the best: by
// their lexical score, or by the fused (or reranked) one the selection
// used when fused is set.
func autoStop(ps []retrieve.Passage, ratio float64, fused bool) []retrieve.Passage {
	if len(ps) == 0 {
		return ps
	}
	score := func(p retrieve.Passage) float64 {
		if fused {
			return p.Score
		}
		return p.Scores.Lexical
	}
	best := score(ps[0])
	for i, p := range ps {
		if score(p) < ratio*best {
			return ps[:i]
		}
	}
	return ps
}

// group is a run of selected sentences of one document, with the best
// coverage of the question among its passages.
type group struct {
	doc         docstore.DocID
	first, last int
	coverage    float64
}

// merge joins groups whose sentence ranges touch or overlap into one, kept
// at the rank of its best member (the earliest in the list). Joining
// repeats until nothing touches, so a run selected as 5, 7, 6 becomes one
// group 5-7.
func merge(gs []group) []group { return join(gs, 1) }

// mergeOverlaps joins groups whose sentence ranges overlap.
func mergeOverlaps(gs []group) []group { return join(gs, 0) }

// join merges groups of one document less than gap sentences apart.
func join(gs []group, gap int) []group {
	for {
		joined := false
		for i := 0; i < len(gs) && !joined; i++ {
			for j := i + 1; j < len(gs); j++ {
				a, b := gs[i], gs[j]
				if a.doc != b.doc || b.first > a.last+gap || a.first > b.last+gap {
					continue
				}
				gs[i].first, gs[i].last = min(a.first, b.first), max(a.last, b.last)
				gs[i].coverage = max(a.coverage, b.coverage)
				gs = slices.Delete(gs, j, j+1)
				joined = true
				break
			}
		}
		if !joined {
			return gs
		}
	}
}

// searchPlan is the plan of an answer whose search went beyond the
// question's words: the aliases the documents give that it searched
// through, and the words the best passages of a weak first pass added.
type searchPlan struct {
	// Aliases say each alias searched through and where the document
	// gives it; Added are the words a weak first pass's best passages
	// added. Exported for the answer's JSON (Answer.Plan).
	Aliases []string `json:"aliases,omitempty"`
	Added   []string `json:"added_words,omitempty"`
}

// Line says it in plain words.
func (p searchPlan) Line() string {
	var parts []string
	if len(p.Aliases) > 0 {
		parts = append(parts, "searched through aliases the documents give: "+strings.Join(p.Aliases, "; "))
	}
	if len(p.Added) > 0 {
		parts = append(parts, "few passages held the question's words; also searched for words the best ones share: "+strings.Join(p.Added, ", "))
	}
	return strings.Join(parts, "; ")
}

var _ engine.Strategy = Strategy{}
