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
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Environment variables read by Load. They override the config file.
const (
	EnvAPIKey        = "OPENAI_API_KEY"
	EnvDB            = "CITELENS_DB"
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
	// DB is the library's address: a file's path or a PostgreSQL
	// connection string (internal/dbaddr); "" for the default file.
	// The command line's --db comes before it.
	DB string `json:"db,omitempty"`
	// BaseURL is the OpenAI-compatible API root, ending in /v1; empty means
	// api.openai.com (when a key is set).
	BaseURL string `json:"base_url"`
	APIKey  string `json:"-"`
	// Model answers questions; EmbedModel embeds chunks for dense
	// retrieval ("" disables it); AnalyzerModel classifies questions for
	// OkraLong ("" means Model).
	Model         string `json:"model"`
	EmbedModel    string `json:"embed_model"`
	AnalyzerModel string `json:"analyzer_model"`
	// ContextWindow is the model's context size in tokens; MaxOutput is the
	// most tokens one answer may use.
	ContextWindow int     `json:"context_window"`
	MaxOutput     int     `json:"max_output"`
	Temperature   float64 `json:"temperature"`
	// Timeout bounds one HTTP request (a whole streamed answer);
	// ConnectTimeout bounds making the connection.
	Timeout        time.Duration `json:"timeout"`
	ConnectTimeout time.Duration `json:"connect_timeout"`
	// EmbedBatch is how many texts go in one embeddings request.
	EmbedBatch int `json:"embed_batch"`
	// RerankModel is a cross-encoder that reorders the best fused
	// retrieval candidates ("" disables reranking). RerankURL is the root
	// of the server that serves it, where /rerank is posted ("" means
	// BaseURL). RerankAPIKey, from the environment only, is sent there;
	// without it APIKey is, but only to BaseURL's own host. RerankTimeout
	// bounds the whole rerank step, after which the fused order stands;
	// RerankTop is how many candidates are reranked, RerankBatch how many
	// go in one request.
	RerankModel   string        `json:"rerank_model"`
	RerankURL     string        `json:"rerank_url"`
	RerankAPIKey  string        `json:"-"`
	RerankTimeout time.Duration `json:"rerank_timeout"`
	RerankTop     int           `json:"rerank_top"`
	RerankBatch   int           `json:"rerank_batch"`
	// Answers is how far one answer may go, and Judge the model that
	// scores answers in `citelens eval --judge` (answers.go).
	Answers
	Judge Judge `json:"judge"`
	// Theme is the terminal UI's colour theme, from the file's [tui]
	// section ("" means chosen from the terminal's background). It lives
	// here because this is where the one config file is read.
	Theme string `json:"theme,omitempty"`
	// Graphics is how the terminal UI's page view draws pages, from the
	// file's [tui] section: "kitty", "sixel", "iterm2", "blocks", "off",
	// or "" (and "auto") to ask the terminal.
	Graphics string `json:"graphics,omitempty"`
	// OCRConfig says how scanned PDF pages are read (config_ocr.go).
	OCRConfig

	// Path is where the config file was looked for; FileFound reports
	// whether it existed.
	Path      string `json:"path"`
	FileFound bool   `json:"file_found"`
	// Sources says where each setting came from, by its file name
	// ("model"): "env CITELENS_MODEL", "file", or "default".
	Sources map[string]string `json:"sources"`
	// Warnings are things the user should fix that do not stop citelens.
	Warnings []string `json:"warnings,omitempty"`
}

// Default returns the defaults, with nothing configured.
func Default() Config {
	c := Config{Sources: map[string]string{}}
	setDefaults(&c)
	return c
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
	var table map[string]any
	if _, err := toml.Decode(string(data), &table); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%w: config file %s, line %d: %s", ErrBadConfig, path, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("%w: config file %s: %v", ErrBadConfig, path, err)
	}
	if err := c.readTable(path, "", table); err != nil {
		return err
	}
	if key, _ := table["api_key"].(string); key != "" {
		w := fmt.Sprintf("the config file %s holds an API key; prefer setting %s in the environment so the key is not stored in a file", path, EnvAPIKey)
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			w += fmt.Sprintf(", and note the file is readable by other users (chmod 600 %s)", path)
		}
		c.Warnings = append(c.Warnings, w)
	}
	return nil
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
		return fmt.Errorf("%w: set %s and %s for a server of your own (and %s if it needs one), or %s alone for api.openai.com; or run `citelens config init --endpoint URL --model NAME`. `citelens doctor` finds a server running on this machine and lists its models. Until then only the extractive strategy answers",
			ErrNotConfigured, EnvBaseURL, EnvModel, EnvAPIKey, EnvAPIKey)
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
