package rerank_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/engine/rerank"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// The method set engine/retrieve calls.
var _ interface {
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
} = (*rerank.Reranker)(nil)

func newReranker(t *testing.T, srv *llmtest.Server, edit func(*config.Config)) *rerank.Reranker {
	t.Helper()
	cfg := config.Default()
	cfg.BaseURL, cfg.Model, cfg.RerankModel = srv.URL, llmtest.DefaultModel, llmtest.DefaultRerankModel
	if edit != nil {
		edit(&cfg)
	}
	c, err := llm.New(cfg, llm.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	r := rerank.New(c, cfg)
	if !r.Enabled() {
		t.Fatal("not enabled")
	}
	return r
}

const question = "What was the capital expenditure in 2018?"

var candidates = []string{
	"Capital punishment was abolished in 2018.",
	"Revenue grew by 12 percent in 2018.",
	"Purchases of property, plant and equipment were $4.2 billion in 2018.",
	"The board met four times.",
}

// Scores come back in the order of the texts, whatever order the server
// ranks them in.
func TestScoresInInputOrder(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	r := newReranker(t, srv, nil)
	scores, err := r.Rerank(t.Context(), question, candidates)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range candidates {
		if scores[i] != srv.Relevance(question, text) {
			t.Fatalf("text %d scored %v, the server says %v", i, scores[i], srv.Relevance(question, text))
		}
	}
	if r.Model() != llmtest.DefaultRerankModel || r.Top() != config.DefaultRerankTop {
		t.Fatalf("model %q top %d", r.Model(), r.Top())
	}
}

// With the concept that capex and purchases of property, plant and
// equipment are one, the paraphrase outranks the lookalike; without it the
// lookalike wins.
func TestParaphraseOutranksLookalike(t *testing.T) {
	t.Parallel()
	best := func(srv *llmtest.Server) int {
		scores, err := newReranker(t, srv, nil).Rerank(t.Context(), question, candidates)
		if err != nil {
			t.Fatal(err)
		}
		top := 0
		for i, s := range scores {
			if s > scores[top] {
				top = i
			}
		}
		return top
	}
	if got := best(llmtest.New(t)); got != 0 {
		t.Fatalf("without concepts, text %d ranks first", got)
	}
	srv := llmtest.New(t, llmtest.WithConcepts([]string{"capex", "capital expenditure", "purchases of property, plant and equipment"}))
	if got := best(srv); got != 2 {
		t.Fatalf("with concepts, text %d ranks first", got)
	}
}

// A server that takes at most three documents a request gets batches of
// three, and the scores still line up with the texts.
func TestBatches(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithRerankLimit(3))
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("capital ", i%4) + "expenditure report number " + string(rune('a'+i))
	}
	texts[4] = "  "
	r := newReranker(t, srv, func(c *config.Config) { c.RerankBatch = 3 })
	scores, err := r.Rerank(t.Context(), "capital expenditure", texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want := srv.Relevance("capital expenditure", text)
		if i == 4 {
			want = math.Inf(-1)
		}
		if scores[i] != want {
			t.Fatalf("text %d scored %v, want %v", i, scores[i], want)
		}
	}
	reqs := srv.RerankRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests for 9 texts in batches of 3", len(reqs))
	}
	for _, q := range reqs {
		if len(q.Documents) != 3 || slices.Contains(q.Documents, "  ") {
			t.Fatalf("batch %q", q.Documents)
		}
	}

	// Unbatched, the cap refuses the request with a fix naming rerank_batch.
	_, err = newReranker(t, srv, nil).Rerank(t.Context(), "capital expenditure", texts)
	var e *llm.Error
	if !errors.Is(err, llm.ErrBadRequest) || !errors.As(err, &e) || !strings.Contains(e.Fix(), "rerank_batch") ||
		!strings.Contains(err.Error(), "maximum allowed batch size 3") {
		t.Fatalf("%v", err)
	}
}

// The whole call keeps to rerank_timeout, retries included, and says it
// timed out.
func TestTimeBudget(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	r := newReranker(t, srv, func(c *config.Config) { c.RerankTimeout = 150 * time.Millisecond; c.RerankBatch = 2 })
	srv.EnqueueRerank(llmtest.RerankReply{Reply: llmtest.Reply{HeaderDelay: 3 * time.Second}})
	start := time.Now()
	_, err := r.Rerank(t.Context(), question, candidates)
	if !errors.Is(err, llm.ErrTimeout) || !strings.Contains(err.Error(), "rerank_timeout (150ms)") {
		t.Fatalf("%v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v", took)
	}

	// The caller's own cancellation stays a cancellation.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Rerank(ctx, question, candidates); !errors.Is(err, llm.ErrCanceled) || errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("cancelled: %v", err)
	}
}

// A long text is scored on its opening, within MaxTextBytes.
func TestLongTextsClipped(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	long := strings.Repeat("capital expenditure ", 500)
	if _, err := newReranker(t, srv, nil).Rerank(t.Context(), question, []string{long, "short"}); err != nil {
		t.Fatal(err)
	}
	if d := srv.RerankRequests()[0].Documents[0]; len(d) > rerank.MaxTextBytes+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(d, "…")) {
		t.Fatalf("sent %d bytes", len(d))
	}
}

func TestDisabled(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	cfg := config.Default()
	cfg.BaseURL, cfg.Model = srv.URL, llmtest.DefaultModel
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rerank.New(c, cfg)
	if r != nil || r.Enabled() || r.Top() != 0 {
		t.Fatal("a reranker without a rerank model")
	}
	if _, err := r.Rerank(t.Context(), "q", []string{"a"}); !errors.Is(err, rerank.ErrDisabled) {
		t.Fatal(err)
	}
	cfg.RerankModel = "m"
	if rerank.New(nil, cfg) != nil {
		t.Fatal("a reranker without a client")
	}
}
