package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// VerifyInput is verify's input.
type VerifyInput struct {
	Claim    string      `json:"claim" jsonschema:"the statement to check"`
	Citation CitationRef `json:"citation" jsonschema:"the passage said to support it: a citation as search or ask returns it, or a document with a sentence or byte range"`
	Question string      `json:"question,omitempty" jsonschema:"the question the claim answers, which the model judge reads with it"`
}

// CitationRef names a cited passage. A whole citation from search or ask
// may be passed as it is: its start and end are used, and its text, when
// given, is checked against the document.
type CitationRef struct {
	Document      string `json:"document" jsonschema:"the document: its ID, an ID prefix or its file name"`
	FirstSentence *int   `json:"first_sentence,omitempty" jsonschema:"the first sentence cited (used when start and end are absent)"`
	LastSentence  *int   `json:"last_sentence,omitempty" jsonschema:"the last sentence cited, inclusive"`
	Start         *int   `json:"start,omitempty" jsonschema:"the byte offset where the cited text starts"`
	End           *int   `json:"end,omitempty" jsonschema:"the byte offset just past it"`
	Text          string `json:"text,omitempty" jsonschema:"the text the citation quotes, checked against the document's bytes"`
	// Version picks one of the document's versions (see versionDoc).
	Version any `json:"version,omitempty"`
}

// VerifyResult is verify's output.
type VerifyResult struct {
	Verdict     string          `json:"verdict" jsonschema:"supported, partial or unsupported"`
	Method      string          `json:"method" jsonschema:"model: a model judged the meaning; lexical: no model judged, and the verdict is the share of the claim's words found in the cited text"`
	Explanation string          `json:"explanation" jsonschema:"how the verdict was reached, in a sentence"`
	Model       *ModelVerdict   `json:"model,omitempty" jsonschema:"the model judge's ratings, when a model judged"`
	Lexical     LexicalEvidence `json:"lexical" jsonschema:"the lexical evidence, always given"`
	Cited       Citation        `json:"cited" jsonschema:"the cited passage as the document has it"`
	TextMatches *bool           `json:"text_matches,omitempty" jsonschema:"whether the citation's text is exactly the document's bytes at its range (when the citation carried its text)"`
	Cost        *Cost           `json:"cost,omitempty" jsonschema:"what the model judge spent"`
	Warnings    []string        `json:"warnings,omitempty"`
}

// ModelVerdict is the model judge's reading of a claim against its
// citation: LongBench-Cite's citation recall (Figure 7) and precision
// (Figure 9) prompts.
type ModelVerdict struct {
	Model    string `json:"model" jsonschema:"the judging model"`
	Rating   string `json:"rating" jsonschema:"the judge's rating as written: Fully supported, Partially supported or No support"`
	Relevant bool   `json:"relevant" jsonschema:"the judge found some key point of the claim in the cited text"`
}

// LexicalEvidence is the offline check of a claim's words against the
// cited text (citations.Explain).
type LexicalEvidence struct {
	Verdict       string   `json:"verdict" jsonschema:"supported, partial or unsupported, from the score"`
	Score         float64  `json:"score" jsonschema:"the weighted share of the claim's content words found, 0 to 1 (numbers weigh more)"`
	Found         []string `json:"found" jsonschema:"the claim's content words the cited text holds (by stem)"`
	Missing       []string `json:"missing" jsonschema:"those it lacks"`
	NumberMissing bool     `json:"number_missing,omitempty" jsonschema:"a number of the claim is missing from the cited text, which caps the verdict at partial"`
}

func (s *Server) addVerify() {
	addTool(s, &mcp.Tool{
		Name:  "verify",
		Title: "Check a claim against a citation",
		Description: "Check whether a cited passage supports a claim. With a model configured, the model judges the meaning (method model, LongBench-Cite's judge prompts); without one the verdict is lexical — the share of the claim's content words the cited text holds (method lexical) — and the result says so. " +
			"The lexical evidence (words found and missing) is always given. Pass a citation from search or ask as it is; its text is checked against the document's bytes. The citation's version (a number from 1, or a version's ID) checks it against another version of its document; by default the document it names.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, func(in *jsonschema.Schema) {
		property(in, "claim").MinLength = ptr(1)
		c := property(in, "citation")
		c.AdditionalProperties = nil // a whole citation, with its page and heading, is welcome
		property(c, "document").MinLength = ptr(1)
		versionSchema(c, "version")
	}, s.verify)
}

func (s *Server) verify(ctx context.Context, _ *mcp.CallToolRequest, in VerifyInput) (VerifyResult, error) {
	var out VerifyResult
	env, err := s.environment()
	if err != nil {
		return out, err
	}
	d, start, end, err := in.Citation.locate(env.Library)
	if err != nil {
		return out, err
	}
	if end-start > maxRead {
		return out, fix.With(fmt.Errorf("the citation is %d bytes long; verify reads at most %d", end-start, maxRead), "Cite the sentences that support the claim, not a whole section.")
	}
	cited := readRange(d, start, end).Citation
	out.Cited = cited
	if in.Citation.Text != "" {
		out.TextMatches = ptr(in.Citation.Text == cited.Text)
	}
	lex := citations.Explain(in.Claim, cited.Text)
	out.Lexical = LexicalEvidence{Verdict: string(lex.Level), Score: lex.Score, Found: lex.Found, Missing: lex.Missing, NumberMissing: lex.NumberMissing}
	out.Verdict, out.Method = string(lex.Level), "lexical"

	j, reason := s.judge(env)
	if j == nil {
		out.Explanation = fmt.Sprintf("No model judged this (%s): the verdict is lexical, from the claim's content words found in the cited text (%d of %d), not from their meaning.",
			reason, len(lex.Found), len(lex.Found)+len(lex.Missing))
		return out, nil
	}
	question := in.Question
	if strings.TrimSpace(question) == "" {
		question = in.Claim
	}
	span := citations.Span{Doc: cited.Document, DocName: cited.DocumentName, First: cited.FirstSentence, Last: cited.LastSentence,
		Start: cited.Start, End: cited.End, Page: cited.Page, Text: cited.Text}
	res, err := j.Score(ctx, &citations.Answer{Question: question, Statements: []citations.Statement{{Text: in.Claim, Citations: []citations.Span{span}}}})
	if err != nil {
		if engine.Canceled(err) {
			return out, err
		}
		reason, _ := fix.Message(err)
		out.Explanation = "The model judge failed (" + textproc.OneLine(reason) + "): the verdict is lexical, from the claim's content words found in the cited text, not from their meaning."
		out.Warnings = append(out.Warnings, "the model judge failed: "+textproc.OneLine(reason))
		return out, nil
	}
	st := res.Statements[0]
	out.Method = "model"
	out.Model = &ModelVerdict{Model: j.Model(), Rating: st.Rating, Relevant: len(st.Relevant) > 0 && st.Relevant[0] == 1}
	switch st.Recall {
	case 1:
		out.Verdict = string(citations.Supported)
	case 0.5:
		out.Verdict = string(citations.Partial)
	default:
		out.Verdict = string(citations.Unsupported)
	}
	out.Cost = &Cost{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens, ModelCalls: res.Usage.LLMCalls, Estimated: res.Usage.Estimated}
	out.Explanation = fmt.Sprintf("The model %s rated the claim %q against the cited text.", j.Model(), st.Rating)
	return out, nil
}

// judge returns the model judge (judge_model on judge_base_url, else the
// answering model), made once; or nil and why there is none.
func (s *Server) judge(env *engine.Env) (*judge.Judge, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.judged != nil || s.noJudge != "" {
		return s.judged, s.noJudge
	}
	jc := env.Config.JudgeConfig()
	if err := jc.Configured(); err != nil {
		s.noJudge = "no model is configured"
		return nil, s.noJudge
	}
	c, err := llm.New(jc)
	if err != nil {
		s.noJudge = "the judge's configuration is unusable: " + textproc.OneLine(err.Error())
		return nil, s.noJudge
	}
	s.judged = judge.New(c, judge.Options{})
	return s.judged, ""
}

// locate finds the document c names and the byte range it cites: its
// whole bytes when it gives them, else its sentences.
func (c CitationRef) locate(l *docstore.Library) (d *docstore.Document, start, end int, err error) {
	d, err = document(l, c.Document)
	if err == nil {
		d, err = atVersion(l, d, c.Version)
	}
	if err != nil {
		return nil, 0, 0, err
	}
	r := ReadInput{Document: c.Document, Start: c.Start, End: c.End}
	if r.Start == nil || r.End == nil {
		r = ReadInput{Document: c.Document, FirstSentence: c.FirstSentence, LastSentence: c.LastSentence}
	}
	start, end, err = rangeOf(d, r)
	return d, start, end, err
}
