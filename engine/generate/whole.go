package generate

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest/split"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// The passes over the whole scope that several strategies share:
// LongContextAnswer, the plain answer (the plain strategy's, and cof's
// first step), and Whole, LAC-S (the longcite strategy's, and the reread
// of okra-precise).

// LongContextAnswer is vanilla long-context QA, LongCite's C_LQA setting
// ("simply feeding the concatenated context and query into the LLM") and
// CoF's step 1: the model answers from the scope (its most relevant part
// when the scope is longer than the model's context) in plain text,
// streamed as the reply called name, and the text is returned. The stage
// that says so begins with doing ("drafting an answer with").
func LongContextAnswer(ctx context.Context, rt *engine.Runtime, doing, name string) (string, error) {
	return longContext(ctx, rt, doing, name, draftInstructions)
}

// BareAnswer is LongContextAnswer as LongCite's C_LQA has it: the
// context and the question, and nothing else ("simply feeding the
// concatenated context and query into the LLM", section 2.3.1) — no line
// asking for plain text or no citations, which CoF's step 1 adds. The
// plain strategy, the correctness baseline, asks it.
func BareAnswer(ctx context.Context, rt *engine.Runtime, doing, name string) (string, error) {
	return longContext(ctx, rt, doing, name, "")
}

// longContext asks the long-context answer with the instructions
// before the document ("" for none).
func longContext(ctx context.Context, rt *engine.Runtime, doing, name, instructions string) (string, error) {
	cfg := rt.Config()
	fit, err := FitScope(ctx, OneShot, rt.Question(), rt.Docs(), cfg.PromptBudget(),
		func(ctx context.Context) ([]SentenceRef, error) { return RankScope(ctx, rt) })
	if err != nil {
		return "", err
	}
	if fit.Trimmed {
		rt.Warn(fit.Warning(rt.ModelConfig().ContextWindow))
		if fit.Shown == 0 && fit.Total > 0 {
			return "", NoRoom(cfg, "the documents")
		}
	}
	rt.Stagef("%s %s (%s)", doing, cfg.Model, engine.DescribeScope(rt.Docs(), fit.Shown))
	msgs := append(rt.Preamble(), draftMessages(instructions, rt.Question(), rt.Docs(), fit)...)
	reply, err := rt.Model().Stream(ctx, name, llm.ChatRequest{Messages: msgs}, nil)
	return reply.Text, err
}

// plainQAPrompt is LlamaIndex's default question-answering prompt
// (DEFAULT_TEXT_QA_PROMPT_TMPL), which RAIDD's experiments ran on
// ("Our experiments are implemented using the LlamaIndex RAG library").
const plainQAPrompt = "Context information is below.\n---------------------\n%s\n---------------------\nGiven the context information and not prior knowledge, answer the query.\nQuery: %s\nAnswer: "

// PlainQA asks the question over fit's text (the retrieved parts, as
// plain text: no numbers) with a plain QA prompt, no citations asked
// for, streamed as the reply called name; the text is returned, for
// CiteAnswer to cite.
func PlainQA(ctx context.Context, rt *engine.Runtime, fit Fit, name string) (string, error) {
	var b strings.Builder
	for i, p := range fit.Parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		writePlain(&b, p)
	}
	if n, err := citations.NewSentenceNumbering(fit.Parts...); err == nil {
		rt.Shown(n.Shown())
	}
	msgs := append(rt.Preamble(), llm.User(fmt.Sprintf(plainQAPrompt, b.String(), rt.Question())))
	reply, err := rt.Model().Stream(ctx, name, llm.ChatRequest{Messages: msgs}, nil)
	return reply.Text, err
}

// AnswerSentences splits an answer written without citations as citelens
// splits documents: the statements of a plain answer, and the sentences
// CoF's step 2 retrieves for.
func AnswerSentences(text string) []string {
	var out []string
	for _, sp := range split.Sentences(text) {
		out = append(out, text[sp.Start:sp.End])
	}
	return out
}

// draftInstructions asks for vanilla long-context QA: the paper's C_LQA
// setting ("simply feeding the concatenated context and query into the
// LLM") with a line saying what the document is and that no citations
// are wanted, since steps 2 and 3 add them.
const draftInstructions = "Please answer the user's question based on the given document. Answer in plain text, without citations or sentence numbers. You must answer in the same language as the user's question."

// draftMessages builds step 1's prompt: the instructions (if any), the
// scope's text (what fit shows of it, as plain text: no numbers), the
// question.
func draftMessages(instructions, question string, docs []*docstore.Document, fit Fit) []llm.Message {
	var b strings.Builder
	if instructions != "" {
		b.WriteString(instructions)
		b.WriteString("\n\n")
	}
	b.WriteString("[Document Start]\n")
	multi := len(docs) > 1
	for i, p := range fit.Parts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if multi {
			b.WriteString("Document ")
			b.WriteString(strconv.Itoa(i + 1))
			b.WriteString(": ")
			Neutralise(&b, textproc.OneLine(p.Doc.DisplayName()))
			b.WriteString("\n")
		}
		writePlain(&b, p)
	}
	b.WriteString("\n[Document End]\n\n[Question]\n")
	b.WriteString(question)
	return []llm.Message{llm.User(b.String())}
}

// writePlain writes the sentences a part shows as the document's own text:
// each run of consecutive sentences verbatim from its first byte to its
// last, runs apart separated by an elision mark.
func writePlain(b *strings.Builder, p citations.Part) {
	d := p.Doc
	if len(d.Sentences) == 0 {
		return
	}
	if p.Sentences == nil {
		neutralise(b, d.Text[d.Sentences[0].Start:d.Sentences[len(d.Sentences)-1].End])
		return
	}
	for i := 0; i < len(p.Sentences); {
		j := i
		for j+1 < len(p.Sentences) && p.Sentences[j+1] == p.Sentences[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteString("\n\n[…]\n\n")
		}
		neutralise(b, d.Text[d.Sentences[p.Sentences[i]].Start:d.Sentences[p.Sentences[j]].End])
		i = j + 1
	}
}

// Pass is how a one-pass answer is asked: the prompt format and the
// citations kept per statement.
type Pass struct {
	Format  Format
	Resolve citations.ResolveOptions
	// Repair cites an answer that ignored the citation format
	// (Request.Repair); nil for none.
	Repair func(context.Context, string) error
}

// Whole is LAC-S within any answer (the longcite strategy answers with
// it, okra-precise rereads with it): the model reads the whole scope,
// sentences numbered, and answers in one pass, cited by sentence. A scope
// longer than the model's context keeps its most relevant sentences and
// those around them. The result is nil when it failed before asking the
// model.
func Whole(ctx context.Context, rt *engine.Runtime, p Pass) (*Result, error) {
	cfg := rt.Config()
	docs := rt.Docs()
	fit, err := FitScope(ctx, p.Format, rt.Question(), docs, cfg.PromptBudget(),
		func(ctx context.Context) ([]SentenceRef, error) { return RankScope(ctx, rt) })
	if err != nil {
		return nil, err
	}
	if fit.Trimmed {
		rt.Warn(fit.Warning(rt.ModelConfig().ContextWindow))
		if fit.Shown == 0 && fit.Total > 0 {
			return nil, NoRoom(cfg, fmt.Sprintf("the %s prompt", p.Format))
		}
	}
	num, err := citations.NewSentenceNumbering(fit.Parts...)
	if err != nil {
		return nil, err
	}
	rt.Stagef("asking %s (%s prompt, %s)", cfg.Model, p.Format, engine.DescribeScope(docs, fit.Shown))
	return Run(ctx, rt, Request{Question: rt.Question(), Numbering: num, Format: p.Format, Resolve: p.Resolve, Repair: p.Repair})
}
