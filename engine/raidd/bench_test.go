package raidd

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/dense"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/llm/llmtest"
)

// fullRef is R's reference manual (Debian's r-doc-pdf): 2,400 pages, about
// a million tokens.
const fullRef = "/usr/share/R/doc/manual/fullrefman.pdf"

// BenchmarkFullrefman derives fullrefman with the scripted model (so what
// is timed is citelens's own work: prompts, parsing, batched commits), then
// times the index build and each variant's retrieval of a question's 8
// chunks, by BM25, then with every unit embedded, by BM25 and cosine.
// go test -run XXX -bench Fullrefman -benchtime 20x ./engine/raidd
func BenchmarkFullrefman(b *testing.B) {
	if _, err := os.Stat(fullRef); err != nil {
		b.Skip(fullRef + " (Debian's r-doc-pdf) is not installed")
	}
	lib, added := enginetest.Library(b, fullRef)
	info := added[0]
	before := fileSize(b, lib.Path())
	est, err := Missing(lib, SetFor(llmtest.DefaultModel), []docstore.DocID{info.ID})
	if err != nil {
		b.Fatal(err)
	}
	m := newModel()
	srv := llmtest.New(b, llmtest.WithResponder(m.respond))
	env := enginetest.Env(b, lib, enginetest.Config(srv))
	start := time.Now()
	rep, err := (&Deriver{Library: lib, Client: env.LLM}).Derive(context.Background(), []docstore.DocID{info.ID}, nil)
	if err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	st, _ := lib.Derived().Status(info.ID, SetFor(llmtest.DefaultModel))
	b.Logf("derived %d chunks (%d questions) in %s against an instant scripted model: %.0f chunks/s; %d prompt + %d completion tokens",
		rep.Derived, st.Questions, el.Round(time.Millisecond), float64(rep.Derived)/el.Seconds(), rep.Usage.PromptTokens, rep.Usage.CompletionTokens)
	b.Logf("estimated beforehand: %d calls, %d prompt + %d completion tokens", est.Calls, est.PromptTokens, est.CompletionTokens)
	b.Logf("the library grew from %.1f MB to %.1f MB", float64(before)/1e6, float64(fileSize(b, lib.Path()))/1e6)

	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			if err := lib.Derived().Index(info.ID, SetFor(llmtest.DefaultModel)); err != nil {
				b.Fatal(err)
			}
		}
	})
	const question = "How do I fit a generalized linear model with a binomial family and a logit link?"
	set := SetFor(llmtest.DefaultModel)
	for _, v := range Variants {
		s := v
		inAnswer(b, env, question, func(ctx context.Context, rt *engine.Runtime) {
			b.Run("retrieve/"+v.Name, func(b *testing.B) {
				for b.Loop() {
					if _, err := s.retrieve(ctx, rt, set, DefaultK, retrieve.RRF, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}

	// Dense: every unit embedded at 768 dimensions (llmtest's hashed
	// vectors; what is timed is citelens's batching and storing), then
	// each variant's retrieval by words and meaning, the question's
	// embedding made once beforehand.
	esrv := llmtest.New(b, llmtest.WithResponder(m.respond), llmtest.WithEmbeddingDim(768))
	ecfg := enginetest.Config(esrv)
	ecfg.EmbedModel = llmtest.DefaultEmbedModel
	eenv := enginetest.Env(b, lib, ecfg)
	sc, err := dense.New(lib, eenv.LLM)
	if err != nil {
		b.Fatal(err)
	}
	before = fileSize(b, lib.Path())
	start = time.Now()
	erep, err := sc.EnsureDerived(context.Background(), []docstore.DocID{info.ID}, SetFor(llmtest.DefaultModel), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	el = time.Since(start)
	b.Logf("%s in %s (%.0f units/s against an instant scripted endpoint); the library grew from %.1f MB to %.1f MB",
		erep, el.Round(time.Millisecond), float64(erep.EmbeddedTotal())/el.Seconds(), float64(before)/1e6, float64(fileSize(b, lib.Path()))/1e6)
	for _, v := range Variants {
		s := v
		inAnswer(b, eenv, question, func(ctx context.Context, rt *engine.Runtime) {
			embed, why, err := rt.Retrieval().DenseDerived(ctx, set, s.Kinds)
			if err != nil || embed == "" {
				b.Fatal("no ranking by meaning: ", why, err)
			}
			for _, rule := range []retrieve.Rule{retrieve.RRF, retrieve.OneIndex} {
				b.Run("retrieve+dense/"+string(rule)+"/"+v.Name, func(b *testing.B) {
					for b.Loop() {
						if _, err := s.retrieve(ctx, rt, set, DefaultK, rule, embed); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// inAnswer runs fn inside an answer to question over env's library.
func inAnswer(b *testing.B, env *engine.Env, question string, fn func(context.Context, *engine.Runtime)) {
	b.Helper()
	_, err := engine.Run(b.Context(), env, engine.Define("bench", options, func(ctx context.Context, rt *engine.Runtime) error {
		fn(ctx, rt)
		return nil
	}), engine.Request{Question: question}, nil)
	if err != nil {
		b.Fatal(err)
	}
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
