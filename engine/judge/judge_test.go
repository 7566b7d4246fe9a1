package judge

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// between returns the text between the tags open and close in p.
func between(p, open, close string) string {
	_, after, _ := strings.Cut(p, open)
	inner, _, _ := strings.Cut(after, close)
	return inner
}

// scriptedJudge answers the three prompts from markers in the text: a
// statement containing "(full)" or "(partial)" is supported so; a
// snippet containing "off-topic" is not relevant; an uncited statement
// beginning "In short" needs no citation. It records what it was asked.
type scriptedJudge struct {
	mu    sync.Mutex
	asked map[string]int // by figure
}

func (s *scriptedJudge) respond(req llmtest.ChatRequest) llmtest.Reply {
	p := req.Last()
	s.mu.Lock()
	if s.asked == nil {
		s.asked = map[string]int{}
	}
	s.mu.Unlock()
	statement := between(p, "<statement>\n", "\n</statement>")
	switch {
	case strings.HasPrefix(p, supportInstructions):
		s.count("7")
		switch {
		case strings.Contains(statement, "(full)"):
			return llmtest.Text("Rating: [[Fully supported]] ")
		case strings.Contains(statement, "(partial)"):
			return llmtest.Text("Rating: [[Partially supported]] ")
		}
		return llmtest.Text("Rating: [[No support]] ")
	case strings.HasPrefix(p, needCitationInstructions):
		s.count("8")
		if strings.HasPrefix(statement, "In short") {
			return llmtest.Text("Need Citation: [[No]] ")
		}
		return llmtest.Text("Need Citation: [[Yes]] ")
	case strings.HasPrefix(p, relevantInstructions):
		s.count("9")
		if strings.Contains(between(p, "<snippet>\n", "\n</snippet>"), "off-topic") {
			return llmtest.Text("Rating: [[Unrelevant]] ")
		}
		return llmtest.Text("Rating: [[Relevant]] ")
	}
	return llmtest.Status(http.StatusBadRequest)
}

func (s *scriptedJudge) count(fig string) {
	s.mu.Lock()
	s.asked[fig]++
	s.mu.Unlock()
}

func span(text string) citations.Span { return citations.Span{Text: text} }

func sampleAnswer() *citations.Answer {
	return &citations.Answer{
		Question: "What does the report say about the ferry?",
		Statements: []citations.Statement{
			{Text: "In short, the report covers the ferry."},
			{Text: "The ferry carries 240 passengers (full).", Citations: []citations.Span{span("It carries up to 240 passengers."), span("An off-topic sentence about fog.")}},
			{Text: "A new vessel was approved in 2023 (partial).", Citations: []citations.Span{span("The council approved a replacement in March 2023.")}},
			{Text: "The crossing takes twenty minutes."},
		},
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScore(t *testing.T) {
	t.Parallel()
	sj := &scriptedJudge{}
	srv := llmtest.New(t, llmtest.WithResponder(sj.respond))
	j := New(enginetest.Client(t, enginetest.Config(srv)), Options{})
	res, err := j.Score(t.Context(), sampleAnswer())
	if err != nil {
		t.Fatal(err)
	}
	// Recall: 1 (needs no citation), 1, 0.5, 0 (needs one, has none).
	// Precision: relevant, off-topic, relevant.
	wantR, wantP := (1+1+0.5+0)/4.0, 2/3.0
	wantF := 2 * wantR * wantP / (wantR + wantP)
	if !near(res.Recall, wantR) || !near(res.Precision, wantP) || !near(res.F1, wantF) {
		t.Errorf("R %.4f P %.4f F1 %.4f, want %.4f %.4f %.4f", res.Recall, res.Precision, res.F1, wantR, wantP, wantF)
	}
	if sj.asked["7"] != 2 || sj.asked["8"] != 2 || sj.asked["9"] != 3 {
		t.Errorf("asked %v, want Figure 7 twice, 8 twice, 9 three times", sj.asked)
	}
	if res.Usage.LLMCalls != 7 || res.Usage.PromptTokens == 0 {
		t.Errorf("judge usage %+v", res.Usage)
	}
	if r := res.Statements[1]; r.Rating != "Fully supported" || fmt.Sprint(r.Relevant) != "[1 0]" {
		t.Errorf("statement 2 judged %+v", r)
	}
	f := res.Figures()
	if f.CitationF1 != res.F1 || f.JudgeCalls != 7 {
		t.Errorf("figures %+v", f)
	}
	// The prompts: the instructions, then the tagged parts.
	for _, r := range srv.ChatRequests() {
		p := r.Last()
		if strings.HasPrefix(p, needCitationInstructions) {
			want := needCitationInstructions + "\n\n<question>\nWhat does the report say about the ferry?\n</question>\n\n<response>\nIn short, the report covers the ferry.\nThe ferry carries"
			if !strings.HasPrefix(p, want) || !strings.HasSuffix(p, "\n</response>\n\n<statement>\nThe crossing takes twenty minutes.\n</statement>\n") && !strings.HasSuffix(p, "<statement>\nIn short, the report covers the ferry.\n</statement>\n") {
				t.Errorf("Figure 8 prompt:\n%s", p)
			}
		}
		if r.MaxTokens != DefaultMaxTokens || len(r.Stop) != 1 || r.Stop[0] != "Analysis:" || r.Model != llmtest.DefaultModel {
			t.Errorf("request max_tokens %d stop %q model %q", r.MaxTokens, r.Stop, r.Model)
		}
	}
	joined := "It carries up to 240 passengers.\n\nAn off-topic sentence about fog."
	found := false
	for _, r := range srv.ChatRequests() {
		if strings.Contains(r.Last(), "<snippet>\n"+joined+"\n</snippet>\n\n") && strings.HasPrefix(r.Last(), supportInstructions) {
			found = true
		}
	}
	if !found {
		t.Error("no Figure 7 prompt with the statement's snippets joined by a blank line")
	}
}

func TestRetriesUnreadableRating(t *testing.T) {
	t.Parallel()
	sj := &scriptedJudge{}
	srv := llmtest.New(t, llmtest.WithResponder(sj.respond))
	srv.Enqueue(llmtest.Text("I would say it is supported."), llmtest.Text("Rating: [Fully]"))
	j := New(enginetest.Client(t, enginetest.Config(srv)), Options{Parallel: 1})
	ans := &citations.Answer{Question: "q", Statements: []citations.Statement{{Text: "x (full)", Citations: []citations.Span{span("x")}}}}
	res, err := j.Score(t.Context(), ans)
	if err != nil {
		t.Fatal(err)
	}
	if !near(res.Recall, 1) || !near(res.Precision, 1) || res.Usage.LLMCalls != 4 {
		t.Errorf("R %.2f P %.2f calls %d", res.Recall, res.Precision, res.Usage.LLMCalls)
	}
	// First try greedy, the retries sampled at 1 (the client sends the
	// smallest positive float for 0).
	var temps []float64
	for _, r := range srv.ChatRequests() {
		temps = append(temps, *r.Temperature)
	}
	if len(temps) != 4 || temps[0] > 1e-6 || temps[1] != 1 || temps[2] != 1 || temps[3] > 1e-6 {
		t.Errorf("temperatures %v, want greedy, then 1 for the retries, then greedy for the next judgement", temps)
	}

	srv2 := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Text("no idea") }))
	_, err = New(enginetest.Client(t, enginetest.Config(srv2)), Options{Tries: 3}).Score(t.Context(), ans)
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "no idea") {
		t.Errorf("unreadable: %v", err)
	}
}

func TestScoreEdgeCases(t *testing.T) {
	t.Parallel()
	sj := &scriptedJudge{}
	srv := llmtest.New(t, llmtest.WithResponder(sj.respond))
	j := New(enginetest.Client(t, enginetest.Config(srv)), Options{})
	// No statements: 0 everywhere, no calls.
	res, err := j.Score(t.Context(), &citations.Answer{Question: "q"})
	if err != nil || res.Recall != 0 || res.Precision != 0 || res.F1 != 0 || res.Usage.LLMCalls != 0 {
		t.Errorf("empty answer: %+v %v", res, err)
	}
	// No citations: precision 0, so F1 0 however good the recall.
	res, err = j.Score(t.Context(), &citations.Answer{Question: "q", Statements: []citations.Statement{{Text: "In short, nothing."}}})
	if err != nil || res.Recall != 1 || res.Precision != 0 || res.F1 != 0 {
		t.Errorf("uncited answer: %+v %v", res, err)
	}
	// Only the first 40 statements are judged.
	var many []citations.Statement
	for i := range 45 {
		many = append(many, citations.Statement{Text: fmt.Sprintf("Fact %d (full).", i), Citations: []citations.Span{span("s")}})
	}
	before := len(srv.Requests())
	res, err = j.Score(t.Context(), &citations.Answer{Question: "q", Statements: many})
	if err != nil || len(res.Statements) != DefaultMaxStatements || len(srv.Requests())-before != 2*DefaultMaxStatements {
		t.Errorf("45 statements: judged %d with %d calls, %v", len(res.Statements), len(srv.Requests())-before, err)
	}
}

func TestEndpointFailure(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(llmtest.ChatRequest) llmtest.Reply { return llmtest.Status(http.StatusServiceUnavailable) }))
	_, err := New(enginetest.Client(t, enginetest.Config(srv), llm.WithMaxRetries(0)), Options{}).Score(t.Context(), sampleAnswer())
	if !errors.Is(err, llm.ErrServer) {
		t.Errorf("err %v", err)
	}
}

func TestRating(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply, rating string
		ok            bool
	}{
		{"Rating: [[Fully supported]] ", "Fully supported", true},
		{"Rating: [[ Partially supported ]]", "Partially supported", true},
		{"Need Citation: [[Yes/No]] ... Need Citation: [[No]]", "Yes/No", true},
		{"The scale lists [[Relevant]]. Rating: [[Unrelevant]]", "Unrelevant", true},
		{"[[No support]]", "No support", true},
		{"Rating: [[3]]", "", false},
		{"Rating: Fully supported", "", false},
		// Text that grows when lower-cased ("Ⱥ" is two bytes, "ⱥ" three):
		// an offset into a lower-cased copy once sliced past the end.
		{strings.Repeat("Ⱥ", 16) + "Rating:[[Yes]]", "Yes", true},
		{strings.Repeat("Ⱥ", 16) + " [[No]] RATING: [[Fully supported]]", "Fully supported", true},
	} {
		r, ok := Rating(c.reply)
		if r != c.rating || ok != c.ok {
			t.Errorf("Rating(%q) = %q %v, want %q %v", c.reply, r, ok, c.rating, c.ok)
		}
	}
	for rating, want := range map[string]float64{"Fully supported": 1, "Partially supported": 0.5, "No support": 0, "Not supported": 0} {
		if support(rating) != want {
			t.Errorf("support(%q) = %v", rating, support(rating))
		}
	}
	for rating, want := range map[string]float64{"Relevant": 1, "Unrelevant": 0, "Irrelevant": 0, "Not relevant": 0} {
		if relevant(rating) != want {
			t.Errorf("relevant(%q) = %v", rating, relevant(rating))
		}
	}
	if needCitation("Yes") != 0 || needCitation("No") != 1 {
		t.Error("needCitation")
	}
}

// FuzzRating: any reply is read without panicking, and a rating found is
// a substring of the reply.
func FuzzRating(f *testing.F) {
	for _, s := range []string{"Rating: [[Fully supported]]", "Need Citation: [[Yes]]", "[[", "rating:[[a]]", "[[ / ]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := Rating(s); ok && !strings.Contains(s, r) {
			t.Fatalf("rating %q not in %q", r, s)
		}
	})
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	// F1 is the mean of the answers' F1, not the F1 of the means.
	r := Summarize("judge-m", []Figures{
		{CitationRecall: 1, CitationPrecision: 0, CitationF1: 0, JudgeCalls: 3, JudgePromptTokens: 10},
		{CitationRecall: 0.5, CitationPrecision: 1, CitationF1: 2 * 0.5 / 1.5, JudgeCalls: 2, JudgePromptTokens: 5},
	})
	if r.Judged != 2 || !near(r.CitationRecall, 0.75) || !near(r.CitationPrecision, 0.5) || !near(r.CitationF1, (2*0.5/1.5)/2) ||
		r.JudgeCalls != 5 || r.JudgePromptTokens != 15 || r.JudgeModel != "judge-m" {
		t.Errorf("%+v", r)
	}
	if z := Summarize("m", nil); z.Judged != 0 || z.CitationF1 != 0 {
		t.Errorf("%+v", z)
	}
}
