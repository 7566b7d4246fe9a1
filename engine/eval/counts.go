package eval

// JudgedCounts are how many questions the judge could not score, per
// metric: the citation ratings and correctness are judged apart (as
// LongBench-Cite's scorer does), so one failing leaves the other, and
// the report says how many of each were judged.
type JudgedCounts struct {
	CitationsNotJudged   int `json:"citations_not_judged,omitempty"`
	CorrectnessNotJudged int `json:"correctness_not_judged,omitempty"`
}

// citations is the number of citation ratings not judged; before the
// counts were kept per metric (a nil c), every failure was one.
func (c *JudgedCounts) citations(failed int) int {
	if c == nil {
		return failed
	}
	return c.CitationsNotJudged
}
