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
		Name:        Name,
		Description: "offline: quotes the document sentences that best answer the question, no model needed",
		New: func(env *engine.Env) (engine.Strategy, error) {
			if env == nil || env.Library == nil {
				return nil, fmt.Errorf("%w: the extractive strategy needs a library", engine.ErrUnavailable)
			}
			return New(env.Library), nil
		},
	})
}

// Strategy is the extractive strategy.
type Strategy struct {
	lib *docstore.Library
	r   *retrieve.Retriever
	// Model, if set, replaces the retriever's default ranking model (for
	// experiments).
	Model *retrieve.Model
}

// New returns the extractive strategy over lib.
func New(lib *docstore.Library) *Strategy {
	return &Strategy{lib: lib, r: retrieve.New(lib)}
}

// Name returns "extractive".
func (s *Strategy) Name() string { return Name }

// Options are the strategy's settings, read from Request.Options:
//
//	k=N          at most N statements (default: auto-stop, see StopRatio)
//	stop=R       auto-stop ratio, 0 < R < 1 (default StopRatio)
//	pages=LIST   only sentences on these pages: "12", "3-5,9"
//	merge=false  one statement per sentence, even for adjacent ones
type Options struct {
	K     int
	Stop  float64
	Pages []retrieve.PageRange
	Merge bool
}

// ParseOptions reads Request.Options; an unknown key or a bad value is an
// error naming it.
func ParseOptions(m map[string]string) (Options, error) {
	o := Options{Stop: StopRatio, Merge: true}
	for key, val := range m {
		switch key {
		case "k":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return o, fmt.Errorf("%w: k=%q: give a whole number of statements, 1 or more", engine.ErrOption, val)
			}
			o.K = n
		case "stop":
			r, err := strconv.ParseFloat(val, 64)
			if err != nil || r <= 0 || r >= 1 {
				return o, fmt.Errorf("%w: stop=%q: give a ratio between 0 and 1, such as 0.4", engine.ErrOption, val)
			}
			o.Stop = r
		case "pages":
			pr, err := parsePages(val)
			if err != nil {
				return o, err
			}
			o.Pages = pr
		case "merge":
			b, err := strconv.ParseBool(val)
			if err != nil {
				return o, fmt.Errorf("%w: merge=%q: give true or false", engine.ErrOption, val)
			}
			o.Merge = b
		default:
			return o, fmt.Errorf("%w: %q; the extractive strategy takes k, stop, pages and merge", engine.ErrOption, key)
		}
	}
	return o, nil
}

// parsePages reads "3", "3-5", "3-5,9".
func parsePages(s string) ([]retrieve.PageRange, error) {
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
			return nil, fmt.Errorf("%w: pages=%q: give pages like 12 or 3-5,9", engine.ErrOption, s)
		}
		out = append(out, retrieve.PageRange{First: first, Last: last})
	}
	return out, nil
}

// Answer answers req: a "retrieving…" stage, then one statement per
// selected sentence (or run of adjacent sentences), best first.
func (s *Strategy) Answer(ctx context.Context, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	if emit == nil {
		emit = func(engine.Event) {}
	}
	opt, err := ParseOptions(req.Options)
	if err != nil {
		return nil, err
	}
	ans := &engine.Answer{Question: req.Question, Strategy: Name, Statements: []citations.Statement{}}
	stage := "retrieving…"
	ans.Stages = append(ans.Stages, stage)
	emit(engine.Event{Stage: stage})
	sts, err := s.statements(ctx, req, opt)
	if err != nil {
		return ans, err
	}
	for i := range sts {
		if err := ctx.Err(); err != nil {
			return ans, err
		}
		ans.Statements = append(ans.Statements, sts[i])
		emit(engine.Event{Statement: &sts[i]})
	}
	return ans, nil
}

// statements ranks the scope's sentences and turns the best into verified
// statements.
func (s *Strategy) statements(ctx context.Context, req engine.Request, opt Options) ([]citations.Statement, error) {
	k := opt.K
	if k == 0 {
		k = MaxStatements
	}
	ps, err := s.r.Sentences(ctx, req.Question, retrieve.Options{
		Docs: req.Docs, Pages: opt.Pages, K: k, Model: s.Model,
	})
	if err != nil {
		return nil, err
	}
	if opt.K == 0 {
		ps = autoStop(ps, opt.Stop)
	}
	groups := make([]group, 0, len(ps))
	for _, p := range ps {
		groups = append(groups, group{doc: p.Doc, first: p.First, last: p.Last})
	}
	if opt.Merge {
		groups = merge(groups)
	}
	out := make([]citations.Statement, 0, len(groups))
	for _, g := range groups {
		d, err := s.lib.Document(g.doc)
		if err != nil {
			return nil, err
		}
		span := citations.SpanOf(d, g.first, g.last)
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

var _ engine.Strategy = (*Strategy)(nil)
