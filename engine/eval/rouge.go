package eval

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
)

// ROUGE-1 and ROUGE-L (Lin 2004), the answer-quality scores RAIDD reports
// beside accuracy (Tables 1-2): the F-measure of the answer's text
// against each gold answer, the best over the golds. Words are tokenised
// as Google's rouge_score does by default: lower case, every run of
// letters and digits a token, no stemming.

// RougeScores are one question's ROUGE F-measures, when it has gold
// answers.
type RougeScores struct {
	Rouge1 *float64 `json:"rouge1,omitempty"`
	RougeL *float64 `json:"rougeL,omitempty"`
}

// RougeReport is their mean over the questions that have gold answers.
type RougeReport struct {
	RougeQuestions int     `json:"rouge_questions"`
	Rouge1Mean     float64 `json:"rouge1_mean"`
	RougeLMean     float64 `json:"rougeL_mean"`
}

// rougeTokens tokenises s as rouge_score's default tokenizer.
func rougeTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Rouge1 is the unigram-overlap F-measure of candidate against reference.
func Rouge1(candidate, reference string) float64 {
	c, r := rougeTokens(candidate), rougeTokens(reference)
	if len(c) == 0 || len(r) == 0 {
		return 0
	}
	counts := map[string]int{}
	for _, t := range r {
		counts[t]++
	}
	overlap := 0
	for _, t := range c {
		if counts[t] > 0 {
			counts[t]--
			overlap++
		}
	}
	return fMeasure(overlap, len(c), len(r))
}

// RougeL is the longest-common-subsequence F-measure of candidate
// against reference.
func RougeL(candidate, reference string) float64 {
	c, r := rougeTokens(candidate), rougeTokens(reference)
	if len(c) == 0 || len(r) == 0 {
		return 0
	}
	prev, cur := make([]int, len(r)+1), make([]int, len(r)+1)
	for i := range c {
		for j := range r {
			if c[i] == r[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return fMeasure(prev[len(r)], len(c), len(r))
}

func fMeasure(overlap, candidate, reference int) float64 {
	if overlap == 0 {
		return 0
	}
	p, r := float64(overlap)/float64(candidate), float64(overlap)/float64(reference)
	return 2 * p * r / (p + r)
}

// rougeScores scores ans's text against g's answers, nil without them.
func rougeScores(ans *engine.Answer, g citations.Gold) *RougeScores {
	if ans == nil || len(g.Answers) == 0 {
		return nil
	}
	text := citations.AnswerText(ans)
	var r1, rl float64
	for _, gold := range g.Answers {
		r1, rl = max(r1, Rouge1(text, gold)), max(rl, RougeL(text, gold))
	}
	return &RougeScores{Rouge1: &r1, RougeL: &rl}
}

// rougeSummary gathers the questions' ROUGE scores.
type rougeSummary struct {
	n      int
	r1, rl float64
}

func (s *rougeSummary) add(sc *RougeScores) {
	if sc != nil {
		s.n++
		s.r1 += *sc.Rouge1
		s.rl += *sc.RougeL
	}
}

func (s *rougeSummary) report() *RougeReport {
	if s.n == 0 {
		return nil
	}
	return &RougeReport{RougeQuestions: s.n, Rouge1Mean: s.r1 / float64(s.n), RougeLMean: s.rl / float64(s.n)}
}

// print writes the ROUGE line of the summary.
func (r *RougeReport) print(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "ROUGE over %d questions (as RAIDD reports it): rouge1 %.3f, rougeL %.3f\n", r.RougeQuestions, r.Rouge1Mean, r.RougeLMean)
}
