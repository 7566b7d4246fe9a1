package engine

import (
	"context"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/llm"
)

// SearchOptions are a search's, as a front end's search tool (`citelens
// search`, MCP's search) asks for one: what to rank, over what, how many.
type SearchOptions struct {
	// Docs is the scope; empty means the whole library as a question
	// reads it: the latest version of every document (Versions.Scope).
	Docs []docstore.DocID
	// K is the number of hits wanted (default 10).
	K int
	// Chunks ranks the stored chunks (about 128 tokens) rather than
	// sentences.
	Chunks bool
	// BM25 are the word ranking's parameters; zero means
	// retrieve.DefaultBM25.
	BM25 retrieve.BM25
	// Words ranks by words alone even when an embedding or rerank model
	// is configured: no model is called.
	Words bool
}

// Search ranks the scope's sentences (or chunks) against query through
// the retrieval policy answers use (Retrieval), so a search finds what an
// answer would read: the same scope rule (latest versions), and with an
// embedding model or a reranker configured the same fusion and
// reordering, embedding first what the scope lacks (stages and cost go
// to rep; nil reports nothing). With neither configured — or with
// opt.Words — it is the index's BM25 ranking as it is, with no model
// call and no re-ranking, the fast word search a search tool promises;
// with one, the ranking is the answers' (BM25 re-ranked with context,
// fused, reordered) and Passage.Score is that ranking's score.
//
// It returns nil, nil when nothing matches. Failures of a model are
// warnings to rep and the ranking falls back as an answer's does; the
// error is the library's, bad options', or a cancellation.
func Search(ctx context.Context, env *Env, query string, opt SearchOptions, rep Reporter) ([]retrieve.Passage, error) {
	if rep == nil {
		rep = quiet{}
	}
	docs := opt.Docs
	if len(docs) == 0 {
		var err error
		if docs, err = env.Library.Versions().Scope(); err != nil {
			return nil, err
		}
	}
	r := NewRetrieval(env, docs, rep)
	ro := retrieve.Options{Docs: docs, K: opt.K, BM25: opt.BM25}
	embed, rerank := r.Models()
	switch {
	case opt.Words:
		ro.Fusion.Rule, ro.Plain = retrieve.Words, true
	case embed == "" && rerank == "":
		// No model to fuse: BM25's order as it is (what `search` always
		// printed), not the answers' lexical re-ranking.
		ro.Plain = true
	}
	if opt.Chunks {
		return r.Chunks(ctx, query, ro)
	}
	return r.Sentences(ctx, query, ro)
}

// quiet is a Reporter that reports nothing.
type quiet struct{}

func (quiet) Stage(string)    {}
func (quiet) Warn(string)     {}
func (quiet) Usage(llm.Usage) {}
