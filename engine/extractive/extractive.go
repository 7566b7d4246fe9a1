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
// strategy's; an exact quote is supported by construction, so the verdicts
// mainly tell a reader the statement is its own citation.
package extractive

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
)

// Name is the strategy's registered name.
const Name = "extractive"

// Defaults of the auto-stop.
const (
	// StopRatio: without "k", sentences scoring below this share of the
	// best one are left out.
	StopRatio = 0.4
	// MaxStatements caps an auto-stopped answer.
	MaxStatements = 8
)

func init() {
	engine.Register(engine.Info{
		Strategy:    Strategy{},
		Description: "offline: quotes the document sentences that best answer the question, no model needed",
	})
}

// Strategy is the extractive strategy.
type Strategy struct {
	// Model, if set, replaces the retriever's default ranking model (for
	// experiments).
	Model *retrieve.Model
}

// Name returns "extractive".
func (Strategy) Name() string { return Name }

// options are the strategy's settings.
var options = engine.Options{
	{Name: "k", Kind: engine.Int, Min: 1, Help: "statements at most; by default the answer stops at the first sentence scoring under stop of the best"},
	{Name: "stop", Kind: engine.Ratio, Default: strconv.FormatFloat(StopRatio, 'g', -1, 64), Help: "auto-stop: sentences scoring under this share of the best are left out"},
	{Name: "pages", Kind: engine.Custom, Parse: parsePages, Syntax: "pages like 12 or 3-5,9", Help: "only sentences on these pages"},
	{Name: "merge", Kind: engine.Bool, Default: "yes", Help: "adjacent sentences make one statement citing the range"},
}

// Options are k, stop, pages and merge.
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
	k := opt.Int("k")
	if k == 0 {
		k = MaxStatements
	}
	pages, _ := opt.Value("pages").([]retrieve.PageRange)
	ps, err := retrieve.New(rt.Library()).Sentences(ctx, rt.Question(), retrieve.Options{
		Docs: rt.IDs(), Pages: pages, K: k, Model: s.Model,
	})
	if err != nil {
		return nil, err
	}
	if !opt.Given("k") {
		ps = autoStop(ps, opt.Ratio("stop"))
	}
	groups := make([]group, 0, len(ps))
	for _, p := range ps {
		groups = append(groups, group{doc: p.Doc, first: p.First, last: p.Last})
	}
	if opt.Bool("merge") {
		groups = merge(groups)
	}
	out := make([]citations.Statement, 0, len(groups))
	for _, g := range groups {
		i, ok := rt.Place(g.doc)
		if !ok {
			continue
		}
		d := rt.Docs()[i]
		first, last := g.first, g.last
		span := citations.Span{
			Doc: d.ID, DocName: d.Name, First: first, Last: last,
			Start: int(d.Sentences[first].Start), End: int(d.Sentences[last].End),
			Page: int(d.Sentences[first].Page),
		}
		span.Text = d.Text[span.Start:span.End]
		st := citations.Statement{Text: span.Text, Citations: []citations.Span{span}}
		citations.Verify(&st)
		out = append(out, st)
	}
	return out, nil
}

// autoStop keeps the passages scoring at least ratio of the best.
func autoStop(ps []retrieve.Passage, ratio float64) []retrieve.Passage {
	if len(ps) == 0 {
		return ps
	}
	best := ps[0].Scores.Lexical
	for i, p := range ps {
		if p.Scores.Lexical < ratio*best {
			return ps[:i]
		}
	}
	return ps
}

// group is a run of selected sentences of one document.
type group struct {
	doc         docstore.DocID
	first, last int
}

// merge joins groups whose sentence ranges touch or overlap into one, kept
// at the rank of its best member (the earliest in the list). Joining
// repeats until nothing touches, so a run selected as 5, 7, 6 becomes one
// group 5-7.
func merge(gs []group) []group {
	for {
		joined := false
		for i := 0; i < len(gs) && !joined; i++ {
			for j := i + 1; j < len(gs); j++ {
				a, b := gs[i], gs[j]
				if a.doc != b.doc || b.first > a.last+1 || a.first > b.last+1 {
					continue
				}
				gs[i].first, gs[i].last = min(a.first, b.first), max(a.last, b.last)
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

var _ engine.Strategy = Strategy{}
