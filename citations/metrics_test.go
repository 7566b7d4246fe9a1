package citations

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
)

// question1 is the first line of testdata/hotpotqa53/questions.jsonl
// with its documents renamed to the sample slice (hotpotqa-a.txt is bytes
// 0-4630 of hotpotqa53.txt, so the offsets are unchanged).
const question1 = `{"id": "5a8b57f25542995d1e6f1371", "question": "Were Scott Derrickson and Ed Wood of the same nationality?", "answers": ["yes"], "type": "comparison", "docs": ["hotpotqa-a.txt"], "evidence": [{"doc": "hotpotqa-a.txt", "start": 457, "end": 546, "text": "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer."}, {"doc": "hotpotqa-a.txt", "start": 2050, "end": 2178, "text": "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director."}]}`

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScore(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	var g Gold
	if err := json.Unmarshal([]byte(question1), &g); err != nil {
		t.Fatal(err)
	}
	for _, e := range g.Evidence { // the sample really is the original's bytes
		if a.Text[e.Start:e.End] != e.Text {
			t.Fatalf("evidence %d-%d is %q in the sample", e.Start, e.End, a.Text[e.Start:e.End])
		}
	}
	derrickson, wood := SpanOf(a, 5, 5), SpanOf(a, 21, 21)
	lives, offTopic := SpanOf(a, 6, 6), SpanOf(a, 33, 34)
	sameBytesOtherDoc := derrickson
	sameBytesOtherDoc.Doc, sameBytesOtherDoc.DocName = b.ID, b.Name

	answer := func(secs float64, stmts ...Statement) *Answer {
		return &Answer{Statements: stmts, Seconds: secs, Usage: Usage{PromptTokens: 1000, CompletionTokens: 100, LLMCalls: 1}}
	}
	tests := []struct {
		name                        string
		ans                         *Answer
		mode                        string
		recall, all, precision, hit float64
		citations                   int
		lengthWords                 float64
	}{
		{"both items, one extra citation",
			answer(1, Statement{Text: "Yes, both were American.", Citations: []Span{derrickson, lives}},
				Statement{Text: "Wood was an American filmmaker.", Citations: []Span{wood}}),
			"", 1, 1, 2.0 / 3, 1, 3, (13 + 6 + 19) / 3.0},
		{"one of two items",
			answer(2, Statement{Text: "Derrickson is American.", Citations: []Span{derrickson, offTopic}}),
			EvidenceAll, 0.5, 0, 0.5, 0, 2, 0},
		{"any mode: one item is enough",
			answer(3, Statement{Text: "Derrickson is American.", Citations: []Span{derrickson}}),
			EvidenceAny, 1, 1, 1, 0, 1, 13},
		{"same bytes in another document do not hit",
			answer(4, Statement{Text: "They were.", Citations: []Span{sameBytesOtherDoc}}),
			"", 0, 0, 0, 0, 1, 13},
		{"no citations",
			answer(5, Statement{Text: "YES — they were."}),
			"", 0, 0, 0, 1, 0, 0},
		{"the gold answer found only in the cited text",
			answer(6, Statement{Text: "They shared it.", Citations: []Span{SpanOf(a, 17, 17)}}),
			"", 0, 0, 0, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gg := g
			gg.Mode = tt.mode
			if tt.name == "the gold answer found only in the cited text" {
				gg.Answers = []string{"rob   zombie"} // case and spacing fold
			}
			s, err := Score(tt.ans, gg)
			if err != nil {
				t.Fatal(err)
			}
			if !near(s.EvidenceRecall, tt.recall) || !near(s.EvidenceAll, tt.all) || !near(s.CitationPrecision, tt.precision) ||
				!near(s.AnswerHit, tt.hit) || s.Citations != tt.citations {
				t.Errorf("got %+v\nwant recall %.3f all %.0f precision %.3f hit %.0f citations %d",
					s, tt.recall, tt.all, tt.precision, tt.hit, tt.citations)
			}
			if tt.lengthWords > 0 && !near(s.CitationWords, tt.lengthWords) {
				t.Errorf("citation_words %.3f, want %.3f", s.CitationWords, tt.lengthWords)
			}
			tokens := 0
			for _, st := range tt.ans.Statements {
				for _, c := range st.Citations {
					tokens += textproc.EstimateTokens(c.Text)
				}
			}
			if s.Citations > 0 && (!near(s.CitationLength, float64(tokens)/float64(s.Citations)) || s.CitationLength <= s.CitationWords) {
				t.Errorf("citation_length %.3f tokens per citation, want %d/%d", s.CitationLength, tokens, s.Citations)
			}
			prediction := AnswerText(tt.ans)
			if !near(s.AnswerF1, AnswerF1(prediction, gg.Answers)) || !near(s.AnswerEM, AnswerEM(prediction, gg.Answers)) {
				t.Errorf("answer_f1 %.3f, answer_em %.0f", s.AnswerF1, s.AnswerEM)
			}
			if s.ID != g.ID || s.PromptTokens != 1000 || s.LLMCalls != 1 || s.Seconds != tt.ans.Seconds {
				t.Errorf("bookkeeping: %+v", s)
			}
		})
	}

	// "yes" against "Yes, both were American. Wood was an American
	// filmmaker.": one token of eight.
	s, _ := Score(tests[0].ans, g)
	if !near(s.AnswerF1, 2*(1.0/8)/(1+1.0/8)) || s.AnswerEM != 0 {
		t.Errorf("answer_f1 %.4f answer_em %.0f", s.AnswerF1, s.AnswerEM)
	}
	s, _ = Score(answer(1, Statement{Text: "Yes."}), g)
	if s.AnswerF1 != 1 || s.AnswerEM != 1 {
		t.Errorf("a short answer: answer_f1 %.4f answer_em %.0f", s.AnswerF1, s.AnswerEM)
	}

	bad := g
	bad.Mode = "most"
	if _, err := Score(answer(1), bad); !errors.Is(err, ErrBadGold) {
		t.Errorf("evidence_mode %q: err %v", bad.Mode, err)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	var all []Scores
	for i := 1; i <= 20; i++ {
		s := Scores{EvidenceRecall: 0.5, EvidenceAll: float64(i % 2), CitationPrecision: 1, AnswerHit: 1,
			PromptTokens: 100, CompletionTokens: 10, LLMCalls: 2, Seconds: float64(i)}
		if i <= 10 {
			s.Citations, s.CitationLength = 2, 30
		}
		all = append(all, s)
	}
	r := Summarize(all)
	if r.Questions != 20 || !near(r.EvidenceRecall, 0.5) || !near(r.EvidenceAll, 0.5) || !near(r.CitationPrecision, 1) || !near(r.AnswerHit, 1) {
		t.Errorf("means: %+v", r)
	}
	if !near(r.CitationLength, 30) {
		t.Errorf("citation_length %.2f: answers without citations must not pull it down", r.CitationLength)
	}
	if r.PromptTokens != 2000 || r.CompletionTokens != 200 || r.LLMCalls != 40 || !near(r.PromptTokensMean, 100) || !near(r.LLMCallsMean, 2) {
		t.Errorf("usage: %+v", r)
	}
	if !near(r.SecondsMean, 10.5) || !near(r.SecondsP95, 19) {
		t.Errorf("seconds mean %.2f p95 %.2f, want 10.5 and 19 (nearest rank of 1..20)", r.SecondsMean, r.SecondsP95)
	}
	// Citation length is per citation over all answers, as
	// LongBench-Cite's cnt_citation_len.py counts it; answer F1 and EM
	// are means over the questions that have gold answers.
	var a, b Gold
	a.Answers = []string{"yes"}
	sa, _ := Score(&Answer{Statements: []Statement{{Text: "Yes", Citations: []Span{{Text: "one two three four"}}}}}, a)
	sb, _ := Score(&Answer{Statements: []Statement{{Text: "No", Citations: []Span{{Text: "x"}, {Text: "y"}, {Text: "z"}}}}}, b)
	r = Summarize([]Scores{sa, sb})
	if !near(r.CitationWords, 7.0/4) || !near(r.CitationLength, (5+3.0)/4) /* 18 bytes are 5 tokens */ || r.Answered != 1 || r.AnswerF1 != 1 || r.AnswerEM != 1 {
		t.Errorf("pooled: %+v", r)
	}
	if z := Summarize(nil); z.Questions != 0 || z.SecondsP95 != 0 {
		t.Errorf("empty: %+v", z)
	}
	one := Summarize([]Scores{{Seconds: 3}})
	if one.SecondsP95 != 3 {
		t.Errorf("p95 of one answer: %v", one.SecondsP95)
	}
}

// TestOkraLongCostLine: an OkraLong answer's cost line carries the
// paper's cost measure, input tokens plus four times the output tokens;
// other strategies' lines do not.
func TestOkraLongCostLine(t *testing.T) {
	t.Parallel()
	a := &Answer{Strategy: "okra", Usage: Usage{PromptTokens: 1000, CompletionTokens: 50, LLMCalls: 2}, Seconds: 1}
	if got := costLine(a); !strings.Contains(got, "1,050 tokens (1,000 prompt, 50 completion) in 2 model calls") || !strings.HasSuffix(got, "OkraLong's cost (input + 4 × output) 1,200") {
		t.Errorf("okra: %q", got)
	}
	a.Strategy = "longcite"
	if got := costLine(a); strings.Contains(got, "OkraLong") {
		t.Errorf("longcite: %q", got)
	}
}

func TestAnsweredFirst3(t *testing.T) {
	t.Parallel()
	st := func(s string) Statement { return Statement{Text: s} }
	a := &Answer{Statements: []Statement{st("Intro."), st("Use bzip2 -k."), st("It keeps\n  2300 kbytes."), st("Fourth: --keep 7600k")}}
	for _, tt := range []struct {
		answers []string
		alt     map[string][]string
		want    float64
	}{
		{[]string{"bzip2 -k"}, nil, 1},
		{[]string{"keeps 2300 KBYTES"}, nil, 1},
		{[]string{"bzip2 -k", "7600k"}, nil, 0}, // every string, in the first three only
		{[]string{"2300k"}, map[string][]string{"2300k": {"2300 kbytes"}}, 1},
		{[]string{"2300k"}, nil, 0},
	} {
		s, err := Score(a, Gold{Answers: tt.answers, Alternatives: tt.alt})
		if err != nil {
			t.Fatal(err)
		}
		if s.AnsweredFirst3 != tt.want {
			t.Errorf("%q %v: answered_first3 %v, want %v", tt.answers, tt.alt, s.AnsweredFirst3, tt.want)
		}
	}
	r := Summarize([]Scores{{AnsweredFirst3: 1, hasAnswers: true}, {hasAnswers: true}, {}})
	if r.AnsweredFirst3 != 0.5 {
		t.Errorf("summary answered_first3 %v, want 0.5 over the two with answers", r.AnsweredFirst3)
	}
}
