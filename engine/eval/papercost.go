package eval

import "github.com/citelens/citelens/citations"

// paperCost is the summary's OkraLong cost per question, nil when no
// model answered.
func (s *Summary) paperCost() *float64 {
	if s.Report.LLMCalls == 0 {
		return nil
	}
	c := citations.OkraLongCost(s.Report.PromptTokensMean, s.Report.CompletionTokensMean)
	return &c
}
