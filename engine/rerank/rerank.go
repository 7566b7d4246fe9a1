// Package rerank reorders retrieval candidates with a cross-encoder
// served behind an HTTP rerank endpoint (vLLM, llama.cpp's server,
// Infinity, Text Embeddings Inference), configured with
// CITELENS_RERANK_MODEL or rerank_model.
//
// A cross-encoder reads the question and a candidate together, so it
// judges relevance better than BM25 or embedding similarity, but it costs
// a model call per candidate: retrieval fuses its candidates first and the
// Reranker scores only the best few dozen (rerank_top). Reranking is an
// improvement, never a requirement: when the server fails or takes longer
// than rerank_timeout, Rerank returns the error and the caller keeps the
// fused order, telling the user why.
package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// ErrDisabled is Rerank's error on a nil Reranker: no rerank model is
// configured.
var ErrDisabled = errors.New("reranking is off: no rerank model configured")

// MaxTextBytes is the longest text sent for scoring; a longer one is cut
// at a character boundary. Most cross-encoders read 512 tokens of query
// and text together and some servers refuse a longer pair outright, while
// the opening of a passage is what tells its topic.
const MaxTextBytes = 1600

// maxInFlight bounds the batches of one Rerank call sent at once.
const maxInFlight = 4

// Reranker scores candidate texts against a query with the configured
// rerank model. A nil *Reranker is valid and disabled. It is safe for
// concurrent use.
type Reranker struct {
	client  *llm.Client
	model   string
	top     int
	batch   int
	timeout time.Duration
}

// New returns a Reranker that sends its requests through client (which
// brings the rerank URL, the key, the per-request timeout and the retries)
// and takes the model, rerank_top, rerank_batch and the time budget from
// cfg, usually client.Config(). It returns nil, a disabled Reranker, when
// client is nil or cfg names no rerank model.
func New(client *llm.Client, cfg config.Config) *Reranker {
	if client == nil || cfg.RerankModel == "" {
		return nil
	}
	return &Reranker{
		client:  client,
		model:   cfg.RerankModel,
		top:     max(1, cfg.RerankTop),
		batch:   max(1, cfg.RerankBatch),
		timeout: cfg.RerankTimeout,
	}
}

// Enabled reports whether r reranks: false for a nil Reranker. Check it
// before storing r in an interface, where a nil *Reranker is not nil.
func (r *Reranker) Enabled() bool { return r != nil }

// Model is the rerank model's name ("" when disabled).
func (r *Reranker) Model() string {
	if r == nil {
		return ""
	}
	return r.model
}

// Top is how many fused candidates the caller should rerank (rerank_top);
// 0 when disabled.
func (r *Reranker) Top() int {
	if r == nil {
		return 0
	}
	return r.top
}

// Rerank returns one relevance score per text, in the order of texts:
// higher is more relevant, on the model's own scale (compare scores of one
// call only). Texts go rerank_batch to a request, up to four requests at
// once; a text longer than MaxTextBytes is scored on its opening, and a
// blank text is not sent and scores -Inf, below every scored text.
//
// The whole call takes at most rerank_timeout; past it Rerank returns an
// *llm.Error of kind llm.ErrTimeout, and the caller should keep its own
// order and warn. Any other failure is an *llm.Error too (its Fix says
// what to do), except a cancelled ctx (llm.ErrCanceled) and a nil
// Reranker (ErrDisabled).
func (r *Reranker) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	if r == nil {
		return nil, ErrDisabled
	}
	scores := make([]float64, len(texts))
	var idx []int // texts[idx[i]] is the i-th text sent
	var send []string
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			scores[i] = math.Inf(-1)
			continue
		}
		idx = append(idx, i)
		send = append(send, textproc.Clip(t, MaxTextBytes))
	}
	if len(send) == 0 {
		return scores, nil
	}
	if strings.TrimSpace(query) == "" {
		return nil, errors.New("rerank: the query is blank")
	}

	budget, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		slots    = make(chan struct{}, maxInFlight)
	)
	for start := 0; start < len(send); start += r.batch {
		end := min(start+r.batch, len(send))
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			// After a failure budget is cancelled, so the batches still
			// waiting fail at once, without a request.
			res, _, err := r.client.Rerank(budget, r.model, query, send[start:end], 0)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			for _, x := range res {
				scores[idx[start+x.Index]] = x.Score
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, r.timedOut(ctx, firstErr)
	}
	return scores, nil
}

// timedOut turns the budget's end, which the client reports as a
// cancellation (it cannot tell the budget from the caller's own context),
// into the timeout it is; the caller's cancellation stays one.
func (r *Reranker) timedOut(ctx context.Context, err error) error {
	var e *llm.Error
	if ctx.Err() != nil || !errors.As(err, &e) || !errors.Is(err, llm.ErrCanceled) {
		return err
	}
	t := *e
	t.Kind, t.Err = llm.ErrTimeout, context.DeadlineExceeded
	t.Detail = fmt.Sprintf("reranking took longer than rerank_timeout (%s)", r.timeout)
	return &t
}
