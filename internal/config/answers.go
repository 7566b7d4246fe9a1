package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Environment variables for the settings of this file.
const (
	EnvAnswerTimeout = "CITELENS_ANSWER_TIMEOUT"
	EnvJudgeModel    = "CITELENS_JUDGE_MODEL"
	EnvJudgeBaseURL  = "CITELENS_JUDGE_BASE_URL"
	EnvJudgeAPIKey   = "CITELENS_JUDGE_API_KEY"
)

// Defaults of Answers.
const (
	// DefaultAnswerTimeout bounds one answer, all of its model calls
	// together: CoF's forty extractions on a slow local model fit in it,
	// and a server that stops answering costs at most this.
	DefaultAnswerTimeout = 10 * time.Minute
	// DefaultMaxStatements caps the statements of one answer: a long
	// answer of 4,096 tokens has a hundred or two, a model that runs away
	// thousands.
	DefaultMaxStatements = 300
)

// Answers bounds one answer, whatever the server does.
type Answers struct {
	// AnswerTimeout bounds one answer across all of a strategy's model
	// calls (Timeout bounds each request within it).
	AnswerTimeout time.Duration `toml:"answer_timeout" json:"answer_timeout"`
	// MaxStatements caps the statements kept per answer.
	MaxStatements int `toml:"max_statements" json:"max_statements"`
}

// Judge is the model that judges answers in `citelens eval --judge`.
// LongBench-Cite judges with GPT-4o, not with the model being evaluated,
// so the judge may be another model and another endpoint. Empty fields
// take the answering model's (Config.JudgeConfig).
type Judge struct {
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// APIKey is the judge endpoint's key, read from CITELENS_JUDGE_API_KEY
	// only and never written.
	APIKey string `json:"-"`
}

// answerFile is the file's part for this file's settings.
type answerFile struct {
	AnswerTimeout *time.Duration `toml:"answer_timeout"`
	MaxStatements *int           `toml:"max_statements"`
	JudgeModel    *string        `toml:"judge_model"`
	JudgeBaseURL  *string        `toml:"judge_base_url"`
}

func (c *Config) readAnswerFile(f answerFile) {
	if f.AnswerTimeout != nil {
		c.AnswerTimeout = *f.AnswerTimeout
		c.Sources["answer_timeout"] = "file"
	}
	if f.MaxStatements != nil {
		c.MaxStatements = *f.MaxStatements
		c.Sources["max_statements"] = "file"
	}
	if f.JudgeModel != nil {
		c.Judge.Model = *f.JudgeModel
		c.Sources["judge_model"] = "file"
	}
	if f.JudgeBaseURL != nil {
		c.Judge.BaseURL = *f.JudgeBaseURL
		c.Sources["judge_base_url"] = "file"
	}
}

func (c *Config) readAnswerEnv(getenv func(string) string) error {
	for _, e := range []struct {
		name, env string
		dst       *string
	}{
		{"judge_model", EnvJudgeModel, &c.Judge.Model},
		{"judge_base_url", EnvJudgeBaseURL, &c.Judge.BaseURL},
		{"judge_api_key", EnvJudgeAPIKey, &c.Judge.APIKey},
	} {
		if v := strings.TrimSpace(getenv(e.env)); v != "" {
			*e.dst = v
			c.Sources[e.name] = "env " + e.env
		}
	}
	c.Judge.BaseURL = strings.TrimRight(c.Judge.BaseURL, "/")
	if v := strings.TrimSpace(getenv(EnvAnswerTimeout)); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			return fmt.Errorf("%w: %s=%q is not a duration (write 10m or 600s)", ErrBadConfig, EnvAnswerTimeout, v)
		}
		c.AnswerTimeout = d
		c.Sources["answer_timeout"] = "env " + EnvAnswerTimeout
	}
	return nil
}

func (c *Config) validateAnswers(bad func(name, format string, args ...any) error) error {
	switch {
	case c.AnswerTimeout <= 0:
		return bad("answer_timeout", "must be a positive duration such as \"10m\"")
	case c.MaxStatements < 1:
		return bad("max_statements", "is %d; it must be at least 1", c.MaxStatements)
	}
	if c.Judge.BaseURL != "" {
		u, err := url.Parse(c.Judge.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("judge_base_url", "is %q, which is not an http:// or https:// URL", RedactURL(c.Judge.BaseURL))
		}
	}
	return nil
}

// JudgeConfig is the configuration of the judge's endpoint: the answering
// endpoint and model with what Judge sets in their place. The answering
// endpoint's API key goes only to that same endpoint: a judge on another
// endpoint gets the judge key or none.
func (c Config) JudgeConfig() Config {
	j := c
	j.Judge = Judge{}
	if c.Judge.Model != "" {
		j.Model = c.Judge.Model
	}
	if c.Judge.BaseURL != "" && c.Judge.BaseURL != c.BaseURL {
		j.BaseURL, j.APIKey = c.Judge.BaseURL, c.Judge.APIKey
		if c.Judge.Model == "" {
			j.Model = ""
		}
	} else if c.Judge.APIKey != "" {
		j.APIKey = c.Judge.APIKey
	}
	return j
}

// keyState shows a key as set or not, never its value.
func keyState(key string) string {
	if key != "" {
		return "set"
	}
	return "not set"
}
