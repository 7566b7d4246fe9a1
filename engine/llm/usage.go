package llm

// Usage is the token accounting of one or more model calls, as the server
// reported it (or as estimated where it did not). The answer's record has
// a type of the same shape, citations.Usage; the engine converts between
// them so the client knows nothing of answers.
type Usage struct {
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	LLMCalls         int  `json:"llm_calls"`
	Estimated        bool `json:"estimated,omitempty"` // some counts were estimated, not reported by the server
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.LLMCalls += u2.LLMCalls
	u.Estimated = u.Estimated || u2.Estimated
}
