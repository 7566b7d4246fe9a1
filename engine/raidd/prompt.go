package raidd

import (
	"fmt"
	"math"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/llm"
)

// The derivation prompt. The instructions are the authors' own, from their
// repository (github.com/isaacwasserman/LongRAG):
//
//   - the summary, Summarize.ipynb (summarize_chunks, commit 0587953):
//     "Summarize the following text conceptually [in the context of the
//     text that precedes it]. The summary should paraphrase the original
//     text, be significantly shorter, retain all propositions, and be able
//     to replace the original text", given the previous chunk's summary as
//     the context;
//   - the questions, question_gen.ipynb (generate_questions_from_chunks,
//     commit eba9efd): "Generate {n} reading comprehension questions based
//     on the text above. Each question should be unique and should require
//     a thoughtful answer. Each question should begin with a number
//     followed by a period and a space, denoting its position in the list.
//     Separate each question with a line break", with n =
//     round(tokens × 32 / 1024).
//
// The authors made two calls per chunk, and so does citelens by default
// (Layout TwoCalls): the summary prompt, conditioned on the previous
// chunk's summary, then the questions prompt, each carrying the chunk.
// Layout OneCall asks for both in one call (the composition and its
// SUMMARY:/QUESTIONS: layout are ours): the chunk then travels once, and
// on 256-token chunks the prompt tokens drop by about a third and the
// calls by half (TestOneCallCost measures it). The summary chain is
// sequential either way. Mixtral's [INST] markers are left to the
// server's chat template.

// Layout is how a chunk's summary and questions are asked for.
type Layout int

// The layouts. Their values are the derived sets' prompt versions:
// derived documents are stored per version, so a change of a prompt (or
// of a reply format) must be a new layout, and documents derived by an
// older prompt are then derived again.
const (
	// OneCall asks for the summary and the questions in one call.
	OneCall Layout = 1
	// TwoCalls is the authors': a summary call and a questions call.
	TwoCalls Layout = 2
)

// calls is how many model calls a chunk takes in the layout.
func (l Layout) calls() int {
	if l == OneCall {
		return 1
	}
	return 2
}

// layoutOf is the layout a derived set was written with.
func layoutOf(set docstore.DerivedSet) Layout {
	if set.Version == int(OneCall) {
		return OneCall
	}
	return TwoCalls
}

// Derivation settings from the paper.
const (
	// ChunkTokens and ChunkOverlap are the chunking the paper settled on
	// (section 3.2, Table 2: 256 tokens, 50 of overlap, top-k 8).
	ChunkTokens  = 256
	ChunkOverlap = 50
	// QuestionsPer1024 is how many questions a chunk gets per 1,024 of its
	// tokens (section 2.2, RAIDD-Q).
	QuestionsPer1024 = 32
)

// QuestionCount is how many questions a chunk of tokens estimated tokens
// gets: 32 per 1,024, rounded as the authors round, at least one.
func QuestionCount(tokens int) int {
	return max(1, int(math.Round(float64(tokens)*QuestionsPer1024/1024)))
}

const (
	instructFirst = "Summarize the following text conceptually. The summary should paraphrase the original text, be significantly shorter, retain all propositions, and be able to replace the original text."
	instructNext  = "Summarize the following text conceptually in the context of the text that precedes it. The summary should paraphrase the original text, be significantly shorter, retain all propositions, and be able to replace the original text."
	instructQs    = "Then generate %d reading comprehension questions based on the text. Each question should be unique and should require a thoughtful answer."
	layout        = `Write the summary after a line "SUMMARY:" and the questions after a line "QUESTIONS:". Each question should begin with a number followed by a period and a space, denoting its position in the list. Separate each question with a line break:

SUMMARY:
<the summary>
QUESTIONS:
1. <the first question>
2. <the second question>`
)

// derivePrompt is the message that asks for chunk text's summary and n
// questions; prev is the previous chunk's summary ("" for the first).
func derivePrompt(text, prev string, n int) []llm.Message {
	var b strings.Builder
	if prev == "" {
		b.WriteString(instructFirst)
	} else {
		b.WriteString(instructNext)
	}
	b.WriteByte(' ')
	fmt.Fprintf(&b, instructQs, n)
	if prev != "" {
		b.WriteString("\n\nHere is the context, a summary of the text that precedes it:\n\n")
		b.WriteString(strings.TrimSpace(prev))
	}
	b.WriteString("\n\nHere is the text:\n\n")
	b.WriteString(strings.TrimSpace(text))
	b.WriteString("\n\n")
	b.WriteString(layout)
	return []llm.Message{llm.User(b.String())}
}

// summaryPrompt is the authors' summary call for chunk text; prev is the
// previous chunk's summary ("" for the first).
func summaryPrompt(text, prev string) []llm.Message {
	var b strings.Builder
	if prev == "" {
		b.WriteString(instructFirst)
	} else {
		b.WriteString(instructNext)
		b.WriteString("\n\nHere is the context, a summary of the text that precedes it:\n\n")
		b.WriteString(strings.TrimSpace(prev))
	}
	b.WriteString("\n\nHere is the text:\n\n")
	b.WriteString(strings.TrimSpace(text))
	return []llm.Message{llm.User(b.String())}
}

// questionsPrompt is the authors' questions call: the chunk, then the
// request for n questions "based on the text above".
func questionsPrompt(text string, n int) []llm.Message {
	return []llm.Message{llm.User(strings.TrimSpace(text) + "\n\n" + fmt.Sprintf(instructOwnQs, n))}
}

// instructOwnQs is the questions call's request, the chunk above it.
const instructOwnQs = "Generate %d reading comprehension questions based on the text above. Each question should be unique and should require a thoughtful answer. Each question should begin with a number followed by a period and a space, denoting its position in the list. Separate each question with a line break."

// replyTokens bounds a derivation reply: a summary shorter than the chunk
// and n questions, with room to spare for wordy models.
func replyTokens(chunkTokens, n int) int {
	return 128 + chunkTokens + 48*n
}

// Estimates of a derivation's cost, before it runs: the summary is about
// summaryRatio of its chunk (the authors ask for "significantly shorter"),
// a question about questionTokens.
const (
	summaryRatio   = 0.35
	questionTokens = 18
)

var (
	instructionTokens     = llm.EstimatePromptTokens(derivePrompt("", "x", 8)) - 1
	summaryTokens         = llm.EstimatePromptTokens(summaryPrompt("", "x")) - 1
	questionsPromptTokens = llm.EstimatePromptTokens(questionsPrompt("", 8))
)

// estimateChunk estimates the prompt and completion tokens of deriving a
// chunk of tokens tokens after a chunk of prevTokens (0 for the first), in
// layout l.
func estimateChunk(l Layout, tokens, prevTokens int) (prompt, completion int) {
	summary := int(summaryRatio * float64(tokens))
	context := int(summaryRatio * float64(prevTokens))
	completion = summary + questionTokens*QuestionCount(tokens) + 8
	if l == OneCall {
		return instructionTokens + tokens + context, completion
	}
	return summaryTokens + tokens + context + questionsPromptTokens + tokens, completion
}
