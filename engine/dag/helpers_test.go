package dag

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// Two documents of a multi-hop question, each padded with unrelated
// paragraphs so that retrieval has to find the right chunks.
const filmText = `Doctor Strange (2016 film)

Doctor Strange is a 2016 American superhero film based on the Marvel Comics character of the same name. It was directed by Scott Derrickson, who wrote it with Jon Spaihts and C. Robert Cargill. The film stars Benedict Cumberbatch as Stephen Strange, a neurosurgeon who learns the mystic arts after a car accident.

Production began in Nepal in November 2015. The film premiered in Hong Kong on October 13, 2016.
`

const peopleText = `Scott Derrickson

Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. He lives in Los Angeles, California. He is best known for directing horror films such as Sinister and The Exorcism of Emily Rose.

Ed Wood

Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, and author. In the 1950s he made a number of low-budget films in the science fiction, crime and horror genres.
`

// filler writes n paragraphs of unrelated text, each of four sentences.
func filler(seed string, n int) string {
	crops := []string{"barley", "wheat", "oats", "rye", "millet", "sorghum", "maize", "rice"}
	regions := []string{"northern", "southern", "eastern", "western", "central", "coastal"}
	var b strings.Builder
	for i := range n {
		c, r := crops[i%len(crops)], regions[(i/2)%len(regions)]
		fmt.Fprintf(&b, "\n%s survey %d\n\n", seed, i)
		fmt.Fprintf(&b, "The %s farms grew %d tonnes of %s in season %d. ", r, 100+i*17%900, c, i)
		fmt.Fprintf(&b, "Rainfall on the %s plots was %d millimetres above the average. ", c, 5+i*7%60)
		fmt.Fprintf(&b, "Inspectors counted %d barns and %d silos across the district. ", 3+i%11, 1+i%5)
		fmt.Fprintf(&b, "The harvest of %s ended in week %d of the year.\n", c, 30+i%20)
	}
	return b.String()
}

// filmLibrary is the two-document library of the Doctor Strange question.
func filmLibrary(t testing.TB) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	return enginetest.TextLibrary(t,
		"film.txt", filmText+filler("Grain", 40),
		"people.txt", filler("Orchard", 30)+"\n"+peopleText+filler("Dairy", 30))
}

// ask runs the dag strategy with Algorithm 1 (unless the request names
// the algorithm) through engine.Run, as the command does.
func ask(t testing.TB, ctx context.Context, env *engine.Env, req engine.Request, emit func(engine.Event)) (*engine.Answer, error) {
	t.Helper()
	s, err := engine.New(Name, env)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(req.Options, func(o engine.Setting) bool { return o.Name == "algorithm" }) {
		req.Options = append(engine.Settings("algorithm", IterativeQA), req.Options...)
	}
	return engine.Run(ctx, env, s, req, emit)
}

// shown is a prompt's numbered context: each number with its text.
type shown struct {
	nums  []int
	texts map[int]string
}

func parseNumbered(ctx string) shown {
	nums, texts := enginetest.Numbered(ctx)
	return shown{nums, texts}
}

// find returns the number of the shown sentence containing substr, or -1.
func (s shown) find(substr string) int {
	for _, n := range s.nums {
		if strings.Contains(s.texts[n], substr) {
			return n
		}
	}
	return -1
}

// The kinds of prompt dag sends, told apart by their text.
const (
	kindPlan  = "plan"
	kindFact  = "fact"
	kindFinal = "final"
)

func promptKind(p string) string {
	switch {
	case strings.HasPrefix(p, planInstruction):
		return kindPlan
	case strings.Contains(p, "Based on the reference, present the fact to answer the following question."):
		return kindFact
	case strings.Contains(p, "[Answer with Citations]"):
		return kindFinal
	}
	return ""
}

// thoughtOf returns the test case's thought of a planning prompt: what
// follows the worked examples.
func thoughtOf(p string) string {
	return strings.TrimPrefix(p, planInstruction+"\n\n"+planExamples+"\n\n")
}

// subOf returns the sub-question of a fact prompt.
func subOf(p string) string {
	_, q, _ := strings.Cut(p, "\n\nQuestion: ")
	q = strings.TrimSuffix(q, " Fact:")
	return strings.TrimSuffix(q, ".")
}

// referenceOf returns the numbered reference of a fact prompt.
func referenceOf(p string) shown {
	ref, _, _ := strings.Cut(strings.TrimPrefix(p, factHead), "\n\nBased on the reference")
	return parseNumbered(ref)
}

// documentOf returns the numbered document of the final (one-shot) prompt.
func documentOf(p string) shown {
	_, p, _ = strings.Cut(p, "Now get ready to handle the following test case.")
	_, ctx, _ := strings.Cut(p, "[Document Start]\n")
	ctx, _, _ = strings.Cut(ctx, "\n[Document End]")
	return parseNumbered(ctx)
}

// fact is a scripted fact: the sentence to cite, found by its words, and
// what the model says.
type fact struct{ find, text string }

// model is a scripted model for dag's three prompts. The planner asks
// subs in order, then says "Final answer:" (never, if stop is false); the
// extractor answers each sub-question from facts, citing the shown
// sentence with the fact's words; the final answer is final(document),
// or one statement per shown run citing it.
type model struct {
	t     testing.TB
	subs  []string
	stop  bool
	facts map[string]fact
	final func(s shown) string

	mu    sync.Mutex
	cited [][2]int // per fact call: the number cited, or -1
}

func (m *model) respond(r llmtest.ChatRequest) llmtest.Reply {
	p := r.Last()
	switch promptKind(p) {
	case kindPlan:
		n := strings.Count(thoughtOf(p), "\nSubquestion: ")
		if n < len(m.subs) || (!m.stop && len(m.subs) > 0) {
			return llmtest.Text("Subquestion: " + m.subs[n%len(m.subs)])
		}
		return llmtest.Text("Final answer: yes")
	case kindFact:
		sub := subOf(p)
		f, ok := m.facts[sub]
		if !ok {
			return llmtest.Text("The reference does not say.")
		}
		ref := referenceOf(p)
		n := ref.find(f.find)
		m.mu.Lock()
		m.cited = append(m.cited, [2]int{n, len(m.cited)})
		m.mu.Unlock()
		if n < 0 {
			return llmtest.Text("The reference does not say.")
		}
		return llmtest.Text(fmt.Sprintf("<statement>%s<cite>[%d-%d]</cite></statement>", f.text, n, n))
	case kindFinal:
		doc := documentOf(p)
		if m.final != nil {
			return llmtest.Text(m.final(doc))
		}
		var b strings.Builder
		for _, n := range doc.nums {
			fmt.Fprintf(&b, "<statement>Sentence %d says so.<cite>[%d-%d]</cite></statement>", n, n, n)
		}
		return llmtest.Text(b.String())
	}
	m.t.Errorf("unexpected prompt:\n%.300s", p)
	return llmtest.Status(400)
}
