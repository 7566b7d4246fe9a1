package raidd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// The survey document: station paragraphs, and two sentences whose key
// words the scripted model rewrites — "burned" becomes "conflagration" in
// summaries, "ferry" becomes "watercraft" in questions — so a question in
// those words can only be matched through derived documents.
const (
	millSentence  = "Flames burned the old mill to the ground in the winter of 1911 after a lamp fell."
	ferrySentence = "A ferry carried the survey crew across the lake every Tuesday morning."
)

func survey(stations int) string {
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	ridges := []string{"northern", "southern", "eastern", "western", "central"}
	var b strings.Builder
	b.WriteString("Regional Rainfall Survey\n\n")
	for i := range stations {
		fmt.Fprintf(&b, "Station %d, on the %s ridge, recorded %d millimetres of rain in %s. ", i, ridges[i%5], 100+(i*37)%900, months[i%12])
		fmt.Fprintf(&b, "Its gauge was last calibrated in %d by a crew of %d. ", 1990+i%30, 2+i%7)
		fmt.Fprintf(&b, "The nearest river rose by %d centimetres that month.\n\n", 5+(i*13)%80)
		switch i {
		case stations / 3:
			b.WriteString(millSentence + "\n\n")
		case 2 * stations / 3:
			b.WriteString(ferrySentence + "\n\n")
		}
	}
	return b.String()
}

// deriveReq is a derivation prompt taken apart: the combined prompt
// (kind "both"), or the authors' summary call ("summary", no n) or
// questions call ("questions", no prev).
type deriveReq struct {
	kind, text, prev string
	n                int
}

var (
	countRE     = regexp.MustCompile(`generate (\d+) reading comprehension questions`)
	questionsRE = regexp.MustCompile(`\n\nGenerate (\d+) reading comprehension questions based on the text above`)
)

// parseDerive recognises a derivation prompt.
func parseDerive(prompt string) (deriveReq, bool) {
	if m := questionsRE.FindStringSubmatchIndex(prompt); m != nil {
		n, _ := strconv.Atoi(prompt[m[2]:m[3]])
		return deriveReq{kind: "questions", text: prompt[:m[0]], n: n}, true
	}
	r := deriveReq{kind: "both"}
	if m := countRE.FindStringSubmatch(prompt); m != nil {
		r.n, _ = strconv.Atoi(m[1])
	} else if strings.HasPrefix(prompt, instructFirst) || strings.HasPrefix(prompt, instructNext) {
		r.kind = "summary"
	} else {
		return deriveReq{}, false
	}
	_, rest, ok := strings.Cut(prompt, "Here is the text:\n\n")
	if !ok {
		return deriveReq{}, false
	}
	r.text, _, _ = strings.Cut(rest, "\n\nWrite the summary after")
	if _, after, ok := strings.Cut(prompt, "a summary of the text that precedes it:\n\n"); ok {
		r.prev, _, _ = strings.Cut(after, "\n\nHere is the text:")
	}
	return r, true
}

var sentenceRE = regexp.MustCompile(`[^.!?]+[.!?]`)

// scriptedDerivation is what the scripted model derives from a chunk: a
// digest of each sentence's first six words and one question per
// sentence, with its own words substituted.
func scriptedDerivation(r deriveReq) (summary string, questions []string) {
	var parts []string
	for _, s := range sentenceRE.FindAllString(r.text, -1) {
		words := strings.Fields(strings.ReplaceAll(s, "burned", "conflagration"))
		parts = append(parts, strings.Join(words[:min(6, len(words))], " "))
		qw := strings.Fields(strings.TrimRight(strings.ReplaceAll(s, "ferry", "watercraft"), ".!?"))
		if len(questions) < r.n {
			questions = append(questions, "What about "+strings.Join(qw[:min(6, len(qw))], " ")+"?")
		}
	}
	return "Digest: " + strings.Join(parts, " / "), questions
}

// scriptedReply is the scripted model's reply to r: what r asks for of
// scriptedDerivation's, in the layout r asks for.
func scriptedReply(r deriveReq) string {
	sum, qs := scriptedDerivation(r)
	var b strings.Builder
	switch r.kind {
	case "summary":
		return sum
	case "both":
		b.WriteString("SUMMARY:\n" + sum + "\nQUESTIONS:\n")
	}
	for i, q := range qs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, q)
	}
	return b.String()
}

// shownSentences reads the numbered sentences of an answering prompt.
func shownSentences(prompt string) map[int]string {
	if _, after, ok := strings.Cut(prompt, "Now get ready to handle the following test case."); ok {
		prompt = after
	}
	ctx := prompt
	if _, after, ok := strings.Cut(ctx, "[Document Start]\n"); ok {
		ctx, _, _ = strings.Cut(after, "\n[Document End]")
	}
	_, out := enginetest.Numbered(ctx)
	for n, text := range out {
		// A multi-document context starts each document with a header.
		if i := strings.Index(text, "\n\nDocument "); i >= 0 {
			text = text[:i]
		}
		out[n] = strings.TrimSpace(text)
	}
	return out
}

// model is the scripted model: it derives as scriptedDerivation says and
// answers by citing the shown sentence that contains want (or the first
// shown sentence). It counts derivation requests per chunk text.
type model struct {
	mu       sync.Mutex
	want     string
	perChunk map[string]int
	derives  int
	answers  []string // answering prompts
	// fault, if set, may replace the reply to derivation request number
	// n (1-based) of the chunk.
	fault func(n int, r deriveReq) (llmtest.Reply, bool)
	// grades are the replies to grading prompts, in turn (the last one
	// repeated).
	grades []string
	graded int
}

func newModel() *model { return &model{perChunk: map[string]int{}} }

func (m *model) respond(req llmtest.ChatRequest) llmtest.Reply {
	prompt := req.Last()
	if r, ok := parseDerive(prompt); ok {
		m.mu.Lock()
		m.derives++
		m.perChunk[r.text]++
		n, fault := m.derives, m.fault
		m.mu.Unlock()
		if fault != nil {
			if reply, ok := fault(n, r); ok {
				return reply
			}
		}
		return llmtest.Text(scriptedReply(r))
	}
	m.mu.Lock()
	if strings.HasPrefix(prompt, "Score how well an answer") && len(m.grades) > 0 {
		g := m.grades[min(m.graded, len(m.grades)-1)]
		m.graded++
		m.mu.Unlock()
		return llmtest.Text(g)
	}
	m.answers = append(m.answers, prompt)
	want := m.want
	m.mu.Unlock()
	shown := shownSentences(prompt)
	cite, best := -1, -1
	for n, text := range shown {
		if best < 0 || n < best {
			best = n
		}
		if want != "" && strings.Contains(text, want) {
			cite = n
		}
	}
	if cite < 0 {
		cite = best
	}
	return llmtest.Text(fmt.Sprintf("<statement>The documents say so.<cite>[%d-%d]</cite></statement>", cite, cite))
}

func (m *model) setWant(s string) {
	m.mu.Lock()
	m.want = s
	m.mu.Unlock()
}

func (m *model) lastAnswerPrompt() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.answers) == 0 {
		return ""
	}
	return m.answers[len(m.answers)-1]
}

// derivations counts the derivation requests the model received.
func (m *model) derivations() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.derives
}
