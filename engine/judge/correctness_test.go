package judge

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// The judge's ratings come from the reference answer in the prompt: "3"
// when the assistant's answer holds it, "1" otherwise, in the replies a
// judge writes (an analysis first, the rating last; a reasoning judge's
// thinking; a reply with no rating).
func TestCorrectness(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		p := r.Last()
		ref := between(p, "[Reference answer]\n", "\n[Assistant's answer]")
		ans := between(p, "[Assistant's answer]\n", "\nRating:")
		switch {
		case ref == "unrated":
			return llmtest.Text("I cannot rate this.")
		case ref == "half":
			return llmtest.Text("[[2.5]]")
		case strings.Contains(strings.ToLower(ans), strings.ToLower(ref)):
			return llmtest.Text("<think>Is it [[1]]? No.</think>The answer matches the reference. [[3]]")
		}
		return llmtest.Text("Rating: [[1]]")
	}))
	j := New(enginetest.Client(t, enginetest.Config(srv)), Options{})
	seen := 0
	asked := func() []llmtest.ChatRequest { // the requests since the last look
		all := srv.ChatRequests()
		defer func() { seen = len(all) }()
		return all[seen:]
	}
	c, err := j.Correctness(t.Context(), "Were they both American?", "Yes, both were American.", []string{"no", "yes"}, "", nil)
	if err != nil || c.Score != 1 || strings.Join(c.Ratings, ",") != "1,3" || c.Unrated != 0 || c.Usage.LLMCalls != 2 {
		t.Fatalf("correctness %+v, %v", c, err)
	}
	p := asked()[0]
	if len(p.Messages) != 2 || p.Messages[0].Content != correctnessSystem ||
		!strings.HasSuffix(p.Last(), "[Question]\nWere they both American?\n[Reference answer]\nno\n[Assistant's answer]\nYes, both were American.\nRating:") {
		t.Errorf("prompt %+v", p.Messages)
	}
	// A judge that never rates, or rates out of whole numbers, scores 0.5
	// after five tries, as the reference does.
	c, err = j.Correctness(t.Context(), "q", "a", []string{"unrated"}, "qa", nil)
	if n := len(asked()); err != nil || c.Score != 0.5 || c.Unrated != 1 || n != 5 {
		t.Errorf("unrated: %+v after %d tries, %v", c, n, err)
	}
	c, _ = j.Correctness(t.Context(), "q", "a", []string{"half"}, "qa", nil)
	if c.Score != 0.5 || c.Unrated != 1 {
		t.Errorf("[[2.5]]: %+v", c)
	}
	asked()
	// Summaries are rated 1 to 5 without the question; chat after rated
	// examples.
	j.Correctness(t.Context(), "Summarise.", "the summary", []string{"reference summary"}, "summary", nil)
	if p := asked()[0].Last(); strings.Contains(p, "Summarise.") || !strings.Contains(p, "[Reference summary]\nreference summary\n[Assistant's summary]\nthe summary\nRating:") {
		t.Errorf("summary prompt:\n%s", p)
	}
	few := []citations.RatedAnswer{{Answer: "ok", Score: 7}, {Answer: "bad", Score: 2}, {Answer: "great", Score: 10}}
	j.Correctness(t.Context(), "Q?", "line one\nline two", []string{"ref"}, "chat", few)
	if p := asked()[0]; !strings.Contains(p.Last(), "[Assistant's answer begins]\nbad\n[Assistant's answer ends]\n\nRating: [[2]]\n\n") ||
		!strings.Contains(p.Last(), "[Assistant's answer begins]\nline one line two\n[Assistant's answer ends]\n\nRating: ") || len(p.Stop) != 1 {
		t.Errorf("chat prompt:\n%s", p.Last())
	}
	if _, err := j.Correctness(t.Context(), "Q?", "a", []string{"ref"}, "chat", nil); err == nil {
		t.Error("chat without examples")
	}
}

func TestCorrectnessRating(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"[[3]]": 3, "Rating: [[2]] because [[1]]": 1, "[[Rating: 2]]": 2, "[[ 10 ]]": 10} {
		if n, ok := correctnessRating(in); !ok || n != want {
			t.Errorf("%q: %d %v", in, n, ok)
		}
	}
	for _, in := range []string{"3", "[[2.5]]", "[[three]]", "[[]]"} {
		if n, ok := correctnessRating(in); ok {
			t.Errorf("%q read as %d", in, n)
		}
	}
}
