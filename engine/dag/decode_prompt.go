package dag

import (
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/llm"
)

// The prompts of Algorithm 2, knowledge-constrained decoding (section 3.3,
// Figure 2(b)).
//
// The seed gives its template for Algorithm 2 only as an image, Figure
// 4(b) ("The template prompt of Algorithm 2, Knowledge constrained
// Decoding", on the question "What is the capital city of the country of
// citizenship of Ivanka Trump's spouse?"), whose text is not in the paper.
// It says the method follows DeepEdit (Wang et al. 2024, "knowledge
// editing as decoding with constraints"), and that both algorithms use
// the same five example questions in "two different formatting styles".
// What is filled in here, and why:
//
//   - The layout is DeepEdit's own template (wangywUST/DeepEdit,
//     prompts/multihop-cot-prompts.txt), which the seed builds on:
//     "Question:", then "Thoughts with New Knowledge:" — the reasoning
//     steps, one sentence each, separated by "#", the last "X is the
//     answer." — then "Answer: X". Its instruction ("You should provide
//     an answer to Question by thinking step by step in Thoughts with New
//     Knowledge…") is kept, with the new knowledge being the documents'.
//   - The examples are the seed's five questions (Appendix D, verbatim,
//     "Rain Wilson'" and "AfterNoon" included), Figure 4(b)'s Ivanka
//     Trump question third as in Figure 4(a), their steps the facts of
//     P_d's examples (prompt.go) written as DeepEdit writes its steps.
//     The first ends on a step the documents cannot give, so the model
//     sees how to stop rather than guess.
//   - Each step is drafted by the model from the template (Plan), then
//     decoded again under the constraint of the knowledge retrieved for
//     it (Figure 2(b)): DeepEdit keeps a drafted step the retrieved facts
//     do not contradict and otherwise puts the fact in its place; without
//     the token distribution, the seed has the model write the step
//     again with the knowledge before it, so it holds to the knowledge.
//     The constraint prompt shows the retrieved sentences under their real
//     numbers, as the other prompts do, and asks for LongCite's statement
//     format, so the constrained step cites the sentences it came from.

// decodeInstruction opens the template: DeepEdit's instruction, the
// documents being its new knowledge.
const decodeInstruction = `You should provide an answer to Question by thinking step by step in Thoughts with New Knowledge. Every step in Thoughts with New Knowledge is one sentence stating one fact, and must agree with the knowledge in the documents. Steps in Thoughts with New Knowledge are separated by a #. Write only the next step, ending it with #; when the steps answer the question, or show that the documents cannot, write "X is the answer." as the last step.`

// decodeExamples are the template's five worked examples: three chains,
// then two DAGs, in DeepEdit's layout.
const decodeExamples = `Question: What is the birth day of Rain Wilson' father?
Thoughts with New Knowledge: Rainn Wilson is the son of Robert G. Wilson, a novelist.# The documents do not give Robert G. Wilson's date of birth.# Unknown is the answer.
Answer: The documents name Rainn Wilson's father, Robert G. Wilson, but not his birth date.

Question: Who is the paternal grandfather of John Smith?
Thoughts with New Knowledge: John Smith's father is Edward Smith.# Edward Smith is the son of Henry Smith.# Henry Smith is the answer.
Answer: Henry Smith

Question: What is the capital city of the country of citizenship of Ivanka Trump's spouse?
Thoughts with New Knowledge: Ivanka Trump is married to Jared Kushner.# Jared Kushner is a citizen of the United States.# Washington, D.C. is the capital of the United States.# Washington, D.C. is the answer.
Answer: Washington, D.C.

Question: Do both Django Unchained and Rango films have the directors from the same country?
Thoughts with New Knowledge: Django Unchained was written and directed by Quentin Tarantino.# Rango was directed by Gore Verbinski.# Quentin Tarantino is an American filmmaker.# Gore Verbinski is an American film director.# Yes is the answer.
Answer: Yes, both directors are American.

Question: Which film has the director who died first, Love in the AfterNoon or Gigi?
Thoughts with New Knowledge: Love in the Afternoon (1957) was directed by Billy Wilder.# Gigi (1958) was directed by Vincente Minnelli.# Billy Wilder died on 27 March 2002.# Vincente Minnelli died on 25 July 1986.# Gigi is the answer.
Answer: Gigi, whose director Vincente Minnelli died in 1986, before Billy Wilder in 2002.`

// The labels of the template.
const (
	thoughtsLabel = "Thoughts with New Knowledge: "
	stepSep       = "# "
)

// decodeMessages is Plan(template, T) of Algorithm 2: the instruction, the
// examples and the test case's thought so far — its constrained steps —
// ending where the model writes the next step.
func decodeMessages(question string, steps []Step) []llm.Message {
	var b strings.Builder
	b.WriteString(decodeInstruction)
	b.WriteString("\n\n")
	b.WriteString(decodeExamples)
	b.WriteString("\n\n")
	writeSteps(&b, question, steps)
	return []llm.Message{llm.User(strings.TrimRight(b.String(), " "))}
}

// writeSteps writes the test case: "Question: …" and "Thoughts with New
// Knowledge: " followed by each step and "# ".
func writeSteps(b *strings.Builder, question string, steps []Step) {
	b.WriteString(questionLabel)
	generate.Neutralise(b, oneLine(question))
	b.WriteString("\n")
	b.WriteString(thoughtsLabel)
	for _, s := range steps {
		generate.Neutralise(b, strings.TrimRight(s.thoughtFact(), "# "))
		b.WriteString(stepSep)
	}
}

// The parts of the constraint prompt: the knowledge, the draft, and what
// the constrained step is to be.
const (
	constrainHead = "Knowledge:\n"
	constrainAsk  = "\n\nA step of the reasoning below was drafted without the knowledge above. Write the step again so that it holds to the knowledge: keep what the knowledge supports, correct what it contradicts, and if the knowledge does not give it, say so. Be concise, one sentence. "
	constrainCite = `Write it as <statement>{step}<cite>[{s}-{e}]</cite></statement>, where <C{s}>...<C{e}> are the knowledge sentences it uses.`
	draftLabel    = "Drafted step: "
	stepLabel     = "Step:"
)

// constrainMessages is the constrained decoding of one step: the
// knowledge retrieved for it under its real sentence numbers, the
// question and the steps so far, and the drafted step.
func constrainMessages(question string, steps []Step, draft string, n *citations.Numbering) []llm.Message {
	var b strings.Builder
	b.WriteString(constrainHead)
	generate.WriteContext(&b, n)
	b.WriteString(constrainAsk)
	b.WriteString(constrainCite)
	b.WriteString("\n\n")
	writeSteps(&b, question, steps)
	b.WriteString("\n")
	b.WriteString(draftLabel)
	generate.Neutralise(&b, draft)
	b.WriteString("\n")
	b.WriteString(stepLabel)
	return []llm.Message{llm.User(b.String())}
}

// finalStepsQuestion is the question the final answer of Algorithm 2 is
// asked with: the user's question and the constrained steps, each with
// the numbers of the sentences it cites, so the answer's statements cite
// those.
func finalStepsQuestion(question string, steps []Step, n *citations.Numbering) string {
	var b strings.Builder
	b.WriteString(oneLine(question))
	b.WriteString("\n\nThe reasoning steps below were written to agree with the document; the numbers after each step are the sentences it came from. Answer the question from these steps, citing those sentences.\n")
	for i, s := range steps {
		b.WriteString("Step: ")
		generate.Neutralise(&b, s.thoughtFact())
		writeCited(&b, s.Citations, n)
		if i < len(steps)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// restateStep is put before the template when the model's reply was not
// a step in it: the format once more, in a system message so the
// template itself stays as the paper has it.
const restateStep = `Your last reply was not a step in the template. Reply with exactly one line: the next step of Thoughts with New Knowledge, one sentence stating one fact and ending with #, or "X is the answer." when the steps answer the question.`
