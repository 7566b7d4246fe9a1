package eval

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/llm"
)

// Derive is the preparation step of an evaluation (engine.Preparer:
// RAIDD's derivation and embeddings), reported apart from the answers'
// own cost.
type Derive struct {
	Chunks  int     `json:"chunks"`
	Resumed int     `json:"resumed"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
	llm.Usage
	// Embedding is what embedding the strategy's derived units did, with
	// an embedding model configured.
	Embedding *Embedding `json:"embedding,omitempty"`
}

// Embedding is what embedding prepared work did, as `citelens derive
// --json` and eval's summary report it.
type Embedding struct {
	Model string `json:"model"`
	// Units counts the derived units (summaries, questions, chunks) of the
	// complete documents; Embedded those this run embedded.
	Units    int       `json:"units"`
	Embedded int       `json:"embedded"`
	Usage    llm.Usage `json:"usage"`
	Seconds  float64   `json:"seconds"`
}

// EmbeddingOf is e's report, nil for nil.
func EmbeddingOf(e *engine.Embedding) *Embedding {
	if e == nil {
		return nil
	}
	return &Embedding{Model: e.Model, Units: e.Units, Embedded: e.Embedded, Usage: e.Usage, Seconds: e.Seconds}
}

// String is the derive cost for the summary line.
func (d *Derive) String() string {
	if d == nil {
		return ""
	}
	s := fmt.Sprintf("; derive step: %s chunks, %s calls, %s prompt and %s completion tokens",
		humanize.Count(d.Chunks), humanize.Count(d.LLMCalls), humanize.Count(d.PromptTokens), humanize.Count(d.CompletionTokens))
	if e := d.Embedding; e != nil && e.Embedded > 0 {
		s += fmt.Sprintf(", then %s derived units embedded in %s calls, %s tokens", humanize.Count(e.Embedded), humanize.Count(e.Usage.LLMCalls), humanize.Count(e.Usage.PromptTokens))
	}
	return s
}

// prepare prepares, before an evaluation, what the questions' documents
// lack for the strategy (engine.Preparer), so the answers' usage is the
// answering alone and the preparation's is reported on its own. A
// strategy that needs no preparation gives nil.
func prepare(ctx context.Context, env *engine.Env, cfg *Config, golds []citations.Gold) (*Derive, error) {
	info, ok := engine.Lookup(cfg.Strategy.Name())
	if !ok || info.Preparer == nil {
		return nil, nil
	}
	seen := map[docstore.DocID]bool{}
	var docs []docstore.DocID
	for _, g := range golds {
		ids, err := cfg.resolve(env.Library, g.Docs)
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", g.ID, err)
		}
		if len(g.Docs) == 0 {
			infos, err := env.Library.List()
			if err != nil {
				return nil, err
			}
			for _, in := range infos {
				ids = append(ids, in.ID)
			}
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				docs = append(docs, id)
			}
		}
	}
	p := engine.Preparation{Strategy: cfg.Strategy.Name(), Docs: docs, Options: cfg.Options}
	run := cfg.Prepare
	if run == nil {
		run = func(ctx context.Context, prep engine.Preparer, p engine.Preparation) (*engine.Prepared, error) {
			return prep.Prepare(ctx, env, p)
		}
	}
	rep, err := run(ctx, info.Preparer, p)
	if err != nil {
		return nil, err
	}
	return &Derive{Chunks: rep.Done, Resumed: rep.Resumed, Failed: len(rep.Failures), Seconds: rep.Seconds, Usage: rep.Usage,
		Embedding: EmbeddingOf(rep.Embedding)}, nil
}
