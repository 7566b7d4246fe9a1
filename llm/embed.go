package llm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/internal/config"

	openai "github.com/sashabaranov/go-openai"

	"github.com/citelens/citelens/internal/textproc"
)

// Embed returns one vector per text, in order, embedding Config.EmbedBatch
// texts per request. Blank texts are not sent and get a nil vector. Usage
// counts each request as a call and the input as prompt tokens.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	out := make([][]float32, len(texts))
	u, err := c.EmbedEach(ctx, texts, func(start int, vecs [][]float32) error {
		copy(out[start:], vecs)
		return nil
	})
	if err != nil {
		return nil, u, err
	}
	return out, u, nil
}

// EmbedEach embeds texts batch by batch, calling fn with each batch's
// vectors (vecs[i] belongs to texts[start+i]) as soon as it arrives, so a
// long ingest can store vectors and report progress as it goes. An error from
// fn stops it and is returned as is. Every vector has the same length.
func (c *Client) EmbedEach(ctx context.Context, texts []string, fn func(start int, vecs [][]float32) error) (Usage, error) {
	var total Usage
	if c.cfg.EmbedModel == "" {
		return total, fmt.Errorf("%w: set %s (or embed_model in %s) to an embedding model the server serves", ErrNoEmbedModel, config.EnvEmbedModel, c.cfg.Path)
	}
	dim := 0
	for start := 0; start < len(texts); start += c.cfg.EmbedBatch {
		end := min(start+c.cfg.EmbedBatch, len(texts))
		var idx []int
		var inputs []string
		for i := start; i < end; i++ {
			if strings.TrimSpace(texts[i]) != "" {
				idx = append(idx, i-start)
				inputs = append(inputs, texts[i])
			}
		}
		vecs := make([][]float32, end-start)
		if len(inputs) > 0 {
			var resp openai.EmbeddingResponse
			err := c.do(ctx, "embeddings", "/embeddings", func(actx context.Context) error {
				var err error
				resp, err = c.api.CreateEmbeddings(actx, openai.EmbeddingRequestStrings{
					Input: inputs, Model: openai.EmbeddingModel(c.cfg.EmbedModel),
				})
				if err != nil {
					return err
				}
				return checkEmbeddings(resp.Data, len(inputs), &dim)
			})
			if err != nil {
				return total, err
			}
			for _, d := range resp.Data {
				vecs[idx[d.Index]] = d.Embedding
			}
			u := Usage{LLMCalls: 1, PromptTokens: resp.Usage.PromptTokens}
			if u.PromptTokens == 0 {
				for _, in := range inputs {
					u.PromptTokens += textproc.EstimateTokens(in)
				}
				u.Estimated = true
			}
			total.Add(u)
		}
		if err := fn(start, vecs); err != nil {
			return total, err
		}
	}
	return total, nil
}

// checkEmbeddings makes sure the server returned exactly one vector per
// input, each index once, all of one length (dim, once known).
func checkEmbeddings(data []openai.Embedding, n int, dim *int) error {
	if len(data) != n {
		return &protocolError{fmt.Sprintf("asked for %d vectors, got %d", n, len(data))}
	}
	seen := make([]bool, n)
	for _, d := range data {
		if d.Index < 0 || d.Index >= n || seen[d.Index] {
			return &protocolError{fmt.Sprintf("vector index %d is out of range or repeated", d.Index)}
		}
		seen[d.Index] = true
		if len(d.Embedding) == 0 {
			return &protocolError{"an empty vector"}
		}
		if *dim == 0 {
			*dim = len(d.Embedding)
		}
		if len(d.Embedding) != *dim {
			return &protocolError{fmt.Sprintf("vectors of different lengths (%d and %d)", *dim, len(d.Embedding))}
		}
	}
	return nil
}

// Models lists the model IDs the endpoint serves, sorted.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var list openai.ModelsList
	err := c.do(ctx, "list models", "/models", func(actx context.Context) error {
		var err error
		list, err = c.api.ListModels(actx)
		return err
	})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, c.clean(m.ID))
	}
	slices.Sort(ids)
	return ids, nil
}
