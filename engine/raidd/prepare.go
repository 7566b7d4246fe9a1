package raidd

import (
	"context"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/llm"
)

// preparer is what every RAIDD variant needs before answering about a
// document: its derived documents, written by the model, indexed, and —
// with an embedding model configured — embedded. Front ends run it through
// engine.Preparer (`citelens derive`, eval); an answer asked with
// derive=yes runs the derivation itself.
type preparer struct{}

var _ engine.Preparer = preparer{}

// work is what a preparation of p is about: the derivation (whose model)
// and the kinds of derived text to embed (the variant's; every kind when
// p names no strategy).
func work(env *engine.Env, p engine.Preparation) (docstore.DerivedSet, []docstore.DerivedKind, error) {
	kinds := dense.DerivedKinds
	name := "raidd-u" // every kind of derived text: options as any variant reads them
	if v, ok := variant(p.Strategy); ok {
		kinds, name = v.Kinds, v.Name
	}
	o, err := options.Parse(name, p.Options)
	if err != nil {
		return docstore.DerivedSet{}, nil, err
	}
	set := setOf(env.Config.Model, o)
	if p.Model != "" {
		set.Model = p.Model
	}
	return set, kinds, nil
}

// Status says what is derived (and embedded) for p's documents and what
// deriving the rest would cost. It calls no model.
func (preparer) Status(env *engine.Env, p engine.Preparation) (*engine.Prepared, error) {
	set, kinds, err := work(env, p)
	if err != nil {
		return nil, err
	}
	lib := env.Library
	out := prepared(set)
	est, err := Missing(lib, set, p.Docs)
	if err != nil {
		return nil, err
	}
	out.Missing = engine.Cost{Units: est.Chunks, Calls: est.Calls, PromptTokens: est.PromptTokens, CompletionTokens: est.CompletionTokens}
	embed := env.Config.EmbedModel
	if embed != "" && !p.NoEmbed {
		out.Embedding = &engine.Embedding{Model: embed}
	}
	for _, id := range p.Docs {
		d, err := lib.Document(id)
		if err != nil {
			return nil, err
		}
		st, err := lib.Derived().Status(id, set)
		if err != nil {
			return nil, err
		}
		chunks, err := Chunks(d)
		if err != nil {
			return nil, err
		}
		pd := engine.PreparedDoc{ID: id, Name: d.Name, Units: len(chunks), Done: st.Done - st.Failed, Failed: st.Failed, Complete: st.Indexed,
			Spent: llm.Usage{PromptTokens: st.PromptTokens, CompletionTokens: st.CompletionTokens, LLMCalls: st.Calls}}
		if out.Embedding != nil && st.Indexed {
			for _, k := range kinds {
				gaps, n, err := lib.Vectors().Gaps(docstore.DerivedVectorKey(id, embed, set, k))
				if err != nil {
					return nil, err
				}
				pd.Embeddable += n
				pd.Embedded += n
				for _, g := range gaps {
					pd.Embedded -= g.Last - g.First + 1
				}
			}
			out.Embedding.Units += pd.Embeddable
			out.Embedding.Embedded += pd.Embedded
		}
		out.Docs = append(out.Docs, pd)
	}
	return out, nil
}

// Prepare derives what p's documents lack, resuming where an earlier run
// stopped, then embeds the derived text of every complete document (the
// variant's kinds) unless p.NoEmbed or no embedding model is configured.
// Deriving reports progress as Step "deriving", in chunks over the run;
// embedding as Step "embedding", in each document's units of a kind.
func (preparer) Prepare(ctx context.Context, env *engine.Env, p engine.Preparation) (*engine.Prepared, error) {
	set, kinds, err := work(env, p)
	if err != nil {
		return nil, err
	}
	client, err := env.RequireLLM("deriving")
	if err != nil {
		return nil, err
	}
	tell := func(pr engine.Progress) {
		if p.Progress != nil {
			p.Progress(pr)
		}
	}
	dv := &Deriver{Library: env.Library, Client: client, Model: set.Model, Layout: layoutOf(set), Jobs: p.Jobs}
	rep, err := dv.Derive(ctx, p.Docs, func(pr Progress) {
		tell(engine.Progress{Step: "deriving", Doc: pr.Name, Done: pr.Done, Total: pr.Total, Unit: "chunks",
			Failed: pr.Failed, Usage: pr.Usage, Elapsed: pr.Elapsed})
	})
	out := prepared(set)
	out.Done, out.Resumed, out.Usage, out.Seconds = rep.Derived, rep.Resumed, rep.Usage, rep.Seconds
	var complete []docstore.DocID
	for _, d := range rep.Docs {
		done := d.Chunks > 0 && d.Done+d.Failed == d.Chunks
		out.Docs = append(out.Docs, engine.PreparedDoc{ID: d.ID, Name: d.Name, Units: d.Chunks, Done: d.Done, Failed: d.Failed, Complete: done})
		if done {
			complete = append(complete, d.ID)
		}
	}
	for _, f := range rep.Failures {
		out.Failures = append(out.Failures, engine.PrepFailure{Doc: f.Doc, Name: f.Name, Unit: f.Chunk, Page: f.Page, Reason: f.Reason})
	}
	if err != nil || p.NoEmbed || env.EmbedModel() == "" {
		return out, err
	}
	sc, err := dense.New(env.Library, client)
	if err != nil {
		return out, err
	}
	start := time.Now()
	emb, err := sc.EnsureDerived(ctx, complete, set, kinds, func(pr dense.Progress) {
		tell(engine.Progress{Step: "embedding", Doc: pr.Name, Done: pr.Done, Total: pr.Total, Unit: pr.Unit(), Elapsed: time.Since(start)})
	})
	out.Embedding = &engine.Embedding{Model: emb.Model, Embedded: emb.EmbeddedTotal(), Usage: emb.Usage, Seconds: emb.Seconds}
	for _, k := range dense.DerivedKinds {
		out.Embedding.Units += emb.Units[k]
		if n := emb.Embedded[k]; n > 0 {
			out.Embedding.Kinds = append(out.Embedding.Kinds, engine.Count{What: kindNames[k], N: n})
		}
	}
	return out, err
}

// kindNames name the kinds of derived text, as counted.
var kindNames = map[docstore.DerivedKind]string{docstore.DerivedSummary: "summaries", docstore.DerivedQuestion: "questions", docstore.DerivedRaw: "chunks"}

// prepared is an empty report of set's derivation.
func prepared(set docstore.DerivedSet) *engine.Prepared {
	return &engine.Prepared{Model: set.Model, Unit: "chunks", UnitTokens: set.Tokens, UnitOverlap: set.Overlap}
}
