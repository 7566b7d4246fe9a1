package longcite

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
)

// answerRAG is RAC-S, and RAC-C with level=chunk.
//
// RAC-S shows the k retrieved sentences in document order, each numbered
// with its real index as LAC-S would number it ("<C512>"), so a citation
// means the same sentence whichever of the two strategies produced it, and
// the gaps in the numbering tell the model where text was left out.
//
// RAC-C follows the paper's definition (section 3.2: "the LLM reads top-k
// chunks … and generates response and chunk-level citation"): the k
// retrieved chunks, in document order, numbered "Snippet [1]"… as in CoF's
// chunk step (Figure 12), and cited "[k]". A chunk citation resolves to
// the chunk's whole sentences, byte-exact like any other span; it is
// coarser by design, which is what the paper measures it for (citation
// length 128 tokens against RAC-S's 48, Table 4). Showing chunks but
// numbering their sentences would be a third strategy, not RAC-C.
//
// It retrieves the top k sentences (or chunks) for the question and
// answers from them in one pass.
func answerRAG(ctx context.Context, rt *engine.Runtime) error {
	level, k := rt.Options().String("level"), rt.Options().Int("k")
	p, err := passOf(rt, level)
	if err != nil {
		return err
	}
	rt.Stagef("retrieving the %d most relevant %ss…", k, level)
	// The answer's retrieval ranks them: BM25, fused with dense
	// similarity when an embedding model is configured (the scope is
	// embedded once and the vectors kept) and reordered by a configured
	// reranker.
	var fusion retrieve.Fusion
	var num *citations.Numbering
	if level == LevelChunk {
		num, err = chunkNumbering(ctx, rt, k, fusion)
	} else {
		num, err = sentenceNumbering(ctx, rt, k, p.Format, fusion)
	}
	if err != nil {
		return err
	}
	rt.Stagef("asking %s (%s prompt, %d %ss)", rt.Config().Model, p.Format, num.Len(), level)
	res, err := generate.Run(ctx, rt, generate.Request{Question: rt.Question(), Numbering: num, Format: p.Format, Resolve: p.Resolve, Repair: p.Repair})
	return generate.Settle(ctx, rt, res, err)
}

func sentenceNumbering(ctx context.Context, rt *engine.Runtime, k int, f generate.Format, fusion retrieve.Fusion) (*citations.Numbering, error) {
	ranked, err := rankSentences(ctx, rt, k, fusion)
	if err != nil {
		return nil, err
	}
	if len(ranked) == 0 {
		return nil, nothing("sentence")
	}
	cfg := rt.Config()
	fit := generate.FitRanked(f, rt.Question(), rt.Docs(), ranked, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, noRoom(rt, f)
	}
	if fit.Trimmed {
		rt.Stagef("the %d retrieved sentences (%s tokens) exceed the model's %s context: kept the best %d",
			len(ranked), humanize.Tokens(fit.Tokens), humanize.Tokens(cfg.ContextWindow), fit.Shown)
	}
	return citations.NewSentenceNumbering(fit.Parts...)
}

func chunkNumbering(ctx context.Context, rt *engine.Runtime, k int, fusion retrieve.Fusion) (*citations.Numbering, error) {
	ranked, err := rankChunks(ctx, rt, k, fusion)
	if err != nil {
		return nil, err
	}
	if len(ranked) == 0 {
		return nil, nothing("chunk")
	}
	num, tokens, err := keepChunks(rt, ranked)
	if err == nil && num.Len() < len(ranked) {
		rt.Stagef("the %d retrieved chunks (%s tokens) exceed the model's %s context: kept the best %d",
			len(ranked), humanize.Tokens(tokens), humanize.Tokens(rt.Config().ContextWindow), num.Len())
	}
	return num, err
}

// keepChunks keeps the best chunks of ranked (best first) that fit the
// model's context, in rank order, and numbers them in document order; it
// also returns the tokens all of ranked would take. The snippet numbers
// follow document order, so the tokens of a label are bounded by the
// largest number.
func keepChunks(rt *engine.Runtime, ranked []chunkRef) (*citations.Numbering, int, error) {
	docs := rt.Docs()
	avail := rt.Config().PromptBudget() - generate.Overhead(generate.OneShot, citations.ChunkMode, rt.Question(), docs)
	kept := make([]chunkRef, 0, len(ranked))
	total := 0
	for _, r := range ranked {
		d := docs[r.Doc]
		start, end := d.ChunkSpan(r.Chunk)
		t := generate.ChunkTokens(len(ranked), d.Text[start:end])
		total += t
		if t <= avail {
			avail -= t
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return nil, total, noRoom(rt, generate.OneShot)
	}
	slices.SortFunc(kept, func(a, b chunkRef) int { return cmp.Or(a.Doc-b.Doc, a.Chunk-b.Chunk) })
	parts := make([]citations.ChunkPart, len(kept))
	for i, r := range kept {
		parts[i] = citations.ChunkOf(docs[r.Doc], r.Chunk)
	}
	num, err := citations.NewChunkNumbering(parts...)
	return num, total, err
}

func nothing(unit string) error {
	return fmt.Errorf("%w: no %s of the documents shares a word with the question; rephrase it with the documents' words, or use the longcite strategy, which reads the documents whole",
		engine.ErrNothingRetrieved, unit)
}
