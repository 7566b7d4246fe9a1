package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/config"
)

// The doctor's rerank probe: a question, the document that answers it and
// one that does not.
const doctorRerankQuery = "Does the reranker answer?"

var doctorRerankDocs = []string{
	"Penguins eat krill and small fish.",
	"citelens doctor checks that the reranker answers.",
}

// checkReranker is the doctor's "reranker" line: skipped without a rerank
// model, else one tiny rerank call, its latency, and a fix when it fails.
// models is the endpoint's model list, to suggest one.
func checkReranker(ctx context.Context, c *Client, cfg config.Config, models []string) Check {
	const name = "reranker"
	if cfg.RerankModel == "" {
		return Check{name, CheckSkip, "no rerank model set, so results keep the order retrieval gives them",
			fmt.Sprintf("Set %s to a reranker (cross-encoder) model a server serves to rerank the best %d candidates.", config.EnvRerankModel, cfg.RerankTop)}
	}
	start := time.Now()
	res, _, err := c.Rerank(ctx, cfg.RerankModel, doctorRerankQuery, doctorRerankDocs, 0)
	took := time.Since(start)
	if err != nil {
		fix := ""
		var e *Error
		if errors.As(err, &e) {
			fix = e.Fix()
			if errors.Is(err, ErrNotFound) && strings.Contains(strings.ToLower(e.Detail), "model") &&
				len(models) > 0 && config.SameOrigin(cfg.RerankEndpoint(), cfg.Endpoint()) {
				fix = listFix(config.EnvRerankModel, models)
			}
		}
		return Check{name, CheckFail, err.Error(), fix}
	}
	var notes []string
	if c.rerank.tei.Load() {
		notes = append(notes, "it speaks TEI's shape")
	}
	if cfg.APIKey != "" && cfg.RerankKey() == "" {
		notes = append(notes, fmt.Sprintf("%s is not sent to it, since it is on another host than base_url", config.EnvAPIKey))
	}
	detail := fmt.Sprintf("%s at %s ranked %d documents in %s; answers rerank the best %d candidates, within %s",
		cfg.RerankModel, config.RedactURL(cfg.RerankEndpoint())+rerankPath, len(doctorRerankDocs), took.Round(time.Millisecond), cfg.RerankTop, cfg.RerankTimeout)
	if len(notes) > 0 {
		detail += "; " + strings.Join(notes, "; ")
	}
	if res[0].Index != 1 {
		return Check{name, CheckWarn, detail + ", but it ranked the unrelated document first",
			fmt.Sprintf("Check that %s is a reranker (cross-encoder) model, not a chat or embedding model.", config.EnvRerankModel)}
	}
	if took > cfg.RerankTimeout/2 {
		return Check{name, CheckWarn, detail + fmt.Sprintf(": two documents took over half of rerank_timeout, so %d will often run out of time", cfg.RerankTop),
			"Raise rerank_timeout or lower rerank_top in the config file, or serve a smaller reranker."}
	}
	return Check{name, CheckOK, detail, ""}
}
