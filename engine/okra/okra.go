package okra

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// The strategies' registered names.
const (
	Name        = "okra"
	PreciseName = "okra-precise"
)

func init() {
	engine.Register(engine.Info{
		Strategy:    engine.Define(Name, options, answer(false)),
		Description: "OkraLong: classify the question, then plan the retrieval (segments, granularity, BM25/dense weights) and workflow (query splitter, step-wise reasoner, context extension) before answering with citations",
		Purpose:     "The model first works out what kind of question it is and how to search for it, then answers. Adapts; more model calls.",
		NeedsLLM:    true,
	})
	engine.Register(engine.Info{
		Strategy:    engine.Define(PreciseName, preciseOptions, answer(true)),
		Description: "OkraLong with precise mode: as okra, and when the answer says the context is insufficient, reread the whole documents (LAC-S)",
		Purpose:     "As okra, and when what it found is not enough, the model reads the whole documents. Slower, more thorough.",
		NeedsLLM:    true,
	})
}

// run is one answer in progress.
type run struct {
	rt       *engine.Runtime
	precise  bool
	plan     Plan
	gathered *gathered
}

// answer is OkraLong (with precise mode when precise): it runs the
// analyzer, the organizer and the executor.
func answer(precise bool) func(context.Context, *engine.Runtime) error {
	return func(ctx context.Context, rt *engine.Runtime) error {
		return (&run{rt: rt, precise: precise}).answer(ctx)
	}
}

func (ru *run) answer(ctx context.Context) error {
	rt := ru.rt
	model, why, err := denseReady(ctx, rt)
	if err != nil {
		return err
	}

	// Analyzer: primary retrieval, then the analysis.
	rt.Stagef("analyzer: retrieving %d segments of %d tokens…", PrimaryWindows, PrimaryTokens)
	primary, err := ru.retrieve(ctx, rt.Question(), PrimaryTokens, PrimaryWindows, Weights{Lexical: 1, Dense: 1})
	if err != nil {
		return err
	}
	analysis, err := ru.analyze(ctx, primary)
	if err != nil {
		return err
	}

	// Organizer.
	ru.plan = organize(analysis, model != "", why)
	if _, rerank := rt.Retrieval().Models(); rerank != "" {
		ru.plan.Reranker = rerank
		ru.plan.Reasons = append(ru.plan.Reasons, "the rerank model "+rerank+" reorders the segments B.3's retriever kept, and picks those used (not in the paper)")
		ru.plan.Summary = ru.plan.summary()
	}
	rt.Stage("plan: " + ru.plan.Summary)
	ru.report()

	// Executor.
	ru.gathered = newGathered(rt.Docs())
	switch ru.plan.Workflow {
	case WorkflowSplit:
		err = ru.splitAggregate(ctx)
	case WorkflowStepwise:
		err = ru.stepwise(ctx)
	default:
		err = ru.direct(ctx)
	}
	if err != nil {
		return err
	}
	if ru.gathered.windows == 0 {
		if ru.precise {
			return ru.whole(ctx, nil, "nothing was retrieved")
		}
		return fmt.Errorf("%w: no segment of the documents shares a word with the question; rephrase it with the documents' words, or use %s or longcite, which read the documents whole",
			engine.ErrNothingRetrieved, PreciseName)
	}
	res, err := ru.generate(ctx)
	if !ru.precise {
		return generate.Settle(ctx, rt, res, err)
	}
	// Precise mode held the statements back until the answer is judged.
	if err == nil {
		if bad, reason := insufficient(res.Statements, res.Text); bad {
			return ru.whole(ctx, res.Statements, reason)
		}
		ru.plan.Precise = &Precise{Reread: false}
		ru.report()
	}
	if res != nil {
		ru.statements(res.Statements)
	}
	// An answer that cites nothing without saying the question is
	// unanswerable is not a lack of evidence: it falls back as every
	// strategy's does.
	return generate.Settle(ctx, rt, res, err)
}

// report reports the plan as it is now (a copy: the plan grows).
func (ru *run) report() { ru.rt.Plan(ru.plan.clone()) }

// statements reports the statements of an answer.
func (ru *run) statements(sts []citations.Statement) {
	for _, st := range sts {
		ru.rt.Statement(st)
	}
}

// retrieve is the assembled retriever (Appendix B.3): windows of tokens
// tokens, each retriever's top FusionTop min-max normalised and added
// with the weights (retrieve.MinMax; BM25 alone without dense scores),
// those under Cutoff of the best dropped, the top k kept.
func (ru *run) retrieve(ctx context.Context, query string, tokens, k int, w Weights) ([]retrieve.Passage, error) {
	opt := retrieve.Options{K: k, Cutoff: Cutoff, Fusion: retrieve.Fusion{
		Rule: retrieve.MinMax, LexicalWeight: w.Lexical, DenseWeight: w.Dense, Top: FusionTop}}
	return ru.rt.Retrieval().Windows(ctx, query, retrieve.Windowing{Tokens: tokens}, opt)
}

// analyze characterises the question from the primary windows: the
// analyzer model's reply to Table 7, or the rules when there is no model
// to ask or its reply is unusable.
func (ru *run) analyze(ctx context.Context, primary []retrieve.Passage) (Analysis, error) {
	texts := make([]string, len(primary))
	for i, p := range primary {
		texts[i] = p.Text
	}
	rt := ru.rt
	idf, err := ru.idf(rt.Question())
	if err != nil {
		return Analysis{}, err
	}
	rules := func(source string) Analysis {
		a := analyzeRules(rt.Question(), texts, idf)
		a.Source = source
		return a
	}
	if rt.Options().String("analyzer") == AnalyzerRules || rt.Model() == nil {
		rt.Stage("analyzer: classifying the question by rules")
		return rules(SourceRules), nil
	}
	g := newGathered(rt.Docs())
	g.add(primary)
	model := rt.Config().Analyzer()
	rt.Stagef("analyzer: asking %s to classify the question…", model)
	reply, err := rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{
		Messages: analyzerMessages(g.text(), rt.Question()), Model: model, MaxTokens: 100,
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
		// The model was asked and its reply could not be read: the plan
		// rests on the rules, and the reader is told.
		rt.Warn("okra's analyzer: the model's reply was not Table 7's dictionary; the question was classified by " + a.Source)
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
	idf, err := retrieve.IDFs(ru.rt.Library(), ru.rt.IDs(), terms)
	if err != nil {
		return nil, err
	}
	m := make(map[string]float64, len(terms))
	for i, t := range terms {
		m[t] = idf[i]
	}
	return m, nil
}

// direct retrieves the plan's windows for the question: the workflow of
// extractive, abstractive and (with context extension) arithmetic
// questions.
func (ru *run) direct(ctx context.Context) error {
	p := &ru.plan
	ru.rt.Stagef("retrieving %d segments of %d tokens…", p.Windows, p.Granularity)
	ps, err := ru.retrieve(ctx, ru.rt.Question(), p.Granularity, p.Windows, p.Weights)
	if err != nil {
		return err
	}
	ru.gathered.add(ps)
	return nil
}

// splitAggregate is the multi-source workflow: the query splitter (Table
// 8) writes sub-questions, each retrieves its own windows, and the final
// answer reads them all.
func (ru *run) splitAggregate(ctx context.Context) error {
	p := &ru.plan
	question := ru.rt.Question()
	ru.rt.Stage("query splitter: splitting the question…")
	reply, err := ru.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: splitterMessages(question), MaxTokens: 300})
	if err != nil {
		return err
	}
	subs := parseSubQueries(reply.Text, question)
	if len(subs) == 0 {
		ru.rt.Warn("okra's query splitter wrote no sub-question (Table 8): retrieving for the question itself")
	}
	if len(subs) < 2 {
		p.Reasons = append(p.Reasons, fmt.Sprintf("the query splitter gave %d sub-question(s): retrieving for the question itself", len(subs)))
		subs = []string{question}
	} else {
		p.SubQueries = subs
	}
	ru.report()
	for i, q := range subs {
		ru.rt.Stagef("sub-question %d/%d: %s", i+1, len(subs), q)
		ps, err := ru.retrieve(ctx, q, p.Granularity, p.Windows, p.Weights)
		if err != nil {
			return err
		}
		ru.gathered.add(ps)
	}
	return nil
}

// stepwise is the multi-bridge workflow: each round retrieves windows for
// the current query and asks the step-wise reasoner (Table 9) over all
// windows so far for the evidence and the next query, until it answers,
// has no next query, repeats itself, or the rounds run out.
func (ru *run) stepwise(ctx context.Context) error {
	p := &ru.plan
	question, rounds := ru.rt.Question(), ru.rt.Options().Int("steps")
	query := question
	asked := map[string]bool{}
	budget := ru.rt.Config().PromptBudget()
	for step := 1; step <= rounds; step++ {
		asked[fold(query)] = true
		ru.rt.Stagef("step %d/%d: retrieving for: %s", step, rounds, query)
		ps, err := ru.retrieve(ctx, query, p.Granularity, p.Windows, p.Weights)
		if err != nil {
			return err
		}
		st := Step{Query: query, Windows: ru.gathered.add(ps)}
		ctxText := ru.gathered.text()
		if llm.EstimatePromptTokens(reasonerMessages(ctxText, question)) > budget {
			p.Steps = append(p.Steps, st)
			p.Reasons = append(p.Reasons, "the gathered context outgrew the model's context: the reasoner stopped")
			break
		}
		ru.rt.Stagef("step %d/%d: reasoning over %d segments…", step, rounds, ru.gathered.windows)
		reply, err := ru.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: reasonerMessages(ctxText, question), MaxTokens: 400})
		if err != nil {
			return err
		}
		r := parseStep(reply.Text)
		if r.unread() {
			ru.rt.Stagef("step %d/%d: the reasoner's reply was not in Table 9's format: asking again with the format restated", step, rounds)
			reply, err = ru.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: restated(reasonerMessages(ctxText, question)), MaxTokens: 400})
			if err != nil {
				return err
			}
			r = parseStep(reply.Text)
		}
		if r.unread() {
			p.Steps = append(p.Steps, st)
			p.Reasons = append(p.Reasons, fmt.Sprintf("step %d: the reasoner's reply was twice not in Table 9's format: the reasoner stopped", step))
			ru.report()
			ru.rt.Warn(fmt.Sprintf("okra's step-wise reasoner replied twice without Table 9's fields (### Evidence, ### Next-Query, ### Answer): the answer is written from the %s retrieved so far",
				humanize.Plural(ru.gathered.windows, "segment", "segments")))
			return nil
		}
		st.Evidence, st.NextQuery, st.Answer = r.Evidence, r.NextQuery, r.Answer
		p.Steps = append(p.Steps, st)
		ru.report()
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

// generate runs the context processor over the gathered windows and the
// final generation with sentence-level citations. okra-precise holds the
// statements back: they are reported once the answer is judged
// sufficient.
func (ru *run) generate(ctx context.Context) (*generate.Result, error) {
	rt, p := ru.rt, &ru.plan
	spans := ru.gathered.spans
	if p.Workflow == WorkflowExtension {
		spans = extend(rt.Docs(), spans, p.Granularity)
	}
	spans = merge(recoverTables(rt.Docs(), spans), MergeGap)
	cfg := rt.Config()
	format := finalFormat(rt.Options(), cfg.Model)
	question := rt.Question()
	if ru.precise {
		question += unanswerableHint
	}
	refs := ranked(spans)
	fit := generate.FitRanked(format, question, rt.Docs(), refs, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, generate.NoRoom(cfg, fmt.Sprintf("the %s prompt", format))
	}
	p.Context = &ContextSize{Windows: ru.gathered.windows, Passages: len(spans), Sentences: fit.Shown, Tokens: fit.Tokens}
	if fit.Trimmed {
		p.Reasons = append(p.Reasons, fmt.Sprintf("the context (%d tokens) exceeds the model's: kept the %d most relevant sentences", fit.Tokens, fit.Shown))
	}
	ru.report()
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return nil, err
	}
	rt.Stagef("asking %s (%s prompt, %d passages, %d sentences)", cfg.Model, format, len(spans), fit.Shown)
	return generate.Run(ctx, rt, generate.Request{
		Question: question, Numbering: num, Format: format, Hold: ru.precise,
		Resolve: citations.ResolveOptions{MaxCitations: rt.Options().Int("max_citations")},
		Repair:  ru.repair(),
	})
}

// whole is precise mode's second pass: LongCite's LAC-S over the whole
// scope (generate.Whole), after an answer that said the context was
// insufficient (first: its statements, held back; none when nothing was
// retrieved).
func (ru *run) whole(ctx context.Context, first []citations.Statement, reason string) error {
	rt := ru.rt
	ru.plan.Precise = &Precise{Reread: true, Reason: reason}
	ru.plan.Operators = append(ru.plan.Operators, OpWhole)
	ru.report()
	rt.Stagef("%s: the context is insufficient; rereading the whole documents", reason)
	rt.Warn(fmt.Sprintf("okra-precise reread the whole documents: the answer from %d retrieved segments was insufficient (%s)", ru.gathered.windows, reason))
	o := rt.Options()
	res, err := generate.Whole(ctx, rt, generate.Pass{
		Format:  generate.FormatOf(o, rt.Config().Model),
		Resolve: citations.ResolveOptions{MaxCitations: o.Int("max_citations")},
	})
	if res == nil && engine.Canceled(err) {
		// Cancelled before the reread answered: the first answer is
		// what there is.
		ru.statements(first)
	}
	return generate.Settle(ctx, rt, res, err)
}

// repair is the answer's Request.Repair: none in precise mode, which has
// its own remedy.
func (ru *run) repair() func(context.Context, string) error {
	if ru.precise {
		return nil
	}
	return generate.Repair(ru.rt)
}
