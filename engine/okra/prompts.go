package okra

import (
	"slices"
	"strings"

	"github.com/citelens/citelens/llm"
)

// The prompts of OkraLong's Appendix B.3, Tables 7, 8 and 9, as the paper
// prints them. Where the printed text had to be interpreted:
//
//   - The tables were extracted from a PDF, which flattened their layout:
//     the numbered questions of Table 7 are printed as "- 1." list items
//     (written here as "1." lines), and each template's "### Field:" parts
//     run on one line, which is kept.
//   - Table 7 keeps its misspelling "arithemtic"; a fine-tuned analyzer saw
//     it, and an instruction model reads past it.
//   - Table 9's system text ends in `"""`, the close of the authors' Python
//     string; it is not part of the prompt and is left out.
//   - The "Demonstration" of Tables 8 and 9 is given as a user turn and an
//     assistant turn before the real question, which is what its
//     "User:"/"Assistant" labels describe.
//   - Document text in a context has "###" written "##", so a Markdown
//     heading cannot pass for a field of the template.

// analyzerSystem is Table 7's system message.
const analyzerSystem = `Given a question and the document context, please answer three questions:

1. What type of question is being asked? The types include: extractive, abstractive, arithmetic, multi-bridge, and multi-source. Extractive means the query is directly factoid; abstractive means the query needs large context and refinement; arithemtic means the query needs numerical calculation; multi-bridge means the answer requires multiple bridging steps to get the answer; multi-source means the answer requires information from multiple facts (e.g. comparison questions).
2. Is the key information of the question more exact or semantic (according to both the question and the context)? The answer should be "exact", "semantic" or "same".
3. Does the provided context contain the enough information to answer the question? The answer should be either "yes" or "no".

The final answer should be in the format of a dictionary:

{"question-type": "extractive", "info-type": "exact", "containing": "yes"}.

Please strictly follow the format and no explanation is needed.`

// splitterSystem is Table 8's system message, and its demonstration.
const (
	splitterSystem = `Given a question, and this question may need the information from multiple sources.

Please split this question into multiple sub-questions, each of which can be answered by a single source. The final answer should be several sub-questions separated by the line-breaker.`
	splitterDemoUser      = `Which university has the larger campus, University of New Haven or University of West Florida?`
	splitterDemoAssistant = "What is the campus size of University of New Haven?\nWhat is the campus size of University of West Florida?"
)

// reasonerSystem is Table 9's system message, and its demonstration.
const (
	reasonerSystem        = `Given a question, which may need multiple steps to get the final answer. Please first get the existing evidence for the question based on the given context, and then generate a next-step query to query additional information. If the question can already be totally answered, you should output '### Answer: The answer is: <answer>' at the end. Otherwise, output 'None'. The answer should be based only on the context.`
	reasonerDemoUser      = `### Context: 100 Rifles is directed by Tom Gries and starring Jim Brown and Raquel Welch. ### Question: 100 Rifles is a western film, starring an actress of what nationality?`
	reasonerDemoAssistant = `### Evidence: The main actress in 100 Rifles is Raquel Welch. ### Next-Query: What is the nationality of Raquel Welch? ### Answer: None`
)

// analyzerMessages is Table 7's prompt over the primary context.
func analyzerMessages(context, question string) []llm.Message {
	return []llm.Message{
		llm.System(analyzerSystem),
		llm.User("### Context: " + context + " ### Question: " + question + " ### Answer:"),
	}
}

// splitterMessages is Table 8's prompt.
func splitterMessages(question string) []llm.Message {
	return []llm.Message{
		llm.System(splitterSystem),
		llm.User(splitterDemoUser),
		llm.Assistant(splitterDemoAssistant),
		llm.User(question),
	}
}

// reasonerMessages is Table 9's prompt over the context gathered so far.
func reasonerMessages(context, question string) []llm.Message {
	return []llm.Message{
		llm.System(reasonerSystem),
		llm.User(reasonerDemoUser),
		llm.Assistant(reasonerDemoAssistant),
		llm.User("### Context: " + context + " ### Question:" + question),
	}
}

// restateFormat follows a template's system message when the model's
// reply was not in its format: the format once more.
const restateFormat = ` Your last reply was not in this format. Reply only with '### Evidence: … ### Next-Query: … ### Answer: …', writing None where a field has nothing.`

// restated is msgs with the format restated after the system message.
func restated(msgs []llm.Message) []llm.Message {
	out := slices.Clone(msgs)
	out[0] = llm.System(out[0].Content + restateFormat)
	return out
}

// defuse keeps document text from passing for a "###" field of the
// templates.
func defuse(s string) string {
	for strings.Contains(s, "###") {
		s = strings.ReplaceAll(s, "###", "##")
	}
	return s
}
