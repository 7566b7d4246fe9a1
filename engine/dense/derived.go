package dense

import (
	"context"
	"fmt"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/llm"
)

// Derived documents (engine/raidd: a model's summaries of a document's
// chunks and questions about them) are embedded like a document's own
// text: once per embedding model, batch by batch, kept in the library
// (docstore.DerivedVectorKey) and removed with the document or the
// derivation. engine/retrieve then ranks them by the cosine of their
// vectors to the query's (Retriever.Derived).

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
// (docstore.Derived.Index). progress, if not nil, is called before
// each document kind with work to do and after each batch.
func (s *Scorer) EnsureDerived(ctx context.Context, docs []docstore.DocID, set docstore.DerivedSet, kinds []docstore.DerivedKind, progress func(Progress)) (rep DerivedReport, err error) {
	start := time.Now()
	if len(kinds) == 0 {
		kinds = DerivedKinds
	}
	rep = DerivedReport{Model: s.model, Units: map[docstore.DerivedKind]int{}, Embedded: map[docstore.DerivedKind]int{}}
	defer func() { rep.Seconds = time.Since(start).Seconds() }()
	for _, id := range docs {
		d, err := s.docs.Document(id)
		if err != nil {
			return rep, err
		}
		for _, kind := range kinds {
			key := docstore.DerivedVectorKey(id, s.model, set, kind)
			_, n, err := s.vectors.Gaps(key)
			if err != nil {
				return rep, err
			}
			rep.Units[kind] += n
			got, err := s.fill(ctx, d, key, func() ([]string, error) { return s.derived.Texts(id, set, kind) },
				Progress{Doc: id, Name: d.Name, Derived: set, Kind: kind}, &rep.Usage, progress)
			rep.Embedded[kind] += got
			if err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
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
