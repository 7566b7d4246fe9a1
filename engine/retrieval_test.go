package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

const declaration = "../testdata/declaration.txt"

// modelConfig is srv's configuration with the embedding model and the
// rerank model named ("" for none), embedding 16 texts a request.
func modelConfig(srv *llmtest.Server, embed, rerank string) config.Config {
	cfg := enginetest.Config(srv)
	cfg.EmbedModel, cfg.EmbedBatch, cfg.RerankModel = embed, 16, rerank
	return cfg
}

// rankIn answers question in env with a strategy that ranks the scope's
// sentences twice through its retrieval (as CoF ranks for each of its
// sentences), returning the passages of the first ranking.
func rankIn(t *testing.T, env *engine.Env, question string, rank func(context.Context, *engine.Retrieval) ([]retrieve.Passage, error)) ([]retrieve.Passage, *engine.Answer, *enginetest.Events) {
	t.Helper()
	var ps []retrieve.Passage
	var ev enginetest.Events
	ans, err := enginetest.Answer(t.Context(), env, question, func(ctx context.Context, rt *engine.Runtime) error {
		var err error
		if ps, err = rank(ctx, rt.Retrieval()); err != nil {
			return err
		}
		_, err = rank(ctx, rt.Retrieval())
		return err
	}, ev.Emit)
	if err != nil {
		t.Fatal(err)
	}
	return ps, ans, &ev
}

func sentences(q string) func(context.Context, *engine.Retrieval) ([]retrieve.Passage, error) {
	return func(ctx context.Context, r *engine.Retrieval) ([]retrieve.Passage, error) {
		return r.Sentences(ctx, q, retrieve.Options{K: 3})
	}
}

// TestRetrievalEmbedsOnce: the first answer embeds the scope's sentences
// once, with stages and the cost in its usage, and ranks by meaning too;
// the next answer embeds only its question; chunks are a level of their
// own.
func TestRetrievalEmbedsOnce(t *testing.T) {
	lib, docs := enginetest.Library(t, declaration)
	d := docs[0]
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, llmtest.DefaultEmbedModel, ""))
	const q = "the consent of the governed"
	ps, ans, ev := rankIn(t, env, q, sentences(q))
	texts := srv.EmbeddedTexts()
	if len(texts) != len(d.Sentences)+1 || texts[len(texts)-1] != q {
		t.Fatalf("embedded %d texts; want the %d sentences, then the question once", len(texts), len(d.Sentences))
	}
	if !ev.HasStage(fmt.Sprintf("embedding 0/%d sentences of declaration.txt with test-embed", len(d.Sentences))) ||
		!ev.HasStage("ranking by words and by meaning (test-embed)") || len(ans.Warnings) != 0 {
		t.Errorf("stages %q, warnings %q", ev.Stages, ans.Warnings)
	}
	calls := 0
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			calls++
		}
	}
	if ans.Usage.LLMCalls != calls || ans.Usage.PromptTokens == 0 {
		t.Errorf("usage %+v for %d embedding requests", ans.Usage, calls)
	}
	if len(ps) == 0 || ps[0].Scores.Dense == 0 || !strings.Contains(ps[0].Text, q) {
		t.Errorf("passages %+v", ps)
	}

	before := len(texts)
	_, _, ev = rankIn(t, env, "taxes without consent", sentences("taxes without consent"))
	if got := srv.EmbeddedTexts()[before:]; !slices.Equal(got, []string{"taxes without consent"}) {
		t.Errorf("the second answer embedded %q", got)
	}
	if ev.HasStage("embedding ") {
		t.Errorf("the second answer reports embedding: %q", ev.Stages)
	}

	before = len(srv.EmbeddedTexts())
	rankIn(t, env, q, func(ctx context.Context, r *engine.Retrieval) ([]retrieve.Passage, error) {
		return r.Chunks(ctx, q, retrieve.Options{K: 2})
	})
	if got := srv.EmbeddedTexts()[before:]; len(got) != len(d.Chunks)+1 || got[len(got)-1] != q {
		t.Errorf("a chunk ranking embedded %d texts; want the %d chunks and the question", len(got), len(d.Chunks))
	}
}

// TestRetrievalWithoutModels: no embedding model and no reranker, no
// request and no stage about them; ranking by words.
func TestRetrievalWithoutModels(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, "", ""))
	ps, ans, ev := rankIn(t, env, "consent of the governed", sentences("consent of the governed"))
	if len(srv.Requests()) != 0 || len(ps) == 0 || ps[0].Scores.Dense != 0 || ev.HasStage("ranking by") || ans.Usage.LLMCalls != 0 {
		t.Errorf("%d requests, stages %q, passages %+v", len(srv.Requests()), ev.Stages, ps)
	}
	offline, _, _ := rankIn(t, &engine.Env{Library: lib, Config: config.Default()}, "consent of the governed", sentences("consent of the governed"))
	if len(offline) != len(ps) || offline[0].First != ps[0].First {
		t.Errorf("offline %+v, with an endpoint but no models %+v", offline, ps)
	}
}

// TestRetrievalEmbeddingFails: an embedding model the server does not
// serve: one warning says dense retrieval is off and why, and every
// ranking of the answer is by words, as without the model.
func TestRetrievalEmbeddingFails(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, "no-such-embedder", ""))
	ps, ans, _ := rankIn(t, env, "consent of the governed", sentences("consent of the governed"))
	words, _, _ := rankIn(t, engine.NewEnv(lib, config.Default()), "consent of the governed", sentences("consent of the governed"))
	if len(ans.Warnings) != 1 || !strings.HasPrefix(ans.Warnings[0], "dense retrieval is off for this answer (") ||
		!strings.Contains(ans.Warnings[0], "no-such-embedder") || !strings.HasSuffix(ans.Warnings[0], "; ranking by words only") {
		t.Errorf("warnings %q", ans.Warnings)
	}
	if len(ps) != len(words) || ps[0].First != words[0].First || ps[0].Scores.Dense != 0 {
		t.Errorf("passages %+v; by words %+v", ps, words)
	}
	if n := len(srv.EmbeddedTexts()); n == 0 || n > 16 {
		t.Errorf("%d texts sent; want one failed batch, not one a ranking", n)
	}
}

// TestRetrievalQueryEmbeddingFails: the scope is embedded, but embedding
// the question fails: the ranking runs again by words, with the warning.
func TestRetrievalQueryEmbeddingFails(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, llmtest.DefaultEmbedModel, ""), llm.WithMaxRetries(0))
	rankIn(t, env, "consent", sentences("consent"))
	srv.EnqueueEmbeddings(llmtest.Status(http.StatusBadRequest))
	ps, ans, _ := rankIn(t, env, "consent of the governed", sentences("consent of the governed"))
	if len(ans.Warnings) != 1 || !strings.Contains(ans.Warnings[0], "dense retrieval is off for this answer") || len(ps) == 0 || ps[0].Scores.Dense != 0 {
		t.Errorf("warnings %q, passages %+v", ans.Warnings, ps)
	}
}

// TestRetrievalReranker: a configured reranker reorders every ranking's
// best candidates (one /v1/rerank request each); when it fails, one
// warning says so, the fused order stands and it is not asked again in
// that answer.
func TestRetrievalReranker(t *testing.T) {
	lib, _ := enginetest.Library(t, declaration)
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, "", llmtest.DefaultRerankModel), llm.WithMaxRetries(0))
	const q = "consent of the governed"
	ps, ans, ev := rankIn(t, env, q, sentences(q))
	if n := len(srv.RerankRequests()); n != 2 || ps[0].Scores.Rerank == 0 || !ev.HasStage("ranking by words, reordered by test-rerank") || len(ans.Warnings) != 0 {
		t.Errorf("%d rerank requests for two rankings; passages %+v; stages %q", n, ps, ev.Stages)
	}
	before := len(srv.RerankRequests())
	srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Status(http.StatusInternalServerError)})
	ps, ans, _ = rankIn(t, env, q, sentences(q))
	if len(srv.RerankRequests())-before != 1 {
		t.Errorf("%d rerank requests after a failure; want the failed one only", len(srv.RerankRequests())-before)
	}
	if len(ans.Warnings) != 1 || !strings.HasPrefix(ans.Warnings[0], "the reranker failed (") || len(ps) == 0 || ps[0].Scores.Rerank != 0 {
		t.Errorf("warnings %q, passages %+v", ans.Warnings, ps)
	}
}

// TestRetrievalDerived: a derivation's units are embedded for the kinds a
// ranking asks for only, with stages and usage; without an embedding
// model nothing is.
func TestRetrievalDerived(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.Library(t, declaration)
	set := librarytest.Derive(t, lib, docs[0])
	srv := llmtest.New(t)
	kinds := []docstore.DerivedKind{docstore.DerivedQuestion}
	var ev enginetest.Events
	ask := func(env *engine.Env) (embed, why string) {
		_, err := enginetest.Answer(t.Context(), env, "What opens part 3?", func(ctx context.Context, rt *engine.Runtime) error {
			var err error
			if embed, why, err = rt.Retrieval().DenseDerived(ctx, set, kinds); err != nil {
				return err
			}
			cs, err := rt.Retrieval().Derived(ctx, rt.Question(), retrieve.DerivedOptions{Set: set, Kinds: kinds, K: 2,
				Fusion: retrieve.Fusion{Rule: retrieve.OneIndex}})
			if err == nil && (len(cs) == 0 || cs[0].Chunk != 3 || cs[0].ByMeaning != (embed != "")) {
				err = fmt.Errorf("ranked %+v", cs)
			}
			return err
		}, ev.Emit)
		if err != nil {
			t.Fatal(err)
		}
		return embed, why
	}
	if embed, why := ask(enginetest.Env(t, lib, modelConfig(srv, "", ""))); embed != "" || why != "no embedding model configured" || len(srv.Requests()) != 0 {
		t.Fatalf("without an embedding model: %q %q, %d requests", embed, why, len(srv.Requests()))
	}
	if embed, _ := ask(enginetest.Env(t, lib, modelConfig(srv, llmtest.DefaultEmbedModel, ""))); embed != llmtest.DefaultEmbedModel {
		t.Fatalf("with one: %q", embed)
	}
	if !ev.HasStage(" questions of declaration.txt with test-embed") || ev.Calls() == 0 {
		t.Errorf("stages %q, %d calls reported", ev.Stages, ev.Calls())
	}
	if gaps, _, _ := lib.Vectors().Gaps(docstore.DerivedVectorKey(docs[0].ID, llmtest.DefaultEmbedModel, set, docstore.DerivedSummary)); len(gaps) != 1 {
		t.Errorf("summaries embedded though only questions were asked for: gaps %v", gaps)
	}
	if gaps, _, _ := lib.Vectors().Gaps(docstore.DerivedVectorKey(docs[0].ID, llmtest.DefaultEmbedModel, set, docstore.DerivedQuestion)); len(gaps) != 0 {
		t.Errorf("questions not all embedded: gaps %v", gaps)
	}
}

// reporter records what a retrieval outside an answer reports.
type reporter struct {
	stages, warnings []string
	usage            llm.Usage
}

func (r *reporter) Stage(s string)    { r.stages = append(r.stages, s) }
func (r *reporter) Warn(s string)     { r.warnings = append(r.warnings, s) }
func (r *reporter) Usage(u llm.Usage) { r.usage.Add(u) }

// TestNewRetrieval: a front end's retrieval outside an answer (a search
// tool) ranks every document with the same models, reporting to it.
func TestNewRetrieval(t *testing.T) {
	t.Parallel()
	lib, _ := enginetest.Library(t, declaration, enginetest.WriteFile(t, "other.txt", "The river rose after the rains. The mill stood by the river."))
	srv := llmtest.New(t)
	env := enginetest.Env(t, lib, modelConfig(srv, llmtest.DefaultEmbedModel, llmtest.DefaultRerankModel))
	rep := &reporter{}
	r := engine.NewRetrieval(env, nil, rep)
	ps, err := r.Sentences(t.Context(), "where did the mill stand", retrieve.Options{K: 2})
	if err != nil || len(ps) == 0 || !strings.Contains(ps[0].Text, "mill") || ps[0].Scores.Dense == 0 || ps[0].Scores.Rerank == 0 {
		t.Fatalf("passages %+v, %v", ps, err)
	}
	if embed, rerank := r.Models(); embed != llmtest.DefaultEmbedModel || rerank != llmtest.DefaultRerankModel {
		t.Errorf("models %q %q", embed, rerank)
	}
	if rep.usage.LLMCalls == 0 || len(rep.stages) == 0 || len(rep.warnings) != 0 {
		t.Errorf("reported %+v", rep)
	}
}
