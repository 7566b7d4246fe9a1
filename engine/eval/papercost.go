package eval

// OkraLongCost is OkraLong's cost measure (Hui et al. 2025, section 5.1:
// "the total token usage, with output tokens assigned a four times higher
// cost-weight than input tokens"), per question: input tokens plus 4 ×
// output tokens, Table 1's cost column before its × 10³.
func OkraLongCost(promptTokens, completionTokens float64) float64 {
	return promptTokens + 4*completionTokens
}

// paperCost is the summary's OkraLong cost per question, nil when no
// model answered.
func (s *Summary) paperCost() *float64 {
	if s.Report.LLMCalls == 0 {
		return nil
	}
	c := OkraLongCost(s.Report.PromptTokensMean, s.Report.CompletionTokensMean)
	return &c
}
