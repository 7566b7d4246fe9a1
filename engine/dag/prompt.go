package dag

import (
	"fmt"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm"
)

// The prompts of Algorithm 1.
//
// The seed prints its fact-extraction prompt P_e (Appendix D) and names
// the five questions of its decomposition prompt P_d (three chains, two
// DAGs), but gives P_d itself only as an image (Figure 4a) whose text is
// not in the paper. What is filled in here, and why:
//
//   - P_d's layout is MeLLo's (Zhong et al. 2023, princeton-nlp/MQuAKE
//     prompts/MeLLo-prompt.txt), which the seed builds on and whose first
//     example is the seed's own Figure 4 question: "Question:", then
//     "Subquestion:" lines each followed by the fact found for it, ending
//     in "Final answer:". The seed's thought T is exactly Q + q_i + f_i, so
//     the generated-answer and contradiction lines MeLLo needs for edited
//     knowledge are left out, and MeLLo's "Retrieved fact:" is "Fact:", the
//     word P_e ends with.
//   - The questions are the seed's, verbatim ("Rain Wilson'" and
//     "AfterNoon" included). The steps and facts are written for this
//     prompt; the DAG examples ask for both branches before joining them.
//     The first example ends in a fact the reference lacks, so the model
//     sees how to stop when the documents cannot answer rather than loop.
//   - A one-paragraph instruction comes first, since chat models do not
//     continue a bare pattern reliably, and it defines the stop signal:
//     a line starting "Final answer:".
//   - P_e is verbatim, with two changes: the reference is the retrieved
//     sentences numbered with their real indices (as the final prompt shows
//     them), and one sentence asks for LongCite's statement format, so the
//     fact cites the sentences it came from. "Question: {q}." drops the
//     period when q already ends in punctuation.

// planInstruction opens P_d.
const planInstruction = `Answer the question step by step from facts found in the documents. Each step asks one simple sub-question, and the fact that answers it is looked up in the documents; a sub-question may use the facts above it. Write only the next line: "Subquestion: ..." when a fact is still needed, or "Final answer: ..." once the facts answer the question or show that the documents cannot.`

// planExamples are P_d's five worked examples: three chains, then two
// DAGs. The facts stand for what a document said; what the examples
// teach is the form of the steps and when to stop.
const planExamples = `Question: What is the birth day of Rain Wilson' father?
Subquestion: Who is the father of Rainn Wilson?
Fact: Rainn Wilson is the son of Robert G. Wilson, a novelist.
Subquestion: When was Robert G. Wilson born?
Fact: The reference does not give Robert G. Wilson's date of birth.
Final answer: The documents name Rainn Wilson's father, Robert G. Wilson, but not his birth date.

Question: Who is the paternal grandfather of John Smith?
Subquestion: Who is the father of John Smith?
Fact: John Smith's father is Edward Smith.
Subquestion: Who is the father of Edward Smith?
Fact: Edward Smith is the son of Henry Smith.
Final answer: Henry Smith

Question: What is the capital city of the country of citizenship of Ivanka Trump's spouse?
Subquestion: Who is Ivanka Trump's spouse?
Fact: Ivanka Trump is married to Jared Kushner.
Subquestion: What is the country of citizenship of Jared Kushner?
Fact: Jared Kushner is a citizen of the United States.
Subquestion: What is the capital city of the United States?
Fact: Washington, D.C. is the capital of the United States.
Final answer: Washington, D.C.

Question: Do both Django Unchained and Rango films have the directors from the same country?
Subquestion: Who directed Django Unchained?
Fact: Django Unchained was written and directed by Quentin Tarantino.
Subquestion: Who directed Rango?
Fact: Rango was directed by Gore Verbinski.
Subquestion: What is the nationality of Quentin Tarantino?
Fact: Quentin Tarantino is an American filmmaker.
Subquestion: What is the nationality of Gore Verbinski?
Fact: Gore Verbinski is an American film director.
Final answer: Yes, both directors are American.

Question: Which film has the director who died first, Love in the AfterNoon or Gigi?
Subquestion: Who directed Love in the Afternoon?
Fact: Love in the Afternoon (1957) was directed by Billy Wilder.
Subquestion: Who directed Gigi?
Fact: Gigi (1958) was directed by Vincente Minnelli.
Subquestion: When did Billy Wilder die?
Fact: Billy Wilder died on 27 March 2002.
Subquestion: When did Vincente Minnelli die?
Fact: Vincente Minnelli died on 25 July 1986.
Final answer: Gigi, whose director Vincente Minnelli died in 1986, before Billy Wilder in 2002.`

// The labels of the thought, as P_d writes them.
const (
	questionLabel = "Question: "
	subLabel      = "Subquestion: "
	factLabel     = "Fact: "
	finalLabel    = "Final answer: "
)

// planMessages is Plan(P_d, T): the instruction, the examples and the
// thought so far, ending where the model writes the next line.
func planMessages(question string, steps []Step) []llm.Message {
	var b strings.Builder
	b.Grow(len(planInstruction) + len(planExamples) + 256*(len(steps)+1))
	b.WriteString(planInstruction)
	b.WriteString("\n\n")
	b.WriteString(planExamples)
	b.WriteString("\n\n")
	writeThought(&b, question, steps, nil)
	return []llm.Message{llm.User(strings.TrimRight(b.String(), "\n"))}
}

// writeThought writes T: the question, then each step's sub-question and
// fact. With n set, each fact is followed by the numbers of its cited
// sentences in n, "[584-586]", so the final answer can cite them.
func writeThought(b *strings.Builder, question string, steps []Step, n *citations.Numbering) {
	b.WriteString(questionLabel)
	generate.Neutralise(b, oneLine(question))
	b.WriteString("\n")
	for _, s := range steps {
		b.WriteString(subLabel)
		generate.Neutralise(b, s.SubQuestion)
		b.WriteString("\n")
		b.WriteString(factLabel)
		generate.Neutralise(b, s.thoughtFact())
		writeCited(b, s.Citations, n)
		b.WriteString("\n")
	}
}

// writeCited writes the numbers in n of the cited sentences, " [584-586]"
// for each span, when n is set: so the final answer can cite them.
func writeCited(b *strings.Builder, spans []citations.Span, n *citations.Numbering) {
	if n == nil {
		return
	}
	for _, c := range spans {
		a, ok1 := n.Number(c.Doc, c.First)
		z, ok2 := n.Number(c.Doc, c.Last)
		if ok1 && ok2 {
			// Always "[a-b]", the form the answer's citations take.
			fmt.Fprintf(b, " [%d-%d]", a, z)
		}
	}
}

// The parts of P_e (Appendix D), verbatim but for the citation sentence.
const (
	factHead  = "Reference:\n"
	factAsk   = "\n\nBased on the reference, present the fact to answer the following question.\n\nBe concise, better one sentence. "
	factCite  = `Write it as <statement>{fact}<cite>[{s}-{e}]</cite></statement>, where <C{s}>...<C{e}> are the reference sentences it uses.`
	factQ     = "\n\nQuestion: "
	factTail  = " Fact: "
	factTailP = ". Fact: "
)

// factMessages is P_e + q_i + c*_i: the sub-question and the retrieved
// sentences under their real numbers.
func factMessages(sub string, n *citations.Numbering) []llm.Message {
	var b strings.Builder
	b.WriteString(factHead)
	generate.WriteContext(&b, n)
	b.WriteString(factAsk)
	b.WriteString(factCite)
	b.WriteString(factQ)
	generate.Neutralise(&b, sub)
	if strings.HasSuffix(sub, "?") || strings.HasSuffix(sub, ".") || strings.HasSuffix(sub, "!") {
		b.WriteString(factTail)
	} else {
		b.WriteString(factTailP)
	}
	return []llm.Message{llm.User(strings.TrimRight(b.String(), " "))}
}

// finalQuestion is the question the final answer is asked with: the
// user's question and the reasoning thought, each fact with the numbers of
// the sentences it cites, so the answer's statements cite those.
func finalQuestion(question string, steps []Step, n *citations.Numbering) string {
	var b strings.Builder
	b.WriteString(oneLine(question))
	b.WriteString("\n\nThe sub-questions below were answered from the document; the numbers after each fact are the sentences it came from. Answer the question from these facts, citing those sentences.\n")
	var t strings.Builder
	writeThought(&t, question, steps, n)
	// The question is already above; the thought starts after it.
	_, rest, _ := strings.Cut(t.String(), "\n")
	b.WriteString(strings.TrimRight(rest, "\n"))
	return b.String()
}

// restatePlan is put before P_d when the model's reply was neither a
// sub-question nor a final answer: the format once more, in a system
// message so P_d itself stays as the paper has it.
const restatePlan = `Your last reply was neither a sub-question nor a final answer. Reply with exactly one line: "Subquestion: ..." when a fact is still needed, or "Final answer: ..." with the answer.`
