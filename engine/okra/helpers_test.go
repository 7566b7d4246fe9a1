package okra

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// almanac is a test document: facts for every workflow among many
// paragraphs of distractors.
func almanac() string { return almanacOf(160) }

// almanacOf is the almanac with n stations (at least 160).
func almanacOf(n int) string {
	var b strings.Builder
	b.WriteString("Regional Almanac\n\n")
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	station := func(i int) {
		fmt.Fprintf(&b, "Station %d\n\nStation %d, on the %s ridge, recorded %d millimetres of rain in %s. ", i, i, []string{"northern", "southern", "eastern", "western"}[i%4], 100+(i*37)%900, months[i%12])
		fmt.Fprintf(&b, "Its gauge was last calibrated in %d by a crew of %d. ", 1990+i%30, 2+i%7)
		fmt.Fprintf(&b, "The nearest river rose by %d centimetres that month.\n\n", 5+(i*13)%80)
	}
	for i := range 40 {
		station(i)
	}
	b.WriteString("The Lost Valley\n\nThe Lost Valley is a 1969 western film directed by Tom Gries and starring Raquel Welch. It was shot in the desert of Almería in southern Spain.\n\n")
	for i := 40; i < 60; i++ {
		station(i)
	}
	b.WriteString("Raquel Welch\n\nRaquel Welch was an American actress born in Chicago in 1940. She became famous for her roles in adventure films of the 1960s.\n\n")
	for i := 60; i < 80; i++ {
		station(i)
	}
	b.WriteString("University of New Haven\n\nThe University of New Haven has a campus of 84 acres in West Haven, Connecticut.\n\n")
	for i := 80; i < 100; i++ {
		station(i)
	}
	b.WriteString("University of West Florida\n\nThe University of West Florida has a campus of 1,600 acres in Pensacola.\n\n")
	for i := 100; i < 120; i++ {
		station(i)
	}
	b.WriteString("Harbour Authority Budget\n\nThe budget table of the harbour authority follows.\n\nYear  Revenue  Costs  Surplus\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d  %d  %d  %d\n", 1980+i, 400+i*3, 350+i*2, 50+i)
	}
	b.WriteString("\nThe surplus of every year went to the dredging fund.\n\n")
	for i := 120; i < 140; i++ {
		station(i)
	}
	b.WriteString("The Silting of the Harbour\n\nThe harbour silted up because the river changed its course after the great flood of 1952. ")
	b.WriteString("The new channel carried sand from the eroded hills straight into the basin. ")
	b.WriteString("Dredging slowed the silting but never stopped it, since every storm brought more sand down. ")
	b.WriteString("The town finally built a breakwater in 1971, which turned the current away from the harbour mouth.\n\n")
	for i := 140; i < n; i++ {
		station(i)
	}
	return b.String()
}

// sentenceAt is the index of the sentence holding byte off.
func sentenceAt(d *docstore.Document, off int) int {
	for i, s := range d.Sentences {
		if int(s.Start) <= off && off < int(s.End) {
			return i
		}
	}
	return -1
}

// almanacLibrary is a library holding the almanac as doc0.txt.
func almanacLibrary(t testing.TB) (*docstore.Library, []*docstore.Document) {
	t.Helper()
	return enginetest.TextLibrary(t, "doc0.txt", almanac())
}

// The kinds of prompt okra sends.
const (
	kindAnalyzer  = "analyzer"
	kindSplitter  = "splitter"
	kindReasoner  = "reasoner"
	kindGenerate  = "generate"
	kindUnknown   = "unknown"
	documentStart = "[Document Start]\n"
)

// kind tells which prompt a request is.
func kind(r llmtest.ChatRequest) string {
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		switch r.Messages[0].Content {
		case analyzerSystem:
			return kindAnalyzer
		case splitterSystem:
			return kindSplitter
		case reasonerSystem:
			return kindReasoner
		}
	}
	if strings.Contains(r.Text(), documentStart) {
		return kindGenerate
	}
	return kindUnknown
}

// script answers okra's prompts: the analyzer with analysis, the splitter
// with subs, the reasoner with steps in turn, and the final generation by
// citing the shown sentence containing each of cite. It records the
// requests of each kind.
type script struct {
	mu       sync.Mutex
	analysis string
	subs     []string
	steps    []string
	cite     []string
	answer   func(prompt string) string // overrides cite when set
	byKind   map[string][]llmtest.ChatRequest
}

func (s *script) respond(r llmtest.ChatRequest) llmtest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKind == nil {
		s.byKind = map[string][]llmtest.ChatRequest{}
	}
	k := kind(r)
	s.byKind[k] = append(s.byKind[k], r)
	switch k {
	case kindAnalyzer:
		return llmtest.Text(s.analysis)
	case kindSplitter:
		return llmtest.Text(strings.Join(s.subs, "\n"))
	case kindReasoner:
		n := len(s.byKind[k]) - 1
		if n < len(s.steps) {
			return llmtest.Text(s.steps[n])
		}
		return llmtest.Text("### Evidence: nothing new. ### Next-Query: None ### Answer: None")
	case kindGenerate:
		if s.answer != nil {
			return llmtest.Text(s.answer(r.Text()))
		}
		var b strings.Builder
		for _, c := range s.cite {
			n, ok := shownNumber(r.Text(), c)
			if !ok {
				fmt.Fprintf(&b, "<statement>No sentence says %s.<cite></cite></statement>", c)
				continue
			}
			fmt.Fprintf(&b, "<statement>%s<cite>[%d-%d]</cite></statement>", c, n, n)
		}
		return llmtest.Text(b.String())
	}
	return llmtest.Text("OK.")
}

func (s *script) requests(k string) []llmtest.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKind[k]
}

// shownNumber finds the number of the shown sentence (of the test case,
// not the one-shot example) that contains substr.
func shownNumber(prompt, substr string) (int, bool) {
	if _, after, ok := strings.Cut(prompt, "Now get ready to handle the following test case."); ok {
		prompt = after
	}
	_, ctx, ok := strings.Cut(prompt, documentStart)
	if !ok {
		return 0, false
	}
	ctx, _, _ = strings.Cut(ctx, "\n[Document End]")
	nums, texts := enginetest.Numbered(ctx)
	for _, n := range nums {
		if strings.Contains(texts[n], substr) {
			return n, true
		}
	}
	return 0, false
}

// shownContext is the numbered context of a generation prompt.
func shownContext(prompt string) string {
	if _, after, ok := strings.Cut(prompt, "Now get ready to handle the following test case."); ok {
		prompt = after
	}
	_, ctx, _ := strings.Cut(prompt, documentStart)
	ctx, _, _ = strings.Cut(ctx, "\n[Document End]")
	return ctx
}

// New builds okra (okra-precise when precise) in env.
func New(env *engine.Env, precise bool) (engine.Strategy, error) {
	if precise {
		return engine.New(PreciseName, env)
	}
	return engine.New(Name, env)
}

// ask runs a strategy through engine.Run.
func ask(t *testing.T, env *engine.Env, precise bool, question string, opts []engine.Setting) (*engine.Answer, *enginetest.Events, error) {
	t.Helper()
	s, err := New(env, precise)
	if err != nil {
		t.Fatal(err)
	}
	ev := &enginetest.Events{}
	ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: question, Options: opts}, ev.Emit)
	return ans, ev, err
}

// analysisJSON writes an analyzer reply as Table 7 asks for it.
func analysisJSON(qt, it, containing string) string {
	b, _ := json.Marshal(map[string]string{"question-type": qt, "info-type": it, "containing": containing})
	return string(b)
}

// planOf is an answer's plan.
func planOf(t *testing.T, ans *engine.Answer) *Plan {
	t.Helper()
	p, ok := ans.Plan.(*Plan)
	if !ok {
		t.Fatalf("answer plan is %T, want *Plan", ans.Plan)
	}
	return p
}
