package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"

	openai "github.com/sashabaranov/go-openai"

	"github.com/citelens/citelens/internal/textproc"
)

// ErrNoRerankModel means a rerank was asked for without a rerank model.
var ErrNoRerankModel = errors.New("no rerank model set")

// opRerank names rerank requests in errors and retry notices.
const opRerank = "rerank"

// rerankPath is posted to under Config.RerankEndpoint. vLLM and llama.cpp's
// server answer both /rerank and /v1/rerank, so a root ending in /v1 works
// for them; TEI and Infinity serve /rerank at their root.
const rerankPath = "/rerank"

// maxRerankBody bounds the rerank response read into memory: a hundred
// results take a few kilobytes, unless the server echoes the documents.
const maxRerankBody = 16 << 20

// RerankResult is one document's relevance to the query.
type RerankResult struct {
	// Index is the document's position in the request.
	Index int `json:"index"`
	// Score is the model's relevance score: higher is more relevant. Its
	// scale is the model's own (a logit or a probability), so scores
	// compare within one model only.
	Score float64 `json:"score"`
}

// rerankState is what a client has learnt about its rerank server.
type rerankState struct {
	// tei is set once the server refused Jina's shape asking for TEI's
	// "texts", so later requests go in TEI's shape at once.
	tei atomic.Bool
}

// Rerank asks the reranker at Config.RerankEndpoint()+"/rerank" how
// relevant each document is to query, using model, and returns the topN
// most relevant results, best first, ties in document order (every
// document when topN <= 0 or topN >= len(documents)).
//
// It speaks the Jina/Cohere shape that vLLM, llama.cpp's server and
// Infinity serve ({"model", "query", "documents", "top_n"} answered by
// {"results": [{"index", "relevance_score"}], "usage"}), and falls back to
// Text Embeddings Inference's ({"query", "texts"} answered by
// [{"index", "score"}]) when the server refuses the first for want of
// "texts", as TEI does; once that works the client keeps to TEI's
// shape. TEI ignores the model and top_n; Rerank cuts its answer to topN
// itself.
//
// Each attempt is bounded by Config.RerankTimeout; failures are retried
// and reported as for other requests (*Error, Op "rerank"), and the
// answer is checked: every index in range and given once, every score a
// finite number, at least topN results. The API key goes with the request
// only as Config documents for RerankAPIKey. Usage counts the request as
// one call and the server's reported tokens, else an estimate.
func (c *Client) Rerank(ctx context.Context, model, query string, documents []string, topN int) ([]RerankResult, Usage, error) {
	if model == "" {
		return nil, Usage{}, fmt.Errorf("%w: set %s (or rerank_model in %s) to a reranker model the server serves", ErrNoRerankModel, config.EnvRerankModel, c.cfg.Path)
	}
	if len(documents) == 0 {
		return nil, Usage{}, nil
	}
	if topN <= 0 || topN > len(documents) {
		topN = len(documents)
	}
	rc := c.forRerank()
	var (
		results []RerankResult
		usage   Usage
	)
	err := rc.do(ctx, opRerank, rerankPath, func(actx context.Context) error {
		tei := c.rerank.tei.Load()
		var err error
		results, usage, err = rc.postRerank(actx, tei, model, query, documents, topN)
		if !tei && wantsTEIShape(err) {
			results, usage, err = rc.postRerank(actx, true, model, query, documents, topN)
			// Remembered only once TEI's shape worked: a Jina server's
			// error that happens to mention "texts" must not switch the
			// client for good.
			c.rerank.tei.Store(err == nil)
		}
		return err
	})
	if err != nil {
		return nil, Usage{}, err
	}
	return results, usage, nil
}

// forRerank is a copy of c for rerank requests: their own timeout, URL
// (for messages) and key (also what messages are scrubbed of).
func (c *Client) forRerank() *Client {
	rc := *c
	rc.cfg.Timeout = c.cfg.RerankTimeout
	rc.cfg.APIKey = c.cfg.RerankKey()
	rc.url = config.RedactURL(c.cfg.RerankEndpoint())
	return &rc
}

type jinaRerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type teiRerankRequest struct {
	Query string   `json:"query"`
	Texts []string `json:"texts"`
	// Truncate lets TEI cut a text longer than the model's window instead
	// of refusing the whole request.
	Truncate bool `json:"truncate"`
}

// postRerank makes one rerank request in the Jina or TEI shape.
func (c *Client) postRerank(ctx context.Context, tei bool, model, query string, docs []string, topN int) ([]RerankResult, Usage, error) {
	var body any = jinaRerankRequest{Model: model, Query: query, Documents: docs, TopN: topN}
	if tei {
		body = teiRerankRequest{Query: query, Texts: docs, Truncate: true}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, Usage{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.RerankEndpoint()+rerankPath, bytes.NewReader(b))
	if err != nil {
		return nil, Usage{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, Usage{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRerankBody+1))
	if err != nil {
		return nil, Usage{}, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, Usage{}, statusError(resp, data)
	}
	if len(data) > maxRerankBody {
		return nil, Usage{}, &protocolError{fmt.Sprintf("the answer is larger than %d MiB", maxRerankBody>>20)}
	}
	results, reported, err := parseRerank(data, len(docs), topN)
	if err != nil {
		return nil, Usage{}, err
	}
	u := Usage{LLMCalls: 1, PromptTokens: reported}
	if u.PromptTokens == 0 {
		// A cross-encoder reads the query with every document.
		q := textproc.EstimateTokens(query)
		for _, d := range docs {
			u.PromptTokens += q + textproc.EstimateTokens(d)
		}
		u.Estimated = true
	}
	return results, u, nil
}

// statusError is the error of a response with a failing status, as
// go-openai makes it for the other requests, so classify reads it the same
// way: OpenAI's error JSON as an *openai.APIError, anything else as an
// *openai.RequestError carrying the body.
func statusError(resp *http.Response, body []byte) error {
	var er openai.ErrorResponse
	if json.Unmarshal(body, &er) == nil && er.Error != nil {
		er.Error.HTTPStatus, er.Error.HTTPStatusCode = resp.Status, resp.StatusCode
		return er.Error
	}
	return &openai.RequestError{HTTPStatus: resp.Status, HTTPStatusCode: resp.StatusCode, Body: body,
		Err: fmt.Errorf("HTTP %d", resp.StatusCode)}
}

// wantsTEIShape reports whether err is a server refusing a Jina-shaped
// request because it wants TEI's "texts" (axum's 422 "missing field
// `texts`"; 400 from a server that says it in JSON).
func wantsTEIShape(err error) bool {
	var reqErr *openai.RequestError
	var apiErr *openai.APIError
	switch {
	case errors.As(err, &reqErr):
		return (reqErr.HTTPStatusCode == http.StatusUnprocessableEntity || reqErr.HTTPStatusCode == http.StatusBadRequest) &&
			bytes.Contains(reqErr.Body, []byte("texts"))
	case errors.As(err, &apiErr):
		return (apiErr.HTTPStatusCode == http.StatusUnprocessableEntity || apiErr.HTTPStatusCode == http.StatusBadRequest) &&
			strings.Contains(apiErr.Message, "texts")
	}
	return false
}

type wireRerankResult struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"` // TEI's name
}

// parseRerank reads a rerank answer in either shape, checks it against the
// n documents sent, and returns the best topN results, best first, with
// the prompt tokens the server reported (0 if none).
func parseRerank(data []byte, n, topN int) ([]RerankResult, int, error) {
	var wire []wireRerankResult
	tokens := 0
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &wire); err != nil {
			return nil, 0, err
		}
	} else {
		var resp struct {
			Results *[]wireRerankResult `json:"results"`
			Usage   *struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			return nil, 0, err
		}
		if resp.Results == nil {
			return nil, 0, &protocolError{`the answer has no "results" list`}
		}
		wire = *resp.Results
		if resp.Usage != nil {
			tokens = resp.Usage.PromptTokens
			if tokens == 0 {
				tokens = resp.Usage.TotalTokens
			}
		}
	}
	results, err := checkRerank(wire, n, topN)
	return results, tokens, err
}

// checkRerank makes sure every result names a document sent, once, with a
// finite score, and that there are at least topN of them; it returns them
// best first, cut to topN (servers that ignore top_n send all).
func checkRerank(wire []wireRerankResult, n, topN int) ([]RerankResult, error) {
	seen := make([]bool, n)
	out := make([]RerankResult, 0, len(wire))
	for i, w := range wire {
		score := w.RelevanceScore
		if score == nil {
			score = w.Score
		}
		switch {
		case w.Index == nil:
			return nil, &protocolError{fmt.Sprintf("result %d has no index", i)}
		case *w.Index < 0 || *w.Index >= n:
			return nil, &protocolError{fmt.Sprintf("result %d has index %d, but %d %s sent", i, *w.Index, n, humanize.Noun(n, "document was", "documents were"))}
		case seen[*w.Index]:
			return nil, &protocolError{fmt.Sprintf("document %d is scored twice", *w.Index)}
		case score == nil:
			return nil, &protocolError{fmt.Sprintf("result %d (document %d) has no score", i, *w.Index)}
		case math.IsNaN(*score) || math.IsInf(*score, 0):
			return nil, &protocolError{fmt.Sprintf("document %d has the score %v", *w.Index, *score)}
		}
		seen[*w.Index] = true
		out = append(out, RerankResult{Index: *w.Index, Score: *score})
	}
	if len(out) < topN {
		return nil, &protocolError{fmt.Sprintf("asked for the best %d of %d documents, got %d %s", topN, n, len(out), humanize.Noun(len(out), "result", "results"))}
	}
	slices.SortFunc(out, func(a, b RerankResult) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), a.Index-b.Index)
	})
	return out[:topN], nil
}

// rerankFix is Error.Fix for a failed rerank request: the reranker has its
// own settings, and a server without the endpoint needs starting
// differently.
func rerankFix(e *Error) string {
	switch e.Kind {
	case ErrUnreachable:
		return fmt.Sprintf("Is the reranker running? Check rerank_url (or %s); unset, it is base_url.", config.EnvRerankURL)
	case ErrTimeout:
		return "The reranker took longer than rerank_timeout; raise it in the config file or serve a smaller reranker. Until then answers keep the retrieval order."
	case ErrAuth:
		return fmt.Sprintf("Check %s: %s goes to the reranker only when it is on base_url's host.", config.EnvRerankAPIKey, config.EnvAPIKey)
	case ErrNotFound:
		if strings.Contains(strings.ToLower(e.Detail), "model") {
			return fmt.Sprintf("Set %s to the reranker model the server serves.", config.EnvRerankModel)
		}
		return fmt.Sprintf("This server does not serve %s: start vLLM with a reranker model (older vLLM: --task score), llama.cpp's llama-server with --reranking, or set rerank_url (or %s) to a TEI or Infinity server.", e.URL, config.EnvRerankURL)
	case ErrBadRequest:
		return fmt.Sprintf("Check that %s is a reranker (cross-encoder) model; chat and embedding models cannot rerank. A server that takes fewer documents per request needs a smaller rerank_batch.", config.EnvRerankModel)
	case ErrBadResponse:
		return "Check that rerank_url points at a rerank server (vLLM, llama.cpp, TEI, Infinity): citelens reads the Jina/Cohere and TEI answers."
	}
	return ""
}
