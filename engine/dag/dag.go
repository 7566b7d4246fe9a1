// Package dag is the dag strategy: multi-hop answering by dynamic
// in-context editing (Fei et al. 2024, "Retrieval Meets Reasoning:
// Dynamic In-Context Editing for Long-Text Understanding"), with either
// of the seed's two algorithms (option algorithm):
//
//   - Algorithm 2, knowledge-constrained decoding (section 3.3, Figure
//     2(b); the default, the seed's better method): the model plans the
//     reasoning a step at a time, and each step is decoded again under
//     the constraint of the knowledge retrieved for it, citing it. See
//     decode.go and decode_prompt.go (Figure 4(b)'s template).
//   - Algorithm 1, iterative QA with fact extraction ("Iterative QA With
//     Fact Extraction"): sub-questions, and a cited fact extracted for
//     each; below.
//
// Under Algorithm 1 the reasoning thought T starts as the question. Each
// step:
//
//  1. Plan: the model, shown P_d's worked examples and T, writes the next
//     sub-question q_i, or "Final answer: …" when it can answer — the stop
//     signal, which ends the steps.
//  2. Retrieve: the top chunks for q_i (3 sentence-aligned chunks of about
//     80 words, the seed's setting, ranked by the answer's retrieval:
//     BM25 over windows of sentences, fused with dense similarity and
//     reordered by a reranker when those models are configured),
//     concatenated in document order.
//  3. Extract: the model, given P_e, q_i and the chunks' sentences numbered
//     with their real indices, writes a one-sentence fact f_i citing the
//     sentences it used, in LongCite's statement format.
//  4. T ← T + q_i + f_i.
//
// At most max_steps steps run (M, default 5). The answer is then written
// by engine/generate from T, with only the facts' (or steps') cited
// sentences shown under their real numbers, so every citation of the
// answer is a sentence behind a fact. Each sub-question and fact is a
// stage as it happens, and the steps are the answer's Plan. See prompt.go
// for the prompts and what the seed left to fill in.
package dag

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Name is the strategy's registered name.
const Name = "dag"

func init() {
	engine.Register(engine.Info{
		Strategy:    engine.Define(Name, options, answer),
		Description: "Dynamic in-context editing (multi-hop): by default Algorithm 2, knowledge-constrained decoding — the model plans reasoning steps, each rewritten to hold to the chunks retrieved for it and citing them; algorithm=1 asks sub-questions and extracts a cited fact for each; the answer is written from the steps",
		Purpose:     "For questions in several steps: the model reasons step by step, checking each step against what it finds.",
		NeedsLLM:    true,
	})
}

// answer runs Algorithm 1 and writes the answer from its facts. When a
// model call fails or ctx is cancelled before the answer is written, the
// answer keeps the steps done (its plan) and, as its statements, the facts
// found so far with their citations.
func answer(ctx context.Context, rt *engine.Runtime) error {
	r := newRun(rt)
	err := r.dense(ctx)
	if err == nil && r.plan.Algorithm == 2 {
		err = r.decode(ctx)
	} else if err == nil {
		err = r.steps(ctx)
	}
	if err != nil {
		r.plan.Stopped = StopFailed
		r.plan.summarize()
		rt.Plan(r.plan)
		r.factsAsAnswer("the answer was not written: the statements are " + r.found() + " before it stopped")
		return err
	}
	r.plan.summarize()
	rt.Plan(r.plan)
	return r.answer(ctx)
}

// run is one answer in progress.
type run struct {
	rt                      *engine.Runtime
	maxSteps, chunks, words int
	format                  generate.Format
	keep                    int // citations kept per final statement
	windowing               retrieve.Windowing
	// shown holds the chunks already shown for each sub-question (by its
	// normalised text), so a repeated sub-question gets the next-best.
	shown map[string]map[Chunk]bool
	plan  *Plan
}

func newRun(rt *engine.Runtime) *run {
	o := rt.Options()
	r := &run{
		rt: rt, maxSteps: o.Int("max_steps"), chunks: o.Int("chunks"), words: o.Int("chunk_words"),
		format: generate.FormatOf(o, rt.Config().Model), keep: o.Int("max_citations"),
		shown: map[string]map[Chunk]bool{},
	}
	r.windowing = chunkWindowing(rt.Docs(), r.words)
	r.plan = &Plan{Steps: []Step{}, MaxSteps: r.maxSteps, Chunks: r.chunks, ChunkWords: r.words, Retrieval: RetrievalBM25, Algorithm: 1}
	if o.String("algorithm") == ConstrainedDecoding {
		r.plan.Algorithm = 2
	}
	return r
}

// dense makes the answer's retrieval ready: the seed ranks chunks with a
// bi-encoder (bge) and reorders them with a cross-encoder, which the
// runtime's retrieval does with the configured embedding model (the
// scope's sentences embedded once and kept; a chunk scores the mean of
// its sentences' vectors) and rerank model. The plan says which ranked.
// When embedding fails the answer goes on with BM25 and a warning says
// so; only cancellation stops it.
func (r *run) dense(ctx context.Context) error {
	model, _, err := r.rt.Retrieval().Dense(ctx, docstore.SentenceLevel)
	if err != nil {
		return err
	}
	if model != "" {
		r.plan.Retrieval = RetrievalDense + " (" + model + ")"
	}
	if _, rerank := r.rt.Retrieval().Models(); rerank != "" {
		r.plan.Retrieval += ", reranked by " + rerank
	}
	return nil
}

// steps is Algorithm 1's loop.
func (r *run) steps(ctx context.Context) error {
	for i := 1; i <= r.maxSteps; i++ {
		next, err := r.planNext(ctx, false)
		if err == nil && next.unread() {
			r.rt.Stagef("step %d: the model's reply was not a sub-question or a final answer: asking again with the format restated", i)
			next, err = r.planNext(ctx, true)
		}
		if err != nil {
			return fmt.Errorf("planning step %d: %w", i, err)
		}
		if next.unread() {
			r.plan.Stopped = StopUnread
			return nil
		}
		if next.Final {
			if len(r.plan.Steps) > 0 {
				r.plan.Stopped, r.plan.Draft = StopModel, next.Text
				return nil
			}
			// Algorithm 1 lets the model answer at once, from what it
			// knows; citelens answers from the documents, so the question
			// itself is looked up first.
			r.plan.Draft = next.Text
			next = planReply{Text: shorten(oneLine(r.rt.Question()), maxSubQuestion)}
		}
		r.rt.Stage(subStage(i, r.maxSteps, next.Text))
		step, err := r.step(ctx, next.Text)
		r.plan.Steps = append(r.plan.Steps, step)
		if err != nil {
			return fmt.Errorf("extracting the fact for sub-question %d: %w", i, err)
		}
		r.rt.Stage(factStage(i, &r.plan.Steps[len(r.plan.Steps)-1]))
	}
	r.plan.Stopped = StopLimit
	return nil
}

// planNext asks the model for the next sub-question, or its stop signal.
func (r *run) planNext(ctx context.Context, restate bool) (planReply, error) {
	// No stop sequence ends the reply at its first line: OpenAI's reasoning
	// models (o3, o4-mini, gpt-5) refuse the request when one is sent. The
	// prompt asks for one line, and parsePlan reads only the first
	// sub-question or final answer of a model that goes on.
	msgs := planMessages(r.rt.Question(), r.plan.Steps)
	if restate {
		msgs = append([]llm.Message{{Role: "system", Content: restatePlan}}, msgs...)
	}
	reply, err := r.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: msgs})
	if err != nil {
		return planReply{}, err
	}
	return parsePlan(reply.Text), nil
}

// step retrieves the chunks for sub and has the model extract the fact.
func (r *run) step(ctx context.Context, sub string) (Step, error) {
	return r.lookUp(ctx, Step{SubQuestion: sub}, sub, func(num *citations.Numbering) []llm.Message {
		return factMessages(sub, num)
	})
}

// lookUp completes st with the knowledge retrieved for query: the chunks
// shown, and the model's reply to the prompt messages makes of their
// sentences under their real numbers, read as a cited fact. A fact the
// model did not cite gets the shown sentence that supports it best.
func (r *run) lookUp(ctx context.Context, st Step, query string, messages func(*citations.Numbering) []llm.Message) (Step, error) {
	st.Citations, st.Retrieved = []citations.Span{}, []Chunk{}
	ps, repeated, err := r.retrieve(ctx, query)
	st.Repeated = repeated
	if err != nil || len(ps) == 0 {
		return st, err
	}
	var ranked []generate.SentenceRef
	for _, p := range ps {
		for i := p.First; i <= p.Last; i++ {
			d, _ := r.rt.Place(p.Doc)
			ranked = append(ranked, generate.SentenceRef{Doc: d, Sentence: i})
		}
	}
	num, err := r.numbering(query, generate.OneShot, ranked)
	if err != nil {
		return st, err
	}
	st.Retrieved = chunksShown(ps, num)
	reply, err := r.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: messages(num)})
	if err != nil {
		return st, err
	}
	f := parseFact(reply.Text, num, query)
	st.Fact, st.Warnings = f.Text, f.Warnings
	if len(f.Citations) > 0 {
		st.Citations = f.Citations
	}
	if f.Matched {
		st.Warnings = append(st.Warnings, "the model cited nothing; the citation is the retrieved sentence that best supports the fact")
	}
	stmt := citations.Statement{Text: st.Fact, Citations: st.Citations}
	citations.Verify(&stmt)
	st.support = stmt.Support
	return st, nil
}

// retrieve returns the top chunks for sub, best first: those sharing a
// term with it, so there may be fewer than asked for. A sub-question asked
// before (repeated) gets the next-best chunks, since the model asks again
// when the first ones did not answer it.
func (r *run) retrieve(ctx context.Context, sub string) (ps []retrieve.Passage, repeated bool, err error) {
	key := strings.ToLower(oneLine(strings.TrimRight(sub, "?.! ")))
	seen := r.shown[key]
	if seen == nil {
		seen = map[Chunk]bool{}
		r.shown[key] = seen
	}
	repeated = len(seen) > 0
	ps, err = r.rt.Retrieval().Windows(ctx, sub, r.windowing, retrieve.Options{K: r.chunks + len(seen)})
	if err != nil {
		return nil, repeated, err
	}
	out := ps[:0]
	for _, p := range ps {
		c := Chunk{Doc: p.Doc, First: p.First, Last: p.Last}
		if seen[c] || len(out) == r.chunks {
			continue
		}
		seen[c] = true
		out = append(out, p)
	}
	return out, repeated, nil
}

// numbering numbers the ranked sentences with their real indices, in
// document order, keeping the best that fit the model's context.
func (r *run) numbering(question string, f generate.Format, ranked []generate.SentenceRef) (*citations.Numbering, error) {
	cfg := r.rt.Config()
	fit := generate.FitRanked(f, question, r.rt.Docs(), ranked, cfg.PromptBudget())
	if fit.Shown == 0 {
		return nil, generate.NoRoom(cfg, "the "+Name+" prompt")
	}
	if fit.Trimmed {
		r.rt.Stagef("the text to show (%d tokens) exceeds the model's context: kept %d of %d sentences", fit.Tokens, fit.Shown, len(ranked))
	}
	return citations.NewSentenceNumbering(fit.Parts...)
}

// chunksShown lists the retrieved chunks the numbering shows, in document
// order.
func chunksShown(ps []retrieve.Passage, n *citations.Numbering) []Chunk {
	out := []Chunk{}
	n.Each(func(u citations.Unit) bool {
		for _, p := range ps {
			if p.Doc == u.Doc.ID && p.First <= u.First && u.First <= p.Last {
				c := Chunk{Doc: p.Doc, First: p.First, Last: p.Last}
				if len(out) == 0 || out[len(out)-1] != c {
					out = append(out, c)
				}
				break
			}
		}
		return true
	})
	return out
}

// answer writes the final answer from the thought, showing only the
// facts' cited sentences.
func (r *run) answer(ctx context.Context) error {
	var ranked []generate.SentenceRef
	facts := 0
	for _, st := range r.plan.Steps {
		if st.Fact != "" {
			facts++
		}
		for _, c := range st.Citations {
			d, _ := r.rt.Place(c.Doc)
			for i := c.First; i <= c.Last; i++ {
				ranked = append(ranked, generate.SentenceRef{Doc: d, Sentence: i})
			}
		}
	}
	if len(ranked) == 0 {
		if facts == 0 {
			return r.fallBack(ctx, r.nothingFound())
		}
		if !r.saidMissing() {
			// Facts, but none cited and none saying the documents lack
			// it: the model's replies were not in the statement format.
			return r.fallBack(ctx, "no step's reply cited the documents, and none said they lack the answer")
		}
		r.rt.Stage("no fact cites the documents: the answer is the facts found")
		r.factsAsAnswer("no fact found cites the documents, so no answer was written from them: the statements are " + r.found())
		return nil
	}
	question := finalQuestion
	if r.plan.Algorithm == 2 {
		question = finalStepsQuestion
	}
	num, err := r.numbering(question(r.rt.Question(), r.plan.Steps, nil), r.format, ranked)
	if err != nil {
		return err
	}
	// What happens first, as a narrow pane cuts the end.
	why := fmt.Sprintf("the model stopped after %s", humanize.Plural(len(r.plan.Steps), "step", "steps"))
	if r.plan.Stopped == StopLimit {
		why = fmt.Sprintf("the step limit of %d was reached", r.maxSteps)
	}
	what := [2]string{"fact", "facts"}
	if r.plan.Algorithm == 2 {
		what = [2]string{"step", "steps"}
	}
	r.rt.Stagef("answering from %s (%s): %s", humanize.Plural(facts, what[0], what[1]), humanize.Plural(num.Len(), "sentence", "sentences"), why)
	// The final question holds the facts; whether an uncited statement
	// needs a citation is judged against the user's question, so a
	// statement repeating a fact uncited is flagged.
	res, err := generate.Run(ctx, r.rt, generate.Request{
		Question: question(r.rt.Question(), r.plan.Steps, num), JudgeAgainst: r.rt.Question(),
		Numbering: num, Format: r.format, Resolve: citations.ResolveOptions{MaxCitations: r.keep},
		Repair: generate.Repair(r.rt),
	})
	if err != nil && len(res.Statements) == 0 {
		r.factsAsAnswer("the answer was cut off before its first statement: the statements are " + r.found())
	}
	if err == nil && !res.Repaired && !generate.Cited(res.Statements) && !slices.ContainsFunc(res.Statements, func(st citations.Statement) bool { return generate.Unanswerable(st.Text) }) {
		return r.fallBack(ctx, "the model's final answer cited none of the steps' sentences")
	}
	return err
}

// saidMissing reports whether a step's fact says the documents lack
// what it looked for.
func (r *run) saidMissing() bool {
	for _, st := range r.plan.Steps {
		if st.Fact != "" && (saysMissing(st.Fact) || generate.Unanswerable(st.Fact)) {
			return true
		}
	}
	return false
}

// nothingFound says why the steps gave nothing to answer from.
func (r *run) nothingFound() string {
	if r.plan.Stopped == StopUnread {
		return "the model's reply was twice not a step in the template, so no step was found"
	}
	return "no step found anything in the documents"
}

// fallBack answers from retrieval over the question when the steps gave
// nothing to answer from (why), saying so in a warning and in the plan.
func (r *run) fallBack(ctx context.Context, why string) error {
	r.plan.Fallback = why + "; answered from the sentences retrieved for the question"
	r.plan.summarize()
	r.rt.Plan(r.plan)
	_, err := generate.Fallback(ctx, r.rt, why)
	return err
}

// found names what the steps found: "the facts found for the
// sub-questions" (Algorithm 1), "the reasoning steps as the documents
// constrained them" (Algorithm 2).
func (r *run) found() string {
	if r.plan.Algorithm == 2 {
		return "the reasoning steps as the documents constrained them"
	}
	return "the facts found for the sub-questions"
}

// factsAsAnswer reports the facts found as the answer's statements, with
// a warning saying why, when there are any.
func (r *run) factsAsAnswer(why string) {
	n := 0
	for i := range r.plan.Steps {
		if st := &r.plan.Steps[i]; st.Fact != "" {
			r.rt.Statement(st.statement())
			n++
		}
	}
	if n > 0 {
		r.rt.Warn(why)
	}
}

// chunkWindowing sizes chunks of about words words in the tokens of
// retrieve's windows, from the scope's own ratio of tokens to words
// (measured on the first 64 KiB of each document).
func chunkWindowing(docs []*docstore.Document, words int) retrieve.Windowing {
	const sample = 64 << 10
	w, t := 0, 0
	for _, d := range docs {
		s := d.Text[:min(len(d.Text), sample)]
		textproc.Words(s, func(int, int) { w++ })
		t += textproc.EstimateTokens(s)
	}
	// English prose runs about six bytes a word with its space, and a token
	// is four bytes.
	perWord := 1.5
	if w > 0 && t > 0 {
		perWord = float64(t) / float64(w)
	}
	return retrieve.Windowing{Tokens: max(1, int(math.Round(float64(words)*perWord)))}
}
