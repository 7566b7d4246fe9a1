package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm/llmtest"
)

// The prompts of the strategies besides LongCite's answers and RAIDD's
// derivation, recognised by their fixed wording, and plausible replies to
// each, so every strategy runs end to end against the scripted server (the
// cost table in bench/costs runs them all):
//
//   - OkraLong's analyzer (Table 7): a dictionary from a few rules of
//     wording, "containing" from how many question terms the context has;
//     its query splitter (Table 8): one sub-question per name in the
//     question; its step-wise reasoner (Table 9): the best sentence as
//     evidence, then an answer when the context covers the question, else
//     a next query about a name the evidence adds;
//   - CoF: the draft (plain text, the best sentences), the chunk-level
//     citations (each line of the draft cites its best snippet) and the
//     sentence-level extraction (the best sentence, or "No relevant
//     information");
//   - DAG, Algorithm 1: the plan (a sub-question per name of the
//     question, then the final answer from the last fact) and the fact
//     extraction (the best reference sentence, cited); Algorithm 2: the
//     drafted steps (one about each name of the question and the
//     question's other words, then "… is the answer." from the last step) and the constrained step (the
//     knowledge sentence that shares most with the draft, cited);
//   - RAC-C: the best snippets, cited;
//   - asked to answer "unanswerable" when the text lacks the answer
//     (okra-precise), "Unanswerable" when no shown sentence holds half the
//     question's terms;
//   - the judge's prompts of `citelens eval --judge` (llmtest.Judge).
//
// "Best" is always most index terms shared with the question (or the
// statement, or the sub-question), first in order on ties.

// respondTo answers one request: a strategy's prompt recognised here, or
// respond's LongCite answers, RAIDD derivations and "OK.".
func respondTo(r llmtest.ChatRequest, cites int) llmtest.Reply {
	if reply, ok := llmtest.Judge(r); ok {
		return reply // eval --judge's prompts
	}
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		sys := r.Messages[0].Content
		switch {
		case strings.HasPrefix(sys, "Given a question and the document context, please answer three questions"):
			return llmtest.Text(okraAnalysis(r.Last()))
		case strings.Contains(sys, "Please split this question into multiple sub-questions"):
			return llmtest.Text(okraSplit(r.Last()))
		case strings.Contains(sys, "generate a next-step query to query additional information"):
			return llmtest.Text(okraStep(r.Last()))
		case strings.HasPrefix(sys, "You rewrite follow-up questions."):
			return llmtest.Text(standalone(r.Last()))
		}
	}
	p := r.Last()
	switch {
	case strings.HasPrefix(p, "Please answer the user's question based on the given document. Answer in plain text, without citations"),
		strings.HasPrefix(p, "[Document Start]\n"): // CoF's draft; plain's context and question
		return llmtest.Text(cofDraft(p))
	case strings.Contains(p, "[Existing Answer Start]"):
		return llmtest.Text(cofChunks(p))
	case strings.Contains(p, "[Passage Start]") && strings.Contains(p, "[Statement]"):
		return llmtest.Text(cofSentences(p))
	case strings.HasPrefix(p, "Answer the question step by step from facts found in the documents."):
		return llmtest.Text(dagPlan(p))
	case strings.HasPrefix(p, "Reference:\n"):
		return llmtest.Text(dagFact(p))
	case strings.HasPrefix(p, "You should provide an answer to Question by thinking step by step in Thoughts with New Knowledge."):
		return llmtest.Text(dagDraft(p))
	case strings.HasPrefix(p, "Knowledge:\n"):
		return llmtest.Text(dagConstrain(p))
	case strings.HasPrefix(p, "Please answer the user's question based on the given snippets"):
		return llmtest.Text(snippetAnswer(p, cites))
	case strings.Contains(p, unanswerableHint) && !answerable(p):
		return llmtest.Text("<statement>Unanswerable: the document does not contain the information needed.<cite></cite></statement>")
	}
	return respond(p, cites)
}

// unanswerableHint is how okra-precise asks for "unanswerable" when the
// shown text lacks the answer.
const unanswerableHint = `answer "unanswerable".)`

// answerable reports whether some shown sentence holds at least half of
// the question's terms: asked to say "unanswerable" when the text lacks
// the answer, the scripted model says so when none does.
func answerable(p string) bool {
	test := p
	if _, after, ok := strings.Cut(p, "Now get ready to handle the following test case."); ok {
		test = after
	}
	ctx, question, _ := strings.Cut(test, "[Document End]")
	if q := between(question, "[Question]\n", ""); q != "" {
		question = q
	}
	question, _, _ = strings.Cut(question, "(If the document does not contain")
	want := llmtest.TermSet(question)
	for _, u := range numbered(ctx, tagRE) {
		if 2*llmtest.Overlap(u.text, want) >= len(want) {
			return true
		}
	}
	return false
}

// unit is a numbered piece of a prompt: "<C12>" sentence or "Snippet [3]".
type unit struct {
	num  int
	text string
}

var snippetRE = regexp.MustCompile(`(?m)^Snippet \[(\d+)\]\n`)

// numbered splits ctx at the matches of re (whose first group is the
// number) into units.
func numbered(ctx string, re *regexp.Regexp) []unit {
	var out []unit
	locs := re.FindAllStringSubmatchIndex(ctx, -1)
	for i, l := range locs {
		n, _ := strconv.Atoi(ctx[l[2]:l[3]])
		end := len(ctx)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out = append(out, unit{n, strings.TrimSpace(ctx[l[1]:end])})
	}
	return out
}

// best returns the units sharing the most terms with query, best first
// (ties in order), without those sharing none.
func best(us []unit, query string, k int) []unit {
	want := llmtest.TermSet(query)
	type scored struct {
		unit
		score int
	}
	var ss []scored
	for _, u := range us {
		if s := llmtest.Overlap(u.text, want); s > 0 {
			ss = append(ss, scored{u, s})
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int { return b.score - a.score })
	out := make([]unit, 0, k)
	for _, s := range ss[:min(k, len(ss))] {
		out = append(out, s.unit)
	}
	return out
}

// sentences splits prose into sentences.
func sentences(text string) []unit {
	var out []unit
	for i, s := range sentenceRE.FindAllString(text, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, unit{i, s})
		}
	}
	return out
}

// quote is the first words of text on one line.
func quote(text string, words int) string {
	ws := strings.Fields(textproc.OneLine(text))
	return strings.Join(ws[:min(words, len(ws))], " ")
}

// between returns the text of s after the first start and before the
// next end ("" end: to the end).
func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	if end != "" {
		after, _, _ = strings.Cut(after, end)
	}
	return after
}

var (
	nameRE     = regexp.MustCompile(`\p{Lu}[\p{L}\d'’.-]*(?:[ \t]+(?:of[ \t]+|the[ \t]+|de[ \t]+|von[ \t]+)?\p{Lu}[\p{L}\d'’.-]*)*`)
	bridgeRE   = regexp.MustCompile(`(?i)\b(the|a|an|of|by)\s+(\w+\s+){1,4}?(who|whom|whose|which|that)\s|\b(directed|written|produced|founded|starring|featuring) (by|\w+)`)
	bothRE     = regexp.MustCompile(`(?i)\b(both|either|neither|same|in common|compare)\b|,[^,]+\bor\b`)
	yesNoAndRE = regexp.MustCompile(`(?i)^(is|are|was|were|do|does|did)\b.*\band\b`)
	arithRE    = regexp.MustCompile(`(?i)\bhow (many|much)\b|\b(total|difference|sum|average|percent)\b`)
	whyRE      = regexp.MustCompile(`(?i)^(why|how)\b|\b(explain|describe|summari[sz]e)\b`)
)

// standalone rewrites the follow-up question of engine's rewrite prompt
// to stand alone, as a model would if it only knew to name what the
// previous question was about: the follow-up, then "(about …)" with the
// previous question's names, or its longest words.
func standalone(p string) string {
	follow := strings.TrimSpace(between(p, "Follow-up question: ", "\n\nStandalone question:"))
	prev := ""
	for _, line := range strings.Split(p, "\n") {
		if q, ok := strings.CutPrefix(line, "Q: "); ok {
			prev = q
		}
	}
	topic := names(prev)
	if len(topic) == 0 {
		w := textproc.Terms(prev)
		slices.SortStableFunc(w, func(a, b string) int { return len(b) - len(a) })
		topic = w[:min(3, len(w))]
	}
	if len(topic) == 0 {
		return follow
	}
	return strings.TrimRight(follow, "?") + " (about " + strings.Join(topic, " and ") + ")?"
}

// names are the capitalised phrases of a question after its first word.
func names(q string) []string {
	_, rest, ok := strings.Cut(strings.TrimSpace(q), " ")
	if !ok {
		return nil
	}
	return capitalised(rest)
}

// capitalised are the capitalised phrases of text, each once.
func capitalised(rest string) []string {
	var out []string
	for _, n := range nameRE.FindAllString(rest, -1) {
		n = strings.Trim(n, ".'’-")
		if n == "" || textproc.IsStopWord(textproc.Fold(n)) {
			continue // "He", "The": capitalised to start a sentence
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// okraAnalysis answers Table 7 for "### Context: … ### Question: … ###
// Answer:".
func okraAnalysis(user string) string {
	ctx := between(user, "### Context: ", " ### Question: ")
	q := between(user, " ### Question: ", " ### Answer:")
	qt := "extractive"
	switch {
	case arithRE.MatchString(q):
		qt = "arithmetic"
	case bothRE.MatchString(q) || yesNoAndRE.MatchString(q):
		qt = "multi-source"
	case bridgeRE.MatchString(q):
		qt = "multi-bridge"
	case whyRE.MatchString(q):
		qt = "abstractive"
	}
	it := "semantic"
	switch n := len(names(q)); {
	case n >= 2:
		it = "exact"
	case n == 1:
		it = "same"
	}
	containing := "no"
	if want := llmtest.TermSet(q); len(want) > 0 && 4*llmtest.Overlap(ctx, want) >= 3*len(want) {
		containing = "yes"
	}
	return fmt.Sprintf(`{"question-type": %q, "info-type": %q, "containing": %q}`, qt, it, containing)
}

// okraSplit answers Table 8: a question about each name of the question.
func okraSplit(q string) string {
	ns := names(q)
	if len(ns) < 2 {
		return strings.TrimSpace(q)
	}
	var b strings.Builder
	for _, n := range ns[:min(3, len(ns))] {
		fmt.Fprintf(&b, "What is known about %s?\n", n)
	}
	return b.String()
}

// okraStep answers Table 9 for "### Context: … ### Question:…".
func okraStep(user string) string {
	ctx := between(user, "### Context: ", " ### Question:")
	q := between(user, " ### Question:", "")
	top := best(sentences(ctx), q, 1)
	if len(top) == 0 {
		return "### Evidence: The context says nothing about the question. ### Next-Query: None ### Answer: None"
	}
	ev := quote(top[0].text, 40)
	want := llmtest.TermSet(q)
	if 5*llmtest.Overlap(ctx, want) >= 4*len(want) {
		return fmt.Sprintf("### Evidence: %s ### Next-Query: None ### Answer: The answer is: %s", ev, quote(top[0].text, 8))
	}
	for _, n := range names(top[0].text) {
		if !strings.Contains(q, n) {
			return fmt.Sprintf("### Evidence: %s ### Next-Query: What is known about %s? ### Answer: None", ev, n)
		}
	}
	return fmt.Sprintf("### Evidence: %s ### Next-Query: None ### Answer: The answer is: %s", ev, quote(top[0].text, 8))
}

// cofDraft answers CoF's step 1 in plain text from the best sentences.
func cofDraft(p string) string {
	doc := between(p, "[Document Start]\n", "\n[Document End]")
	q := between(p, "[Question]\n", "")
	top := best(sentences(doc), q, 2)
	if len(top) == 0 {
		return "The document does not say."
	}
	var b strings.Builder
	for _, u := range top {
		b.WriteString(quote(u.text, 40))
		b.WriteString("\n")
	}
	return b.String()
}

// cofChunks answers Figure 12: each line of the existing answer cites the
// snippet that shares most with it.
func cofChunks(p string) string {
	test := p
	if _, after, ok := strings.Cut(p, "Now get ready to add citations for the following test case."); ok {
		test = after
	}
	snippets := numbered(between(test, "[Contexts Start]\n", "\n[Context End]"), snippetRE)
	answer := between(test, "[Existing Answer Start]\n", "\n[Existing Answer End]")
	var b strings.Builder
	for line := range strings.SplitSeq(answer, "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		cite := ""
		if top := best(snippets, line, 1); len(top) > 0 {
			cite = fmt.Sprintf("[%d]", top[0].num)
		}
		fmt.Fprintf(&b, "<statement>%s<cite>%s</cite></statement>\n", line, cite)
	}
	return b.String()
}

// cofSentences answers Figure 13: the passage sentence that shares most
// with the statement.
func cofSentences(p string) string {
	test := p
	if _, after, ok := strings.Cut(p, "Now get ready to process the following test case."); ok {
		test = after
	}
	passage := numbered(between(test, "[Passage Start]\n", "\n[Passage End]"), tagRE)
	statement := between(test, "[Statement]\n", "\n\n[Output]")
	top := best(passage, statement, 1)
	if len(top) == 0 {
		return "No relevant information"
	}
	return fmt.Sprintf("[%d-%d]", top[0].num, top[0].num)
}

// dagPlan writes the next line of the DAG thought: a sub-question about
// each name of the question in turn, then the final answer.
func dagPlan(p string) string {
	i := strings.LastIndex(p, "\n\nQuestion: ")
	if i < 0 {
		return "Final answer: unknown"
	}
	thought := p[i+2:]
	q, _, _ := strings.Cut(strings.TrimPrefix(thought, "Question: "), "\n")
	asked := strings.Count(thought, "\nSubquestion: ")
	ns := names(q)
	if asked < min(len(ns), 2) {
		return fmt.Sprintf("Subquestion: What is known about %s?", ns[asked])
	}
	if asked == 0 {
		return "Subquestion: " + q
	}
	facts := strings.Split(thought, "\nFact: ")
	last, _, _ := strings.Cut(facts[len(facts)-1], "\n")
	return "Final answer: " + quote(last, 12)
}

// dagFact answers P_e with the reference sentence that shares most with
// the sub-question.
func dagFact(p string) string {
	ref := between(p, "Reference:\n", "\n\nBased on the reference")
	return citeBest(ref, between(p, "\n\nQuestion: ", ""), "The reference does not say.")
}

// citeBest is a statement quoting the sentence of the numbered context
// ctx that shares most with query, citing it; none when none shares a
// word with it.
func citeBest(ctx, query, none string) string {
	top := best(numbered(ctx, tagRE), query, 1)
	if len(top) == 0 {
		return "<statement>" + none + "<cite></cite></statement>"
	}
	return fmt.Sprintf("<statement>%s<cite>[%d-%d]</cite></statement>", quote(top[0].text, 30), top[0].num, top[0].num)
}

// dagDraft drafts the next step of Algorithm 2's thought: one about
// each name of the question in turn, then the last step's words as the
// answer.
func dagDraft(p string) string {
	i := strings.LastIndex(p, "\n\nQuestion: ")
	if i < 0 {
		return "Unknown is the answer."
	}
	q, thought, _ := strings.Cut(p[i+len("\n\nQuestion: "):], "\nThoughts with New Knowledge:")
	var steps []string
	for s := range strings.SplitSeq(thought, "#") {
		if s = strings.TrimSpace(s); s != "" {
			steps = append(steps, s)
		}
	}
	ns := names(q)
	if len(steps) < min(len(ns), 2) {
		// A step about the name, on what the question asks of it: its
		// words that are not a name.
		var rest []string
		for _, w := range strings.Fields(q) {
			if w = strings.Trim(w, "?,.;:\"'"); w != "" && !slices.ContainsFunc(ns, func(n string) bool { return strings.Contains(n, w) }) &&
				!textproc.IsStopWord(textproc.Fold(w)) {
				rest = append(rest, w)
			}
		}
		return fmt.Sprintf("%s: %s.#", ns[len(steps)], strings.Join(rest, " "))
	}
	if len(steps) == 0 {
		return strings.TrimRight(strings.TrimSpace(q), "?") + " is what the question asks.#"
	}
	return quote(steps[len(steps)-1], 12) + " is the answer."
}

// dagConstrain writes Algorithm 2's step again as the knowledge sentence
// that shares most with the draft, cited.
func dagConstrain(p string) string {
	ref := between(p, "Knowledge:\n", "\n\nA step of the reasoning below")
	return citeBest(ref, between(p, "\nDrafted step: ", "\n"), "The knowledge does not give it.")
}

// snippetAnswer answers RAC-C: the best snippets, each cited.
func snippetAnswer(p string, cites int) string {
	test := p
	if _, after, ok := strings.Cut(p, "Now get ready to handle the following test case."); ok {
		test = after
	}
	snippets := numbered(between(test, "[Contexts Start]\n", "\n[Context End]"), snippetRE)
	q := between(test, "[Question]\n", "\n\n[Remind]")
	var b strings.Builder
	b.WriteString("<statement>According to the document:<cite></cite></statement>")
	for _, u := range best(snippets, q, cites) {
		fmt.Fprintf(&b, "<statement>%s<cite>[%d]</cite></statement>", quote(u.text, 14), u.num)
	}
	return b.String()
}
