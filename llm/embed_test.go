package llm_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

func TestEmbedInBatches(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithEmbeddingDim(64))
	cfg := testConfig(srv.URL)
	cfg.EmbedBatch = 3
	c, _ := newClient(t, cfg)
	texts := []string{"alpha beta", "gamma", "  ", "delta epsilon", "zeta", "eta", "theta", "iota"}
	vecs, u, err := c.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || vecs[2] != nil {
		t.Fatalf("%d vectors; blank text got %v", len(vecs), vecs[2])
	}
	for i, v := range vecs {
		if i != 2 && !slices.Equal(v, llmtest.Embed(texts[i], 64)) {
			t.Fatalf("vector %d is not the server's vector for %q", i, texts[i])
		}
	}
	var batches [][]string
	for _, r := range srv.Requests() {
		if r.Embed != nil {
			batches = append(batches, r.Embed.Input)
			if r.Embed.Model != llmtest.DefaultEmbedModel {
				t.Fatal(r.Embed.Model)
			}
		}
	}
	want := [][]string{{"alpha beta", "gamma"}, {"delta epsilon", "zeta", "eta"}, {"theta", "iota"}}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches %q, want %q", batches, want)
	}
	if u.LLMCalls != 3 || u.PromptTokens == 0 || u.Estimated {
		t.Fatalf("usage %+v", u)
	}
}

func TestEmbedEachStopsOnCallbackError(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := testConfig(srv.URL)
	cfg.EmbedBatch = 2
	c, _ := newClient(t, cfg)
	stop := errors.New("disk full")
	var starts []int
	_, err := c.EmbedEach(t.Context(), []string{"a1", "b2", "c3", "d4", "e5"}, func(start int, vecs [][]float32) error {
		starts = append(starts, start)
		if start == 2 {
			return stop
		}
		return nil
	})
	if err != stop || !slices.Equal(starts, []int{0, 2}) {
		t.Fatalf("err %v starts %v", err, starts)
	}
}

func TestEmbedRetries(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.EnqueueEmbeddings(llmtest.Status(502), llmtest.RateLimited("2"))
	c, sl := newClient(t, testConfig(srv.URL))
	var notes []llm.Retry
	ctx := llm.WithRetryNotify(t.Context(), func(r llm.Retry) { notes = append(notes, r) })
	vecs, _, err := c.Embed(ctx, []string{"hello world"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) != llmtest.DefaultDim {
		t.Fatal(err)
	}
	if w := sl.all(); len(w) != 2 || w[1].Seconds() != 2 {
		t.Fatalf("waits %v", w)
	}
	if len(notes) != 2 || notes[0].Op != "embeddings" {
		t.Fatalf("notes %+v", notes)
	}
}

func TestEmbedErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := testConfig(srv.URL)
	cfg.EmbedModel = ""
	c, _ := newClient(t, cfg)
	if _, _, err := c.Embed(t.Context(), []string{"x"}); !errors.Is(err, llm.ErrNoEmbedModel) || !strings.Contains(err.Error(), config.EnvEmbedModel) {
		t.Fatalf("err %v", err)
	}
	cfg.EmbedModel = "missing"
	c, _ = newClient(t, cfg)
	if _, _, err := c.Embed(t.Context(), []string{"x"}); !errors.Is(err, llm.ErrNotFound) || !strings.Contains(err.Error(), srv.URL+"/embeddings") {
		t.Fatalf("err %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c, _ = newClient(t, testConfig(srv.URL))
	if _, _, err := c.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithModels("zeta", "alpha"), llmtest.WithKey(testKey))
	srv.EnqueueModels(llmtest.Status(500))
	c, _ := newClient(t, testConfig(srv.URL))
	ids, err := c.Models(t.Context())
	if err != nil || !slices.Equal(ids, []string{"alpha", "zeta"}) {
		t.Fatal(ids, err)
	}
}
