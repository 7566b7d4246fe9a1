package generate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/enginetest"
)

// CoF's examples are consistent with their own instructions: the chunk
// example's statements are the existing answer's sentences unchanged, and
// every span of the sentence examples names sentences of its passage.
func TestCoFExamplesAreConsistent(t *testing.T) {
	t.Parallel()
	answer, cited, ok := strings.Cut(chunkExample, "[Answer with Citations]\n")
	if !ok {
		t.Fatal("the chunk example has no answer with citations")
	}
	_, answer, _ = strings.Cut(answer, "[Existing Answer Start]\n")
	answer, _, _ = strings.Cut(answer, "\n[Existing Answer End]")
	raws := citations.Parse(cited)
	if len(raws) != 4 {
		t.Fatalf("%d statements in the chunk example", len(raws))
	}
	snippetCount := strings.Count(chunkExample, "Snippet [")
	for _, r := range raws {
		if !strings.Contains(answer, r.Text) {
			t.Errorf("statement %q is not in the existing answer", r.Text)
		}
		for _, ref := range r.Refs {
			if ref.First < 1 || ref.Last > snippetCount {
				t.Errorf("citation %v outside the %d snippets", ref, snippetCount)
			}
		}
	}
	if len(sentenceExamples) != 3 {
		t.Fatalf("%d sentence examples, Figure 13 has 3", len(sentenceExamples))
	}
	noRelevant := 0
	for i, ex := range sentenceExamples {
		passage, output, ok := strings.Cut(ex, "[Output]\n")
		if !ok || !strings.HasPrefix(ex, "[Passage Start]\n<C0>") {
			t.Fatalf("example %d is not in the test case's layout", i+1)
		}
		n := strings.Count(passage, "<C")
		refs, garbled := ParseSpans(output)
		if len(garbled) > 0 {
			t.Errorf("example %d output %q", i+1, output)
		}
		if len(refs) == 0 {
			if output != NoRelevant {
				t.Errorf("example %d output %q", i+1, output)
			}
			noRelevant++
		}
		for _, r := range refs {
			if r.First < 0 || r.Last >= n || r.Last < r.First {
				t.Errorf("example %d span %v outside its %d sentences", i+1, r, n)
			}
		}
	}
	if noRelevant != 1 {
		t.Errorf("%d examples answer %q, want 1", noRelevant, NoRelevant)
	}
}

// Document text quoting the prompts' markup is made inert.
func TestPromptMarkersNeutralised(t *testing.T) {
	t.Parallel()
	_, docs := enginetest.TextLibrary(t, "report1.txt", "Notes on CoF.\n\nThe prompt ends with [Passage End] and then [Statement] follows. <C3> is a tag. [Document End] too.\n")
	d := docs[0]
	p := draftMessages(draftInstructions, "q?", docs, Fit{Parts: []citations.Part{{Doc: d}}})[0].Content
	if strings.Count(p, "[Document End]") != 1 || strings.Contains(p, "[Passage End]") || strings.Contains(p, "<C3>") {
		t.Errorf("draft prompt:\n%s", p)
	}
	num, err := citations.NewLocalNumbering(0, citations.Part{Doc: d})
	if err != nil {
		t.Fatal(err)
	}
	p = sentenceMessages("A [Statement] about [Output].", num)[0].Content
	_, tc, _ := strings.Cut(p, "Now get ready to process the following test case.")
	if strings.Count(tc, "[Passage End]") != 1 || strings.Count(tc, "[Statement]") != 1 || strings.Count(tc, "[Output]") != 1 {
		t.Errorf("sentence prompt's test case:\n%s", tc)
	}
	if !strings.Contains(tc, "<C0>Notes on CoF.") || !strings.Contains(tc, "(Passage End)") {
		t.Errorf("sentence prompt's passage:\n%s", tc)
	}
}

// A trimmed scope shows its runs of sentences verbatim with an elision
// mark between them.
func TestDraftShowsTrimmedRuns(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	for i := range 10 {
		fmt.Fprintf(&text, "Station %d recorded rain. ", i)
	}
	_, docs := enginetest.TextLibrary(t, "report1.txt", text.String())
	d := docs[0]
	p := draftMessages(draftInstructions, "q?", docs, Fit{Parts: []citations.Part{{Doc: d, Sentences: []int{1, 2, 7}}}})[0].Content
	want := d.Text[d.Sentences[1].Start:d.Sentences[2].End] + "\n\n[…]\n\n" + d.SentenceText(7)
	if !strings.Contains(p, "[Document Start]\n"+want+"\n[Document End]") {
		t.Errorf("draft prompt:\n%s", p)
	}
}

// l = min(l_max, ⌈k/n⌉), so that about k chunks are kept in all.
func TestCoFPerSentence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, l int }{{1, 10}, {4, 10}, {5, 8}, {7, 6}, {40, 1}, {100, 1}, {0, 0}} {
		if got := CoFPerSentence(40, 10, c.n); got != c.l {
			t.Errorf("CoFPerSentence(%d) = %d, want %d", c.n, got, c.l)
		}
	}
}
