package judge

import "strings"

// The judge prompts of LongBench-Cite (LongCite paper, Figures 7-9), as
// THUDM/LongCite LongBench-Cite/auto_scorer.py sends them: the instruction
// paragraph, a blank line, then the tagged question, statement and snippet
// (or response and statement). Two differences from that file, both
// where it slips: it writes the blank line as the four characters
// "\n\n" (a doubled backslash in a Python string), sent here as a real
// blank line; and where Figure 9 says "almost unrelated" the file says
// "almostly", which follows the figure. Figure 8's sentence is tagged
// <statement> as the figure shows it (the file uses <sentence>). The
// figures' text is otherwise the file's, which is what produced the
// paper's numbers; the figures as printed lose some words of Figure 7's
// second grade.

// supportInstructions is Figure 7: citation recall of a cited statement.
const supportInstructions = `You are an expert in evaluating text quality. You will receive a user's question about an uploaded document, a factual statement from an AI assistant's response based on that document, and a snippet from the document (since the document is too long to display in full). Your task is to carefully assess whether this statement is supported by the snippet. Please use the following scale to generate your rating:
- [[Fully supported]] - Most information in the statement is supported by or extracted from the snippet. This applies only to cases where the statement and parts of the snippet are almost identical. 
- [[Partially supported]] - More than half of the content in the statement is supported by the snippet, but a small portion is either not mentioned or contradicts the snippet. For example, if the statement has two key points and the snippet supports only one of them, it should be considered [Partially supported].
- [[No support]] - The statement is largely unrelated to the snippet, or most key points in the statement do not align with the content of the snippet.
Ensure that you do not use any information or knowledge outside of the snippet when evaluating. 
Please provide the rating first, followed by the analysis, in the format "Rating: [[...]] Analysis: ...". `

// needCitationInstructions is Figure 8: citation recall of a statement
// without citations.
const needCitationInstructions = `You are an expert in evaluating text quality. You will receive a user's question regarding their uploaded document (due to the length of the document, it is not shown to you), an AI assistant's response based on the document, and a sentence from the response. Your task is to determine whether this sentence is a factual statement made based on the information in the document that requires citation, rather than an introductory sentence, transition sentence, or a summary, reasoning, or inference based on the previous response.
Ensure that you do not use any other external information during your evaluation. 
Please first provide your judgment (answer with [[Yes]] or [[No]]), then provide your analysis in the format "Need Citation: [[Yes/No]] Analysis: ...".`

// relevantInstructions is Figure 9: citation precision of one citation.
const relevantInstructions = `You are an expert in evaluating text quality. You will receive a user's question about an uploaded document, a factual statement from an AI assistant's response based on that document, and a snippet from the document (since the document is too long to display in full). Your task is to carefully assess whether the snippet contains some key information of the statement. Please use the following grades to generate the rating:
- [[Relevant]] - Some key points of the statement are supported by the snippet or extracted from it.
- [[Unrelevant]] - The statement is almost unrelated to the snippet, or all key points of the statement are inconsistent with the snippet content.
Ensure that you do not use any information or knowledge outside of the snippet when evaluating. 
Please provide the rating first, followed by the analysis, in the format "Rating: [[...]] Analysis: ...". `

// stop ends the judge's answer after the rating, as the reference asks.
const stop = "Analysis:"

// snippetPrompt is Figure 7 or 9 for a statement and a snippet.
func snippetPrompt(instructions, question, statement, snippet string) string {
	var b strings.Builder
	b.WriteString(instructions)
	b.WriteString("\n\n<question>\n")
	b.WriteString(strings.TrimSpace(question))
	b.WriteString("\n</question>\n\n<statement>\n")
	b.WriteString(strings.TrimSpace(statement))
	b.WriteString("\n</statement>\n\n<snippet>\n")
	b.WriteString(strings.TrimSpace(snippet))
	b.WriteString("\n</snippet>\n\n")
	return b.String()
}

// needCitationPrompt is Figure 8 for a statement of a response.
func needCitationPrompt(question, response, statement string) string {
	var b strings.Builder
	b.WriteString(needCitationInstructions)
	b.WriteString("\n\n<question>\n")
	b.WriteString(strings.TrimSpace(question))
	b.WriteString("\n</question>\n\n<response>\n")
	b.WriteString(strings.TrimSpace(response))
	b.WriteString("\n</response>\n\n<statement>\n")
	b.WriteString(strings.TrimSpace(statement))
	b.WriteString("\n</statement>\n")
	return b.String()
}
