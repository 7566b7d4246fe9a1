package citations

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// Evidence is one gold evidence span: byte offsets into a document's stored
// text. Doc is the document's file name (matched against Span.DocName) or
// its DocID.
type Evidence struct {
	Doc   string `json:"doc"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text,omitempty"`
}

// Evidence modes (docs/EVAL.md).
const (
	EvidenceAll = "all" // every item is needed (the default)
	EvidenceAny = "any" // the items are alternatives
)

// Gold is one evaluation question, as a line of questions.jsonl.
type Gold struct {
	ID       string     `json:"id"`
	Question string     `json:"question"`
	Answers  []string   `json:"answers"`
	Docs     []string   `json:"docs"`
	Evidence []Evidence `json:"evidence"`
	Mode     string     `json:"evidence_mode,omitempty"`
	// Task says how the correctness judge rates the answer (LongCite
	// Figures 4-6): "qa" (the default), "summary", or "chat", which rates
	// against FewShot, answers already rated 1 to 10.
	Task    string        `json:"task,omitempty"`
	FewShot []RatedAnswer `json:"few_shot_scores,omitempty"`
	// Alternatives lists, per answer string, other spellings a useful
	// answer may use instead ("2300 kbytes" for "2300k"), for
	// AnsweredFirst3.
	Alternatives map[string][]string `json:"alternatives,omitempty"`
}

// FirstStatements is how many leading statements AnsweredFirst3 reads:
// what a reader sees first.
const FirstStatements = 3

// RatedAnswer is an answer with its rating, an example for the judge.
type RatedAnswer struct {
	Answer string `json:"answer"`
	Score  int    `json:"score"`
}

// Scores are one answer's figures (docs/EVAL.md, "Metrics").
type Scores struct {
	ID                string  `json:"id,omitempty"`
	EvidenceRecall    float64 `json:"evidence_recall"`
	EvidenceAll       float64 `json:"evidence_all"`
	CitationPrecision float64 `json:"citation_precision"`
	// CitationLength is LongBench-Cite's citation length: the mean number
	// of tokens per cited span, here estimated (textproc.EstimateTokens)
	// where the paper counts with GLM-4's tokenizer; 0 with no citations.
	CitationLength float64 `json:"citation_length"`
	// CitationWords is the mean number of words (textproc.Words) per
	// cited span.
	CitationWords float64 `json:"citation_words"`
	AnswerHit     float64 `json:"answer_hit"`
	// AnsweredFirst3 is 1 when the text of the answer's first
	// FirstStatements statements holds every answer string (or one of its
	// Alternatives), case-folded and with white space collapsed; cited
	// passages do not count. Stricter than AnswerHit: what a reader gets.
	AnsweredFirst3 float64 `json:"answered_first3"`
	// AnswerF1 and AnswerEM are LongBench's token-level F1 and exact match
	// of the answer's text against the gold answers (answers.go); 0 when
	// the question has none, and then left out of the means.
	AnswerF1         float64 `json:"answer_f1"`
	AnswerEM         float64 `json:"answer_em"`
	hasAnswers       bool
	Citations        int     `json:"citations"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LLMCalls         int     `json:"llm_calls"`
	Seconds          float64 `json:"seconds"`
}

// Score computes one answer's figures against its gold data. A citation hits
// an evidence item when both name the same document and their byte ranges
// overlap.
func Score(a *Answer, g Gold) (Scores, error) {
	mode := g.Mode
	if mode == "" {
		mode = EvidenceAll
	}
	if mode != EvidenceAll && mode != EvidenceAny {
		return Scores{}, fmt.Errorf("%w: evidence_mode %q is neither %q nor %q", ErrBadGold, g.Mode, EvidenceAll, EvidenceAny)
	}
	for _, e := range g.Evidence {
		if e.End < e.Start {
			return Scores{}, fmt.Errorf("%w: evidence in %q ends (%d) before it starts (%d)", ErrBadGold, e.Doc, e.End, e.Start)
		}
	}
	s := Scores{
		ID:               g.ID,
		PromptTokens:     a.Usage.PromptTokens,
		CompletionTokens: a.Usage.CompletionTokens,
		LLMCalls:         a.Usage.LLMCalls,
		Seconds:          a.Seconds,
	}
	hit := make([]bool, len(g.Evidence))
	hits, words, tokens := 0, 0, 0
	var text strings.Builder
	for _, st := range a.Statements {
		text.WriteString(st.Text)
		text.WriteByte('\n')
		for _, c := range st.Citations {
			s.Citations++
			hitSome := false
			for i, e := range g.Evidence {
				if sameDoc(e.Doc, c) && c.Start < e.End && e.Start < c.End {
					hit[i], hitSome = true, true
				}
			}
			if hitSome {
				hits++
			}
			textproc.Words(c.Text, func(int, int) { words++ })
			tokens += textproc.EstimateTokens(c.Text)
			text.WriteString(c.Text)
			text.WriteByte('\n')
		}
	}
	nhit := 0
	for _, h := range hit {
		if h {
			nhit++
		}
	}
	if n := len(g.Evidence); n > 0 {
		if mode == EvidenceAll {
			s.EvidenceRecall = float64(nhit) / float64(n)
			s.EvidenceAll = b2f(nhit == n)
		} else {
			s.EvidenceRecall = b2f(nhit > 0)
			s.EvidenceAll = b2f(nhit > 0)
		}
	}
	if s.Citations > 0 {
		s.CitationPrecision = float64(hits) / float64(s.Citations)
		s.CitationLength = float64(tokens) / float64(s.Citations)
		s.CitationWords = float64(words) / float64(s.Citations)
	}
	if len(g.Answers) > 0 {
		prediction := AnswerText(a)
		s.AnswerF1, s.AnswerEM = AnswerF1(prediction, g.Answers), AnswerEM(prediction, g.Answers)
		s.hasAnswers = true
	}
	s.AnsweredFirst3 = b2f(answeredFirst(a, g, FirstStatements))
	hay := foldSpace(text.String())
	for _, ans := range g.Answers {
		if want := foldSpace(ans); want != "" && strings.Contains(hay, want) {
			s.AnswerHit = 1
			break
		}
	}
	return s, nil
}

// answeredFirst reports whether the text of a's first n statements holds
// every answer string of g, or for a string one of its alternatives.
func answeredFirst(a *Answer, g Gold, n int) bool {
	if len(g.Answers) == 0 {
		return false
	}
	var text strings.Builder
	for _, st := range a.Statements[:min(n, len(a.Statements))] {
		text.WriteString(st.Text)
		text.WriteByte('\n')
	}
	hay := foldSpace(text.String())
	for _, ans := range g.Answers {
		found := false
		for _, want := range append([]string{ans}, g.Alternatives[ans]...) {
			if w := foldSpace(want); w != "" && strings.Contains(hay, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sameDoc matches a gold document name against a citation: by DocName (the
// file name it was added from) or by DocID.
// ContextHit reports whether the text the model was shown (shown, an
// answer's Shown) held g's evidence: every item in mode "all", any in mode
// "any" — RAIDD's "correct chunk retrieved" (Table 3). ok is false when
// there is nothing to tell: no evidence, or nothing shown.
func ContextHit(shown []Range, g Gold) (hit, ok bool) {
	if len(g.Evidence) == 0 || len(shown) == 0 {
		return false, false
	}
	n := 0
	for _, e := range g.Evidence {
		for _, r := range shown {
			if (e.Doc == r.Name || e.Doc == string(r.Doc)) && r.Start < e.End && e.Start < r.End {
				n++
				break
			}
		}
	}
	if g.Mode == EvidenceAny {
		return n > 0, true
	}
	return n == len(g.Evidence), true
}

func sameDoc(name string, c Span) bool {
	return name == c.DocName || name == string(c.Doc)
}

// foldSpace case-folds s and collapses whitespace runs to one space, so a
// gold answer matches across line breaks.
func foldSpace(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Report is the figures over many answers, as `citelens eval` prints them
// last.
type Report struct {
	Questions         int     `json:"questions"`
	EvidenceRecall    float64 `json:"evidence_recall"`
	EvidenceAll       float64 `json:"evidence_all"`
	CitationPrecision float64 `json:"citation_precision"`
	// CitationLength and CitationWords are per citation over all the
	// answers' citations, as LongBench-Cite's cnt_citation_len.py averages
	// (not a mean of the answers' means).
	CitationLength float64 `json:"citation_length"`
	CitationWords  float64 `json:"citation_words"`
	AnswerHit      float64 `json:"answer_hit"`
	// AnsweredFirst3 is the share of the questions with gold answers
	// (Answered of them) answered in the first statements.
	AnsweredFirst3 float64 `json:"answered_first3"`
	// AnswerF1 and AnswerEM are the means over the questions that have
	// gold answers (Answered of them).
	AnswerF1             float64 `json:"answer_f1"`
	AnswerEM             float64 `json:"answer_em"`
	Answered             int     `json:"answered"`
	Citations            int     `json:"citations"`
	PromptTokens         int     `json:"prompt_tokens"`
	CompletionTokens     int     `json:"completion_tokens"`
	LLMCalls             int     `json:"llm_calls"`
	PromptTokensMean     float64 `json:"prompt_tokens_mean"`
	CompletionTokensMean float64 `json:"completion_tokens_mean"`
	LLMCallsMean         float64 `json:"llm_calls_mean"`
	SecondsMean          float64 `json:"seconds_mean"`
	// SecondsP95 is the nearest-rank 95th percentile.
	SecondsP95 float64 `json:"seconds_p95"`
}

// Summarize aggregates per-answer scores: means of the per-question
// figures, sums and means of the usage counts, mean and p95 of seconds.
func Summarize(all []Scores) Report {
	r := Report{Questions: len(all)}
	if len(all) == 0 {
		return r
	}
	n := float64(len(all))
	secs := make([]float64, 0, len(all))
	for _, s := range all {
		r.EvidenceRecall += s.EvidenceRecall
		r.EvidenceAll += s.EvidenceAll
		r.CitationPrecision += s.CitationPrecision
		r.AnswerHit += s.AnswerHit
		r.CitationLength += s.CitationLength * float64(s.Citations)
		r.CitationWords += s.CitationWords * float64(s.Citations)
		if s.hasAnswers {
			r.AnswerF1 += s.AnswerF1
			r.AnswerEM += s.AnswerEM
			r.AnsweredFirst3 += s.AnsweredFirst3
			r.Answered++
		}
		r.Citations += s.Citations
		r.PromptTokens += s.PromptTokens
		r.CompletionTokens += s.CompletionTokens
		r.LLMCalls += s.LLMCalls
		r.SecondsMean += s.Seconds
		secs = append(secs, s.Seconds)
	}
	r.EvidenceRecall /= n
	r.EvidenceAll /= n
	r.CitationPrecision /= n
	r.AnswerHit /= n
	if r.Citations > 0 {
		r.CitationLength /= float64(r.Citations)
		r.CitationWords /= float64(r.Citations)
	}
	if r.Answered > 0 {
		r.AnswerF1 /= float64(r.Answered)
		r.AnswerEM /= float64(r.Answered)
		r.AnsweredFirst3 /= float64(r.Answered)
	}
	r.PromptTokensMean = float64(r.PromptTokens) / n
	r.CompletionTokensMean = float64(r.CompletionTokens) / n
	r.LLMCallsMean = float64(r.LLMCalls) / n
	r.SecondsMean /= n
	slices.Sort(secs)
	r.SecondsP95 = secs[int(math.Ceil(0.95*n))-1]
	return r
}
