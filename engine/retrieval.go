package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/rerank"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/textproc"
)

// Retrieval is an answer's retrieval, which the runtime owns as it owns
// the model (Runtime.Retrieval): every strategy ranks its units — the
// scope's sentences, chunks, windows or derived units — through it, and
// it applies one policy for the models retrieval can use, so a
// configured embedding model and reranker serve every strategy alike:
//
//   - With an embedding model (embed_model), what the scope lacks at the
//     level asked for is embedded first, once per answer and kept in the
//     library (stages say how far it is, its cost is the answer's usage),
//     and dense search proposes candidates of its own, fused with BM25's
//     by the rule the strategy names (retrieve.Fusion.Rule: reciprocal
//     rank unless its paper fixes another).
//   - With a rerank model (rerank_model), the best rerank_top fused
//     candidates are reordered by it.
//   - When embedding fails, the answer says so once in a warning and
//     ranks by words for the rest of the answer; when the reranker fails,
//     a warning says so once, the fused order stands and the reranker is
//     not asked again for this answer. Only cancellation is an error.
//
// The strategy says what to rank and, when its paper fixes it, the rule
// of fusion (and retrieve.Words for ranking by words alone); the runtime
// supplies the models. Options.Docs defaults to the answer's scope.
//
// A front end that ranks outside an answer (a search tool) makes its own
// with NewRetrieval and gets the same models and policy.
//
// A Retrieval is safe for concurrent use.
type Retrieval struct {
	lib   *docstore.Library
	scope []docstore.DocID
	rep   Reporter
	r     *retrieve.Retriever

	// setup serialises embedding what the scope lacks.
	setup sync.Mutex

	mu sync.Mutex
	// scorer is the embedding model's, nil without one; denseOff says
	// why dense retrieval is off for the rest of the answer once it
	// failed.
	scorer   *dense.Scorer
	denseOff string
	ensured  map[docstore.Level]bool
	derived  map[derivedKey]bool
	healed   bool
	// announced is set once a ranking with a model was announced.
	announced bool
	reranker  *rerank.Reranker
	// rerankOff is set once the reranker failed.
	rerankOff bool
}

// derivedKey names derived units embedded for an answer.
type derivedKey struct {
	set  docstore.DerivedSet
	kind docstore.DerivedKind
}

// Retrieval is the answer's retrieval (see Retrieval), over its scope,
// reporting to the answer.
func (rt *Runtime) Retrieval() *Retrieval {
	rt.retrievalOnce.Do(func() { rt.retrieval = NewRetrieval(rt.env, rt.Scope(), rt) })
	return rt.retrieval
}

// NewRetrieval is a retrieval over env's library with env's models, for
// scope (every document when empty), telling rep what it does (embedding
// progress as stages, its cost as usage, a model's failure as a warning).
// Strategies use their answer's (Runtime.Retrieval).
func NewRetrieval(env *Env, scope []docstore.DocID, rep Reporter) *Retrieval {
	r := &Retrieval{lib: env.Library, scope: scope, rep: rep, r: retrieve.New(env.Library),
		ensured: map[docstore.Level]bool{}, derived: map[derivedKey]bool{}}
	if c := env.LLM; c != nil {
		if rr := rerank.New(c, c.Config()); rr.Enabled() {
			r.reranker = rr
		}
		if s, err := dense.New(env.Library, c); err == nil {
			s.OnUsage = rep.Usage
			r.scorer = s
		}
	}
	return r
}

// ids is the scope: every document of the library when it is empty.
func (r *Retrieval) ids() ([]docstore.DocID, error) {
	if len(r.scope) > 0 {
		return r.scope, nil
	}
	infos, err := r.lib.List()
	if err != nil {
		return nil, err
	}
	ids := make([]docstore.DocID, len(infos))
	for i, in := range infos {
		ids[i] = in.ID
	}
	return ids, nil
}

// EmbedModel is the embedding model the environment's retrieval uses, ""
// when none is configured.
func (e *Env) EmbedModel() string {
	if e == nil || e.Library == nil || e.LLM == nil {
		return ""
	}
	return e.LLM.Config().EmbedModel
}

// Sentences ranks the scope's sentences against question
// (retrieve.Retriever.Sentences) with the answer's models.
func (r *Retrieval) Sentences(ctx context.Context, question string, opt retrieve.Options) ([]retrieve.Passage, error) {
	return r.passages(ctx, docstore.SentenceLevel, &opt, func() ([]retrieve.Passage, error) {
		return r.r.Sentences(ctx, question, opt)
	})
}

// Chunks ranks the scope's stored chunks against question
// (retrieve.Retriever.Chunks) with the answer's models.
func (r *Retrieval) Chunks(ctx context.Context, question string, opt retrieve.Options) ([]retrieve.Passage, error) {
	return r.passages(ctx, docstore.ChunkLevel, &opt, func() ([]retrieve.Passage, error) {
		return r.r.Chunks(ctx, question, opt)
	})
}

// Windows ranks windows of the scope's sentences against question
// (retrieve.Retriever.Windows) with the answer's models; a window's
// meaning is its sentences'.
func (r *Retrieval) Windows(ctx context.Context, question string, w retrieve.Windowing, opt retrieve.Options) ([]retrieve.Passage, error) {
	return r.passages(ctx, docstore.SentenceLevel, &opt, func() ([]retrieve.Passage, error) {
		return r.r.Windows(ctx, question, w, opt)
	})
}

// passages runs one ranking of passages at level: the models added to
// opt's fusion, and the ranking again by words if dense scoring fails.
func (r *Retrieval) passages(ctx context.Context, level docstore.Level, opt *retrieve.Options, rank func() ([]retrieve.Passage, error)) ([]retrieve.Passage, error) {
	if len(opt.Docs) == 0 {
		opt.Docs = r.scope
	}
	if err := r.equip(ctx, &opt.Fusion, opt.K, func(ctx context.Context) error { return r.ensure(ctx, level) }); err != nil {
		return nil, err
	}
	ps, err := rank()
	if r.fallBack(ctx, err, &opt.Fusion) {
		ps, err = rank()
	}
	return ps, err
}

// Derived ranks the units of opt.Kinds of the scope's derivation opt.Set
// against question and returns the chunks behind the best
// (retrieve.Retriever.Derived), with the answer's models: the units are
// embedded first if they are not yet. Stored vectors that no longer fit
// the model's (the model behind the name changed) are embedded again,
// once.
func (r *Retrieval) Derived(ctx context.Context, question string, opt retrieve.DerivedOptions) ([]retrieve.DerivedChunk, error) {
	if len(opt.Docs) == 0 {
		var err error
		if opt.Docs, err = r.ids(); err != nil {
			return nil, err
		}
	}
	ensure := func(ctx context.Context) error { return r.ensureDerived(ctx, opt.Docs, opt.Set, opt.Kinds) }
	if err := r.equip(ctx, &opt.Fusion, opt.K, ensure); err != nil {
		return nil, err
	}
	cs, err := r.r.Derived(ctx, question, opt)
	if errors.Is(err, docstore.ErrBadVectors) && r.heal() && ctx.Err() == nil {
		if err = r.reembedDerived(ctx, opt); err == nil {
			cs, err = r.r.Derived(ctx, question, opt)
		}
	}
	if r.fallBack(ctx, err, &opt.Fusion) {
		cs, err = r.r.Derived(ctx, question, opt)
	}
	return cs, err
}

// Dense makes dense retrieval ready at level (embedding what the scope
// lacks) and returns the embedding model it will use, or "" and why
// there is none: no embedding model configured, or embedding failed (a
// warning then says so). The error is only ever a cancellation.
func (r *Retrieval) Dense(ctx context.Context, level docstore.Level) (model, why string, err error) {
	return r.ready(ctx, func(ctx context.Context) error { return r.ensure(ctx, level) })
}

// DenseDerived is Dense for the units of kinds of set's derivation of the
// scope.
func (r *Retrieval) DenseDerived(ctx context.Context, set docstore.DerivedSet, kinds []docstore.DerivedKind) (model, why string, err error) {
	return r.ready(ctx, func(ctx context.Context) error {
		ids, err := r.ids()
		if err != nil {
			return err
		}
		return r.ensureDerived(ctx, ids, set, kinds)
	})
}

func (r *Retrieval) ready(ctx context.Context, ensure func(context.Context) error) (model, why string, err error) {
	f := retrieve.Fusion{Rule: ready}
	if err := r.equip(ctx, &f, 0, ensure); err != nil {
		return "", "", err
	}
	if f.Dense != nil {
		return r.scorer.Model(), "", nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.denseOff != "" {
		return "", "embedding failed: " + r.denseOff, nil
	}
	return "", "no embedding model configured", nil
}

// Prime makes dense retrieval ready at level (Dense) and embeds queries
// in one call ahead of the rankings that will use them (CoF retrieves
// for every sentence of its draft). A failure turns dense retrieval off
// as any other does; the error is only ever a cancellation.
func (r *Retrieval) Prime(ctx context.Context, level docstore.Level, queries []string) error {
	if model, _, err := r.Dense(ctx, level); model == "" {
		return err
	}
	s := r.denseScorer()
	if s == nil {
		return nil
	}
	err := s.Prime(ctx, queries)
	if err != nil && (Canceled(err) || ctx.Err() != nil) {
		return err
	}
	if err != nil {
		r.off(err)
	}
	return nil
}

// Models are the embedding model and the rerank model retrieval uses
// now, "" for one not configured or turned off by a failure earlier in
// the answer (so, after a ranking, what that ranking used).
func (r *Retrieval) Models() (embed, rerank string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scorer != nil && r.denseOff == "" {
		embed = r.scorer.Model()
	}
	if !r.rerankOff {
		rerank = r.reranker.Model()
	}
	return embed, rerank
}

// equip adds the answer's models to f: the reranker, and the dense scorer
// once ensure has embedded what the ranking needs. Ranking by words
// alone (retrieve.Words) gets neither. The error is only ever a
// cancellation; any other failure turns dense retrieval off.
func (r *Retrieval) equip(ctx context.Context, f *retrieve.Fusion, k int, ensure func(context.Context) error) error {
	if f.Rule == retrieve.Words {
		return nil
	}
	if f.Rule != ready {
		defer r.announce(f)
	}
	r.mu.Lock()
	if r.reranker != nil && !r.rerankOff {
		f.Rerank, f.Warn = r.reranker, r.rerankFailed
		if f.RerankTop == 0 {
			f.RerankTop = r.reranker.Top()
		}
	}
	r.mu.Unlock()
	s := r.denseScorer()
	if s == nil {
		return nil
	}
	if err := ensure(ctx); err != nil {
		if Canceled(err) || ctx.Err() != nil {
			return err
		}
		r.off(err)
		return nil
	}
	if s = r.denseScorer(); s == nil {
		return nil
	}
	f.Dense = s
	if f.Top == 0 {
		f.Top = max(dense.DefaultTop, k)
	}
	if f.LexicalWeight == 0 && f.DenseWeight == 0 {
		f.LexicalWeight, f.DenseWeight = dense.DefaultLexicalWeight, dense.DefaultDenseWeight
	}
	return nil
}

// ready marks the fusion equip prepares for Dense and DenseDerived, which
// rank nothing and so announce nothing.
const ready retrieve.Rule = "ready"

// announce says once, as a stage, which models the first ranking that
// uses any was given: "ranking by words and by meaning (test-embed),
// reordered by test-rerank", or "ranking by meaning (…)" under one index
// or dense similarity alone.
func (r *Retrieval) announce(f *retrieve.Fusion) {
	if f.Dense == nil && f.Rerank == nil {
		return
	}
	r.mu.Lock()
	first := !r.announced
	r.announced = true
	r.mu.Unlock()
	if !first {
		return
	}
	s := "ranking by words"
	switch {
	case f.Dense != nil && (f.DenseOnly || f.Rule == retrieve.OneIndex):
		s = "ranking by meaning (" + r.scorer.Model() + ")"
	case f.Dense != nil:
		s += " and by meaning (" + r.scorer.Model() + ")"
	}
	if f.Rerank != nil {
		s += ", reordered by " + r.reranker.Model()
	}
	r.rep.Stage(s)
}

// fallBack reports whether a ranking that failed with err should run
// again by words: dense scoring failed (and the answer was not
// cancelled). It turns dense retrieval off and takes it out of f.
func (r *Retrieval) fallBack(ctx context.Context, err error, f *retrieve.Fusion) bool {
	if !errors.Is(err, retrieve.ErrDense) || Canceled(err) || ctx.Err() != nil {
		return false
	}
	r.off(err)
	f.Dense, f.DenseOnly = nil, false
	return true
}

// denseScorer is the scorer while dense retrieval is on, else nil.
func (r *Retrieval) denseScorer() *dense.Scorer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.denseOff != "" {
		return nil
	}
	return r.scorer
}

// off turns dense retrieval off for the rest of the answer, saying why
// once.
func (r *Retrieval) off(err error) {
	why := textproc.OneLine(err.Error())
	r.mu.Lock()
	first := r.denseOff == ""
	if first {
		r.denseOff = why
	}
	r.mu.Unlock()
	if first {
		r.rep.Warn(fmt.Sprintf("dense retrieval is off for this answer (%s); ranking by words only", why))
	}
}

// rerankFailed is the reranker's Warn: the first failure is said once and
// the reranker is not asked again for this answer.
func (r *Retrieval) rerankFailed(msg string) {
	r.mu.Lock()
	first := !r.rerankOff
	r.rerankOff = true
	r.mu.Unlock()
	if first {
		r.rep.Warn(msg)
	}
}

// heal reports whether stored derived vectors that do not fit may be
// embedded again: once an answer.
func (r *Retrieval) heal() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := !r.healed
	r.healed = true
	return first && r.scorer != nil
}

// ensure embeds what the scope lacks at level, once an answer.
func (r *Retrieval) ensure(ctx context.Context, level docstore.Level) error {
	r.setup.Lock()
	defer r.setup.Unlock()
	r.mu.Lock()
	done := r.ensured[level]
	r.mu.Unlock()
	if done {
		return nil
	}
	if !r.scorer.Stores() {
		// Nothing embedded could be kept: the candidates each ranking
		// gives are embedded instead (ScoreDense), not the whole scope.
		r.rep.Stage(fmt.Sprintf("the library is open for reading only: %s embeds each question's candidates, and keeps none", r.scorer.Model()))
		r.mu.Lock()
		r.ensured[level] = true
		r.mu.Unlock()
		return nil
	}
	ids, err := r.ids()
	if err != nil {
		return err
	}
	u, err := r.scorer.Ensure(ctx, ids, []docstore.Level{level}, r.stages())
	r.rep.Usage(u)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.ensured[level] = true
	r.mu.Unlock()
	return nil
}

// ensureDerived embeds the units of kinds of set's derivation of docs
// that are not embedded yet, once an answer.
func (r *Retrieval) ensureDerived(ctx context.Context, docs []docstore.DocID, set docstore.DerivedSet, kinds []docstore.DerivedKind) error {
	r.setup.Lock()
	defer r.setup.Unlock()
	var todo []docstore.DerivedKind
	r.mu.Lock()
	for _, k := range kinds {
		if !r.derived[derivedKey{set, k}] {
			todo = append(todo, k)
		}
	}
	r.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	rep, err := r.scorer.EnsureDerived(ctx, docs, set, todo, r.stages())
	r.rep.Usage(rep.Usage)
	if err != nil {
		return err
	}
	r.mu.Lock()
	for _, k := range todo {
		r.derived[derivedKey{set, k}] = true
	}
	r.mu.Unlock()
	return nil
}

// reembedDerived embeds opt's derived units again after their stored
// vectors were found not to fit the model's.
func (r *Retrieval) reembedDerived(ctx context.Context, opt retrieve.DerivedOptions) error {
	s := r.denseScorer()
	if s == nil {
		return nil
	}
	r.rep.Stage(fmt.Sprintf("the stored embeddings of the derived documents do not fit %s's question embedding (the model changed): embedding them again", s.Model()))
	for _, id := range opt.Docs {
		if err := r.lib.Derived().RemoveVectors(id, opt.Set, s.Model()); err != nil {
			return err
		}
	}
	r.mu.Lock()
	for _, k := range opt.Kinds {
		delete(r.derived, derivedKey{opt.Set, k})
	}
	r.mu.Unlock()
	return r.ensureDerived(ctx, opt.Docs, opt.Set, opt.Kinds)
}

// stages turns embedding progress into the answer's stages (see
// EmbeddingStages).
func (r *Retrieval) stages() func(dense.Progress) {
	return EmbeddingStages(r.rep.Stage, r.scorer.Model())
}

// EmbeddingStages turns embedding progress into stages ("embedding
// 12,000/150,000 sentences of manual.pdf with text-embedding-3-small
// (once; kept in the library)") for stage, at most one a second besides
// each document's first and last.
func EmbeddingStages(stage func(string), model string) func(dense.Progress) {
	var last time.Time
	return func(p dense.Progress) {
		if now := time.Now(); p.Done == 0 || p.Done == p.Total || now.Sub(last) >= time.Second {
			last = now
			stage(dense.StageText(p, model))
		}
	}
}
