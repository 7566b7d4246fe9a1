package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"
)

// Check statuses.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "FAIL"
	CheckSkip = "skip"
)

// Check is one line of `citelens doctor`: what was checked, how it went, in
// plain words, and the fix when it did not go well.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Diagnosis is the list of checks, in the order they ran.
type Diagnosis []Check

// Failed counts the failed checks.
func (d Diagnosis) Failed() int {
	n := 0
	for _, c := range d {
		if c.Status == CheckFail {
			n++
		}
	}
	return n
}

// doctorTimeout bounds each of the doctor's requests, so a hung server is
// reported in seconds rather than after a full answer's timeout.
const doctorTimeout = 30 * time.Second

// Doctor checks the configuration (cfgErr is config.Load's error, if any),
// then the endpoint, the model, a tiny streamed answer, embeddings and the
// reranker, and says what is wrong and how to fix it. Requests are retried
// once at most.
func Doctor(ctx context.Context, cfg config.Config, cfgErr error, opts ...Option) Diagnosis {
	var d Diagnosis
	add := func(name, status, detail, fix string) {
		d = append(d, Check{Name: name, Status: status, Detail: detail, Fix: fix})
	}
	skipRest := func(why string) {
		for _, name := range []string{"endpoint", "model", "streaming", "context", "embeddings", "reranker"} {
			if !slices.ContainsFunc(d, func(c Check) bool { return c.Name == name }) {
				add(name, CheckSkip, why, "")
			}
		}
	}

	if cfgErr != nil {
		add("config", CheckFail, cfgErr.Error(), "Fix the setting named above, or rewrite the file with `citelens config init --force`.")
		skipRest("the configuration has an error")
		return d
	}
	switch err := cfg.Configured(); {
	case errors.Is(err, config.ErrNotConfigured):
		add("config", CheckFail, "no model endpoint is configured, so only the extractive strategy can answer",
			fmt.Sprintf("Set %s and %s (and %s if your server needs one; %s alone for api.openai.com), or run `citelens config init --endpoint URL --model NAME`, which writes %s.",
				config.EnvBaseURL, config.EnvModel, config.EnvAPIKey, config.EnvAPIKey, cfg.Path))
		skipRest("no endpoint configured")
		return d
	case errors.Is(err, config.ErrNoModel):
		add("config", CheckFail, fmt.Sprintf("the endpoint %s is set but no model is", config.RedactURL(cfg.Endpoint())),
			fmt.Sprintf("Set %s (or model in %s) to a model the server serves; the endpoint check below lists them.", config.EnvModel, cfg.Path))
	default:
		add("config", CheckOK, configSummary(cfg), "")
	}
	for _, w := range cfg.Warnings {
		add("config", CheckWarn, w, "")
	}

	// A client needs a model; use a placeholder to probe the endpoint when
	// none is set (the failure above already says so).
	probe := cfg
	if probe.Model == "" {
		probe.Model = "unset"
	}
	probe.Timeout = min(probe.Timeout, doctorTimeout)
	c, err := New(probe, append([]Option{WithMaxRetries(1)}, opts...)...)
	if err != nil {
		add("endpoint", CheckFail, err.Error(), "")
		skipRest("no client")
		return d
	}

	url := config.RedactURL(cfg.Endpoint())
	models, err := c.Models(ctx)
	var e *Error
	switch {
	case err == nil:
		add("endpoint", CheckOK, fmt.Sprintf("%s answers and serves %d %s", url, len(models), humanize.Noun(len(models), "model", "models")), "")
	case errors.Is(err, ErrNotFound):
		fix := "Some servers do not list models; if the checks below fail too, check OPENAI_BASE_URL."
		if !strings.HasSuffix(url, "/v1") {
			fix = fmt.Sprintf("OpenAI-compatible base URLs usually end in /v1: try %s/v1.", url)
		}
		add("endpoint", CheckWarn, fmt.Sprintf("%s answers but does not list models (HTTP 404)", url), fix)
	default:
		fix := ""
		if errors.As(err, &e) {
			fix = e.Fix()
		}
		add("endpoint", CheckFail, err.Error(), fix)
		skipRest("the endpoint is not usable")
		return d
	}

	if cfg.Model == "" {
		add("model", CheckFail, "no model set", listFix(config.EnvModel, models))
		skipRest("no model set")
		return d
	}
	modelOK := true
	for _, m := range []struct{ name, id, env string }{
		{"model", cfg.Model, config.EnvModel},
		{"analyzer model", cfg.AnalyzerModel, config.EnvAnalyzerModel},
	} {
		switch {
		case m.id == "" || (m.name != "model" && m.id == cfg.Model):
			continue
		case len(models) == 0:
			add(m.name, CheckSkip, "the server did not list its models; the streaming check tries the model directly", "")
		case slices.Contains(models, m.id):
			add(m.name, CheckOK, fmt.Sprintf("%s is served", m.id), "")
		default:
			add(m.name, CheckFail, fmt.Sprintf("%s is not among the models served at %s", m.id, url), listFix(m.env, models))
			modelOK = modelOK && m.name != "model"
		}
	}

	if modelOK {
		d = append(d, checkStreaming(ctx, c))
		d = append(d, checkContext(cfg, c.Server(ctx)))
	} else {
		add("streaming", CheckSkip, "the model is not served", "")
	}

	if cfg.EmbedModel == "" {
		add("embeddings", CheckSkip, "no embedding model set, so retrieval uses BM25 only",
			fmt.Sprintf("Set %s to an embedding model the server serves to add dense retrieval.", config.EnvEmbedModel))
	} else {
		vecs, _, err := c.Embed(ctx, []string{"citelens doctor checks that embeddings work."})
		switch {
		case err != nil:
			fix := ""
			if errors.As(err, &e) {
				fix = e.Fix()
				if errors.Is(err, ErrNotFound) {
					fix = listFix(config.EnvEmbedModel, models)
				}
			}
			add("embeddings", CheckFail, err.Error(), fix)
		default:
			add("embeddings", CheckOK, fmt.Sprintf("%s returns vectors of %d dimensions", cfg.EmbedModel, len(vecs[0])), "")
		}
	}
	return append(d, checkReranker(ctx, c, cfg, models))
}

func configSummary(cfg config.Config) string {
	var parts []string
	if cfg.FileFound {
		parts = append(parts, "file "+cfg.Path)
	} else {
		parts = append(parts, "no config file (environment only)")
	}
	parts = append(parts, "endpoint "+config.RedactURL(cfg.Endpoint()), "model "+cfg.Model)
	if cfg.APIKey != "" {
		src := cfg.Sources["api_key"]
		if src == "file" {
			src = "the config file"
		}
		parts = append(parts, "API key from "+strings.TrimPrefix(src, "env "))
	} else {
		parts = append(parts, "no API key")
	}
	parts = append(parts, fmt.Sprintf("context %d tokens, answers up to %d", cfg.ContextWindow, cfg.MaxOutput))
	return strings.Join(parts, "; ")
}

// listFix suggests a model from the server's list.
func listFix(env string, models []string) string {
	if len(models) == 0 {
		return fmt.Sprintf("Set %s to a model the server serves.", env)
	}
	shown := models
	more := ""
	if len(shown) > 8 {
		shown, more = shown[:8], fmt.Sprintf(" (and %d more)", len(models)-8)
	}
	return fmt.Sprintf("Set %s to one of: %s%s.", env, strings.Join(shown, ", "), more)
}

func checkStreaming(ctx context.Context, c *Client) Check {
	start := time.Now()
	s := c.ChatStream(ctx, ChatRequest{Messages: []Message{User("Reply with the single word: ready")}, MaxTokens: 16})
	defer s.Close()
	var first time.Duration
	n := 0
	for s.Next() {
		if n == 0 {
			first = time.Since(start)
		}
		n++
	}
	if err := s.Err(); err != nil {
		fix := ""
		var e *Error
		if errors.As(err, &e) {
			fix = e.Fix()
		}
		if n > 0 {
			return Check{"streaming", CheckFail, fmt.Sprintf("the answer stopped after %d chunks: %v", n, err), fix}
		}
		return Check{"streaming", CheckFail, err.Error(), fix}
	}
	if n == 0 {
		return Check{"streaming", CheckFail, fmt.Sprintf("%s streamed no text", c.cfg.Model),
			"Check that the model is a chat (instruct) model."}
	}
	usage := "the server reports token usage"
	if s.Usage().Estimated {
		usage = "the server does not report token usage, so usage figures are estimates"
	}
	return Check{"streaming", CheckOK, fmt.Sprintf("%s streamed %d %s, the first after %s; %s",
		c.cfg.Model, n, humanize.Noun(n, "chunk", "chunks"), first.Round(time.Millisecond), usage), ""}
}

// checkContext says what context window the server gives the model, as
// the answers will use it (engine.Env.AnswerConfig).
func checkContext(cfg config.Config, s Server) Check {
	kind := "the server"
	if s.Kind != "" {
		kind = s.Kind
	}
	tok := ""
	if s.Tokenizer {
		tok = "; it counts tokens for citelens (/tokenize)"
	}
	set := cfg.Sources["context_window"]
	explicit := set != "" && set != "default"
	switch {
	case s.Window > 0 && explicit && s.Window < cfg.ContextWindow:
		return Check{"context", CheckWarn, fmt.Sprintf("%s gives %s a context window of %s tokens (%s), smaller than context_window = %s; answers are fitted to %s%s",
			kind, s.Model, humanize.Count(s.Window), s.Source, humanize.Count(cfg.ContextWindow), humanize.Count(s.Window), tok),
			fmt.Sprintf("Set context_window = %d in %s, or %s.", s.Window, cfg.Path, s.Fix(cfg.ContextWindow))}
	case s.Window > 0:
		used := s.Window
		if explicit {
			used = cfg.ContextWindow
		}
		return Check{"context", CheckOK, fmt.Sprintf("%s gives %s a context window of %s tokens (%s); answers are fitted to %s%s",
			kind, s.Model, humanize.Count(s.Window), s.Source, humanize.Count(used), tok), ""}
	case s.Kind == KindOllama && !explicit:
		return Check{"context", CheckWarn, fmt.Sprintf("Ollama does not say the context window of %s until the model is loaded (its own is %s tokens); answers assume Ollama's default of %s",
			s.Model, humanize.Count(s.Trained), humanize.Count(OllamaDefaultWindow)),
			"Run `citelens doctor --probe` to measure the window; if the server runs with OLLAMA_CONTEXT_LENGTH, set context_window to match."}
	case s.Kind == KindOllama:
		return Check{"context", CheckWarn, fmt.Sprintf("Ollama does not say the context window of %s until the model is loaded; answers use context_window = %s, and Ollama cuts longer prompts silently",
			s.Model, humanize.Count(cfg.ContextWindow)), "Run `citelens doctor --probe` to check that Ollama gives the model that much."}
	}
	return Check{"context", CheckOK, fmt.Sprintf("%s does not say its context window; answers use context_window = %s tokens (%s)",
		kind, humanize.Count(cfg.ContextWindow), cmp.Or(set, "default")), ""}
}

// ProbeContext is `citelens doctor --probe`: it sends one long prompt —
// as long as the window the answers would use, at most probeMax tokens —
// and reports how much of it the server read, which is its window when it
// cut the prompt without saying so. The prompt costs that many tokens.
func ProbeContext(ctx context.Context, cfg config.Config, opts ...Option) Check {
	if err := cfg.Configured(); err != nil {
		return Check{"probe", CheckSkip, "no model endpoint configured", ""}
	}
	c, err := New(cfg, append([]Option{WithMaxRetries(1)}, opts...)...)
	if err != nil {
		return Check{"probe", CheckFail, err.Error(), ""}
	}
	s := c.Server(ctx)
	window := cfg.ContextWindow
	set := cfg.Sources["context_window"]
	switch explicit := set != "" && set != "default"; {
	case s.Window > 0 && (!explicit || s.Window < window):
		window = s.Window
	case s.Kind == KindOllama && !explicit:
		window = 4 * OllamaDefaultWindow // enough to see Ollama's default cut
	}
	size := min(probeMax, window*9/10)
	p, err := c.Probe(ctx, s, size)
	if err != nil {
		fix := ""
		var e *Error
		if errors.As(err, &e) {
			fix = e.Fix()
		}
		return Check{"probe", CheckFail, err.Error(), fix}
	}
	if Cut(p.Read, p.Sent, p.Counted != "estimated") {
		return Check{"probe", CheckFail, fmt.Sprintf("the server read only %s of a %s-token prompt (%s): it cuts prompts to about %s tokens without saying so",
			humanize.Count(p.Read), humanize.Count(p.Sent), p.Counted, humanize.Count(p.Read)), s.Fix(window)}
	}
	return Check{"probe", CheckOK, fmt.Sprintf("the server read the whole %s-token prompt (%s, it reports %s): the window holds at least that",
		humanize.Count(p.Sent), p.Counted, humanize.Count(p.Read)), ""}
}

// probeMax bounds the probe's prompt, and so what it costs.
const probeMax = 32768
