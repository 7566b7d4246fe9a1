package generate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/llm"
)

// longDoc has n sentences of about 12 tokens in paragraphs of five.
func longDoc(id string, n int) *docstore.Document {
	var paras [][]string
	for i := 0; i < n; i += 5 {
		var p []string
		for j := i; j < min(i+5, n); j++ {
			p = append(p, fmt.Sprintf("Sentence %d of %s reports measurement number %d in the survey.", j, id, j*7))
		}
		paras = append(paras, p)
	}
	return makeDoc(id, paras...)
}

func estimate(t *testing.T, f Format, q string, fit Fit) int {
	t.Helper()
	msgs, err := Messages(Request{Question: q, Numbering: mustNumber(t, fit.Parts...), Format: f})
	if err != nil {
		t.Fatal(err)
	}
	return llm.EstimatePromptTokens(msgs)
}

func TestFitScopeWhole(t *testing.T) {
	t.Parallel()
	d := longDoc("a", 50)
	fit, err := FitScope(context.Background(), OneShot, "q?", []*docstore.Document{d}, 100000, func(context.Context) ([]SentenceRef, error) {
		t.Fatal("ranked although the scope fits")
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fit.Trimmed || fit.Shown != 50 || fit.Total != 50 || fit.Parts[0].Sentences != nil {
		t.Errorf("fit %+v: want the whole document", fit)
	}
	if got := estimate(t, OneShot, "q?", fit); got > fit.Tokens {
		t.Errorf("prompt estimates %d tokens, more than the fit's %d", got, fit.Tokens)
	}
}

func TestFitScopeTrims(t *testing.T) {
	t.Parallel()
	a, b := longDoc("a", 400), longDoc("b", 400)
	docs := []*docstore.Document{a, b}
	q := "What does sentence 250 of b report?"
	ranked := []SentenceRef{{1, 250, 3}, {0, 10, 2}, {1, 399, 1}}
	const budget = 3000
	fit, err := FitScope(context.Background(), OneShot, q, docs, budget, func(context.Context) ([]SentenceRef, error) {
		return ranked, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Trimmed || fit.Shown >= fit.Total || fit.Ranked != 3 || fit.Tokens <= budget {
		t.Fatalf("fit %+v: want a trimmed scope", fit)
	}
	if got := estimate(t, OneShot, q, fit); got > budget {
		t.Errorf("trimmed prompt estimates %d tokens, over the budget of %d", got, budget)
	}
	if got := estimate(t, OneShot, q, fit); got < budget*9/10 {
		t.Errorf("trimmed prompt estimates %d tokens, leaving much of the budget of %d unused", got, budget)
	}
	for _, r := range ranked {
		if !slices.Contains(fit.Parts[r.Doc].Sentences, r.Sentence) {
			t.Errorf("ranked sentence %+v was not kept", r)
		}
	}
	// Neighbours come with each ranked sentence, evenly on both sides.
	for _, r := range []SentenceRef{{1, 249, 0}, {1, 251, 0}, {0, 9, 0}, {0, 11, 0}, {1, 398, 0}} {
		if !slices.Contains(fit.Parts[r.Doc].Sentences, r.Sentence) {
			t.Errorf("neighbour %+v was not kept", r)
		}
	}
	for _, p := range fit.Parts {
		if !slices.IsSorted(p.Sentences) {
			t.Errorf("sentences of %s not in document order", p.Doc.ID)
		}
	}
	// Real indices: the numbering shows b's sentence 250 as <C650>.
	n := mustNumber(t, fit.Parts...)
	if u, ok := n.Lookup(650); !ok || u.Doc != b || u.First != 250 {
		t.Errorf("number 650 is %+v, %v; want sentence 250 of b", u, ok)
	}
	stage := fit.Warning(4096)
	for _, w := range []string{"read ", " of 800 sentences (", "%): the documents (", "tokens) exceed the model's 4k window", "most relevant"} {
		if !strings.Contains(stage, w) {
			t.Errorf("stage %q lacks %q", stage, w)
		}
	}
}

func TestFitScopeNoMatches(t *testing.T) {
	t.Parallel()
	d := longDoc("a", 300)
	fit, err := FitScope(context.Background(), LongCiteModel, "q?", []*docstore.Document{d}, 1500, func(context.Context) ([]SentenceRef, error) {
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := fit.Parts[0].Sentences
	if !fit.Trimmed || len(s) < 10 || s[0] != 0 || s[len(s)-1] != 299 {
		t.Fatalf("fit %+v: want the beginning and the end", fit)
	}
	if !strings.Contains(fit.Warning(2048), "from the beginning and the end") {
		t.Errorf("warning %q", fit.Warning(2048))
	}
	if got := estimate(t, LongCiteModel, "q?", fit); got > 1500 {
		t.Errorf("prompt estimates %d tokens, over the budget", got)
	}
}

func TestFitRanked(t *testing.T) {
	t.Parallel()
	d := longDoc("a", 100)
	ranked := []SentenceRef{{0, 70, 0}, {0, 3, 0}, {0, 50, 0}, {0, 3, 0}, {0, 500, 0}, {7, 1, 0}}
	fit := FitRanked(OneShot, "q?", []*docstore.Document{d}, ranked, 100000)
	if fit.Trimmed || !slices.Equal(fit.Parts[0].Sentences, []int{3, 50, 70}) {
		t.Fatalf("fit %+v: want 3, 50, 70 in document order", fit)
	}
	// A budget for about one sentence keeps the best.
	over := Overhead(OneShot, citations.SentenceMode, "q?", []*docstore.Document{d})
	fit = FitRanked(OneShot, "q?", []*docstore.Document{d}, ranked, over+SentenceTokens(70, d.SentenceText(70))+2)
	if !fit.Trimmed || !slices.Equal(fit.Parts[0].Sentences, []int{70}) {
		t.Errorf("fit %+v: want only the best sentence", fit)
	}
}

func BenchmarkFitScopeTrim(b *testing.B) {
	d := longDoc("a", 150000) // about 1.9M tokens
	ranked := make([]SentenceRef, 0, 5000)
	for i := 0; i < 150000; i += 30 {
		ranked = append(ranked, SentenceRef{0, i, 1})
	}
	docs := []*docstore.Document{d}
	rank := func(context.Context) ([]SentenceRef, error) { return ranked, nil }
	for b.Loop() {
		if _, err := FitScope(context.Background(), OneShot, "q?", docs, 111104, rank); err != nil {
			b.Fatal(err)
		}
	}
}
