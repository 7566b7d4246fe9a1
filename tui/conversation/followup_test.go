package conversation

import "testing"

// TestRefersBack: a question follows up on the conversation when it
// refers back to it — a continuation, an ellipsis, a pronoun or
// demonstrative without its noun, or its subject shared — and otherwise
// starts a new topic.
func TestRefersBack(t *testing.T) {
	t.Parallel()
	r := []string{"How do I read a CSV file in R?"}
	colonists := []string{"What did the colonists object to?"}
	for _, c := range []struct {
		q       string
		earlier []string
		want    bool
	}{
		// Continuations.
		{"and the default?", r, true},
		{"What about gnuplot?", r, true},
		{"And for PDFs?", r, true},
		{"Also, can I skip the header?", r, true},
		{"how about read.table", r, true},
		// Ellipses.
		{"Why?", r, true},
		{"why not?", r, true},
		{"In Python?", r, true},
		{"the second one?", r, true},
		{"What else can I read?", r, true},
		{"Tell me more", r, true},
		{"Can gnuplot plot histograms too?", r, true},
		{"Is the same true for Excel?", r, true},
		// Pronouns and demonstratives without their noun.
		{"How do I install it?", r, true},
		{"Do they handle quoted fields?", r, true},
		{"What are their default arguments?", r, true},
		{"What does that mean?", r, true},
		{"Why is that?", r, true},
		{"How do I do this in gnuplot?", r, true},
		{"Is this the fastest way?", r, true},
		{"How does that compare to ggplot?", r, true},
		{"Which one is faster?", r, true},
		{"Is this one faster?", r, true},
		{"It's slow; why?", r, true},
		// The subject shared, with any earlier question of the topic.
		{"How do I skip rows when reading a CSV?", r, true},
		{"Which grievances did the colonists list?", colonists, true},
		{"How do I skip the header of a CSV?", []string{"How do I read a CSV file in R?", "and the separator?"}, true},

		// New topics.
		{"How do I set the axis labels in gnuplot?", r, false},
		{"How do I make a bar chart in gnuplot?", []string{"How do I make a histogram in R?"}, false},
		{"Is it possible to plot a histogram in gnuplot?", r, false},
		{"How long does it take to render a page?", r, false},
		{"What does this document say about taxes?", r, false},
		{"Does this PDF contain tables?", r, false},
		{"Which article says that taxes need consent?", r, false},
		{"How do I set margins so that the plot fits?", r, false},
		{"How do I open a PDF and print it?", colonists, false},
		{"What did the king say they wanted?", r, false},
		{"How do I define a function that returns a list in Python?", r, false},
		{"Give me one example of a grievance", r, false},
		{"Who wrote the Declaration of Independence?", r, false},
		{"Summarize the grievances against the king.", r, false},
		{"What is gerrymandering?", colonists, false},
		// Nothing to follow up on, or nothing asked.
		{"How do I install it?", nil, false},
		{"and the default?", nil, false},
		{"", r, false},
		{"   ?!", r, false},
	} {
		if got := refersBack(c.q, c.earlier); got != c.want {
			t.Errorf("refersBack(%q, %q) = %v, want %v", c.q, c.earlier, got, c.want)
		}
	}
}
