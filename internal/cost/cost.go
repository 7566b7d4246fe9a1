// Package cost is the token accounting of model work, the one type both
// the model client (llm, which counts what each call used) and the
// answer record (citations, which keeps what an answer cost) speak, so
// neither depends on the other.
package cost

// Usage is the token accounting of one or more model calls, as the server
// reported it (or as estimated where it did not).
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
