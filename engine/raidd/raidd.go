// Package raidd holds the strategies of RAIDD, "Retrieval from AI Derived
// Documents" (Shah, Goyal and Wasserman, "Enhancing Retrieval in QA
// Systems with Derived Feature Association"): the model writes, for every
// chunk of a document, a concept-level summary and reading-comprehension
// questions; a question is matched against those derived documents, and
// the original chunks behind the best matches — never the derived text —
// are what the model answers from.
//
//   - raidd-s: the summaries are the keys (RAIDD-S);
//   - raidd-q: the questions are (RAIDD-Q; top questions of distinct
//     chunks);
//   - raidd-s+, raidd-q+: the chunks' own text competes too, so a raw
//     chunk that matches better than any summary (question) is taken;
//   - raidd-u: summaries, questions and raw text in one ranking.
//
// # Derivation
//
// Documents are cut into sentence-aligned chunks of 256 estimated tokens
// overlapping by 50, the paper's setting (Table 2). Each chunk takes the
// authors' two model calls: its summary, conditioned on the previous
// chunk's summary, then 32 questions per 1,024 tokens (8 for a full
// chunk), with the authors' own instructions (see prompt.go). The records
// are stored in the library per document, chunk, model and layout
// (docstore/derived.go), committed in batches, so an interrupted
// derivation resumes at the first missing chunk; a reply without what it
// was asked for is asked again once, then the chunk is stored as failed
// and reported. Once a document is complete, its summaries, questions and
// raw chunks are indexed for BM25, and, when an embedding model is
// configured, embedded (see Dense retrieval).
//
// derive_calls=one (`citelens derive --calls one`) asks for both in one
// call instead, which sends the chunk once: on the declaration test
// document the authors' two calls cost about 1.4 times the one call's
// prompt tokens, for twice the calls (TestOneCallCost). The summaries are
// a sequential chain per document either way, so one call buys no speed
// beyond its requests. Its derived documents are its own set.
//
// Deriving costs model tokens, so it never happens unasked: a strategy
// that finds derived documents missing fails with *NeedsDerivation (the
// estimate and the command to run), unless asked with derive=yes, when it
// derives first and reports progress as stages. `citelens derive` derives
// ahead of time with a progress bar and the running token cost.
//
// # Retrieval and answering
//
// The question is ranked against the variant's units through the
// answer's retrieval (engine.Retrieval, engine/retrieve's
// Retriever.Derived: BM25 over the scope's derived index, and the cosine
// of embeddings with an embedding model), the top k × 32 units are mapped
// to their chunks, and the first k distinct chunks are kept (k = 8;
// raidd-q thus takes the top questions of distinct chunks, as the authors
// do). How the + variants and raidd-u make one ranking of their kinds is
// the option fuse:
//
//   - fuse=index, the paper's rule (section 2.2: RAIDD-U retrieves "from
//     an index which contains the union of the summary, question, and raw
//     text document stores"; the authors rank it by the cosine of
//     LlamaIndex embeddings): every unit in one index, ranked by one
//     similarity, so a raw chunk is taken only when it scores higher than
//     the derived keys. With an embedding model the similarity is the
//     cosine; without one, BM25 over one collection, each kind's lengths
//     normalised against its own average.
//   - fuse=rank: each kind ranks the chunks on its own — by words, and by
//     meaning with an embedding model — and the rankings are fused by
//     reciprocal rank. BM25 scores of a raw chunk and of its summary are
//     not comparable — the raw text holds more of the question's words,
//     and on one BM25 scale it took all 8 places in our runs — while ranks
//     are, so a chunk's own text is taken when it ranks higher among the
//     raw chunks than the derived keys' chunks among theirs, and a chunk
//     that several keys find comes first (the paper's "multiple keys for
//     the same value").
//   - fuse=score: one collection; each unit's BM25 score and cosine are
//     min-max normalised over the pool and added 1:1.
//   - fuse=auto, the default: index with an embedding model, rank
//     without one.
//
// A configured reranker reorders the best chunks by their own text, as it
// does for every strategy. The chunks' sentences are shown in document
// order under their real numbers ("<C512>"), exactly as RAC-S shows
// retrieved sentences, so every citation resolves to the document's own
// bytes.
//
// # Dense retrieval
//
// The paper retrieves by the cosine similarity of embeddings (LlamaIndex,
// text-embedding-ada-002). With an embedding model configured
// (embed_model, CITELENS_EMBED_MODEL), each summary, question and raw
// chunk is embedded once — by `citelens derive` after deriving, or by the
// answer's retrieval the first time it needs them, with stages
// ("embedding 1,204/1,204 summaries of manual.pdf…") and the cost in the
// answer's usage — and kept in the library by document, derivation and
// embedding model (engine/dense.EnsureDerived; int8 vectors beside the
// document's own, resumable batch by batch, removed with the document).
// A question is then embedded once and ranks the units by cosine.
// Without an embedding model, retrieval is BM25 alone and nothing is
// embedded; if embedding fails, a warning says so and the answer is
// ranked by BM25.
package raidd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Variant is one RAIDD flavour: the kinds of units its retrieval ranks.
type Variant struct {
	Name        string
	Kinds       []docstore.DerivedKind
	Description string
	Purpose     string // engine.Info.Purpose
}

// Variants are the registered strategies, but for raidd-s-icl (icl.go),
// which is raidd-s with more options and a Grade.
var Variants = []Variant{
	{"raidd-s", []docstore.DerivedKind{docstore.DerivedSummary},
		"RAIDD-S: match the question against model-written summaries of each chunk; answer from the original chunks",
		"Searches summaries the model writes of every part of the documents beforehand (a one-off cost), then answers."},
	{"raidd-q", []docstore.DerivedKind{docstore.DerivedQuestion},
		"RAIDD-Q: match the question against model-written questions about each chunk; answer from the original chunks",
		"Searches questions the model writes about every part of the documents beforehand (a one-off cost), then answers."},
	{"raidd-s+", []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedRaw},
		"RAIDD-S+: like raidd-s, and a chunk's own text is taken when it ranks higher than the summaries' matches",
		"As raidd-s, and the documents' own words are searched too."},
	{"raidd-q+", []docstore.DerivedKind{docstore.DerivedQuestion, docstore.DerivedRaw},
		"RAIDD-Q+: like raidd-q, and a chunk's own text is taken when it ranks higher than the questions' matches",
		"As raidd-q, and the documents' own words are searched too."},
	{"raidd-u", []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedQuestion, docstore.DerivedRaw},
		"RAIDD-U: match the question against summaries, questions and the chunks' own text, their rankings fused",
		"Searches the prepared summaries and questions and the documents' own words together (a one-off cost)."},
}

func init() {
	for _, v := range Variants {
		engine.Register(engine.Info{Strategy: engine.Define(v.Name, options, v.answer), Description: v.Description, Purpose: v.Purpose, NeedsLLM: true, Preparer: preparer{}})
	}
}

// IsRAIDD reports whether name is one of this package's strategies.
func IsRAIDD(name string) bool { _, ok := variant(name); return ok }

// variant is the variant called name.
func variant(name string) (Variant, bool) {
	if name == ICLName {
		return iclVariant, true
	}
	i := slices.IndexFunc(Variants, func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return Variant{}, false
	}
	return Variants[i], true
}

// answer matches the question against the scope's derived documents and
// answers from the original chunks behind the best matches.
func (v Variant) answer(ctx context.Context, rt *engine.Runtime) error {
	o := rt.Options()
	if v.Name == ICLName {
		if path := o.String("lessons"); path != "" {
			ls, err := readLessons(ctx, path)
			if err != nil {
				return err
			}
			rt.AddLessons(ls)
		}
		if n := len(rt.Lessons()); n > 0 {
			rt.Stagef("learning in context from %d graded earlier answers", n)
		}
	}
	cfg := rt.Config()
	set := setOf(cfg.Model, o)
	if err := v.ready(ctx, rt, set, o.Bool("derive")); err != nil {
		return err
	}
	// With an embedding model the variant's units are embedded first
	// (once; kept in the library).
	embed, _, err := rt.Retrieval().DenseDerived(ctx, set, v.Kinds)
	if err != nil {
		return err
	}
	chosen, err := v.retrieve(ctx, rt, set, o.Int("k"), ruleOf(o.String("fuse"), embed != ""), embed)
	if errors.Is(err, engine.ErrNothingRetrieved) {
		// Nothing matched; when the model's derivations of some chunks
		// were unreadable, that is why, and the answer falls back
		// rather than fail on the model's account.
		if failed := failedChunks(rt, set); failed > 0 {
			_, err = generate.Fallback(ctx, rt, fmt.Sprintf("the model's derivations of %s were unreadable, and nothing derived matches the question",
				humanize.Plural(failed, "chunk", "chunks")))
		}
		return err
	}
	if err != nil {
		return err
	}
	format := generate.FormatOf(o, cfg.Model)
	var ranked []generate.SentenceRef
	for _, c := range chosen {
		for sent := c.First; sent <= c.Last; sent++ {
			ranked = append(ranked, generate.SentenceRef{Doc: c.doc, Sentence: sent, Score: c.Score})
		}
	}
	fit := generate.FitRanked(format, rt.Question(), rt.Docs(), ranked, cfg.PromptBudget())
	if fit.Shown == 0 {
		return generate.NoRoom(cfg, fmt.Sprintf("the %s prompt", format))
	}
	if fit.Trimmed {
		rt.Stagef("the %d chunks (%s tokens) exceed the model's %s context: kept their %s best-ranked sentences",
			len(chosen), humanize.Tokens(fit.Tokens), humanize.Tokens(cfg.ContextWindow), humanize.Count(fit.Shown))
	}
	if o.String("prompt") == PromptPlain {
		// The paper's answering: a plain QA prompt over the chunks; the
		// answer is then cited as CoF does, so it stays checkable.
		rt.Stagef("asking %s (plain QA prompt, %d chunks, %s sentences)", cfg.Model, len(chosen), humanize.Count(fit.Shown))
		text, err := generate.PlainQA(ctx, rt, fit, "the answer")
		if err != nil {
			return err
		}
		return generate.CiteAnswer(ctx, rt, text, generate.PaperCoF)
	}
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return err
	}
	rt.Stagef("asking %s (%s prompt, %d chunks, %s sentences)", cfg.Model, format, len(chosen), humanize.Count(fit.Shown))
	res, err := generate.Run(ctx, rt, generate.Request{
		Question: rt.Question(), Numbering: num, Format: format,
		Resolve: citations.ResolveOptions{MaxCitations: o.Int("max_citations")},
		Repair:  generate.Repair(rt),
	})
	return generate.Settle(ctx, rt, res, err)
}

// setOf is the derivation an answer reads: derive_model's, else the
// model's, in derive_calls's layout.
func setOf(model string, o engine.Values) docstore.DerivedSet {
	if m := o.String("derive_model"); m != "" {
		model = m
	}
	return SetWith(model, layoutOption(o))
}

// ready makes sure every document of the scope has its derived documents
// indexed: deriving what is missing when derive is set (with progress as
// stages; its cost is not the answer's), else failing with
// *NeedsDerivation. Indexing a complete set costs no tokens and is always
// done.
func (v Variant) ready(ctx context.Context, rt *engine.Runtime, set docstore.DerivedSet, derive bool) error {
	lib := rt.Library()
	est, err := Missing(lib, set, rt.IDs())
	if err != nil {
		return err
	}
	if len(est.Docs) > 0 {
		if !derive {
			return &NeedsDerivation{Strategy: v.Name, Estimate: est, Scope: len(rt.Docs()),
				OtherModel: set.Model != rt.Config().Model, Others: others(lib, rt.IDs(), set)}
		}
		need := make([]docstore.DocID, len(est.Docs))
		for i, d := range est.Docs {
			need[i] = d.ID
		}
		rt.Stagef("deriving summaries and questions with %s for %s chunks of %s (about %s calls, %s tokens)…",
			set.Model, humanize.Count(est.Chunks), describeDocs(est.Docs), humanize.Count(est.Calls), humanize.Tokens(est.Tokens()))
		dv := &Deriver{Library: lib, Client: rt.Env().LLM, Model: set.Model, Layout: layoutOf(set)}
		rctx := llm.WithRetryNotify(ctx, func(r llm.Retry) { rt.Stage(engine.RetryStage(r)) })
		rep, err := dv.Derive(rctx, need, ProgressStages(rt))
		rt.Stage(DerivedStage(rep))
		if err != nil {
			return err
		}
	}
	for _, id := range rt.IDs() {
		if err := indexComplete(lib, id, set); err != nil {
			return err
		}
	}
	return nil
}

// indexComplete indexes set's derivation of document id for BM25 when it
// is complete and not indexed yet.
func indexComplete(lib *docstore.Library, id docstore.DocID, set docstore.DerivedSet) error {
	st, err := lib.Derived().Status(id, set)
	if err != nil || !st.Complete() || st.Indexed {
		return err
	}
	return lib.Derived().Index(id, set)
}

// ProgressStages turns derivation progress into stages, at most one a
// second (and the last), for a UI's status line.
func ProgressStages(rt *engine.Runtime) func(Progress) {
	var last time.Time
	return func(p Progress) {
		if p.Done != p.Total && time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		rt.Stagef("deriving: %s/%s chunks (%s), %s tokens so far",
			humanize.Count(p.Done), humanize.Count(p.Total), p.Name, humanize.Tokens(p.Usage.PromptTokens+p.Usage.CompletionTokens))
	}
}

// DerivedStage sums a derivation up in one line: "derived 120 chunks of
// declaration.txt: 120 calls, 61k prompt and 22k completion tokens".
func DerivedStage(rep Report) string {
	s := fmt.Sprintf("derived %s chunks of %s: %s calls, %s prompt and %s completion tokens",
		humanize.Count(rep.Derived), describeDocs(rep.Docs), humanize.Count(rep.Usage.LLMCalls),
		humanize.Tokens(rep.Usage.PromptTokens), humanize.Tokens(rep.Usage.CompletionTokens))
	if rep.Usage.Estimated {
		s += " (estimated)"
	}
	if n := len(rep.Failures); n > 0 {
		pages := make([]int, 0, n)
		for _, f := range rep.Failures {
			pages = append(pages, f.Chunk+1)
		}
		s += fmt.Sprintf("; %d chunks gave unusable replies (chunks %s) and will be retried next time", n, engine.Ranges(pages))
	}
	return s
}

// others lists the models whose derived documents (same chunking and
// prompt) are complete for every one of ids, other than set's.
func others(lib *docstore.Library, ids []docstore.DocID, set docstore.DerivedSet) []string {
	count := map[string]int{}
	for _, id := range ids {
		sets, err := lib.Derived().Sets(id)
		if err != nil {
			return nil
		}
		for _, st := range sets {
			o := st.Set
			if o.Model != set.Model && o.Tokens == set.Tokens && o.Overlap == set.Overlap && o.Version == set.Version && st.Complete() {
				count[o.Model]++
			}
		}
	}
	var out []string
	for m, n := range count {
		if n == len(ids) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// chunkHit is a retrieved chunk of the doc-th document of the scope.
type chunkHit struct {
	doc int
	retrieve.DerivedChunk
}

// ruleOf is the rule of fusion option fuse asks for: auto is the paper's
// one index when there are embeddings to rank by, and rank fusion when
// only BM25 scores are, which are not comparable across kinds.
func ruleOf(fuse string, embeddings bool) retrieve.Rule {
	switch fuse {
	case FuseIndex:
		return retrieve.OneIndex
	case FuseScore:
		return retrieve.MinMax
	case FuseRank:
		return retrieve.RRF
	}
	if embeddings {
		return retrieve.OneIndex
	}
	return retrieve.RRF
}

// retrieve ranks the variant's units by rule through the answer's
// retrieval (by BM25, and by the cosine similarity of their embeddings
// with embed, the embedding model, when not "") and returns the first k
// distinct chunks, best first.
func (v Variant) retrieve(ctx context.Context, rt *engine.Runtime, set docstore.DerivedSet, k int, rule retrieve.Rule, embed string) ([]chunkHit, error) {
	lib := rt.Library()
	units, err := lib.Derived().Units(set, rt.IDs())
	if err != nil {
		return nil, err
	}
	rt.Stage(matchingStage(v.Kinds, units, set.Model, embed, rule))
	cs, err := rt.Retrieval().Derived(ctx, rt.Question(), retrieve.DerivedOptions{
		Set: set, Kinds: v.Kinds, K: k, Pool: k * PoolPerK, Fusion: retrieve.Fusion{Rule: rule},
	})
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, v.nothing()
	}
	out := make([]chunkHit, 0, len(cs))
	for _, c := range cs {
		d, _ := rt.Place(c.Doc)
		out = append(out, chunkHit{doc: d, DerivedChunk: c})
	}
	rt.Stage(describeChunks(rt.Docs(), out))
	rt.Plan(v.plan(lib, set, rule, rt.Docs(), out))
	return out, nil
}

// matchingStage says what the question is matched against: "matching the
// question against 1,204 summaries and 9,632 questions written by
// test-model, and the 1,204 chunks' own text", and how: "by their words
// and by their meaning (embeddings by test-embed)" when embed names a
// model, "by their meaning, in one index (embeddings by test-embed)"
// under the one-index rule.
func matchingStage(kinds []docstore.DerivedKind, units map[docstore.DerivedKind]int, model, embed string, rule retrieve.Rule) string {
	var derived []string
	raw := false
	for _, kd := range kinds {
		if kd == docstore.DerivedRaw {
			raw = true
			continue
		}
		derived = append(derived, countOf(units[kd], kd))
	}
	s := fmt.Sprintf("matching the question against %s written by %s", joinAnd(derived), model)
	if raw {
		s += fmt.Sprintf(", and the %s chunks' own text", humanize.Count(units[docstore.DerivedRaw]))
	}
	switch {
	case embed != "" && rule == retrieve.OneIndex:
		s += fmt.Sprintf(", by their meaning, in one index (embeddings by %s)", embed)
	case embed != "":
		s += fmt.Sprintf(", by their words and by their meaning (embeddings by %s)", embed)
	}
	return s
}

// failedChunks counts the scope's chunks whose derivation under set was
// recorded as failed (the model's reply unreadable twice).
func failedChunks(rt *engine.Runtime, set docstore.DerivedSet) int {
	n := 0
	for _, id := range rt.IDs() {
		if st, err := rt.Library().Derived().Status(id, set); err == nil {
			n += st.Failed
		}
	}
	return n
}

func (v Variant) nothing() error {
	var keys string
	switch {
	case len(v.Kinds) == 1 && v.Kinds[0] == docstore.DerivedSummary:
		keys = "summary"
	case len(v.Kinds) == 1:
		keys = "generated question"
	default:
		keys = "summary, question or chunk"
	}
	return fmt.Errorf("%w: no %s of the documents shares a word with the question; rephrase it, or use raidd-u, which also matches the chunks' own text", engine.ErrNothingRetrieved, keys)
}

// Retrieval is what a RAIDD answer retrieved (the answer's plan), for a UI to explain it: each
// chunk with the derived text (or the raw text) that matched the
// question. The derived text is model output: sanitise before showing.
type Retrieval struct {
	Strategy string              `json:"strategy"`
	Set      docstore.DerivedSet `json:"derived_by"`
	// Fusion is the rule that ranked the units: "one-index", "rrf" (rank
	// fusion) or "minmax" (one collection by score).
	Fusion string           `json:"fusion"`
	Chunks []RetrievedChunk `json:"chunks"`
}

// RetrievedChunk is one retrieved chunk.
type RetrievedChunk struct {
	Doc         docstore.DocID `json:"doc"`
	Chunk       int            `json:"chunk"`
	First, Last int            `json:"-"`
	Sentences   [2]int         `json:"sentences"` // first and last, inclusive
	Page        int            `json:"page"`
	MatchedBy   string         `json:"matched_by"` // "summary", "question" or "raw"
	// ByMeaning says the unit that matched was found by the similarity
	// of its embedding to the question's, not by BM25.
	ByMeaning bool   `json:"by_meaning,omitempty"`
	Key       string `json:"key,omitempty"`
	// Ranks are the chunk's ranks (1 is best) in each kind's BM25
	// ranking, and DenseRanks in each kind's embedding ranking, when
	// rankings were fused; Score is then the fused score.
	Ranks      map[string]int `json:"ranks,omitempty"`
	DenseRanks map[string]int `json:"dense_ranks,omitempty"`
	Score      float64        `json:"score"`
}

// Line is the retrieval in one line (String).
func (r Retrieval) Line() string { return r.String() }

// String sums the retrieval up on one line for a status display, best
// chunk first: "sentences 170-178 (own text #1, questions #4, summaries by
// meaning #2); sentences 12-21 (questions #1: “Where is help on solve?”);
// …". Derived text is made one terminal-safe line.
func (r Retrieval) String() string {
	names := map[string]string{"summary": "summaries", "question": "questions", "raw": "own text"}
	var parts []string
	for _, c := range r.Chunks {
		var how []string
		if len(c.Ranks)+len(c.DenseRanks) == 0 {
			name := names[c.MatchedBy]
			if c.ByMeaning {
				name += " by meaning"
			}
			how = append(how, name)
		}
		for _, k := range []string{"summary", "question", "raw"} {
			if rank, ok := c.Ranks[k]; ok {
				how = append(how, fmt.Sprintf("%s #%d", names[k], rank))
			}
		}
		for _, k := range []string{"summary", "question", "raw"} {
			if rank, ok := c.DenseRanks[k]; ok {
				how = append(how, fmt.Sprintf("%s by meaning #%d", names[k], rank))
			}
		}
		part := fmt.Sprintf("sentences %d-%d (%s", c.First, c.Last, strings.Join(how, ", "))
		if c.Key != "" {
			part += ": “" + textproc.OneLine(c.Key) + "”"
		}
		parts = append(parts, part+")")
	}
	return fmt.Sprintf("%s matched %d chunks: %s", r.Strategy, len(r.Chunks), strings.Join(parts, "; "))
}

func (v Variant) plan(lib *docstore.Library, set docstore.DerivedSet, rule retrieve.Rule, docs []*docstore.Document, chosen []chunkHit) Retrieval {
	p := Retrieval{Strategy: v.Name, Set: set, Fusion: string(rule)}
	for _, c := range chosen {
		d := docs[c.doc]
		pc := RetrievedChunk{Doc: c.Doc, Chunk: c.Chunk, First: c.First, Last: c.Last, Sentences: [2]int{c.First, c.Last},
			Page: int(d.Sentences[c.First].Page), MatchedBy: c.Kind.String(), ByMeaning: c.ByMeaning, Score: c.Score}
		for rk, r := range c.Ranks {
			ranks := &pc.Ranks
			if rk.ByMeaning {
				ranks = &pc.DenseRanks
			}
			if *ranks == nil {
				*ranks = map[string]int{}
			}
			(*ranks)[rk.Kind.String()] = r
		}
		if c.Kind != docstore.DerivedRaw {
			if recs, err := lib.Derived().ChunksAt(c.Doc, set, []int{c.Chunk}); err == nil {
				pc.Key = keyText(recs[0], c.DerivedHit)
			}
		}
		p.Chunks = append(p.Chunks, pc)
	}
	return p
}

// keyText is the derived text a hit stands for.
func keyText(r docstore.DerivedChunk, h docstore.DerivedHit) string {
	switch h.Kind {
	case docstore.DerivedSummary:
		return r.Summary
	case docstore.DerivedQuestion:
		if h.Item < len(r.Questions) {
			return r.Questions[h.Item]
		}
	}
	return ""
}

// countOf writes "1,204 summaries", "1 question", "310 chunks".
func countOf(n int, k docstore.DerivedKind) string {
	one := map[docstore.DerivedKind]string{docstore.DerivedSummary: "summary", docstore.DerivedQuestion: "question", docstore.DerivedRaw: "chunk"}[k]
	return humanize.Plural(n, one, kindNames[k])
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// describeDocs names the documents of a derivation: "declaration.txt",
// "3 documents".
func describeDocs(docs []DocNeed) string {
	if len(docs) == 1 {
		return docs[0].Name
	}
	return fmt.Sprintf("%d documents", len(docs))
}

// describeChunks says what was retrieved and where: "8 chunks (5 by their
// summaries, 3 by their own text) from pages 12-15, 40". Documents of one
// page (text files) are located by sentence numbers instead.
func describeChunks(docs []*docstore.Document, chosen []chunkHit) string {
	by := map[docstore.DerivedKind]int{}
	for _, c := range chosen {
		by[c.Kind]++
	}
	var kinds []string
	for _, k := range []docstore.DerivedKind{docstore.DerivedSummary, docstore.DerivedQuestion, docstore.DerivedRaw} {
		if n := by[k]; n > 0 {
			what := map[docstore.DerivedKind]string{docstore.DerivedSummary: "their summaries", docstore.DerivedQuestion: "their questions", docstore.DerivedRaw: "their own text"}[k]
			kinds = append(kinds, fmt.Sprintf("%d by %s", n, what))
		}
	}
	head := fmt.Sprintf("%d chunks", len(chosen))
	if len(chosen) == 1 {
		head = "1 chunk"
	}
	if len(kinds) > 1 {
		head += " (" + strings.Join(kinds, ", ") + ")"
	}
	var where []string
	for i, d := range docs {
		var pages, sents []int
		for _, c := range chosen {
			if c.doc != i {
				continue
			}
			for s := c.First; s <= c.Last; s++ {
				sents = append(sents, s)
				pages = append(pages, int(d.Sentences[s].Page))
			}
		}
		if len(sents) == 0 {
			continue
		}
		var loc string
		if d.Pages > 1 {
			loc = "pages " + engine.Ranges(pages)
			if ps := dedupe(pages); len(ps) == 1 {
				loc = fmt.Sprintf("page %d", ps[0])
			}
		} else {
			loc = "sentences " + engine.Ranges(sents)
		}
		if len(docs) > 1 {
			loc = docName(d) + " " + loc
		}
		where = append(where, loc)
	}
	return head + " from " + strings.Join(where, "; ")
}

func dedupe(xs []int) []int {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return slices.Compact(xs)
}
