package longcite

import (
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
)

// RAG is RAC-S, and RAC-C with level=chunk.
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
type RAG struct{ base }

// NewRAG returns the rag strategy, or an error wrapping
// engine.ErrUnavailable that says what to configure.
func NewRAG(env *engine.Env) (*RAG, error) {
	b, err := newBase(env, RAGName)
	if err != nil {
		return nil, err
	}
	return &RAG{b}, nil
}

// Name returns "rag".
func (s *RAG) Name() string { return RAGName }

// Answer retrieves the top k sentences (or chunks) for the question and
// answers from them in one pass.
func (s *RAG) Answer(ctx context.Context, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	c, err := s.begin(RAGName, true, req, emit)
	if err != nil {
		return nil, err
	}
	emit, opt, docs, cfg, format := c.emit, c.opt, c.docs, c.cfg, c.format
	emit(engine.Event{Stage: fmt.Sprintf("retrieving the %d most relevant %ss…", opt.K, opt.Level)})
	// With an embedding model configured, dense similarity fuses with
	// BM25 (engine/dense embeds the scope once and keeps the vectors);
	// without one, or if embedding fails, retrieval is BM25 alone.
	level := docstore.SentenceLevel
	if opt.Level == LevelChunk {
		level = docstore.ChunkLevel
	}
	fusion, ferr := dense.ForEnv(ctx, s.env, ids(docs), emit, level)
	if ferr != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if ferr != nil {
		emit(engine.Event{Stage: fmt.Sprintf("dense retrieval is unavailable (%v); ranking by words only", ferr)})
	}
	if fusion.Dense != nil {
		fusion.Top = max(fusion.Top, opt.K)
	}
	var num *citations.Numbering
	if opt.Level == LevelChunk {
		num, err = s.chunkNumbering(ctx, req.Question, docs, opt.K, fusion, emit)
	} else {
		num, err = s.sentenceNumbering(ctx, req.Question, docs, opt.K, format, fusion, emit)
	}
	if err != nil {
		return nil, err
	}
	emit(engine.Event{Stage: fmt.Sprintf("asking %s (%s prompt, %d %ss)", cfg.Model, format, num.Len(), opt.Level)})
	ans, err := answer(ctx, s.client, generate.Request{
		Question: req.Question, Numbering: num, Format: format, Resolve: opt.resolve(), Model: cfg.Model,
	}, emit)
	if ferr != nil {
		ans.Warnings = append(ans.Warnings, fmt.Sprintf("dense retrieval was unavailable (%v); the %ss were ranked by words only", ferr, opt.Level))
	}
	return ans, err
}

func (s *RAG) sentenceNumbering(ctx context.Context, question string, docs []*docstore.Document, k int, f generate.Format, fusion retrieve.Fusion, emit func(engine.Event)) (*citations.Numbering, error) {
	ranked, err := rankSentences(ctx, s.r, question, docs, k, fusion)
	if err != nil {
		return nil, err
	}
	if len(ranked) == 0 {
		return nil, nothing("sentence")
	}
	cfg := s.client.Config()
	fit := generate.FitRanked(f, question, docs, ranked, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, noRoom(cfg, f)
	}
	if fit.Trimmed {
		emit(engine.Event{Stage: fmt.Sprintf("the %d retrieved sentences (%s tokens) exceed the model's %s context: kept the best %d",
			len(ranked), engine.Kilo(fit.Tokens), engine.Kilo(cfg.ContextWindow), fit.Shown)})
	}
	return citations.NewSentenceNumbering(fit.Parts...)
}

func (s *RAG) chunkNumbering(ctx context.Context, question string, docs []*docstore.Document, k int, fusion retrieve.Fusion, emit func(engine.Event)) (*citations.Numbering, error) {
	ranked, err := rankChunks(ctx, s.r, question, docs, k, fusion)
	if err != nil {
		return nil, err
	}
	if len(ranked) == 0 {
		return nil, nothing("chunk")
	}
	// Keep the best chunks that fit, in rank order. Their snippet numbers
	// follow document order, so the tokens of a label are bounded by the
	// largest number.
	cfg := s.client.Config()
	avail := cfg.PromptBudget() - generate.Overhead(generate.OneShot, citations.ChunkMode, question, docs)
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
		return nil, noRoom(cfg, generate.OneShot)
	}
	if len(kept) < len(ranked) {
		emit(engine.Event{Stage: fmt.Sprintf("the %d retrieved chunks (%s tokens) exceed the model's %s context: kept the best %d",
			len(ranked), engine.Kilo(total), engine.Kilo(cfg.ContextWindow), len(kept))})
	}
	slices.SortFunc(kept, func(a, b chunkRef) int {
		if a.Doc != b.Doc {
			return a.Doc - b.Doc
		}
		return a.Chunk - b.Chunk
	})
	parts := make([]citations.ChunkPart, len(kept))
	for i, r := range kept {
		parts[i] = citations.ChunkOf(docs[r.Doc], r.Chunk)
	}
	return citations.NewChunkNumbering(parts...)
}

func nothing(unit string) error {
	return fmt.Errorf("%w: no %s of the documents shares a word with the question; rephrase it with the documents' words, or use the longcite strategy, which reads the documents whole",
		ErrNothingRetrieved, unit)
}
