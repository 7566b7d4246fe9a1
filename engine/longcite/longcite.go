// Package longcite holds the one-pass strategies of the LongCite paper
// (Zhang et al. 2024, "LongCite: Enabling LLMs to Generate Fine-grained
// Citations in Long-context QA"):
//
//   - longcite, LAC-S: the model reads the whole scope, every sentence
//     numbered "<C0>", "<C1>", … across the documents (Figure 10), and
//     answers with sentence-level citations in one pass. A scope longer
//     than the model's context keeps its most relevant sentences and their
//     neighbours, in document order with their real numbers, and says so
//     as a stage.
//   - rag, RAC-S (and RAC-C with level=chunk): the model reads only the
//     top k sentences retrieved for the question, in document order and
//     numbered with their real indices as in LAC-S — or the top k chunks,
//     numbered "Snippet [1]"… and cited "[k]" as in the paper's RAC-C.
//
// Both end in engine/generate, which builds the prompt, streams the answer
// and emits each statement as its </statement> arrives. A model trained by
// THUDM for the task (LongCite-glm4-9b, LongCite-llama3.1-8b, served by
// vLLM) gets the input it was trained on: format=longcite-model, chosen by
// default when the model's name contains "longcite". See Options.
package longcite

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/engine/retrieve"
)

// The strategies' registered names.
const (
	Name    = "longcite"
	RAGName = "rag"
)

func init() {
	engine.Register(engine.Info{
		Name:        Name,
		Description: "LongCite LAC-S: the model reads the whole documents, sentences numbered, and cites them in one pass (options: format, max_citations)",
		NeedsLLM:    true,
		New:         func(env *engine.Env) (engine.Strategy, error) { return New(env) },
	})
	engine.Register(engine.Info{
		Name:        RAGName,
		Description: "LongCite RAC-S: the model reads the k most relevant sentences (level=chunk: chunks, RAC-C) and cites them (options: k, level, format, max_citations)",
		NeedsLLM:    true,
		New:         func(env *engine.Env) (engine.Strategy, error) { return NewRAG(env) },
	})
}

// base is what both strategies are built from.
type base struct {
	env    *engine.Env
	lib    *docstore.Library
	r      *retrieve.Retriever
	client *llm.Client
}

func newBase(env *engine.Env, name string) (base, error) {
	c, err := engine.RequireLibraryLLM(env, name)
	if err != nil {
		return base{}, err
	}
	return base{env: env, lib: env.Library, r: retrieve.New(env.Library), client: c}, nil
}

// call is what every answer of this package starts from: the request's
// options, its documents, and the model configuration and prompt format.
type call struct {
	emit   func(engine.Event)
	opt    Options
	docs   []*docstore.Document
	cfg    config.Config
	format generate.Format
}

// begin parses the options (of strategy name; rag says whether the
// retrieval options apply) and loads the scope.
func (b base) begin(name string, rag bool, req engine.Request, emit func(engine.Event)) (*call, error) {
	if emit == nil {
		emit = func(engine.Event) {}
	}
	opt, err := ParseOptions(name, req.Options, rag)
	if err != nil {
		return nil, err
	}
	docs, err := engine.LoadScope(b.lib, req.Docs)
	if err != nil {
		return nil, err
	}
	cfg := b.client.Config()
	return &call{emit: emit, opt: opt, docs: docs, cfg: cfg, format: opt.format(cfg.Model)}, nil
}

// Strategy is LAC-S.
type Strategy struct{ base }

// New returns the longcite strategy, or an error wrapping
// engine.ErrUnavailable that says what to configure.
func New(env *engine.Env) (*Strategy, error) {
	b, err := newBase(env, Name)
	if err != nil {
		return nil, err
	}
	return &Strategy{b}, nil
}

// Name returns "longcite".
func (s *Strategy) Name() string { return Name }

// Answer reads the scope whole (or its most relevant part, when it is
// longer than the model's context) and answers in one pass.
func (s *Strategy) Answer(ctx context.Context, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	c, err := s.begin(Name, false, req, emit)
	if err != nil {
		return nil, err
	}
	emit, opt, docs, cfg, format := c.emit, c.opt, c.docs, c.cfg, c.format
	fit, err := generate.FitScope(ctx, format, req.Question, docs, cfg.PromptBudget(),
		func(ctx context.Context) ([]generate.SentenceRef, error) {
			return rankAll(ctx, s.r, req.Question, docs)
		})
	if err != nil {
		return nil, err
	}
	if fit.Trimmed {
		emit(engine.Event{Stage: fit.Stage(cfg.ContextWindow)})
		if fit.Shown == 0 && fit.Total > 0 {
			return nil, noRoom(cfg, format)
		}
	}
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return nil, err
	}
	emit(engine.Event{Stage: fmt.Sprintf("asking %s (%s prompt, %s)", cfg.Model, format, engine.DescribeScope(docs, fit.Shown))})
	return answer(ctx, s.client, generate.Request{
		Question: req.Question, Numbering: num, Format: format, Resolve: opt.resolve(), Model: cfg.Model,
	}, emit)
}

// answer runs the generation step and turns its result into an answer
// (partial, with the finished statements, when it failed).
func answer(ctx context.Context, c *llm.Client, greq generate.Request, emit func(engine.Event)) (*engine.Answer, error) {
	res, err := generate.Run(ctx, c, greq, emit)
	ans := &engine.Answer{Statements: res.Statements, Model: greq.Model, Warnings: res.Warnings}
	return ans, err
}

func noRoom(cfg config.Config, f generate.Format) error {
	return fmt.Errorf("%w: a context of %d tokens less %d for the answer leaves too little for the %s prompt; set context_window in the config file to the model's real context size, or lower max_output",
		ErrNoRoom, cfg.ContextWindow, cfg.MaxOutput, f)
}

var (
	_ engine.Strategy = (*Strategy)(nil)
	_ engine.Strategy = (*RAG)(nil)
)
