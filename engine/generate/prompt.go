package generate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Format is the prompt a model is given.
type Format string

// The prompt formats.
const (
	// OneShot is LongCite's LAC-S prompt (Figure 10 of the paper): the
	// instructions, one worked example, the numbered document, the
	// question and the instructions again. For any instruction-following
	// model. In chunk mode (RAC-C) the same prompt speaks of snippets.
	OneShot Format = "one-shot"
	// LongCiteModel is the zero-shot input THUDM's LongCite-glm4-9b and
	// LongCite-llama3.1-8b were trained on (see longCiteModelHead for the
	// text and its source). Sentence mode only.
	//
	// THUDM's query_longcite splits the context with NLTK's Punkt
	// tokenizer, splits again after 。；！？, falls back to blank lines when
	// that yields one sentence, and shows sentence i as "<Ci>" followed by
	// the context from its start to the next sentence's start. citelens
	// numbers its own stored sentences instead (ingest/split), since
	// those are what citations resolve to; the boundaries are Punkt-like
	// and the layout is the same, with the whitespace between sentences
	// reduced to a blank line, a line break or a space. Two other
	// differences: query_longcite cuts an over-long prompt out of its
	// middle at 128,000 model tokens, where FitScope keeps the most
	// relevant sentences; and it samples at temperature 0.95, top_p 0.7,
	// where citelens uses the configured temperature (0 by default, for
	// repeatable citations).
	LongCiteModel Format = "longcite-model"
	// Lean is OneShot without its worked example and without the
	// instructions repeated after the question: Figure 10's instructions
	// once, the numbered text, the question. About 800 tokens fewer, for
	// a strategy whose retrieved text is shorter than the example
	// (OkraLong's segments, whose paper answers with a plain prompt).
	Lean Format = "lean"
)

// ParseFormat reads a format name as given in a strategy option.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case OneShot, LongCiteModel, Lean:
		return f, nil
	}
	return "", fmt.Errorf("%w: format=%q: give %s (any instruction model), %s (the same without its example) or %s (THUDM's LongCite-8B/9B)",
		ErrBadRequest, s, OneShot, Lean, LongCiteModel)
}

// DefaultFormat is the format for a model: LongCiteModel for THUDM's
// LongCite models, whose names contain "longcite" however they are served
// ("THUDM/LongCite-glm4-9b", "longcite-llama3.1-8b"), OneShot otherwise.
func DefaultFormat(model string) Format {
	if strings.Contains(strings.ToLower(model), "longcite") {
		return LongCiteModel
	}
	return OneShot
}

// lacInstructions is Figure 10's instruction paragraph, which the prompt
// gives before the example and again (as "[Remind]") after the question.
// The paper's own copy, THUDM/LongCite LongBench-Cite/one_shot_prompt.txt,
// has two slips ("such as such as", "<C_{e1}>") that the figure does not;
// this follows the figure.
const lacInstructions = `Please answer the user's question based on the given document. When a factual statement S in your response uses information from some chunks in the document (i.e., <C{s1}>-<C{e1}>, <C{s2}>-<C{e2}>, ...), please append these chunk numbers to S in the format "<statement>{S}<cite>[{s1}-{e1}][{s2}-{e2}]...</cite></statement>". For other sentences such as introductory sentences, summarization sentences, reasoning, and inference, you still need to append "<cite></cite>" to them to indicate they need no citations. You must answer in the same language as the user's question.`

// racInstructions adapts Figure 10 to numbered chunks for RAC-C. The paper
// does not print its LAC-C/RAC-C prompt; this one takes the snippet
// numbering and citation form of Figure 12 (CoF's chunk-level step) and
// keeps Figure 10's wording otherwise.
const racInstructions = `Please answer the user's question based on the given snippets of the document. When a factual statement S in your response uses information from some snippets (i.e., Snippet [{l1}], Snippet [{l2}], ...), please append these snippet numbers to S in the format "<statement>{S}<cite>[{l1}][{l2}]...</cite></statement>". For other sentences such as introductory sentences, summarization sentences, reasoning, and inference, you still need to append "<cite></cite>" to them to indicate they need no citations. You must answer in the same language as the user's question.`

// longCiteModelPrompt is the prompt of THUDM's fine-tuned models, as their
// query_longcite builds it (THUDM/LongCite vllm_inference.py, get_prompt;
// the same code ships as modeling code with the models on Hugging Face):
// one user message, no system message, no example, the question bare after
// the document. Kept byte for byte, slips included ("<C_{e1}>"), since it
// is what the models saw in training. The server applies the model's chat
// template.
const (
	longCiteModelHead = "Please answer the user's question based on the following document. When a sentence S in your response uses information from some chunks in the document (i.e., <C{s1}>-<C_{e1}>, <C{s2}>-<C{e2}>, ...), please append these chunk numbers to S in the format \"<statement>{S}<cite>[{s1}-{e1}][{s2}-{e2}]...</cite></statement>\". You must answer in the same language as the user's question.\n\n[Document Start]\n"
	longCiteModelMid  = "\n[Document End]\n\n"
)

// Markers of the one-shot prompt (Figure 10; Figure 12 for snippets).
const (
	docStart     = "[Document Start]\n"
	docEnd       = "\n[Document End]\n\n"
	snippetStart = "[Contexts Start]\n"
	snippetEnd   = "\n[Context End]\n\n"
	questionMark = "[Question]\n"
	remindMark   = "\n\n[Remind]\n"
	answerMark   = "\n\n[Answer with Citations]\n"
	exampleIntro = "\n\nHere is an example:\n\n"
	testIntro    = "\n\nNow get ready to handle the following test case.\n\n"
)

// Messages builds the chat messages that ask req's question over the units
// of req.Numbering, in the numbering's order: sentences as "<Cn>" followed
// by the sentence, chunks as "Snippet [k]". Document text that could pass
// for the prompt's own markup is neutralised (see Neutralise); the
// numbering, not the prompt text, maps citations back to bytes, so this
// changes no citation.
func Messages(req Request) ([]llm.Message, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(promptSize(req))
	writePrompt(&b, req.format(), req.Numbering.Mode(), req.Question, func(b *strings.Builder) {
		WriteContext(b, req.Numbering)
	})
	return []llm.Message{llm.User(b.String())}, nil
}

// writePrompt writes the whole prompt, calling context to write the
// numbered units.
func writePrompt(b *strings.Builder, f Format, mode citations.Mode, question string, context func(*strings.Builder)) {
	if f == LongCiteModel {
		b.WriteString(longCiteModelHead)
		context(b)
		b.WriteString(longCiteModelMid)
		b.WriteString(question)
		return
	}
	instr, example, start, end := lacInstructions, lacExample, docStart, docEnd
	if mode == citations.ChunkMode {
		instr, example, start, end = racInstructions, racExample, snippetStart, snippetEnd
	}
	b.WriteString(instr)
	if f == Lean {
		b.WriteString("\n\n")
	} else {
		b.WriteString(exampleIntro)
		b.WriteString(example)
		b.WriteString(testIntro)
	}
	b.WriteString(start)
	context(b)
	b.WriteString(end)
	b.WriteString(questionMark)
	b.WriteString(question)
	if f != Lean {
		b.WriteString(remindMark)
		b.WriteString(instr)
	}
	b.WriteString(answerMark)
}

// Overhead estimates the tokens of everything in the prompt but the
// numbered units: instructions, example, markers, the question, the
// message framing, and the document headers of a multi-document scope.
// Added to the units' SentenceTokens or ChunkTokens it bounds the
// prompt's llm.EstimatePromptTokens from above.
func Overhead(f Format, mode citations.Mode, question string, docs []*docstore.Document) int {
	var b strings.Builder
	writePrompt(&b, f, mode, question, func(*strings.Builder) {})
	n := llm.EstimatePromptTokens([]llm.Message{llm.User(b.String())})
	if mode == citations.SentenceMode && len(docs) > 1 {
		for i, d := range docs {
			n += textproc.EstimateTokens(docHeader(i+1, d))
		}
	}
	return n
}

// SentenceTokens estimates what sentence text costs in the prompt as
// unit number num: the text, its "<Cnum>" tag and the space or line break
// after it. Sums of it bound the estimate of the written context from
// above (rounding up each part can only add).
func SentenceTokens(num int, text string) int {
	return textproc.EstimateTokens(text) + tagTokens(num) + 1
}

// ChunkTokens estimates what a chunk's text costs as "Snippet [num]".
func ChunkTokens(num int, text string) int {
	return textproc.EstimateTokens(text) + (len("Snippet []\n")+digits(num)+3)/4 + 1
}

// tagTokens is EstimateTokens("<Cnum>") without building the string.
func tagTokens(num int) int { return (3 + digits(num) + 3) / 4 }

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// promptSize is a close upper estimate of the prompt's length in bytes, so
// the builder is sized once: the units' text, their tags and separators,
// and the fixed parts.
func promptSize(req Request) int {
	n := 4096 + 2*len(lacInstructions) + len(lacExample) + len(req.Question)
	req.Numbering.Each(func(u citations.Unit) bool {
		d := u.Doc
		n += int(d.Sentences[u.Last].End-d.Sentences[u.First].Start) + 16
		return true
	})
	return n
}

// WriteContext writes the numbered units of n to b in the numbering's
// order, the way the prompts show them. Sentences: "<Cnum>" and the
// sentence, then the document's own break before the next sentence
// reduced to a blank line, a line break or a space (LongCite's code joins
// "<Ci>" and the text up to the next sentence); a gap in the numbering
// (sentences not shown) is a blank line; with several documents each
// begins with a "Document k: NAME" line. Chunks: "Snippet [k]", a line
// break and the chunk's text, chunks separated by blank lines (CoF's
// layout, Figure 12). Other strategies that show numbered text call this
// rather than writing their own.
func WriteContext(b *strings.Builder, n *citations.Numbering) {
	if n.Mode() == citations.ChunkMode {
		first := true
		n.Each(func(u citations.Unit) bool {
			if !first {
				b.WriteString("\n\n")
			}
			first = false
			b.WriteString("Snippet [")
			b.WriteString(strconv.Itoa(u.Num))
			b.WriteString("]\n")
			d := u.Doc
			Neutralise(b, strings.TrimSpace(d.Text[d.Sentences[u.First].Start:d.Sentences[u.Last].End]))
			return true
		})
		return
	}
	multi := countDocs(n) > 1
	var (
		prev    *docstore.Document
		prevIdx = -2
		docNo   = 0
		tag     [24]byte
	)
	n.Each(func(u citations.Unit) bool {
		d := u.Doc
		switch {
		case d != prev:
			if prev != nil {
				b.WriteString("\n\n")
			}
			if multi {
				docNo++
				b.WriteString(docHeader(docNo, d))
			}
		case u.First == prevIdx+1:
			b.WriteString(gap(d.Text[d.Sentences[prevIdx].End:d.Sentences[u.First].Start]))
		default:
			b.WriteString("\n\n")
		}
		t := append(tag[:0], "<C"...)
		t = strconv.AppendInt(t, int64(u.Num), 10)
		t = append(t, '>')
		b.Write(t)
		s := d.Sentences[u.First]
		Neutralise(b, d.Text[s.Start:s.End])
		prev, prevIdx = d, u.First
		return true
	})
}

// countDocs counts the documents a numbering shows units of (consecutive
// runs; the numbering keeps a document's units together).
func countDocs(n *citations.Numbering) int {
	k := 0
	var prev *docstore.Document
	n.Each(func(u citations.Unit) bool {
		if u.Doc != prev {
			k++
			prev = u.Doc
		}
		return k < 2
	})
	return k
}

// docHeader introduces document k of a multi-document context. It is not
// numbered, so it cannot be cited.
func docHeader(k int, d *docstore.Document) string {
	name := d.Name
	if name == "" {
		name = d.Title
	}
	if name == "" {
		name = string(d.ID)
	}
	var b strings.Builder
	b.WriteString("Document ")
	b.WriteString(strconv.Itoa(k))
	b.WriteString(": ")
	Neutralise(&b, textproc.OneLine(name))
	b.WriteString("\n")
	return b.String()
}

// gap reduces the text between two consecutive sentences to the break the
// model needs: a blank line for a paragraph break, a line break, a space,
// or nothing when the sentences touch (as in Chinese). What the sentence
// splitter left between sentences (a page number, say) is not shown: it
// has no number and could not be cited.
func gap(s string) string {
	switch nl := strings.Count(s, "\n"); {
	case nl >= 2:
		return "\n\n"
	case nl == 1:
		return "\n"
	case s == "":
		return ""
	}
	return " "
}
