// Command llmtestd runs llmtest's scripted OpenAI-compatible server on its
// own, so citelens can be used from the command line and in the terminal
// UI without a real model. It prints the base URL to give citelens:
//
//	$ go run ./engine/llm/llmtest/cmd/llmtestd
//	export OPENAI_BASE_URL=http://127.0.0.1:40411/v1 CITELENS_MODEL=test-model
//
// Its scripted model is plausible, not clever:
//
//   - asked for RAIDD's derived documents (engine/raidd's prompt), it
//     writes a summary (the chunk's first words) and the questions asked
//     for, one per sentence, about each sentence's longest words;
//   - asked to answer from numbered sentences ("<C12>…", LongCite's
//     prompts), it cites the shown sentences sharing the most index terms
//     with the question, one statement each, quoting their first words;
//   - anything else gets "OK.".
//
// -delay slows every streamed word, to watch stages and streaming in the
// UI.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/citelens/citelens/docstore/textproc"
	"github.com/citelens/citelens/engine/llm/llmtest"
)

func main() {
	delay := flag.Duration("delay", 0, "wait this long before each streamed word")
	cites := flag.Int("cites", 2, "statements (each citing one sentence) per answer")
	flag.Parse()
	srv := llmtest.Start(llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		reply := respond(r.Last(), *cites)
		reply.ChunkDelay = *delay
		return reply
	}))
	defer srv.Close()
	fmt.Printf("export OPENAI_BASE_URL=%s CITELENS_MODEL=%s OPENAI_API_KEY=\n", srv.URL, llmtest.DefaultModel)
	fmt.Fprintln(os.Stderr, "llmtestd: serving; Ctrl-C stops it")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}

var (
	deriveRE   = regexp.MustCompile(`generate (\d+) reading comprehension questions`)
	tagRE      = regexp.MustCompile(`<C(\d+)>`)
	sentenceRE = regexp.MustCompile(`[^.!?]+[.!?]+`)
)

func respond(prompt string, cites int) llmtest.Reply {
	if m := deriveRE.FindStringSubmatch(prompt); m != nil {
		n, _ := strconv.Atoi(m[1])
		_, text, _ := strings.Cut(prompt, "Here is the text:\n\n")
		text, _, _ = strings.Cut(text, "\n\nWrite the summary after")
		return llmtest.Text(derive(text, n))
	}
	if strings.Contains(prompt, "<C") {
		return llmtest.Text(answer(prompt, cites))
	}
	return llmtest.Text("OK.")
}

// derive writes a chunk's summary and n questions in the layout the
// prompt asks for.
func derive(text string, n int) string {
	words := strings.Fields(text)
	var b strings.Builder
	fmt.Fprintf(&b, "SUMMARY:\nThe passage discusses %s.\nQUESTIONS:\n", strings.Join(words[:min(24, len(words))], " "))
	sents := sentenceRE.FindAllString(text, -1)
	if len(sents) == 0 {
		sents = []string{text}
	}
	for i := range n {
		s := strings.Fields(sents[i%len(sents)])
		slices.SortStableFunc(s, func(a, b string) int { return len(b) - len(a) })
		topic := strings.Trim(strings.Join(s[:min(3, len(s))], " "), ",.;:()\"'")
		fmt.Fprintf(&b, "%d. What does the text say about %s?\n", i+1, topic)
	}
	return b.String()
}

// answer cites the shown sentences that share the most terms with the
// question.
func answer(prompt string, cites int) string {
	if _, after, ok := strings.Cut(prompt, "Now get ready to handle the following test case."); ok {
		prompt = after
	}
	ctx, question := prompt, ""
	if i := strings.Index(prompt, "[Document End]"); i >= 0 {
		ctx, question = prompt[:i], prompt[i:]
	}
	if _, q, ok := strings.Cut(question, "[Question]\n"); ok {
		question, _, _ = strings.Cut(q, "\n\n[Remind]")
	}
	want := map[string]bool{}
	for _, t := range textproc.Terms(question) {
		want[t] = true
	}
	type cand struct {
		num   int
		text  string
		score int
	}
	var cs []cand
	locs := tagRE.FindAllStringSubmatchIndex(ctx, -1)
	for i, l := range locs {
		num, _ := strconv.Atoi(ctx[l[2]:l[3]])
		end := len(ctx)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		text := strings.TrimSpace(ctx[l[1]:end])
		score := 0
		for _, t := range textproc.Terms(text) {
			if want[t] {
				score++
			}
		}
		cs = append(cs, cand{num, text, score})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return b.score - a.score })
	var b strings.Builder
	b.WriteString("<statement>According to the document:<cite></cite></statement>")
	for _, c := range cs[:min(cites, len(cs))] {
		words := strings.Fields(textproc.OneLine(c.text))
		quote := strings.Join(words[:min(14, len(words))], " ")
		fmt.Fprintf(&b, "<statement>%s<cite>[%d-%d]</cite></statement>", quote, c.num, c.num)
	}
	return b.String()
}
