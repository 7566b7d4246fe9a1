package dense

import (
	"context"
	"fmt"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/internal/humanize"
)

// Derived documents (engine/raidd: a model's summaries of a document's
// chunks and questions about them) are embedded like a document's own
// text: once per embedding model, batch by batch, kept in the library
// (docstore.DerivedVectorKey) and removed with the document or the
// derivation. docstore.Library.SearchDerivedVectors then ranks them by
// cosine against a query vector (Scorer.QueryVector).

// DerivedKinds are the kinds of a derivation's units that can be
// embedded: summaries, questions and the chunks' own text.
var DerivedKinds = []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedQuestion, docstore.DerivedRaw}

// DerivedReport is what EnsureDerived did.
type DerivedReport struct {
	Model string // the embedding model
	// Units counts the scope's units of each kind; Embedded those of them
	// this run embedded (the rest were stored before).
	Units, Embedded map[docstore.DerivedKind]int
	Usage           llm.Usage
	Seconds         float64
}

// EmbeddedTotal is the number of units the run embedded.
func (r DerivedReport) EmbeddedTotal() int {
	n := 0
	for _, e := range r.Embedded {
		n += e
	}
	return n
}

// EnsureDerived embeds the units of kinds (every kind when none are given)
// of set's derivation of docs that have no vector stored for the
// Scorer's model, batch by batch as Ensure does: an interrupted run keeps
// its batches. Each document's derivation must be indexed
// (docstore.Library.IndexDerived). progress, if not nil, is called before
// each document kind with work to do and after each batch.
func (s *Scorer) EnsureDerived(ctx context.Context, docs []docstore.DocID, set docstore.DerivedSet, kinds []docstore.DerivedKind, progress func(Progress)) (rep DerivedReport, err error) {
	start := time.Now()
	if len(kinds) == 0 {
		kinds = DerivedKinds
	}
	rep = DerivedReport{Model: s.model, Units: map[docstore.DerivedKind]int{}, Embedded: map[docstore.DerivedKind]int{}}
	defer func() { rep.Seconds = time.Since(start).Seconds() }()
	for _, id := range docs {
		d, err := s.lib.Document(id)
		if err != nil {
			return rep, err
		}
		for _, kind := range kinds {
			key := docstore.DerivedVectorKey(id, s.model, set, kind)
			_, n, err := s.lib.VectorGaps(key)
			if err != nil {
				return rep, err
			}
			rep.Units[kind] += n
			got, err := s.fill(ctx, d, key, func() ([]string, error) { return s.lib.DerivedTexts(id, set, kind) },
				Progress{Doc: id, Name: d.Name, Derived: set, Kind: kind}, &rep.Usage, progress)
			rep.Embedded[kind] += got
			if err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// DerivedForEnv returns a Scorer for ranking set's derived units of docs
// by meaning, after embedding whatever of kinds is not stored yet —
// reporting progress as stages ("embedding 1,204/1,204 summaries of
// manual.pdf with text-embedding-3-small (once; kept in the library)")
// and the cost as usage to rep (an answer's Runtime, or nil). The
// Scorer's query embeddings are reported to rep too.
//
// Without an embedding model it returns nil and no error: ranking is
// BM25 alone, with no call made. On failure it returns nil with the
// error, so a caller can tell the user and carry on with BM25.
func DerivedForEnv(ctx context.Context, env *engine.Env, docs []docstore.DocID, set docstore.DerivedSet, kinds []docstore.DerivedKind, rep engine.Reporter) (*Scorer, error) {
	if !Enabled(env) {
		return nil, nil
	}
	s, err := forReporter(env, rep)
	if err != nil {
		return nil, err
	}
	r, err := s.EnsureDerived(ctx, docs, set, kinds, ThrottledStages(rep, s.model))
	report(rep, r.Usage)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ThrottledStages turns embedding progress into stages reported to rep
// (StageText), at most one a second besides each document's first and
// last; nothing when rep is nil.
func ThrottledStages(rep engine.Reporter, model string) func(Progress) {
	var last time.Time
	return func(p Progress) {
		if rep == nil {
			return
		}
		if now := time.Now(); p.Done == 0 || p.Done == p.Total || now.Sub(last) >= time.Second {
			last = now
			rep.Stage(StageText(p, model))
		}
	}
}

// String sums the run up: "embedded 1,204 summaries, 9,632 questions and
// 1,204 chunks with test-embed: 170 calls, 412,000 tokens"; "" when it
// embedded nothing.
func (r DerivedReport) String() string {
	var parts []string
	for _, k := range DerivedKinds {
		if n := r.Embedded[k]; n > 0 {
			parts = append(parts, humanize.Count(n)+" "+kindName(k))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	list := parts[0]
	if len(parts) > 1 {
		for _, p := range parts[1 : len(parts)-1] {
			list += ", " + p
		}
		list += " and " + parts[len(parts)-1]
	}
	s := fmt.Sprintf("embedded %s with %s: %s calls, %s tokens", list, r.Model, humanize.Count(r.Usage.LLMCalls), humanize.Count(r.Usage.PromptTokens))
	if r.Usage.Estimated {
		s += " (estimated)"
	}
	return s
}
