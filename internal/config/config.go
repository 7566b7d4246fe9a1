// Package config is citelens's configuration: the model endpoint and its
// models, limits and timeouts, and the terminal UI's theme, read from the
// config file ($XDG_CONFIG_HOME/citelens/config.toml) and the environment,
// which overrides it. The API key is read but never written.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Environment variables read by Load. They override the config file.
const (
	EnvAPIKey        = "OPENAI_API_KEY"
	EnvBaseURL       = "OPENAI_BASE_URL"
	EnvModel         = "CITELENS_MODEL"
	EnvEmbedModel    = "CITELENS_EMBED_MODEL"
	EnvAnalyzerModel = "CITELENS_ANALYZER_MODEL"
	EnvContextWindow = "CITELENS_CONTEXT_WINDOW"
	EnvMaxOutput     = "CITELENS_MAX_OUTPUT"
	EnvTimeout       = "CITELENS_TIMEOUT"
	// The reranker: its model, its server's root (default: the base URL)
	// and a key of its own for a server on another host.
	EnvRerankModel  = "CITELENS_RERANK_MODEL"
	EnvRerankURL    = "CITELENS_RERANK_URL"
	EnvRerankAPIKey = "CITELENS_RERANK_API_KEY"
	// EnvConfig names the config file, replacing the XDG location.
	EnvConfig = "CITELENS_CONFIG"
)

// Configuration errors.
var (
	// ErrNotConfigured means neither a base URL nor an API key is set, so
	// there is no endpoint to talk to; the LLM strategies are unavailable.
	ErrNotConfigured = errors.New("no model endpoint configured")
	// ErrNoModel means an endpoint is set but no chat model.
	ErrNoModel = errors.New("no model set")
	// ErrBadConfig means a setting has a value citelens cannot use.
	ErrBadConfig = errors.New("bad configuration")
	// ErrConfigExists means config init found a file already there.
	ErrConfigExists = errors.New("the config file already exists")
)

// OpenAIBaseURL is the endpoint used when only an API key is set.
const OpenAIBaseURL = "https://api.openai.com/v1"

// Defaults for settings left unset.
const (
	DefaultContextWindow  = 128000
	DefaultMaxOutput      = 4096
	DefaultTimeout        = 120 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultEmbedBatch     = 64
	// The reranker's time budget, how many fused candidates it reorders
	// and how many go in one request (TEI's default cap is 32).
	DefaultRerankTimeout = 5 * time.Second
	DefaultRerankTop     = 50
	DefaultRerankBatch   = 32
	// The models used against api.openai.com when none is named. Other
	// endpoints serve models of their own, so there the model must be set.
	DefaultOpenAIModel      = "gpt-4o-mini"
	DefaultOpenAIEmbedModel = "text-embedding-3-small"
)

// Config is the model endpoint configuration. Precedence: environment over
// config file over defaults.
//
// APIKey is tagged so that no encoder ever writes it: a Config may be shown
// or saved, the key may not.
type Config struct {
	// BaseURL is the OpenAI-compatible API root, ending in /v1; empty means
	// api.openai.com (when a key is set).
	BaseURL string `toml:"base_url" json:"base_url"`
	APIKey  string `toml:"-" json:"-"`
	// Model answers questions; EmbedModel embeds chunks for dense
	// retrieval ("" disables it); AnalyzerModel classifies questions for
	// OkraLong ("" means Model).
	Model         string `toml:"model" json:"model"`
	EmbedModel    string `toml:"embed_model" json:"embed_model"`
	AnalyzerModel string `toml:"analyzer_model" json:"analyzer_model"`
	// ContextWindow is the model's context size in tokens; MaxOutput is the
	// most tokens one answer may use.
	ContextWindow int     `toml:"context_window" json:"context_window"`
	MaxOutput     int     `toml:"max_output" json:"max_output"`
	Temperature   float64 `toml:"temperature" json:"temperature"`
	// Timeout bounds one HTTP request (a whole streamed answer);
	// ConnectTimeout bounds making the connection.
	Timeout        time.Duration `toml:"timeout" json:"timeout"`
	ConnectTimeout time.Duration `toml:"connect_timeout" json:"connect_timeout"`
	// EmbedBatch is how many texts go in one embeddings request.
	EmbedBatch int `toml:"embed_batch" json:"embed_batch"`
	// RerankModel is a cross-encoder that reorders the best fused
	// retrieval candidates ("" disables reranking). RerankURL is the root
	// of the server that serves it, where /rerank is posted ("" means
	// BaseURL). RerankAPIKey, from the environment only, is sent there;
	// without it APIKey is, but only to BaseURL's own host. RerankTimeout
	// bounds the whole rerank step, after which the fused order stands;
	// RerankTop is how many candidates are reranked, RerankBatch how many
	// go in one request.
	RerankModel   string        `toml:"rerank_model" json:"rerank_model"`
	RerankURL     string        `toml:"rerank_url" json:"rerank_url"`
	RerankAPIKey  string        `toml:"-" json:"-"`
	RerankTimeout time.Duration `toml:"rerank_timeout" json:"rerank_timeout"`
	RerankTop     int           `toml:"rerank_top" json:"rerank_top"`
	RerankBatch   int           `toml:"rerank_batch" json:"rerank_batch"`
	// Answers is how far one answer may go, and Judge the model that
	// scores answers in `citelens eval --judge` (answers.go).
	Answers
	Judge Judge `toml:"-" json:"judge"`
	// Theme is the terminal UI's colour theme, from the file's [tui]
	// section ("" means chosen from the terminal's background). It lives
	// here because this is where the one config file is read.
	Theme string `toml:"-" json:"theme,omitempty"`
	// Graphics is how the terminal UI's page view draws pages, from the
	// file's [tui] section: "kitty", "sixel", "iterm2", "blocks", "off",
	// or "" (and "auto") to ask the terminal. The terminal UI checks it.
	Graphics string `toml:"-" json:"graphics,omitempty"`
	// OCRConfig says how scanned PDF pages are read (config_ocr.go).
	OCRConfig

	// Path is where the config file was looked for; FileFound reports
	// whether it existed.
	Path      string `toml:"-" json:"path"`
	FileFound bool   `toml:"-" json:"file_found"`
	// Sources says where each setting came from, by its file name
	// ("model"): "env CITELENS_MODEL", "file", or "default".
	Sources map[string]string `toml:"-" json:"sources"`
	// Warnings are things the user should fix that do not stop citelens.
	Warnings []string `toml:"-" json:"warnings,omitempty"`
}

// Default returns the defaults, with nothing configured.
func Default() Config {
	return Config{
		ContextWindow:  DefaultContextWindow,
		MaxOutput:      DefaultMaxOutput,
		Timeout:        DefaultTimeout,
		ConnectTimeout: DefaultConnectTimeout,
		EmbedBatch:     DefaultEmbedBatch,
		RerankTimeout:  DefaultRerankTimeout,
		RerankTop:      DefaultRerankTop,
		RerankBatch:    DefaultRerankBatch,
		Answers:        Answers{AnswerTimeout: DefaultAnswerTimeout, MaxStatements: DefaultMaxStatements},
		Sources:        map[string]string{},
	}
}

// Path is where the config file lives: $CITELENS_CONFIG, else
// $XDG_CONFIG_HOME/citelens/config.toml, else ~/.config/citelens/config.toml.
func Path() string { return configPath(os.Getenv) }

func configPath(getenv func(string) string) string {
	if p := getenv(EnvConfig); p != "" {
		return p
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "citelens", "config.toml")
}

// Load reads the config file at Path and the environment.
func Load() (Config, error) { return LoadFrom(Path(), os.Getenv) }

// fileConfig is the file's shape; pointers tell "absent" from zero. Unlike
// Config it has api_key, which may be read (with a warning) but is never
// written.
type fileConfig struct {
	BaseURL        *string        `toml:"base_url"`
	APIKey         *string        `toml:"api_key"`
	Model          *string        `toml:"model"`
	EmbedModel     *string        `toml:"embed_model"`
	AnalyzerModel  *string        `toml:"analyzer_model"`
	ContextWindow  *int           `toml:"context_window"`
	MaxOutput      *int           `toml:"max_output"`
	Temperature    *float64       `toml:"temperature"`
	Timeout        *time.Duration `toml:"timeout"`
	ConnectTimeout *time.Duration `toml:"connect_timeout"`
	EmbedBatch     *int           `toml:"embed_batch"`
	RerankModel    *string        `toml:"rerank_model"`
	RerankURL      *string        `toml:"rerank_url"`
	RerankTimeout  *time.Duration `toml:"rerank_timeout"`
	RerankTop      *int           `toml:"rerank_top"`
	RerankBatch    *int           `toml:"rerank_batch"`
	TUI            struct {
		Theme    *string `toml:"theme"`
		Graphics *string `toml:"graphics"`
	} `toml:"tui"`
	fileOCRConfig
	answerFile
}

// LoadFrom reads the config file at path (a missing file is fine) and
// then the variables getenv returns, and validates the result. Errors name
// the setting, where it came from, and what is wrong.
func LoadFrom(path string, getenv func(string) string) (Config, error) {
	c := Default()
	c.Path = path
	if err := c.readFile(path); err != nil {
		return c, err
	}
	if err := c.readEnv(getenv); err != nil {
		return c, err
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.RerankURL = strings.TrimRight(c.RerankURL, "/")
	if c.Endpoint() == OpenAIBaseURL && (c.BaseURL != "" || c.APIKey != "") {
		if c.Model == "" {
			c.Model = DefaultOpenAIModel
			c.Sources["model"] = "default"
		}
		if c.EmbedModel == "" && c.Sources["embed_model"] == "" {
			c.EmbedModel = DefaultOpenAIEmbedModel
			c.Sources["embed_model"] = "default"
		}
	}
	return c, c.validate()
}

func (c *Config) readFile(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: cannot read the config file: %v", ErrBadConfig, err)
	}
	c.FileFound = true
	var f fileConfig
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%w: config file %s, line %d: %s", ErrBadConfig, path, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("%w: config file %s: %v", ErrBadConfig, path, err)
	}
	for _, k := range md.Undecoded() {
		c.Warnings = append(c.Warnings, fmt.Sprintf("config file %s: unknown setting %q is ignored", path, k.String()))
	}
	setS := func(name string, dst *string, v *string) {
		if v != nil {
			*dst = *v
			c.Sources[name] = "file"
		}
	}
	setI := func(name string, dst *int, v *int) {
		if v != nil {
			*dst = *v
			c.Sources[name] = "file"
		}
	}
	setD := func(name string, dst *time.Duration, v *time.Duration) {
		if v != nil {
			*dst = *v
			c.Sources[name] = "file"
		}
	}
	setS("base_url", &c.BaseURL, f.BaseURL)
	setS("api_key", &c.APIKey, f.APIKey)
	setS("model", &c.Model, f.Model)
	setS("embed_model", &c.EmbedModel, f.EmbedModel)
	setS("analyzer_model", &c.AnalyzerModel, f.AnalyzerModel)
	setI("context_window", &c.ContextWindow, f.ContextWindow)
	setI("max_output", &c.MaxOutput, f.MaxOutput)
	setI("embed_batch", &c.EmbedBatch, f.EmbedBatch)
	setS("tui.theme", &c.Theme, f.TUI.Theme)
	setS("tui.graphics", &c.Graphics, f.TUI.Graphics)
	c.readOCR(f.fileOCRConfig)
	setD("timeout", &c.Timeout, f.Timeout)
	setD("connect_timeout", &c.ConnectTimeout, f.ConnectTimeout)
	setS("rerank_model", &c.RerankModel, f.RerankModel)
	setS("rerank_url", &c.RerankURL, f.RerankURL)
	setD("rerank_timeout", &c.RerankTimeout, f.RerankTimeout)
	setI("rerank_top", &c.RerankTop, f.RerankTop)
	setI("rerank_batch", &c.RerankBatch, f.RerankBatch)
	if f.Temperature != nil {
		c.Temperature = *f.Temperature
		c.Sources["temperature"] = "file"
	}
	c.readAnswerFile(f.answerFile)
	if f.APIKey != nil && *f.APIKey != "" {
		w := fmt.Sprintf("the config file %s holds an API key; prefer setting %s in the environment so the key is not stored in a file", path, EnvAPIKey)
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			w += fmt.Sprintf(", and note the file is readable by other users (chmod 600 %s)", path)
		}
		c.Warnings = append(c.Warnings, w)
	}
	return nil
}

func (c *Config) readEnv(getenv func(string) string) error {
	str := func(name, env string, dst *string) {
		if v := strings.TrimSpace(getenv(env)); v != "" {
			*dst = v
			c.Sources[name] = "env " + env
		}
	}
	str("base_url", EnvBaseURL, &c.BaseURL)
	str("api_key", EnvAPIKey, &c.APIKey)
	str("model", EnvModel, &c.Model)
	str("embed_model", EnvEmbedModel, &c.EmbedModel)
	str("analyzer_model", EnvAnalyzerModel, &c.AnalyzerModel)
	str("rerank_model", EnvRerankModel, &c.RerankModel)
	str("rerank_url", EnvRerankURL, &c.RerankURL)
	str("rerank_api_key", EnvRerankAPIKey, &c.RerankAPIKey)
	for _, e := range []struct {
		name, env string
		dst       *int
	}{
		{"context_window", EnvContextWindow, &c.ContextWindow},
		{"max_output", EnvMaxOutput, &c.MaxOutput},
	} {
		v := strings.TrimSpace(getenv(e.env))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a whole number of tokens", ErrBadConfig, e.env, v)
		}
		*e.dst = n
		c.Sources[e.name] = "env " + e.env
	}
	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a duration (write 90s or 2m)", ErrBadConfig, EnvTimeout, v)
		}
		c.Timeout = d
		c.Sources["timeout"] = "env " + EnvTimeout
	}
	return c.readAnswerEnv(getenv)
}

// parseTimeout accepts a Go duration ("90s") or a bare number of seconds.
func parseTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}

// from describes where setting name came from, for error messages.
func (c *Config) from(name string) string {
	src := c.Sources[name]
	switch {
	case src == "file":
		return fmt.Sprintf("%s in %s", name, c.Path)
	case strings.HasPrefix(src, "env "):
		return strings.TrimPrefix(src, "env ")
	}
	return name
}

func (c *Config) validate() error {
	bad := func(name, format string, args ...any) error { return errorAt(c, name, format, args...) }
	if c.BaseURL != "" && !isHTTPURL(c.BaseURL) {
		return bad("base_url", "is %q, which is not an http:// or https:// URL (for example http://localhost:8000/v1)", RedactURL(c.BaseURL))
	}
	switch {
	case c.ContextWindow < 512:
		return bad("context_window", "is %d; it must be the model's context size in tokens (at least 512)", c.ContextWindow)
	case c.MaxOutput < 16:
		return bad("max_output", "is %d; it must be at least 16 tokens", c.MaxOutput)
	case c.MaxOutput >= c.ContextWindow:
		return bad("max_output", "is %d, which leaves no room for the prompt in a context window of %d tokens", c.MaxOutput, c.ContextWindow)
	case c.Temperature < 0 || c.Temperature > 2:
		return bad("temperature", "is %g; it must be between 0 and 2", c.Temperature)
	case c.Timeout <= 0:
		return bad("timeout", "must be a positive duration such as \"120s\"")
	case c.ConnectTimeout <= 0:
		return bad("connect_timeout", "must be a positive duration such as \"10s\"")
	case c.EmbedBatch < 1 || c.EmbedBatch > 2048:
		return bad("embed_batch", "is %d; it must be between 1 and 2048", c.EmbedBatch)
	case c.RerankURL != "" && !isHTTPURL(c.RerankURL):
		return bad("rerank_url", "is %q, which is not an http:// or https:// URL (for example http://localhost:8081/v1)", RedactURL(c.RerankURL))
	case c.RerankTimeout <= 0:
		return bad("rerank_timeout", "must be a positive duration such as \"5s\"")
	case c.RerankTop < 1 || c.RerankTop > 200:
		return bad("rerank_top", "is %d; it must be between 1 and 200", c.RerankTop)
	case c.RerankBatch < 1 || c.RerankBatch > 1000:
		return bad("rerank_batch", "is %d; it must be between 1 and 1000", c.RerankBatch)
	}
	if err := c.validateAnswers(bad); err != nil {
		return err
	}
	return c.validateOCR()
}

// Endpoint is the base URL requests go to.
func (c Config) Endpoint() string {
	if c.BaseURL == "" {
		return OpenAIBaseURL
	}
	return c.BaseURL
}

// RerankEndpoint is the root the reranker's requests go to: RerankURL,
// else the base URL.
func (c Config) RerankEndpoint() string {
	if c.RerankURL == "" {
		return c.Endpoint()
	}
	return c.RerankURL
}

// RerankKey is the key sent to the reranker: RerankAPIKey, else APIKey
// when the reranker is on the base URL's own host (scheme, host and port),
// else none, so the key never reaches a server it was not given for.
func (c Config) RerankKey() string {
	if c.RerankAPIKey != "" {
		return c.RerankAPIKey
	}
	if SameOrigin(c.RerankEndpoint(), c.Endpoint()) {
		return c.APIKey
	}
	return ""
}

// Configured reports whether the LLM strategies can run, and if not, says
// exactly what to set.
func (c Config) Configured() error {
	if c.BaseURL == "" && c.APIKey == "" {
		return fmt.Errorf("%w: set %s (and %s if your server needs one), or run `citelens config init` and edit the file it writes; until then only the extractive strategy answers",
			ErrNotConfigured, EnvBaseURL, EnvAPIKey)
	}
	if c.Model == "" {
		return fmt.Errorf("%w: set %s (or model in %s) to a model the server at %s serves; `citelens doctor` lists them",
			ErrNoModel, EnvModel, c.Path, RedactURL(c.Endpoint()))
	}
	return nil
}

// Analyzer is the model that classifies questions: AnalyzerModel, else
// Model.
func (c Config) Analyzer() string {
	if c.AnalyzerModel != "" {
		return c.AnalyzerModel
	}
	return c.Model
}

// PromptBudget is how many tokens (as textproc.EstimateTokens counts them) a
// prompt may use: the context window less the answer's room and a tenth of
// the window as slack for the estimate's error.
func (c Config) PromptBudget() int {
	return max(0, c.ContextWindow-c.MaxOutput-c.ContextWindow/10)
}

// Setting is one line of the effective configuration, for display.
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"` // "env OPENAI_BASE_URL", "file", "default" or "unset"
}

// Settings lists the effective configuration for display. The API key
// appears only as "set" or "not set".
func (c Config) Settings() []Setting {
	src := func(name string, set bool) string {
		if s := c.Sources[name]; s != "" {
			return s
		}
		if set {
			return "default"
		}
		return "unset"
	}
	str := func(name, v string) Setting { return Setting{name, v, src(name, v != "")} }
	key := "not set"
	if c.APIKey != "" {
		key = "set"
	}
	base := str("base_url", RedactURL(c.BaseURL))
	if c.BaseURL == "" && c.APIKey != "" {
		base = Setting{"base_url", OpenAIBaseURL, "default"}
	}
	rerankURL, rerankKey := str("rerank_url", RedactURL(c.RerankURL)), "not set"
	if c.RerankURL == "" && c.RerankModel != "" {
		rerankURL = Setting{"rerank_url", RedactURL(c.RerankEndpoint()), "default"}
	}
	if c.RerankAPIKey != "" {
		rerankKey = "set"
	}
	return []Setting{
		base,
		{"api_key", key, src("api_key", false)},
		str("model", c.Model),
		str("embed_model", c.EmbedModel),
		str("analyzer_model", c.AnalyzerModel),
		str("context_window", strconv.Itoa(c.ContextWindow)),
		str("max_output", strconv.Itoa(c.MaxOutput)),
		str("temperature", strconv.FormatFloat(c.Temperature, 'g', -1, 64)),
		str("timeout", c.Timeout.String()),
		str("connect_timeout", c.ConnectTimeout.String()),
		str("embed_batch", strconv.Itoa(c.EmbedBatch)),
		str("rerank_model", c.RerankModel),
		rerankURL,
		{"rerank_api_key", rerankKey, src("rerank_api_key", false)},
		str("rerank_timeout", c.RerankTimeout.String()),
		str("rerank_top", strconv.Itoa(c.RerankTop)),
		str("rerank_batch", strconv.Itoa(c.RerankBatch)),
		str("answer_timeout", c.AnswerTimeout.String()),
		str("max_statements", strconv.Itoa(c.MaxStatements)),
		str("judge_model", c.Judge.Model),
		str("judge_base_url", RedactURL(c.Judge.BaseURL)),
		{"judge_api_key", keyState(c.Judge.APIKey), src("judge_api_key", false)},
		str("ocr", c.OCR),
		str("ocr_lang", c.OCRLang),
		str("tui.theme", c.Theme),
		str("tui.graphics", c.Graphics),
	}
}

// isHTTPURL reports whether s is an absolute http:// or https:// URL.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// SameOrigin reports whether two URLs have one scheme, host and port.
func SameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host != "" &&
		strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// RedactURL drops credentials and the query from a URL so it can be shown.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
