// Package longcite holds the one-pass strategies of the LongCite paper
// (Zhang et al. 2024, "LongCite: Enabling LLMs to Generate Fine-grained
// Citations in Long-context QA"):
//
//   - longcite, LAC-S: the model reads the whole scope, every sentence
//     numbered "<C0>", "<C1>", … across the documents (Figure 10), and
//     answers with sentence-level citations in one pass. A scope longer
//     than the model's context keeps its most relevant sentences and their
//     neighbours, in document order with their real numbers, and says so
//     as a stage. With level=chunk it is LAC-C: the scope's stored chunks
//     numbered "Snippet [1]"… and cited "[k]", as RAC-C cites.
//   - rag, RAC-S (and RAC-C with level=chunk): the model reads only the
//     top k sentences retrieved for the question, in document order and
//     numbered with their real indices as in LAC-S — or the top k chunks,
//     numbered "Snippet [1]"… and cited "[k]" as in the paper's RAC-C.
//
// Both end in engine/generate, which builds the prompt, streams the answer
// and reports each statement as its </statement> arrives. A model trained
// by THUDM for the task (LongCite-glm4-9b, LongCite-llama3.1-8b, served by
// vLLM) gets the input it was trained on: format=longcite-model, chosen by
// default when the model's name contains "longcite".
package longcite

import (
	"context"
	"fmt"
	"slices"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
)

// The strategies' registered names.
const (
	Name    = "longcite"
	RAGName = "rag"
)

func init() {
	engine.Register(engine.Info{
		Strategy:    engine.Define(Name, lacOptions, answerLAC),
		Description: "LongCite LAC-S: the model reads the whole documents, sentences numbered (level=chunk: chunks, LAC-C), and cites them in one pass",
		Purpose:     "The model reads the whole of the documents, then answers. Most thorough; costly on long documents.",
		NeedsLLM:    true,
	})
	engine.Register(engine.Info{
		Strategy:    engine.Define(RAGName, ragOptions, answerRAG),
		Description: "LongCite RAC-S: the model reads the k most relevant sentences (level=chunk: chunks, RAC-C) and cites them",
		Purpose:     "The model reads the passages closest to the question, then answers. Quick and cheap: a good first choice.",
		NeedsLLM:    true,
	})
}

// answerLAC is LAC-S: it reads the scope whole (or its most relevant
// part, when it is longer than the model's context) and answers in one
// pass.
func answerLAC(ctx context.Context, rt *engine.Runtime) error {
	level := rt.Options().String("level")
	p, err := passOf(rt, level)
	if err != nil {
		return err
	}
	if level == LevelSentence {
		res, err := generate.Whole(ctx, rt, p)
		return generate.Settle(ctx, rt, res, err)
	}
	num, err := wholeChunks(ctx, rt)
	if err != nil {
		return err
	}
	rt.Stagef("asking %s (%s prompt, %s)", rt.Config().Model, p.Format, humanize.Plural(num.Len(), "chunk", "chunks"))
	res, err := generate.Run(ctx, rt, generate.Request{Question: rt.Question(), Numbering: num, Format: p.Format, Resolve: p.Resolve, Repair: p.Repair})
	return generate.Settle(ctx, rt, res, err)
}

// wholeChunks numbers every stored chunk of the scope (LAC-C), or when
// they do not fit the model's context the most relevant that do.
func wholeChunks(ctx context.Context, rt *engine.Runtime) (*citations.Numbering, error) {
	var all []chunkRef
	for d, doc := range rt.Docs() {
		for c := range doc.Chunks {
			all = append(all, chunkRef{Doc: d, Chunk: c})
		}
	}
	num, tokens, err := keepChunks(rt, all)
	if err != nil || num.Len() == len(all) {
		return num, err
	}
	// By words alone: trimming keeps most of the chunks, so a model's
	// finer order of the top few would change little of what is kept.
	ranked, err := rankChunks(ctx, rt, len(all), retrieve.Fusion{Rule: retrieve.Words})
	if err != nil {
		return nil, err
	}
	for _, c := range all { // the chunks sharing no word with the question last
		if !slices.Contains(ranked, c) {
			ranked = append(ranked, c)
		}
	}
	if num, _, err = keepChunks(rt, ranked); err == nil {
		rt.Warn(fmt.Sprintf("read %s of %s chunks (%d%%): the documents (%s tokens) exceed the model's %s window; the chunks read are the most relevant to the question",
			humanize.Count(num.Len()), humanize.Count(len(all)), num.Len()*100/len(all), humanize.Tokens(tokens), humanize.Tokens(rt.ModelConfig().ContextWindow)))
	}
	return num, err
}

// noRoom is the error for a context too small for the prompt of format f.
func noRoom(rt *engine.Runtime, f generate.Format) error {
	return generate.NoRoom(rt.Config(), fmt.Sprintf("the %s prompt", f))
}
