package dag

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
)

// seedQuestions are Appendix D's five example questions, verbatim: three
// chains, then two DAGs.
var seedQuestions = []string{
	"What is the birth day of Rain Wilson' father?",
	"Who is the paternal grandfather of John Smith?",
	"What is the capital city of the country of citizenship of Ivanka Trump's spouse?",
	"Do both Django Unchained and Rango films have the directors from the same country?",
	"Which film has the director who died first, Love in the AfterNoon or Gigi?",
}

// TestPromptsFromTheSeed: P_d holds Appendix D's five questions, three
// chains then two DAGs, in the thought's layout, and ends with the thought
// so far; P_e is Appendix D's fact-extraction prompt around the numbered
// reference.
func TestPromptsFromTheSeed(t *testing.T) {
	t.Parallel()
	steps := []Step{{SubQuestion: "Who directed <C3> Doctor Strange?", Fact: "Scott Derrickson directed it.", Retrieved: []Chunk{{}}}, {SubQuestion: "Where was he born?", Retrieved: []Chunk{}}}
	p := planMessages("Where was the director of Doctor Strange born?", steps)[0].Content
	at := 0
	for _, q := range seedQuestions {
		i := strings.Index(p, "\nQuestion: "+q+"\nSubquestion: ")
		if i < at {
			t.Fatalf("P_d lacks %q (in order)", q)
		}
		at = i
	}
	if n := strings.Count(planExamples, "\nFinal answer: "); n != len(seedQuestions) {
		t.Errorf("%d examples end in a final answer", n)
	}
	wantEnd := "\n\nQuestion: Where was the director of Doctor Strange born?\nSubquestion: Who directed (C3) Doctor Strange?\nFact: Scott Derrickson directed it.\nSubquestion: Where was he born?\nFact: Nothing in the documents matches this sub-question."
	if !strings.HasSuffix(p, wantEnd) {
		t.Errorf("P_d ends %q", p[len(p)-300:])
	}

	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: "d1", Name: "d.txt"}, Text: "Scott Derrickson directed it. He was born in Denver. Other text."}
	d.Sentences = []docstore.Sentence{{Start: 0, End: 29}, {Start: 30, End: 52}, {Start: 53, End: 64}}
	n, err := citations.NewSentenceNumbering(citations.Part{Doc: d, Sentences: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := "Reference:\n<C1>He was born in Denver. <C2>Other text.\n\nBased on the reference, present the fact to answer the following question.\n\nBe concise, better one sentence. " +
		factCite + "\n\nQuestion: Where was Scott Derrickson born? Fact:"
	if got := factMessages("Where was Scott Derrickson born?", n)[0].Content; got != want {
		t.Errorf("P_e:\n%s\nwant\n%s", got, want)
	}
	if got := factMessages("His birthplace", n)[0].Content; !strings.HasSuffix(got, "\n\nQuestion: His birthplace. Fact:") {
		t.Errorf("P_e ends %q", got[len(got)-40:])
	}

	// The final question gives each fact its sentences' numbers.
	steps[0].Citations = []citations.Span{citations.SpanOf(d, 0, 0)}
	n, _ = citations.NewSentenceNumbering(citations.Part{Doc: d, Sentences: []int{0}})
	q := finalQuestion("Where was the director of Doctor Strange born?", steps[:1], n)
	if !strings.HasPrefix(q, "Where was the director of Doctor Strange born?\n\n") || !strings.HasSuffix(q, "\nSubquestion: Who directed (C3) Doctor Strange?\nFact: Scott Derrickson directed it. [0-0]") {
		t.Errorf("final question %q", q)
	}
}
