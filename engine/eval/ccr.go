package eval

import (
	"fmt"
	"io"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
)

// Chunk retrieval, as RAIDD reports it (Table 3): whether the chunks put
// before the model held the text the question needs, split by whether
// the answer was right — CP-CCR over the correct predictions, IP-CCR over
// the incorrect ones — so that retrieval and answering can be told apart.
// The chunks are what the model was shown (the answer's Shown), the
// needed text the gold evidence (citations.ContextHit). A prediction is
// correct when the judge rated its correctness at least CorrectAt; without
// a correctness judge, when a gold answer occurs in it (answer_hit), the
// offline stand-in for the authors' GPT-4 accuracy.

// CorrectAt is the judged correctness (0 to 1) from which an answer
// counts as a correct prediction.
const CorrectAt = 0.5

// CCRScores is one question's chunk-retrieval figure, when it has gold
// evidence and a model was shown text.
type CCRScores struct {
	ContextHit *float64 `json:"context_hit,omitempty"`
}

// CCRReport is the chunk-retrieval figures over the questions that have
// them.
type CCRReport struct {
	CCRQuestions int     `json:"ccr_questions"`
	CCR          float64 `json:"ccr"`
	// CPCCR and IPCCR are the means over correct and incorrect
	// predictions (nil when there are none), CorrectBy what decided.
	CPCCR       *float64 `json:"cp_ccr,omitempty"`
	CPQuestions int      `json:"cp_questions"`
	IPCCR       *float64 `json:"ip_ccr,omitempty"`
	IPQuestions int      `json:"ip_questions"`
	CorrectBy   string   `json:"ccr_correct_by"`
}

// ccrScores scores whether ans's shown text held g's evidence.
func ccrScores(ans *engine.Answer, g citations.Gold) *CCRScores {
	if ans == nil {
		return nil
	}
	hit, ok := citations.ContextHit(ans.Shown, g)
	if !ok {
		return nil
	}
	v := 0.0
	if hit {
		v = 1
	}
	return &CCRScores{ContextHit: &v}
}

// ccrSummary gathers the questions' chunk-retrieval figures with their
// predictions' correctness.
type ccrSummary struct {
	n, cp, ip          int
	hit, cpHit, ipHit  float64
	judged, judgedNone bool
}

// add counts one question: sc its figure (nil: none), correctness its
// judged correctness (nil: not judged, answerHit decides).
func (s *ccrSummary) add(sc *CCRScores, correctness *float64, answerHit float64) {
	if sc == nil {
		return
	}
	h := *sc.ContextHit
	s.n++
	s.hit += h
	correct := answerHit == 1
	if correctness != nil {
		s.judged = true
		correct = *correctness >= CorrectAt
	} else {
		s.judgedNone = true
	}
	if correct {
		s.cp++
		s.cpHit += h
	} else {
		s.ip++
		s.ipHit += h
	}
}

func (s *ccrSummary) report() *CCRReport {
	if s.n == 0 {
		return nil
	}
	r := &CCRReport{CCRQuestions: s.n, CCR: s.hit / float64(s.n), CPQuestions: s.cp, IPQuestions: s.ip}
	switch {
	case s.judged && s.judgedNone:
		r.CorrectBy = "judged correctness where judged, else answer_hit"
	case s.judged:
		r.CorrectBy = fmt.Sprintf("judged correctness ≥ %.1f", CorrectAt)
	default:
		r.CorrectBy = "answer_hit"
	}
	if s.cp > 0 {
		v := s.cpHit / float64(s.cp)
		r.CPCCR = &v
	}
	if s.ip > 0 {
		v := s.ipHit / float64(s.ip)
		r.IPCCR = &v
	}
	return r
}

// print writes the chunk-retrieval line of the summary.
func (r *CCRReport) print(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "chunk retrieval over %d questions (as RAIDD reports it): ccr %.3f; cp_ccr %s over %d correct, ip_ccr %s over %d incorrect (correct by %s)\n",
		r.CCRQuestions, r.CCR, orDash(r.CPCCR), r.CPQuestions, orDash(r.IPCCR), r.IPQuestions, r.CorrectBy)
}

// orDash prints v, or "–" when there is none.
func orDash(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *v)
}
