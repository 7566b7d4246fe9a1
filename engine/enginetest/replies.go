package enginetest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/citelens/citelens/llm/llmtest"
)

// Scripted replies the engine's and the command's tests share, for an
// llmtest server's responder.

var (
	deriveCountRE = regexp.MustCompile(`generate (\d+) reading comprehension questions`)
	// the authors' two calls: the summary prompt, and the questions
	// prompt with the chunk above it
	summaryCallRE   = regexp.MustCompile(`^Summarize the following text conceptually`)
	questionsCallRE = regexp.MustCompile(`\n\nGenerate (\d+) reading comprehension questions based on the text above`)
	consentRE       = regexp.MustCompile(`<C(\d+)>[^<]*consent of the governed`)
)

// IsDerivation reports whether prompt asks for RAIDD's derived documents
// (engine/raidd's prompts: the combined one, or either of the authors'
// two).
func IsDerivation(prompt string) bool {
	return deriveCountRE.MatchString(prompt) || summaryCallRE.MatchString(prompt) || questionsCallRE.MatchString(prompt)
}

// RAIDDReplies answers RAIDD's derivation prompts with a summary naming
// the chunk's first words and the questions asked for, and answering
// prompts by citing the first sentence shown.
func RAIDDReplies(r llmtest.ChatRequest) llmtest.Reply {
	p := r.Last()
	if m := questionsCallRE.FindStringSubmatchIndex(p); m != nil {
		n, _ := strconv.Atoi(p[m[2]:m[3]])
		words := strings.Fields(p[:m[0]])
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%d. What does the passage say about %s?\n", i+1, words[(i*7)%len(words)])
		}
		return llmtest.Text(b.String())
	}
	if summaryCallRE.MatchString(p) && !deriveCountRE.MatchString(p) {
		_, text, _ := strings.Cut(p, "Here is the text:\n\n")
		words := strings.Fields(text)
		return llmtest.Text(fmt.Sprintf("The passage concerns %s.", strings.Join(words[:min(8, len(words))], " ")))
	}
	if m := deriveCountRE.FindStringSubmatch(p); m != nil {
		n, _ := strconv.Atoi(m[1])
		_, text, _ := strings.Cut(p, "Here is the text:\n\n")
		text, _, _ = strings.Cut(text, "\n\nWrite the summary after")
		words := strings.Fields(text)
		var b strings.Builder
		fmt.Fprintf(&b, "SUMMARY:\nThe passage concerns %s.\nQUESTIONS:\n", strings.Join(words[:min(8, len(words))], " "))
		for i := range n {
			fmt.Fprintf(&b, "%d. What does the passage say about %s?\n", i+1, words[(i*7)%len(words)])
		}
		return llmtest.Text(b.String())
	}
	if m := tagRE.FindStringSubmatch(testCase(p)); m != nil {
		return llmtest.Text(fmt.Sprintf("<statement>The document says so.<cite>[%s-%s]</cite></statement>", m[1], m[1]))
	}
	return llmtest.Text("<statement>No idea.<cite></cite></statement>")
}

// DeclarationAndJudge answers LongCite's prompts over the Declaration of
// Independence with two statements, one uncited, one citing the sentence
// about "the consent of the governed", and the judge's citation prompts
// with fixed ratings: no citation needed, partially supported, relevant.
func DeclarationAndJudge(r llmtest.ChatRequest) llmtest.Reply {
	p := r.Last()
	switch {
	case strings.HasPrefix(p, "You are an expert in evaluating text quality.") && strings.Contains(p, "Need Citation"):
		return llmtest.Text("Need Citation: [[No]] ")
	case strings.HasPrefix(p, "You are an expert in evaluating text quality.") && strings.Contains(p, "[[Fully supported]]"):
		return llmtest.Text("Rating: [[Partially supported]] ")
	case strings.HasPrefix(p, "You are an expert in evaluating text quality."):
		return llmtest.Text("Rating: [[Relevant]] ")
	}
	return CiteConsent(p, "<statement>The document is the Declaration.<cite></cite></statement><statement>Governments derive their just powers from the consent of the governed.<cite>[%s-%s]</cite></statement>")
}

// CiteConsent answers a LongCite prompt with reply, its two %s the number
// of the shown sentence about "the consent of the governed" (0 if none).
func CiteConsent(prompt, reply string) llmtest.Reply {
	n := "0"
	if m := consentRE.FindStringSubmatch(testCase(prompt)); m != nil {
		n = m[1]
	}
	return llmtest.Text(fmt.Sprintf(reply, n, n))
}

// testCase is what a LongCite prompt asks after its example.
func testCase(p string) string {
	_, tc, _ := strings.Cut(p, "Now get ready to handle the following test case.")
	return tc
}
