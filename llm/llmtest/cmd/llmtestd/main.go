// Command llmtestd runs llmtest's scripted OpenAI-compatible server on its
// own, so citelens can be used from the command line and in the terminal
// UI without a real model. It prints the base URL to give citelens:
//
//	$ go run ./llm/llmtest/cmd/llmtestd
//	export OPENAI_BASE_URL=http://127.0.0.1:40411/v1 CITELENS_MODEL=test-model
//
// Its scripted model is plausible, not clever:
//
//   - asked for RAIDD's derived documents (engine/raidd's prompt), it
//     writes a summary (the first words of each sentence) and the
//     questions asked for, spread over the sentences, about their names
//     (or longest words);
//   - asked to answer from numbered sentences ("<C12>…", LongCite's
//     prompts), it cites the shown sentences sharing the most index terms
//     with the question, one statement each, quoting their first words;
//   - OkraLong's, CoF's, DAG's and RAC-C's prompts get replies of their
//     own (strategies.go), and so do the judge's of `citelens eval
//     --judge` (llmtest.Judge);
//   - a follow-up question to rewrite (engine's prompt) gets itself with
//     what the previous question named: "when was he born (about Ed Wood)?";
//   - anything else gets "OK.".
//
// It also embeds (model test-embed) and reranks (test-rerank, at /v1/rerank
// and /rerank); export CITELENS_EMBED_MODEL=test-embed and
// CITELENS_RERANK_MODEL=test-rerank to use them. Both compare index terms
// and know no synonyms unless -concepts FILE names some: one group of
// words or phrases that mean the same a line, members separated by "|",
// "#" starting a comment (see llmtest.ReadConcepts). That file stands in
// for a real model's knowledge of the language.
//
// -small HABITS makes the model behave like a small local one on about
// half its replies, seeded by -seed (the same replies on every run):
// ignores-template, out-of-range, markdown, repeats, stops-mid-tag, or
// all (llmtest.SmallModel).
//
// -delay slows every streamed word, to watch stages and streaming in the
// UI. -think SHAPE makes the model a reasoning model that thinks before
// every reply, in one of the shapes real ones use (reasoning.go): closed,
// bytes, unopened, content or unclosed. -server KIND -window N makes the
// server behave like vLLM, llama.cpp or Ollama with a context window of N
// tokens (llmtest.WithServer: Ollama cuts longer prompts silently, and
// -loaded shows its model loaded in /api/ps); -window N alone, like a
// server that cuts prompts and says nothing else. -stats FILE puts a timing proxy in front of the server (the URL
// printed is the proxy's; -addr chooses its address) and writes the
// request counts and the time spent answering to FILE when the server is
// stopped (SIGINT or SIGTERM): bench/costs uses it to tell the time spent
// in the model from the time spent around it.
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

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm/llmtest"
)

func main() {
	delay := flag.Duration("delay", 0, "wait this long before each streamed word")
	cites := flag.Int("cites", 2, "statements (each citing one sentence) per answer")
	stats := flag.String("stats", "", "time the requests and write the figures to `FILE` on exit")
	shape := flag.String("think", "", "reason before every reply, in this `shape`: "+strings.Join(thinkShapes, ", "))
	kind := flag.String("server", "", "behave like this `server`: vllm, llamacpp or ollama (with -window)")
	window := flag.Int("window", 0, "the server's context window in `tokens` (0: none)")
	loaded := flag.Bool("loaded", false, "with -server ollama, show the model loaded in /api/ps")
	addr := flag.String("addr", "127.0.0.1:0", "with -stats, the `address` the timing proxy listens on")
	conceptsFile := flag.String("concepts", "", "read groups of synonyms the embedding model and reranker know from `FILE`")
	small := flag.String("small", "", "behave like a small model with these `habits` (comma-separated, or all): "+habitNames())
	seed := flag.Uint64("seed", 1, "with -small, the `seed` choosing which replies each habit touches")
	flag.Parse()
	if err := checkShape(*shape); err != nil {
		fmt.Fprintln(os.Stderr, "llmtestd:", err)
		os.Exit(2)
	}
	habits, err := llmtest.ParseHabits(*small)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmtestd: -small:", err)
		os.Exit(2)
	}
	model := llmtest.SmallModel(*seed, habits, func(r llmtest.ChatRequest) llmtest.Reply { return respondTo(r, *cites) })
	opts := []llmtest.Option{llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		reply := think(model(r), *shape)
		reply.ChunkDelay = *delay
		return reply
	})}
	switch *kind {
	case "":
		if *window > 0 {
			opts = append(opts, llmtest.WithWindow(*window))
		}
	case llmtest.VLLM, llmtest.LlamaCpp, llmtest.Ollama:
		if *window <= 0 {
			fmt.Fprintln(os.Stderr, "llmtestd: -server needs -window N, the context window in tokens")
			os.Exit(2)
		}
		opts = append(opts, llmtest.WithServer(*kind, *window))
		if *loaded {
			opts = append(opts, llmtest.WithOllamaLoaded())
		}
	default:
		fmt.Fprintf(os.Stderr, "llmtestd: -server %q: the servers are vllm, llamacpp and ollama\n", *kind)
		os.Exit(2)
	}
	if *conceptsFile != "" {
		c, err := readConcepts(*conceptsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmtestd:", err)
			os.Exit(1)
		}
		opts = append(opts, llmtest.WithConceptTable(c))
	}
	srv := llmtest.Start(opts...)
	defer srv.Close()
	base, finish := srv.URL, func() error { return nil }
	if *stats != "" {
		var err error
		if base, finish, err = serveTimed(srv.URL, *addr, *stats); err != nil {
			fmt.Fprintln(os.Stderr, "llmtestd:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("export OPENAI_BASE_URL=%s CITELENS_MODEL=%s OPENAI_API_KEY=\n", base, llmtest.DefaultModel)
	fmt.Fprintln(os.Stderr, "llmtestd: serving; Ctrl-C stops it")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	if err := finish(); err != nil {
		fmt.Fprintln(os.Stderr, "llmtestd:", err)
		os.Exit(1)
	}
}

// habitNames lists the habits -small knows.
func habitNames() string {
	var names []string
	for _, h := range llmtest.Habits() {
		names = append(names, string(h))
	}
	return strings.Join(names, ", ")
}

// readConcepts reads a -concepts file, naming it in its errors.
func readConcepts(path string) (*llmtest.Concepts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := llmtest.ReadConcepts(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

var (
	deriveRE = regexp.MustCompile(`generate (\d+) reading comprehension questions`)
	// RAIDD's two calls per chunk, as its authors made them: the summary
	// prompt, and the questions prompt with the chunk above it
	summaryRE   = regexp.MustCompile(`^Summarize the following text conceptually`)
	questionsRE = regexp.MustCompile(`\n\nGenerate (\d+) reading comprehension questions based on the text above`)
	tagRE       = regexp.MustCompile(`<C(\d+)>`)
	sentenceRE  = regexp.MustCompile(`[^.!?]+[.!?]+`)
)

func respond(prompt string, cites int) llmtest.Reply {
	if m := questionsRE.FindStringSubmatchIndex(prompt); m != nil {
		n, _ := strconv.Atoi(prompt[m[2]:m[3]])
		_, qs, _ := strings.Cut(derive(prompt[:m[0]], n), "QUESTIONS:\n")
		return llmtest.Text(qs)
	}
	if summaryRE.MatchString(prompt) && !deriveRE.MatchString(prompt) {
		_, text, _ := strings.Cut(prompt, "Here is the text:\n\n")
		sum, _, _ := strings.Cut(strings.TrimPrefix(derive(text, 1), "SUMMARY:\n"), "\nQUESTIONS:")
		return llmtest.Text(sum)
	}
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
// prompt asks for: the summary is the first words of each sentence, and
// each question asks about a sentence's names (its capitalised phrases),
// or its longest words when it has none, the questions spread over the
// sentences.
func derive(text string, n int) string {
	sents := sentenceRE.FindAllString(text, -1)
	if len(sents) == 0 {
		sents = []string{text}
	}
	var b strings.Builder
	b.WriteString("SUMMARY:\nThe passage says:")
	for _, s := range sents {
		words := strings.Fields(s)
		fmt.Fprintf(&b, " %s;", strings.Trim(strings.Join(words[:min(8, len(words))], " "), ",.;:"))
	}
	b.WriteString("\nQUESTIONS:\n")
	for i := range n {
		// Spread the questions over the chunk's sentences: with fewer
		// questions than sentences, each asks about a run of them.
		s := sents[i%len(sents)]
		if n < len(sents) {
			s = strings.Join(sents[i*len(sents)/n:(i+1)*len(sents)/n], " ")
		}
		topic := strings.Join(capitalised(s), " and ")
		if topic == "" {
			w := strings.Fields(s)
			slices.SortStableFunc(w, func(a, b string) int { return len(b) - len(a) })
			topic = strings.Trim(strings.Join(w[:min(3, len(w))], " "), ",.;:()\"'")
		}
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
		question, _, _ = strings.Cut(question, "\n\n[Answer with Citations]") // the lean prompt
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
