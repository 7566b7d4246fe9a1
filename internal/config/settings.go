package config

import (
	"fmt"

	"github.com/citelens/citelens/internal/dbaddr"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kind is how a setting's value is written and read.
type kind int

const (
	text     kind = iota // a string, spaces trimmed
	address              // an http(s) URL, its trailing slashes dropped; shown without credentials
	secret               // a key: read, never shown (only "set"), never written
	integer              // a whole number; the environment may write 128_000
	decimal              // a number such as 0.3
	duration             // "90s", "2m", or a bare number of seconds
	lower                // a word, trimmed and lower-cased ("Auto" is "auto")
	library              // a library's address, a file or a database; shown without its password
)

// setting is one configuration setting, the one place that says
// everything about it: its name in the file, the environment variable
// that overrides it, its default, where it lives in Config, what values
// it takes, and how the commented template explains it. Reading the file
// and the environment, validation, `citelens config show` and `config
// init`'s template all follow from the table below, so a new setting is
// a field in Config and one row here.
type setting struct {
	name string // the file's key; "tui.theme" is theme in the [tui] table
	env  string // the environment variable that overrides the file, if any
	kind kind
	// field points at the setting's place in c: a *string, *int,
	// *float64 or *time.Duration, as kind says.
	field func(c *Config) any
	// def is the default (of the field's type); nil leaves the zero value.
	def any
	// check says what is wrong with c's value ("is 3; it must be between
	// 0 and 2"), or "" when it is fine; the error names the setting and
	// where it came from before it.
	check func(c *Config) string
	// fromFile is false for a key that only the environment may hold;
	// api_key may be in the file, with a warning.
	fromFile bool
	// doc is the template's comment above the setting ("" shares the
	// comment of the one before); examples are its commented-out lines
	// after "name = ", the first the value a user would most likely
	// write. A secret is never in the template.
	doc      string
	examples []string
	// show overrides how `config show` states the value and its source
	// (the endpoint used when base_url is unset, say).
	show func(c Config) (value, source string, ok bool)
}

// settings is every setting, in the order `config show` lists them and
// the template explains them.
var settings = []setting{
	{name: "base_url", env: EnvBaseURL, kind: address, fromFile: true,
		field: func(c *Config) any { return &c.BaseURL },
		check: httpURL(func(c *Config) string { return c.BaseURL }, "http://localhost:8000/v1"),
		doc:   "The API root, ending in /v1. Leave unset to use api.openai.com.",
		examples: []string{`"http://localhost:8000/v1"    # vLLM`, `"http://localhost:8080/v1"    # llama.cpp server`,
			`"http://localhost:11434/v1"   # Ollama`},
		show: func(c Config) (string, string, bool) {
			return OpenAIBaseURL, "default", c.BaseURL == "" && c.APIKey != ""
		}},
	{name: "api_key", env: EnvAPIKey, kind: secret, fromFile: true,
		field: func(c *Config) any { return &c.APIKey }},
	{name: "model", env: EnvModel, kind: text, fromFile: true,
		field: func(c *Config) any { return &c.Model },
		doc: "The model that answers questions. Against api.openai.com it defaults to\n" +
			"gpt-4o-mini; other servers need it named (citelens doctor lists them).",
		examples: []string{`"THUDM/LongCite-llama3.1-8b"`}},
	{name: "embed_model", env: EnvEmbedModel, kind: text, fromFile: true,
		field: func(c *Config) any { return &c.EmbedModel },
		doc: "The embedding model for dense retrieval. Unset: retrieval uses BM25 only\n" +
			"(against api.openai.com it defaults to text-embedding-3-small).",
		examples: []string{`"BAAI/bge-m3"`}},
	{name: "analyzer_model", env: EnvAnalyzerModel, kind: text, fromFile: true,
		field:    func(c *Config) any { return &c.AnalyzerModel },
		doc:      "A small, fast model that classifies questions (OkraLong). Unset: model.",
		examples: []string{`""`}},
	{name: "context_window", env: EnvContextWindow, kind: integer, fromFile: true, def: DefaultContextWindow,
		field: func(c *Config) any { return &c.ContextWindow },
		check: func(c *Config) string {
			if c.ContextWindow < 512 {
				return fmt.Sprintf("is %d; it must be the model's context size in tokens (at least 512)", c.ContextWindow)
			}
			return ""
		},
		doc: "The model's context window and the most tokens one answer may use.\n" +
			"citelens asks vLLM, llama.cpp's server and Ollama for the window they\n" +
			"really give the model and fits prompts to it (citelens doctor shows it).",
		examples: []string{"128000"}},
	{name: "max_output", env: EnvMaxOutput, kind: integer, fromFile: true, def: DefaultMaxOutput,
		field: func(c *Config) any { return &c.MaxOutput },
		check: func(c *Config) string {
			switch {
			case c.MaxOutput < 16:
				return fmt.Sprintf("is %d; it must be at least 16 tokens", c.MaxOutput)
			case c.MaxOutput >= c.ContextWindow:
				return fmt.Sprintf("is %d, which leaves no room for the prompt in a context window of %d tokens", c.MaxOutput, c.ContextWindow)
			}
			return ""
		},
		examples: []string{"4096"}},
	{name: "temperature", kind: decimal, fromFile: true,
		field: func(c *Config) any { return &c.Temperature },
		check: func(c *Config) string {
			if c.Temperature < 0 || c.Temperature > 2 {
				return fmt.Sprintf("is %g; it must be between 0 and 2", c.Temperature)
			}
			return ""
		},
		doc:      "Sampling temperature, 0 to 2. 0 keeps answers and citations repeatable.",
		examples: []string{"0.0"}},
	{name: "timeout", env: EnvTimeout, kind: duration, fromFile: true, def: DefaultTimeout,
		field: func(c *Config) any { return &c.Timeout },
		check: positive(func(c *Config) time.Duration { return c.Timeout }, "120s"),
		doc: "How long one request (a whole streamed answer) may take, and how long\n" +
			"making the connection may take.",
		examples: []string{`"120s"`}},
	{name: "connect_timeout", kind: duration, fromFile: true, def: DefaultConnectTimeout,
		field:    func(c *Config) any { return &c.ConnectTimeout },
		check:    positive(func(c *Config) time.Duration { return c.ConnectTimeout }, "10s"),
		examples: []string{`"10s"`}},
	{name: "answer_timeout", env: EnvAnswerTimeout, kind: duration, fromFile: true, def: DefaultAnswerTimeout,
		field: func(c *Config) any { return &c.AnswerTimeout },
		check: positive(func(c *Config) time.Duration { return c.AnswerTimeout }, "10m"),
		doc: "How long one answer may take, all of its model calls together, and the\n" +
			"most statements one answer keeps.",
		examples: []string{`"10m"`}},
	{name: "max_statements", kind: integer, fromFile: true, def: DefaultMaxStatements,
		field: func(c *Config) any { return &c.MaxStatements },
		check: func(c *Config) string {
			if c.MaxStatements < 1 {
				return fmt.Sprintf("is %d; it must be at least 1", c.MaxStatements)
			}
			return ""
		},
		examples: []string{"300"}},
	{name: "judge_model", env: EnvJudgeModel, kind: text, fromFile: true,
		field: func(c *Config) any { return &c.Judge.Model },
		doc: "The judge of citelens eval --judge: another model, on this endpoint or\n" +
			"another (its key in CITELENS_JUDGE_API_KEY). Unset: the answering model.",
		examples: []string{`"gpt-4o"`}},
	{name: "judge_base_url", env: EnvJudgeBaseURL, kind: address, fromFile: true,
		field:    func(c *Config) any { return &c.Judge.BaseURL },
		check:    httpURL(func(c *Config) string { return c.Judge.BaseURL }, ""),
		examples: []string{`"https://api.openai.com/v1"`}},
	{name: "judge_api_key", env: EnvJudgeAPIKey, kind: secret,
		field: func(c *Config) any { return &c.Judge.APIKey }},
	{name: "embed_batch", kind: integer, fromFile: true, def: DefaultEmbedBatch,
		field:    func(c *Config) any { return &c.EmbedBatch },
		check:    between(func(c *Config) int { return c.EmbedBatch }, 1, 2048),
		doc:      "Texts per embeddings request.",
		examples: []string{"64"}},
	{name: "rerank_model", env: EnvRerankModel, kind: text, fromFile: true,
		field: func(c *Config) any { return &c.RerankModel },
		doc: "A reranker (cross-encoder) that reorders the best retrieval candidates.\n" +
			"Any server with a /rerank endpoint in Jina's and Cohere's shape (vLLM,\n" +
			"llama.cpp's llama-server --reranking, Infinity) or TEI's serves one.\n" +
			"Unset: results keep the order BM25 and dense retrieval give them.",
		examples: []string{`"BAAI/bge-reranker-v2-m3"`}},
	{name: "rerank_url", env: EnvRerankURL, kind: address, fromFile: true,
		field: func(c *Config) any { return &c.RerankURL },
		check: httpURL(func(c *Config) string { return c.RerankURL }, "http://localhost:8081/v1"),
		doc: "The root /rerank is posted to; unset, base_url. OPENAI_API_KEY is sent\n" +
			"only to base_url's own host: a reranker elsewhere that needs a key gets\n" +
			"CITELENS_RERANK_API_KEY (from the environment, never this file).",
		examples: []string{`"http://localhost:8081/v1"`},
		show: func(c Config) (string, string, bool) {
			return RedactURL(c.RerankEndpoint()), "default", c.RerankURL == "" && c.RerankModel != ""
		}},
	{name: "rerank_api_key", env: EnvRerankAPIKey, kind: secret,
		field: func(c *Config) any { return &c.RerankAPIKey }},
	{name: "rerank_timeout", kind: duration, fromFile: true, def: DefaultRerankTimeout,
		field: func(c *Config) any { return &c.RerankTimeout },
		check: positive(func(c *Config) time.Duration { return c.RerankTimeout }, "5s"),
		doc: "The longest reranking may take before the retrieval order is used\n" +
			"instead, how many candidates it reorders (1 to 200), and how many go in\n" +
			"one request (TEI accepts 32 unless started with --max-client-batch-size).",
		examples: []string{`"5s"`}},
	{name: "rerank_top", kind: integer, fromFile: true, def: DefaultRerankTop,
		field:    func(c *Config) any { return &c.RerankTop },
		check:    between(func(c *Config) int { return c.RerankTop }, 1, 200),
		examples: []string{"50"}},
	{name: "rerank_batch", kind: integer, fromFile: true, def: DefaultRerankBatch,
		field:    func(c *Config) any { return &c.RerankBatch },
		check:    between(func(c *Config) int { return c.RerankBatch }, 1, 1000),
		examples: []string{"32"}},
	{name: "ocr", kind: lower, fromFile: true,
		field: func(c *Config) any { return &c.OCR },
		check: func(c *Config) string {
			switch c.OCR {
			case "", OCROff, OCRAuto:
				return ""
			}
			return fmt.Sprintf("is %q; it must be \"auto\" (read scanned pages with Tesseract) or \"off\"", c.OCR)
		},
		doc: "Scanned PDFs: \"auto\" reads the pages without a text layer with Tesseract\n" +
			"(Debian: tesseract-ocr, tesseract-ocr-eng, poppler-utils), as\n" +
			"'citelens add --ocr' does; \"off\" refuses them. ocr_lang: Tesseract\n" +
			"languages joined by +, such as \"eng+deu\".",
		examples: []string{`"off"`}},
	{name: "ocr_lang", kind: text, fromFile: true,
		field: func(c *Config) any { return &c.OCRLang },
		check: func(c *Config) string {
			if strings.ContainsAny(c.OCRLang, " \t/\\") {
				return fmt.Sprintf("is %q; it must be Tesseract language codes joined by +, such as \"eng+deu\"", c.OCRLang)
			}
			return ""
		},
		examples: []string{`"eng"`}},
	{name: "db", env: EnvDB, kind: library, fromFile: true,
		field: func(c *Config) any { return &c.DB },
		check: func(c *Config) string {
			if c.DB == "" {
				return ""
			}
			if _, err := dbaddr.Parse(c.DB); err != nil {
				return "is not a library's address: " + err.Error()
			}
			return ""
		},
		doc: "The library: a file, or a team's library in PostgreSQL (a libpq URL or\n" +
			"key=value string; keep its password in ~/.pgpass or PGPASSWORD, not here).\n" +
			"Unset: ~/.local/share/citelens/library.db. --db overrides it.",
		examples: []string{`"postgres:///team"`, `"postgres://db.example.com/team?sslmode=verify-full"`, `"host=/run/postgresql dbname=team"`}},
	{name: "tui.theme", kind: text, fromFile: true,
		field: func(c *Config) any { return &c.Theme },
		doc: "The terminal UI. theme: dark, light, high-contrast or no-color; unset, it\n" +
			"follows the terminal's background (and NO_COLOR). --theme overrides it.",
		examples: []string{`"dark"`}},
	{name: "tui.graphics", kind: text, fromFile: true,
		field: func(c *Config) any { return &c.Graphics },
		check: func(c *Config) string {
			switch strings.ToLower(c.Graphics) {
			case "", "auto", "kitty", "sixel", "iterm2", "blocks", "off":
				return ""
			}
			return fmt.Sprintf("is %q; it must be auto, kitty, sixel, iterm2, blocks or off", c.Graphics)
		},
		doc: "graphics: how the page view (v in the source pane) draws a PDF's page:\n" +
			"kitty, sixel, iterm2, blocks (a map of the page in characters) or off;\n" +
			"unset, it asks the terminal. --graphics overrides it.",
		examples: []string{`"sixel"`}},
}

// between is a check that an integer lies in [lo, hi].
func between(v func(c *Config) int, lo, hi int) func(c *Config) string {
	return func(c *Config) string {
		if n := v(c); n < lo || n > hi {
			return fmt.Sprintf("is %d; it must be between %d and %d", n, lo, hi)
		}
		return ""
	}
}

// positive is a check that a duration is above zero.
func positive(v func(c *Config) time.Duration, example string) func(c *Config) string {
	return func(c *Config) string {
		if v(c) <= 0 {
			return fmt.Sprintf("must be a positive duration such as %q", example)
		}
		return ""
	}
}

// httpURL is a check that a URL, when set, is an absolute http:// or
// https:// one.
func httpURL(v func(c *Config) string, example string) func(c *Config) string {
	return func(c *Config) string {
		s := v(c)
		if s == "" || isHTTPURL(s) {
			return ""
		}
		msg := fmt.Sprintf("is %q, which is not an http:// or https:// URL", RedactURL(s))
		if example != "" {
			msg += " (for example " + example + ")"
		}
		return msg
	}
}

// setDefaults puts every setting's default in c.
func setDefaults(c *Config) {
	for _, s := range settings {
		if s.def == nil {
			continue
		}
		switch p := s.field(c).(type) {
		case *string:
			*p = s.def.(string)
		case *int:
			*p = s.def.(int)
		case *float64:
			*p = s.def.(float64)
		case *time.Duration:
			*p = s.def.(time.Duration)
		}
	}
}

// lookup is the setting of a file key or name, if there is one.
func lookup(name string) (setting, bool) {
	for _, s := range settings {
		if s.name == name {
			return s, true
		}
	}
	return setting{}, false
}

// set stores the value v (as the file's decoder or the environment gave
// it) in s's field of c. When v is of no use it returns what v should
// have been ("a whole number"), and "" when it was stored.
func (s setting) set(c *Config, v any) (want string) {
	str, isString := v.(string)
	if isString {
		str = strings.TrimSpace(str)
	}
	switch p := s.field(c).(type) {
	case *string:
		if !isString {
			return "text (write it in quotes)"
		}
		switch s.kind {
		case address:
			str = strings.TrimRight(str, "/")
		case lower:
			str = strings.ToLower(str)
		}
		*p = str
	case *int:
		switch n := v.(type) {
		case int64:
			*p = int(n)
		case string:
			i, err := strconv.Atoi(strings.ReplaceAll(str, "_", ""))
			if err != nil {
				return "a whole number"
			}
			*p = i
		default:
			return "a whole number"
		}
	case *float64:
		switch n := v.(type) {
		case float64:
			*p = n
		case int64:
			*p = float64(n)
		case string:
			f, err := strconv.ParseFloat(str, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return "a number"
			}
			*p = f
		default:
			return "a number"
		}
		// TOML writes nan and inf as floats; no setting means either.
		if math.IsNaN(*p) || math.IsInf(*p, 0) {
			return "a number"
		}
	case *time.Duration:
		switch n := v.(type) {
		case string:
			d, err := parseTimeout(str)
			if err != nil {
				return "a duration (write 90s or 2m)"
			}
			*p = d
		case int64:
			*p = time.Duration(n) * time.Second
		case float64:
			*p = time.Duration(n * float64(time.Second))
		default:
			return "a duration (write 90s or 2m)"
		}
	}
	return ""
}

// parseTimeout accepts a Go duration ("90s") or a bare number of seconds.
func parseTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n) > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("%q is not a number of seconds", v)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}

// value is how `config show` writes s's value in c.
func (s setting) value(c *Config) string {
	switch p := s.field(c).(type) {
	case *string:
		switch s.kind {
		case secret:
			return keyState(*p)
		case address:
			return RedactURL(*p)
		case library:
			return dbaddr.Redact(*p)
		}
		return *p
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *time.Duration:
		return p.String()
	}
	return ""
}

// keyState shows a key as set or not, never its value.
func keyState(key string) string {
	if key != "" {
		return "set"
	}
	return "not set"
}

// Setting is one line of the effective configuration, for display.
type Setting struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"` // "env OPENAI_BASE_URL", "file", "default" or "unset"
}

// Settings lists the effective configuration for display. Keys appear
// only as "set" or "not set".
func (c Config) Settings() []Setting {
	out := make([]Setting, 0, len(settings))
	for _, s := range settings {
		if s.show != nil {
			if v, src, ok := s.show(c); ok {
				out = append(out, Setting{s.name, v, src})
				continue
			}
		}
		v := s.value(&c)
		src := c.Sources[s.name]
		switch {
		case src != "":
		case s.kind != secret && v != "":
			src = "default"
		default:
			src = "unset"
		}
		out = append(out, Setting{s.name, v, src})
	}
	return out
}

// validate checks every setting in table order; the first that is wrong
// is the error.
func (c *Config) validate() error {
	for _, s := range settings {
		if s.check == nil {
			continue
		}
		if msg := s.check(c); msg != "" {
			return fmt.Errorf("%w: %s %s", ErrBadConfig, c.from(s.name), msg)
		}
	}
	return nil
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

// readEnv takes every setting that has an environment variable and finds
// it set.
func (c *Config) readEnv(getenv func(string) string) error {
	for _, s := range settings {
		if s.env == "" {
			continue
		}
		v := strings.TrimSpace(getenv(s.env))
		if v == "" {
			continue
		}
		if want := s.set(c, v); want != "" {
			return fmt.Errorf("%w: %s=%q is not %s", ErrBadConfig, s.env, v, want)
		}
		c.Sources[s.name] = "env " + s.env
	}
	return nil
}

// readTable takes the settings of one table of the file (prefix "" for
// the top level, "tui." for [tui]); keys it does not know are warnings.
func (c *Config) readTable(path, prefix string, table map[string]any) error {
	for _, key := range slices.Sorted(maps.Keys(table)) {
		v, name := table[key], prefix+key
		if sub, ok := v.(map[string]any); ok && prefix == "" {
			if err := c.readTable(path, name+".", sub); err != nil {
				return err
			}
			continue
		}
		s, ok := lookup(name)
		if !ok || !s.fromFile {
			why := "unknown setting"
			if ok {
				why = "setting only the environment may hold, " + s.env + ","
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("config file %s: %s %q is ignored", path, why, name))
			continue
		}
		if want := s.set(c, v); want != "" {
			shown := fmt.Sprint(v)
			if str, ok := v.(string); ok {
				shown = strconv.Quote(str)
			}
			return fmt.Errorf("%w: %s in %s is %s, which is not %s", ErrBadConfig, name, path, shown, want)
		}
		c.Sources[name] = "file"
	}
	return nil
}

// templateBody is the settings part of the template: each setting's
// comment and commented-out examples, the [tui] table's at the end.
func templateBody() string {
	var b strings.Builder
	table := ""
	for _, s := range settings {
		if s.kind == secret {
			continue
		}
		section, key, ok := strings.Cut(s.name, ".")
		if !ok {
			section, key = "", s.name
		}
		if s.doc != "" {
			b.WriteString("\n")
			for _, l := range strings.Split(s.doc, "\n") {
				b.WriteString("# " + l + "\n")
			}
		}
		if section != table {
			b.WriteString("[" + section + "]\n")
			table = section
		}
		for _, e := range s.examples {
			b.WriteString("# " + key + " = " + e + "\n")
		}
	}
	return b.String()
}

// envNames lists the environment variables of the settings, for the
// template's header.
func envNames() []string {
	var out []string
	for _, s := range settings {
		if s.env != "" {
			out = append(out, s.env)
		}
	}
	return out
}
