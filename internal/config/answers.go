package config

import (
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
	AnswerTimeout time.Duration `json:"answer_timeout"`
	// MaxStatements caps the statements kept per answer.
	MaxStatements int `json:"max_statements"`
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
