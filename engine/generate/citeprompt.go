package generate

import (
	"regexp"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/llm"
)

// The prompts of CoF's citing steps (CiteAnswer): chunk-level citations
// (LongCite's Figure 12) and sentence-level extraction (Figure 13). The
// plain answer they cite is LongContextAnswer's (draftMessages).

// chunkInstructions is Figure 12's instruction paragraph. The figure (and
// THUDM/LongCite CoF/prompt_chunk_level_citation.txt) closes the format
// with "<statement>" where "</statement>" is meant; this has the closing
// tag, and drops the reference file's other slips ("such as such as",
// "orginal").
const chunkInstructions = `Your task is to add citations to the existing answer. Specifically, when a factual statement S in the answer uses information from context snippets l1, l2, ..., ln, please add citations by appending these snippet numbers to S in the format "<statement>{S}<cite>[{l1}][{l2}]...[{ln}]</cite></statement>". For other sentences such as introductory sentences, summarization sentences, reasoning, and inference, you still need to append "<cite></cite>" to them to indicate they need no citations. Except for adding citations, do not change the original content and format of the existing answer.`

// chunkExample is Figure 12's "{An Example}". The paper does not print it,
// so it is written for citelens in the figure's layout: snippets of a
// short report, a question, an answer, and the answer with citations —
// an introduction and a conclusion cited "<cite></cite>", a statement
// citing two snippets, and the answer's text and line breaks unchanged.
// The facts are invented, so no model answers it from memory.
const chunkExample = `[Contexts Start]
Snippet [1]
The Harwick ferry has crossed the estuary since 1931. Its current vessel, the Marguerite, entered service in 2004 and carries up to 240 passengers and 36 cars.

Snippet [2]
In 2022 the ferry made 11,800 crossings. Fog cancelled 214 of the scheduled sailings, most of them between November and February.

Snippet [3]
The county council approved a replacement vessel in March 2023. The new ferry will be battery-powered and charged from the quay at each end of the crossing.

Snippet [4]
Construction of the charging equipment is expected to close the north quay for six weeks. A temporary foot passenger service will run from the marina during the closure.
[Context End]

[Question]
What changes are planned for the Harwick ferry?

[Existing Answer Start]
The ferry service is being modernised.

- The council approved a replacement for the Marguerite, which has served since 2004, in March 2023.
- The new vessel will be battery-powered, charged from the quays, and installing the chargers will close the north quay for six weeks.

In short, passengers should expect a cleaner ferry after a period of disruption.
[Existing Answer End]

[Answer with Citations]
<statement>The ferry service is being modernised.<cite></cite></statement>

<statement>- The council approved a replacement for the Marguerite, which has served since 2004, in March 2023.<cite>[1][3]</cite></statement>
<statement>- The new vessel will be battery-powered, charged from the quays, and installing the chargers will close the north quay for six weeks.<cite>[3][4]</cite></statement>

<statement>In short, passengers should expect a cleaner ferry after a period of disruption.<cite></cite></statement>`

// chunkMessages builds step 2's prompt (Figure 12): the retrieved chunks
// as "Snippet [k]", the question and the draft answer.
func chunkMessages(question, draft string, num *citations.Numbering) []llm.Message {
	var b strings.Builder
	b.WriteString(chunkInstructions)
	b.WriteString("\n\nHere is an example:\n\n")
	b.WriteString(chunkExample)
	b.WriteString("\n\nNow get ready to add citations for the following test case.\n\n[Contexts Start]\n")
	b.WriteString(passage(num))
	b.WriteString("\n[Context End]\n\n[Question]\n")
	b.WriteString(question)
	b.WriteString("\n\n[Existing Answer Start]\n")
	neutralise(&b, strings.TrimSpace(draft))
	b.WriteString("\n[Existing Answer End]\n\n[Answer with Citations]\n")
	return []llm.Message{llm.User(b.String())}
}

// sentenceInstructions is Figure 13's instruction paragraph, with the
// span list between triple quotes as in THUDM/LongCite
// CoF/prompt_sentence_level_citation.txt.
const sentenceInstructions = `You will receive a passage and a factual statement. Your task is to identify the parts in the passage (i.e., chunks <C{s1}>-<C{e1}>, <C{s2}>-<C{e2}>, ..., <C{sn}>-<C{en}>) that support some key points of the statement, and output the chunk number in the format:
'''
[s1-e1]
[s2-e2]
...
[sn-en]
'''
If the passage contains no key information relevant to the statement, you must output "No relevant information".`

// sentenceExamples are Figure 13's "{Example 1}" to "{Example 3}". The
// paper shows only their place, so they are written for citelens in the
// test case's layout: a passage of numbered sentences, a statement, and
// the output. Between them they show one range, two ranges (the
// statement's key points found apart, the sentence between them left out),
// and "No relevant information" for a passage on the statement's topic
// that does not support it. Facts invented.
var sentenceExamples = []string{
	`[Passage Start]
<C0>The Orla valley railway opened in 1889 to carry slate from the quarries at Penmor. <C1>Passenger trains followed in 1893. <C2>By 1910 the line carried 60,000 tonnes of slate a year, most of it bound for the port at Caerfach. <C3>The quarries closed in 1951, and the last freight train ran in the spring of 1952. <C4>Volunteers reopened two miles of the line as a heritage railway in 1978.
[Passage End]

[Statement]
Slate traffic ended when the quarries closed in 1951, with the final freight train running the following spring.

[Output]
[3-3]`,
	`[Passage Start]
<C0>Lake Tessel covers 14 square kilometres and reaches a depth of 61 metres. <C1>Its water is fed mainly by snowmelt from the Varn glacier. <C2>Fishing is permitted from May to October. <C3>Since 1998 the glacier has retreated by roughly 400 metres. <C4>Hydrologists expect the lake's inflow to fall as a result. <C5>Summer inflow measured at the northern gauge dropped by 12% between 2005 and 2020.

<C6>The lakeside village of Ebrun has 900 residents.
[Passage End]

[Statement]
The lake depends on a retreating glacier, and its summer inflow has already fallen by 12% since 2005.

[Output]
[1-1]
[3-5]`,
	`[Passage Start]
<C0>The Mira bakery was founded in 1962 by two sisters from Trieste. <C1>It moved to its present building on Canal Street in 1980. <C2>The bakery is known for its rye bread, baked in a wood-fired oven. <C3>It opens at six every morning except on Mondays.
[Passage End]

[Statement]
The bakery was sold to a national chain in 2015.

[Output]
No relevant information`,
}

// sentenceMessages builds step 3's prompt (Figure 13) for one statement:
// the cited chunks with their neighbours, sentences numbered from <C0>.
func sentenceMessages(statement string, num *citations.Numbering) []llm.Message {
	var b strings.Builder
	b.WriteString(sentenceInstructions)
	b.WriteString("\n\nHere are some examples:\n\n")
	b.WriteString(strings.Join(sentenceExamples, "\n\n"))
	b.WriteString("\n\nNow get ready to process the following test case.\n\n[Passage Start]\n")
	b.WriteString(passage(num))
	b.WriteString("\n[Passage End]\n\n[Statement]\n")
	neutralise(&b, statement)
	b.WriteString("\n\n[Output]\n")
	return []llm.Message{llm.User(b.String())}
}

// passage writes a numbering's units the way generate's prompts show them
// ("Snippet [k]" chunks, or "<Cn>" sentences), with CoF's own section
// markers made inert as generate makes its own inert.
func passage(num *citations.Numbering) string {
	var b strings.Builder
	WriteContext(&b, num)
	return cofMarkers.ReplaceAllString(b.String(), "($1)")
}

// cofMarkers are the section markers of CoF's prompts that generate's
// Neutralise does not know: document text quoting them (this package's
// own source, LongCite's prompts) must not end a passage early.
var cofMarkers = regexp.MustCompile(`(?i)\[(passage start|passage end|statement|output|existing answer start|existing answer end)\]`)

// neutralise writes text with every prompt marker made inert.
func neutralise(b *strings.Builder, s string) {
	var t strings.Builder
	Neutralise(&t, s)
	b.WriteString(cofMarkers.ReplaceAllString(t.String(), "($1)"))
}
