// Package cof is the post-hoc Coarse-to-Fine strategy of the LongCite
// paper (Zhang et al. 2024, section 3.1, Figures 12 and 13), run after the
// user's question:
//
//  1. The model answers by plain long-context QA over the scope (its most
//     relevant part, when the scope is longer than the model's context),
//     streamed to the user as a draft.
//  2. Each sentence of the draft retrieves its top l = min(l_max, ⌈k/n⌉)
//     stored 128-token chunks (n sentences; l_max = 10, k = 40 by default,
//     so about k chunks in all; BM25, fused with dense similarity when an
//     embedding model is configured). The union, in document order, is
//     shown as "Snippet [1]"…, and the model rewrites the draft as
//     <statement>…<cite>[k]</cite></statement> with chunk-level citations
//     (Figure 12).
//  3. For each statement citing chunks, those chunks are expanded by their
//     neighbours, their sentences numbered <C0>, <C1>, … afresh, and the
//     model names the supporting sentences as "[a-b]" spans or answers "No
//     relevant information" (Figure 13). Spans map back to the documents'
//     own sentences; a statement whose chunks support nothing stays
//     uncited. Statements are emitted in order as each becomes final.
//
// CoF's last step discards an instance when fewer than 20% of its
// statements are cited; citelens keeps the answer and warns.
//
// Steps 2 and 3 are engine/generate's CiteAnswer, which the other model
// strategies' repair option runs too (its doc says what each step's
// failure keeps, and how step 3 follows THUDM/LongCite's script); step 1
// is generate's LongContextAnswer, which the plain strategy runs too. This
// package is the strategy: its options and the order of the steps.
package cof

import (
	"context"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
)

// Name is the strategy's registered name.
const Name = "cof"

func init() {
	engine.Register(engine.Info{
		Strategy:    engine.Define(Name, options, answer),
		Description: "LongCite CoF, post-hoc: the model answers from the documents, then adds chunk-level citations from retrieved chunks and narrows them to sentences",
		Purpose:     "The model answers first, then finds the sentences that back each statement. For answers that need a wide reading.",
		NeedsLLM:    true,
	})
}

// answer runs the three steps: the draft, then its citations.
func answer(ctx context.Context, rt *engine.Runtime) error {
	o := rt.Options()
	draft, err := generate.LongContextAnswer(ctx, rt, "drafting an answer with", "the draft")
	if err != nil {
		return err
	}
	return generate.CiteAnswer(ctx, rt, draft, generate.CoFSettings{
		K: o.Int("k"), LMax: o.Int("l_max"), Keep: o.Int("max_citations"), Parallel: o.Int("parallel"),
		Discard: o.String("ungrounded") == UngroundedDiscard,
	})
}
