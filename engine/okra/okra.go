package okra

import (
	"context"
	"errors"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/llm"
	"github.com/citelens/citelens/engine/longcite"
	"github.com/citelens/citelens/engine/retrieve"
)

// The strategies' registered names.
const (
	Name        = "okra"
	PreciseName = "okra-precise"
)

func init() {
	engine.Register(engine.Info{
		Name:        Name,
		Description: "OkraLong: classify the question, then plan the retrieval (segments, granularity, BM25/dense weights) and workflow (query splitter, step-wise reasoner, context extension) before answering with citations (options: analyzer, steps, format, max_citations)",
		NeedsLLM:    true,
		New:         func(env *engine.Env) (engine.Strategy, error) { return New(env, false) },
	})
	engine.Register(engine.Info{
		Name:        PreciseName,
		Description: "OkraLong with precise mode: as okra, and when the answer says the context is insufficient, reread the whole documents (LAC-S) (options: as okra)",
		NeedsLLM:    true,
		New:         func(env *engine.Env) (engine.Strategy, error) { return New(env, true) },
	})
}

// Strategy is OkraLong: okra, or okra-precise when precise.
type Strategy struct {
	env     *engine.Env
	lib     *docstore.Library
	r       *retrieve.Retriever
	client  *llm.Client
	precise bool
}

// New returns the okra strategy (okra-precise when precise), or an error
// wrapping engine.ErrUnavailable that says what to configure.
func New(env *engine.Env, precise bool) (*Strategy, error) {
	name := Name
	if precise {
		name = PreciseName
	}
	c, err := engine.RequireLibraryLLM(env, name)
	if err != nil {
		return nil, err
	}
	return &Strategy{env: env, lib: env.Library, r: retrieve.New(env.Library), client: c, precise: precise}, nil
}

// Name returns "okra" or "okra-precise".
func (s *Strategy) Name() string {
	if s.precise {
		return PreciseName
	}
	return Name
}

// run is one answer in progress.
type run struct {
	s        *Strategy
	req      engine.Request
	opt      Options
	emit     func(engine.Event)
	docs     []*docstore.Document
	ids      []docstore.DocID
	dense    retrieve.DenseScorer
	plan     Plan
	gathered *gathered
}

// Answer runs the analyzer, the organizer and the executor.
func (s *Strategy) Answer(ctx context.Context, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	if emit == nil {
		emit = func(engine.Event) {}
	}
	opt, err := ParseOptions(s.Name(), req.Options)
	if err != nil {
		return nil, err
	}
	docs, err := engine.LoadScope(s.lib, req.Docs)
	if err != nil {
		return nil, err
	}
	ru := &run{s: s, req: req, opt: opt, emit: emit, docs: docs, ids: make([]docstore.DocID, len(docs))}
	for i, d := range docs {
		ru.ids[i] = d.ID
	}
	ru.req.Docs = ru.ids
	dense, why, err := denseScorer(ctx, s.env, docs, emit)
	if err != nil {
		return nil, err
	}
	ru.dense = dense

	// Analyzer: primary retrieval, then the analysis.
	emit(engine.Event{Stage: fmt.Sprintf("analyzer: retrieving %d segments of %d tokens…", PrimarySegments, PrimaryTokens)})
	primary, err := ru.retrieve(ctx, req.Question, PrimaryTokens, PrimarySegments, Weights{Lexical: 1, Dense: 1})
	if err != nil {
		return nil, err
	}
	analysis, err := ru.analyze(ctx, primary)
	if err != nil {
		return nil, err
	}

	// Organizer.
	ru.plan = organize(analysis, dense != nil, why)
	emit(engine.Event{Stage: "plan: " + ru.plan.Summary})
	ru.emitPlan()

	// Executor.
	ru.gathered = newGathered(docs)
	switch ru.plan.Workflow {
	case WorkflowSplit:
		err = ru.splitAggregate(ctx)
	case WorkflowStepwise:
		err = ru.stepwise(ctx)
	default:
		err = ru.direct(ctx)
	}
	if err != nil {
		return nil, err
	}
	if ru.gathered.segments == 0 {
		if s.precise {
			return ru.whole(ctx, nil, "nothing was retrieved")
		}
		return nil, fmt.Errorf("%w: no segment of the documents shares a word with the question; rephrase it with the documents' words, or use %s or longcite, which read the documents whole",
			ErrNothingRetrieved, PreciseName)
	}
	ans, res, err := ru.generate(ctx)
	if err != nil || !s.precise {
		return ans, err
	}
	if bad, reason := insufficient(res.Statements, res.Text); bad {
		return ru.whole(ctx, ans, reason)
	}
	ru.plan.Precise = &Precise{Reread: false}
	ru.emitPlan()
	return ans, nil
}

func (ru *run) emitPlan() { ru.emit(engine.Event{Plan: ru.plan.clone()}) }

// retrieve is the assembled retriever: segments of tokens tokens, the
// top k by BM25 fused with dense scores at the weights (min-max normalised
// over the top FusionTop), under Cutoff of the best dropped.
func (ru *run) retrieve(ctx context.Context, query string, tokens, k int, w Weights) ([]retrieve.Passage, error) {
	opt := retrieve.Options{Docs: ru.ids, K: k, Cutoff: Cutoff}
	if ru.dense != nil {
		opt.Fusion = retrieve.Fusion{Dense: ru.dense, LexicalWeight: w.Lexical, DenseWeight: w.Dense, Top: FusionTop}
	}
	return ru.s.r.Segments(ctx, query, retrieve.Segmenting{Tokens: tokens}, opt)
}

// analyze characterises the question from the primary segments: the
// analyzer model's reply to Table 7, or the rules when there is no model
// to ask or its reply is unusable.
func (ru *run) analyze(ctx context.Context, primary []retrieve.Passage) (Analysis, error) {
	texts := make([]string, len(primary))
	for i, p := range primary {
		texts[i] = p.Text
	}
	idf, err := ru.idf(ru.req.Question)
	if err != nil {
		return Analysis{}, err
	}
	rules := func(source string) Analysis {
		a := analyzeRules(ru.req.Question, texts, idf)
		a.Source = source
		return a
	}
	if ru.opt.Analyzer == AnalyzerRules || ru.s.client == nil {
		ru.emit(engine.Event{Stage: "analyzer: classifying the question by rules"})
		return rules(SourceRules), nil
	}
	g := newGathered(ru.docs)
	g.add(primary)
	model := ru.s.client.Config().Analyzer()
	ru.emit(engine.Event{Stage: fmt.Sprintf("analyzer: asking %s to classify the question…", model)})
	reply, err := ru.chat(ctx, llm.ChatRequest{
		Messages: analyzerMessages(g.text(), ru.req.Question), Model: model, MaxTokens: 100,
	})
	var a Analysis
	switch {
	case ctx.Err() != nil:
		return Analysis{}, ctx.Err()
	case err != nil:
		a = rules(fmt.Sprintf("rules (model reply unusable: %s)", clip(textproc.OneLine(err.Error()), 120)))
	default:
		var perr error
		if a, perr = parseAnalysis(reply.Text); perr != nil {
			a = rules(fmt.Sprintf("rules (model reply unusable: %s)", textproc.OneLine(perr.Error())))
		}
	}
	a.Model = model
	if a.Source != SourceModel {
		ru.emit(engine.Event{Stage: "analyzer: " + a.Source})
	}
	return a, nil
}

// idf weighs the question's terms by their idf over the scope's
// sentences, for the rules' evidence check.
func (ru *run) idf(question string) (map[string]float64, error) {
	terms := textproc.Terms(question)
	if len(terms) == 0 {
		return nil, nil
	}
	idf, err := retrieve.IDFs(ru.s.lib, ru.ids, terms)
	if err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(terms))
	for i, t := range terms {
		m[t] = idf[i]
	}
	return m, nil
}

// chat makes one model call, reporting its usage and any retries.
func (ru *run) chat(ctx context.Context, req llm.ChatRequest) (llm.Reply, error) {
	reply, err := ru.s.client.Chat(engine.ReportRetries(ctx, ru.emit), req)
	if reply.Usage.LLMCalls > 0 {
		u := reply.Usage
		ru.emit(engine.Event{Usage: &u})
	}
	return reply, err
}

// direct retrieves the plan's segments for the question: the workflow of
// extractive, abstractive and (with context extension) arithmetic
// questions.
func (ru *run) direct(ctx context.Context) error {
	p := &ru.plan
	ru.emit(engine.Event{Stage: fmt.Sprintf("retrieving %d segments of %d tokens…", p.Segments, p.Granularity)})
	ps, err := ru.retrieve(ctx, ru.req.Question, p.Granularity, p.Segments, p.Weights)
	if err != nil {
		return err
	}
	ru.gathered.add(ps)
	return nil
}

// splitAggregate is the multi-source workflow: the query splitter (Table
// 8) writes sub-questions, each retrieves its own segments, and the final
// answer reads them all.
func (ru *run) splitAggregate(ctx context.Context) error {
	p := &ru.plan
	ru.emit(engine.Event{Stage: "query splitter: splitting the question…"})
	reply, err := ru.chat(ctx, llm.ChatRequest{Messages: splitterMessages(ru.req.Question), MaxTokens: 300})
	if err != nil {
		return err
	}
	subs := parseSubQueries(reply.Text, ru.req.Question)
	if len(subs) < 2 {
		p.Reasons = append(p.Reasons, fmt.Sprintf("the query splitter gave %d sub-question(s): retrieving for the question itself", len(subs)))
		subs = []string{ru.req.Question}
	} else {
		p.SubQueries = subs
	}
	ru.emitPlan()
	for i, q := range subs {
		ru.emit(engine.Event{Stage: fmt.Sprintf("sub-question %d/%d: %s", i+1, len(subs), q)})
		ps, err := ru.retrieve(ctx, q, p.Granularity, p.Segments, p.Weights)
		if err != nil {
			return err
		}
		ru.gathered.add(ps)
	}
	return nil
}

// stepwise is the multi-bridge workflow: each round retrieves segments for
// the current query and asks the step-wise reasoner (Table 9) over all
// segments so far for the evidence and the next query, until it answers,
// has no next query, repeats itself, or the rounds run out.
func (ru *run) stepwise(ctx context.Context) error {
	p := &ru.plan
	query := ru.req.Question
	asked := map[string]bool{}
	budget := ru.s.client.Config().PromptBudget()
	for step := 1; step <= ru.opt.Steps; step++ {
		asked[fold(query)] = true
		ru.emit(engine.Event{Stage: fmt.Sprintf("step %d/%d: retrieving for: %s", step, ru.opt.Steps, query)})
		ps, err := ru.retrieve(ctx, query, p.Granularity, p.Segments, p.Weights)
		if err != nil {
			return err
		}
		st := Step{Query: query, Segments: ru.gathered.add(ps)}
		ctxText := ru.gathered.text()
		if llm.EstimatePromptTokens(reasonerMessages(ctxText, ru.req.Question)) > budget {
			p.Steps = append(p.Steps, st)
			p.Reasons = append(p.Reasons, "the gathered context outgrew the model's context: the reasoner stopped")
			break
		}
		ru.emit(engine.Event{Stage: fmt.Sprintf("step %d/%d: reasoning over %d segments…", step, ru.opt.Steps, ru.gathered.segments)})
		reply, err := ru.chat(ctx, llm.ChatRequest{Messages: reasonerMessages(ctxText, ru.req.Question), MaxTokens: 400})
		if err != nil {
			return err
		}
		r := parseStep(reply.Text)
		st.Evidence, st.NextQuery, st.Answer = r.Evidence, r.NextQuery, r.Answer
		p.Steps = append(p.Steps, st)
		ru.emitPlan()
		switch {
		case r.Answer != "":
			return nil
		case r.NextQuery == "":
			p.Reasons = append(p.Reasons, fmt.Sprintf("step %d gave no next query: the reasoner stopped", step))
			return nil
		case asked[fold(r.NextQuery)]:
			p.Reasons = append(p.Reasons, fmt.Sprintf("step %d repeated an earlier query: the reasoner stopped", step))
			return nil
		}
		query = r.NextQuery
	}
	return nil
}

// generate runs the context processor over the gathered segments and the
// final generation with sentence-level citations.
func (ru *run) generate(ctx context.Context) (*engine.Answer, *generate.Result, error) {
	p := &ru.plan
	spans := ru.gathered.spans
	if p.Workflow == WorkflowExtension {
		spans = extend(ru.docs, spans, p.Granularity)
	}
	spans = merge(recoverTables(ru.docs, spans), MergeGap)
	cfg := ru.s.client.Config()
	format := ru.opt.FormatFor(cfg.Model)
	question := ru.req.Question
	if ru.s.precise {
		question += unanswerableHint
	}
	refs := ranked(spans)
	fit := generate.FitRanked(format, question, ru.docs, refs, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, nil, fmt.Errorf("%w: a context of %d tokens less %d for the answer leaves too little for the %s prompt; set context_window in the config file to the model's real context size, or lower max_output",
			ErrNoRoom, cfg.ContextWindow, cfg.MaxOutput, format)
	}
	p.Context = &ContextSize{Segments: ru.gathered.segments, Passages: len(spans), Sentences: fit.Shown, Tokens: fit.Tokens}
	if fit.Trimmed {
		p.Reasons = append(p.Reasons, fmt.Sprintf("the context (%d tokens) exceeds the model's: kept the %d most relevant sentences", fit.Tokens, fit.Shown))
	}
	ru.emitPlan()
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return nil, nil, err
	}
	ru.emit(engine.Event{Stage: fmt.Sprintf("asking %s (%s prompt, %d passages, %d sentences)", cfg.Model, format, len(spans), fit.Shown)})
	res, err := generate.Run(ctx, ru.s.client, generate.Request{
		Question: question, Numbering: num, Format: format,
		Resolve: citations.ResolveOptions{MaxCitations: ru.opt.MaxCitations}, Model: cfg.Model,
	}, ru.emit)
	ans := &engine.Answer{Statements: res.Statements, Model: res.Model, Warnings: res.Warnings}
	return ans, res, err
}

// whole is precise mode's second pass: LongCite's LAC-S over the whole
// scope (engine/longcite), after an answer that said the context was
// insufficient (first, which may be nil when nothing was retrieved).
func (ru *run) whole(ctx context.Context, first *engine.Answer, reason string) (*engine.Answer, error) {
	ru.plan.Precise = &Precise{Reread: true, Reason: reason}
	ru.plan.Operators = append(ru.plan.Operators, OpWhole)
	ru.emitPlan()
	ru.emit(engine.Event{Stage: fmt.Sprintf("%s: the context is insufficient; rereading the whole documents", reason)})
	lc, err := longcite.New(ru.s.env)
	if err != nil {
		return first, err
	}
	ans, err := lc.Answer(ctx, engine.Request{Question: ru.req.Question, Docs: ru.ids, Options: ru.opt.longcite()}, ru.emit)
	if ans == nil {
		if first != nil && errors.Is(err, context.Canceled) {
			return first, err
		}
		return nil, err
	}
	ans.Warnings = append([]string{fmt.Sprintf("okra-precise reread the whole documents: the answer from %d retrieved segments was insufficient (%s)", ru.gathered.segments, reason)}, ans.Warnings...)
	return ans, err
}

var _ engine.Strategy = (*Strategy)(nil)
