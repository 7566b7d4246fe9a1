package dag

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// Plan is the record of the reasoning: Answer.Plan of a dag answer, so the
// saved answer, its exports and `ask --json` show how it was reached.
type Plan struct {
	// Summary is the plan in one line, for people: how many steps, and why
	// they ended.
	Summary string `json:"summary"`
	// Steps are the sub-questions asked, in order, with their facts.
	Steps []Step `json:"steps"`
	// Stopped says why the steps ended: StopModel, StopLimit, or
	// StopFailed when a call failed or the answer was cancelled.
	Stopped string `json:"stopped"`
	// Algorithm is the seed's algorithm that ran: 1, iterative QA with
	// fact extraction; 2, knowledge-constrained decoding.
	Algorithm int `json:"algorithm"`
	// MaxSteps is the step limit the answer ran with.
	MaxSteps int `json:"max_steps"`
	// Chunks and ChunkWords are the retrieval per sub-question; Retrieval
	// is how chunks were ranked: RetrievalBM25, or RetrievalDense and the
	// embedding model.
	Chunks     int    `json:"chunks"`
	ChunkWords int    `json:"chunk_words"`
	Retrieval  string `json:"retrieval"`
	// Draft is the planner's own "Final answer:" line, when it stopped the
	// steps; the answer's statements are written from the facts after it.
	Draft string `json:"draft_answer,omitempty"`
	// Fallback, when set, says why the answer is not written from the
	// steps but from retrieval over the question (generate.Fallback).
	Fallback string `json:"fallback,omitempty"`
}

// Line is the plan's summary.
func (p *Plan) Line() string { return p.Summary }

// ShortAnswer is the planner's own answer ("X is the answer.", or
// Algorithm 1's "Final answer: X"), the one the paper scores; eval scores
// it for answer F1 and EM beside the cited long form (eval.ShortAnswerer).
func (p *Plan) ShortAnswer() string { return p.Draft }

// summarize sets Summary from the steps and why they ended.
func (p *Plan) summarize() {
	why := map[string]string{
		StopModel:  "the model had enough to answer",
		StopLimit:  fmt.Sprintf("the limit of %d steps was reached", p.MaxSteps),
		StopFailed: "a model call failed or the answer was cancelled",
		StopUnread: "the model's reply was not in the template, twice",
	}[p.Stopped]
	what := "sub-question"
	if p.Algorithm == 2 {
		what = "step"
	}
	steps := "1 " + what
	if len(p.Steps) != 1 {
		steps = fmt.Sprintf("%d %ss", len(p.Steps), what)
	}
	p.Summary = fmt.Sprintf("%s, then stopped: %s (%s retrieval)", steps, why, p.Retrieval)
	if p.Fallback != "" {
		p.Summary += "; fell back: " + p.Fallback
	}
}

// How chunks were ranked.
const (
	RetrievalBM25  = "bm25"
	RetrievalDense = "bm25+dense"
)

// Why the steps ended.
const (
	StopModel  = "model"  // the planner wrote "Final answer:"
	StopLimit  = "limit"  // MaxSteps sub-questions were asked
	StopFailed = "failed" // a model call failed, or the answer was cancelled
	// StopUnread: the planner's reply was not in the template, asked
	// twice (the second time with the format restated).
	StopUnread = "unreadable"
)

// Step is one step of the reasoning. Under Algorithm 1 it is a
// sub-question and the fact found for it; under Algorithm 2 a reasoning
// step as the model drafted it (Draft) and as it wrote it again under the
// constraint of the knowledge retrieved for it (Fact).
type Step struct {
	SubQuestion string `json:"sub_question,omitempty"`
	// Draft is the step as the model planned it, before the knowledge was
	// retrieved (Algorithm 2).
	Draft string `json:"draft,omitempty"`
	// Fact is the model's one-sentence answer from the retrieved text (the
	// constrained step under Algorithm 2); "" when nothing was retrieved
	// or the model wrote nothing.
	Fact string `json:"fact"`
	// Citations are the sentences the fact cites, resolved and verified.
	Citations []citations.Span `json:"citations"`
	// Retrieved are the chunks shown to the model, in document order.
	Retrieved []Chunk `json:"retrieved"`
	// Repeated is set when the sub-question was asked before; it was
	// shown the next-best chunks.
	Repeated bool `json:"repeated,omitempty"`
	// Warnings say what was dropped from the fact's citations, or that
	// its citations were matched rather than given by the model.
	Warnings []string `json:"warnings,omitempty"`

	support []citations.Verdict
}

// Chunk is a retrieved run of sentences.
type Chunk struct {
	Doc   docstore.DocID `json:"doc"`
	First int            `json:"first_sentence"`
	Last  int            `json:"last_sentence"`
}

// statement is the fact as a cited statement, for an answer that ends
// before its final step.
func (s *Step) statement() citations.Statement {
	return citations.Statement{Text: s.Fact, Citations: s.Citations, Support: s.support, Warnings: s.Warnings}
}

// thoughtFact is the fact as the thought shows it.
func (s *Step) thoughtFact() string {
	what := "sub-question"
	if s.SubQuestion == "" {
		what = "step"
	}
	switch {
	case len(s.Retrieved) == 0 && s.Repeated:
		return "Nothing more in the documents matches this " + what + "."
	case len(s.Retrieved) == 0:
		return "Nothing in the documents matches this " + what + "."
	case s.Fact == "":
		return "The reference does not answer this " + what + "."
	}
	return s.Fact
}

// stageWidth is the most columns a stage takes, so that it stays on one
// line of an 80-column terminal after a spinner, or a list number in the
// Markdown export.
const stageWidth = 76

// subStage is the stage announcing sub-question i of max:
// "sub-question 2/5: Who directed Doctor Strange?".
func subStage(i, max int, sub string) string {
	head := fmt.Sprintf("sub-question %d/%d: ", i, max)
	return head + clip(sub, stageWidth-len(head))
}

// factStage is the stage reporting step i's fact: "fact 2: Scott
// Derrickson directed Doctor Strange [s. 584-586]", or under Algorithm 2
// its constrained step, "step 2: …". Sentences are numbered as everywhere
// a person sees them: the indices `citelens show --sentences` prints.
func factStage(i int, s *Step) string {
	head, what := fmt.Sprintf("fact %d: ", i), "sub-question"
	if s.Draft != "" {
		head, what = fmt.Sprintf("step %d: ", i), "step"
	}
	switch {
	case len(s.Retrieved) == 0 && s.Repeated:
		return head + "nothing more in the documents matches the " + what
	case len(s.Retrieved) == 0:
		return head + "nothing in the documents matches the " + what
	case s.Fact == "":
		return head + "the model found none in the retrieved text"
	}
	tail := " (uncited)"
	if len(s.Citations) > 0 {
		tail = " [" + sentenceList(s.Citations) + "]"
	}
	text := strings.TrimRight(s.Fact, ".")
	return head + clip(text, stageWidth-len(head)-utf8.RuneCountInString(tail)) + tail
}

// draftStage is the stage announcing step i of max as the model drafted
// it, before the knowledge constrains it (Algorithm 2): "step 2/5,
// drafted: Scott Derrickson is a Canadian director".
func draftStage(i, max int, draft string) string {
	head := fmt.Sprintf("step %d/%d, drafted: ", i, max)
	return head + clip(draft, stageWidth-len(head))
}

// sentenceList writes spans as "s. 12, 40-41", at most three, then "+N".
func sentenceList(spans []citations.Span) string {
	var b strings.Builder
	b.WriteString("s. ")
	for i, c := range spans {
		if i == 3 {
			fmt.Fprintf(&b, " +%d", len(spans)-3)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(c.First))
		if c.Last > c.First {
			b.WriteString("-")
			b.WriteString(strconv.Itoa(c.Last))
		}
	}
	return b.String()
}

// clip makes s one terminal-safe line of at most width columns, cutting at
// a word boundary with "…" when it is longer. Wide (CJK) characters count
// two columns.
func clip(s string, width int) string {
	s = strings.TrimSpace(textproc.OneLine(s))
	width = max(width, 8)
	cols := 0
	cut, space, spaceCol := -1, -1, 0 // byte offsets: the latest cut for "…", the last space before it
	for i, r := range s {
		w := 1
		if textproc.IsCJK(r) {
			w = 2
		}
		if cut < 0 {
			if cols+w > width-1 {
				cut = i
			} else if r == ' ' {
				space, spaceCol = i, cols
			}
		}
		cols += w
		if cols > width {
			if space > 0 && spaceCol > width/2 {
				cut = space
			}
			return strings.TrimRight(s[:cut], " ,;:") + "…"
		}
	}
	return s
}

// oneLine collapses whitespace runs, newlines included, to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
