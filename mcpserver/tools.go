package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// Citation is a passage of whole sentences of one document, as search,
// ask and read return it: where it is, and its exact text.
type Citation struct {
	Document      docstore.DocID `json:"document" jsonschema:"the document's ID"`
	DocumentName  string         `json:"document_name" jsonschema:"the name of the file it was added from"`
	FirstSentence int            `json:"first_sentence" jsonschema:"the index of the first sentence, counted from 0 in the document"`
	LastSentence  int            `json:"last_sentence" jsonschema:"the index of the last sentence, inclusive"`
	Start         int            `json:"start" jsonschema:"the byte offset of text in the document's stored text"`
	End           int            `json:"end" jsonschema:"the byte offset just past text"`
	Page          int            `json:"page" jsonschema:"the page of the file, from 1, on which text starts"`
	PrintedPage   string         `json:"printed_page" jsonschema:"that page as the document prints it (xii, 316, A-3), which is what a reader cites; the page number when the document prints none"`
	Heading       string         `json:"heading,omitempty" jsonschema:"the headings text lies under, outermost first, joined by ' > '"`
	Text          string         `json:"text" jsonschema:"exactly the document's stored text from start to end"`
	OCR           bool           `json:"ocr,omitempty" jsonschema:"the page was read by OCR from a scan, so the text may hold recognition errors"`
}

// citationOf is a resolved citation as a tool returns it.
func citationOf(sp citations.Span) Citation {
	printed := sp.Printed
	if printed == "" {
		printed = strconv.Itoa(sp.Page)
	}
	return Citation{Document: sp.Doc, DocumentName: sp.DocName, FirstSentence: sp.First, LastSentence: sp.Last,
		Start: sp.Start, End: sp.End, Page: sp.Page, PrintedPage: printed, Heading: sp.Heading, Text: sp.Text, OCR: sp.OCR}
}

func (s *Server) addTools() {
	s.addListDocuments()
	s.addSearch()
	s.addAsk()
	s.addRead()
	s.addVerify()
	s.addReanchor()
	if s.opts.AllowWrites {
		s.addAddDocument()
	}
}

// readOnly marks a tool that changes nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}

// ListDocumentsInput takes nothing.
type ListDocumentsInput struct{}

// DocumentInfo describes one document of the library.
type DocumentInfo struct {
	ID        docstore.DocID `json:"id" jsonschema:"the document's ID; any unique prefix of it, or the file name, names the document too"`
	Name      string         `json:"name" jsonschema:"the name of the file it was added from"`
	Title     string         `json:"title,omitempty" jsonschema:"the title the file gives itself"`
	Kind      string         `json:"kind" jsonschema:"how it was read: pdf, text, markdown, html, docx, epub"`
	Pages     int            `json:"pages" jsonschema:"pages of the file (1 for a text file)"`
	Sentences int            `json:"sentences" jsonschema:"sentences, numbered from 0 to sentences-1"`
	Headings  int            `json:"headings" jsonschema:"headings found (its sections)"`
	Bytes     int            `json:"bytes" jsonschema:"length of the stored text in bytes"`
	Added     time.Time      `json:"added" jsonschema:"when it was added"`
	URI       string         `json:"uri" jsonschema:"the resource holding its whole text"`
	OCRPages  []int          `json:"ocr_pages,omitempty" jsonschema:"pages read by OCR from a scan"`
	Warnings  []string       `json:"warnings,omitempty" jsonschema:"what of the file could not be read"`
}

// DocumentsResult is list_documents' output.
type DocumentsResult struct {
	Documents []DocumentInfo `json:"documents" jsonschema:"the documents, oldest first"`
	Note      string         `json:"note,omitempty" jsonschema:"what to do when the library is empty"`
}

func docURI(id docstore.DocID) string { return "citelens://doc/" + string(id) }

func infoOf(d *docstore.Document) DocumentInfo {
	return DocumentInfo{ID: d.ID, Name: d.Name, Title: d.Title, Kind: d.Kind, Pages: d.Pages, Sentences: d.NumSents,
		Headings: len(d.Sections), Bytes: d.Bytes, Added: d.Added, URI: docURI(d.ID), OCRPages: d.OCRPages, Warnings: d.Warnings}
}

// emptyNote is what an empty library needs.
const emptyNote = "The library is empty: add documents with 'citelens add FILE' (they can be added while this server runs)."

func (s *Server) addListDocuments() {
	addTool(s, &mcp.Tool{
		Name:        "list_documents",
		Title:       "List the documents",
		Description: "List the documents of the user's citelens library: each one's ID, file name, kind, pages, sentences, headings and when it was added. Other tools name a document by its ID, a unique ID prefix or its file name.",
		Annotations: readOnly,
	}, nil, func(ctx context.Context, _ *mcp.CallToolRequest, _ ListDocumentsInput) (DocumentsResult, error) {
		out := DocumentsResult{Documents: []DocumentInfo{}}
		l, err := s.library()
		if errors.Is(err, ErrNoLibrary) {
			out.Note = emptyNote
			return out, nil
		}
		if err != nil {
			return out, err
		}
		infos, err := l.List()
		if err != nil {
			return out, err
		}
		for _, in := range infos {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			d, err := l.Document(in.ID)
			if err != nil {
				return out, err
			}
			out.Documents = append(out.Documents, infoOf(d))
		}
		if len(out.Documents) == 0 {
			out.Note = emptyNote
		}
		return out, nil
	})
}

// SearchInput is search's input.
type SearchInput struct {
	Query     string   `json:"query" jsonschema:"the words to look for; stop words are ignored and words match by their stems"`
	Documents []string `json:"documents,omitempty" jsonschema:"search only these documents (IDs, ID prefixes or file names); all when empty"`
	K         int      `json:"k,omitempty" jsonschema:"how many sentences to return"`
}

// SearchHit is one sentence found, with its ranking's score.
type SearchHit struct {
	Score float64 `json:"score" jsonschema:"the ranking's score (BM25 unless an embedding or rerank model is configured); higher matches better"`
	Citation
}

// SearchResult is search's output.
type SearchResult struct {
	Hits []SearchHit `json:"hits" jsonschema:"the best sentences first; empty when nothing matches"`
	// Warnings say what of the configured retrieval failed (an
	// embedding model or reranker), so the ranking fell back to words.
	Warnings []string `json:"warnings,omitempty" jsonschema:"what of the configured retrieval failed, so that the hits were ranked by words"`
}

// maxK bounds search's k.
const maxK = 100

func (s *Server) addSearch() {
	addTool(s, &mcp.Tool{
		Name:        "search",
		Title:       "Search the documents",
		Description: "Find the sentences of the library that best match a query, ranked as 'citelens search' and ask rank (BM25 over the latest version of every document, or the documents named; fused with meaning and reordered when the user configured an embedding or rerank model). Each hit is a citation: the document, its sentence index, byte range, page as printed, the headings it lies under and its exact text. Use read to see the text around a hit; use ask for an answer to a question.",
		Annotations: readOnly,
	}, func(in *jsonschema.Schema) {
		bounds(in, "k", 1, maxK, 10)
		property(in, "query").MinLength = ptr(1)
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (SearchResult, error) {
		out := SearchResult{Hits: []SearchHit{}}
		env, err := s.environment()
		if err != nil {
			return out, err
		}
		l := env.Library
		ids, err := resolve(l, in.Documents)
		if err != nil {
			return out, err
		}
		if len(retrieve.ParseQuery(in.Query).Terms) == 0 {
			return out, fix.With(fmt.Errorf("the query %q has only stop words", in.Query), "Search for content words.")
		}
		// The shared retrieval ranks, as for 'citelens search' and ask:
		// the latest versions when no document is named, the configured
		// embedding model and reranker.
		var rep searchWarnings
		ps, err := engine.Search(ctx, env, in.Query, engine.SearchOptions{Docs: ids, K: min(max(in.K, 1), maxK)}, &rep)
		if err != nil {
			return out, err
		}
		for _, p := range ps {
			d, err := l.Document(p.Doc)
			if err != nil {
				return out, err
			}
			out.Hits = append(out.Hits, SearchHit{Score: p.Score, Citation: citationOf(citations.SpanOf(d, p.First, p.Last))})
		}
		out.Warnings = rep.warnings
		return out, nil
	})
}

// searchWarnings keeps a search's warnings (a model that failed) for its
// result; stages and cost are not reported.
type searchWarnings struct{ warnings []string }

func (r *searchWarnings) Stage(string)    {}
func (r *searchWarnings) Usage(llm.Usage) {}
func (r *searchWarnings) Warn(s string)   { r.warnings = append(r.warnings, s) }

// AskInput is ask's input.
type AskInput struct {
	Question  string            `json:"question" jsonschema:"the question, in words"`
	Documents []string          `json:"documents,omitempty" jsonschema:"answer from these documents only (IDs, ID prefixes or file names); all when empty"`
	Strategy  string            `json:"strategy,omitempty" jsonschema:"how to answer (see the tool's description)"`
	K         int               `json:"k,omitempty" jsonschema:"for extractive, at most this many statements; for the retrieval strategies, the passages retrieved; the strategy's default when absent"`
	Options   map[string]string `json:"options,omitempty" jsonschema:"more of the strategy's options by name ('citelens strategies NAME' lists them)"`
}

// Statement is one statement of an answer.
type Statement struct {
	Text      string           `json:"text" jsonschema:"the statement: the document's own words for extractive, the model's for the others"`
	Citations []CitedPassage   `json:"citations" jsonschema:"the passages it cites"`
	Needs     bool             `json:"needs_citation,omitempty" jsonschema:"an uncited statement that states a fact: treat it as unsupported"`
	Warnings  []string         `json:"warnings,omitempty" jsonschema:"citations the model gave that were dropped or cut, and why"`
	Unfinish  bool             `json:"unfinished,omitempty" jsonschema:"the model was writing this statement when the answer stopped"`
	Relevance *RelevanceOfText `json:"relevance,omitempty" jsonschema:"for a quoted statement, how well it matches the question"`
}

// CitedPassage is a citation with how well it supports its statement.
type CitedPassage struct {
	Citation
	Support string  `json:"support,omitempty" jsonschema:"supported, partial or unsupported: the offline check of the statement's words against the cited text"`
	Score   float64 `json:"score" jsonschema:"the support score, 0 to 1"`
}

// RelevanceOfText is citations.Relevance.
type RelevanceOfText struct {
	Matched   []string `json:"matched" jsonschema:"the question's words the quote holds"`
	InHeading []string `json:"in_heading,omitempty" jsonschema:"the question's words only the heading the quote lies under holds"`
	Of        int      `json:"of" jsonschema:"the question's words that count"`
	Coverage  float64  `json:"coverage" jsonschema:"the share of the question's weight held, 0 to 1"`
	Band      string   `json:"band" jsonschema:"strong, fair or weak"`
}

// Cost is what an answer took.
type Cost struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	ModelCalls       int     `json:"model_calls"`
	Estimated        bool    `json:"estimated,omitempty" jsonschema:"some token counts were estimated, not reported by the server"`
	Seconds          float64 `json:"seconds" jsonschema:"wall time"`
}

// AskResult is ask's output.
type AskResult struct {
	AnswerID   string      `json:"answer_id"`
	Question   string      `json:"question"`
	Strategy   string      `json:"strategy"`
	Model      string      `json:"model,omitempty" jsonschema:"the model that wrote the answer; none for extractive"`
	Documents  []string    `json:"documents" jsonschema:"the IDs of the documents it was answered from"`
	Statements []Statement `json:"statements" jsonschema:"the answer, statement by statement; empty when nothing in the documents answers"`
	Warnings   []string    `json:"warnings,omitempty" jsonschema:"what the reader of the answer should know"`
	Partial    bool        `json:"partial,omitempty" jsonschema:"the answer stopped part-way (error says why)"`
	Error      string      `json:"error,omitempty"`
	Cost       Cost        `json:"cost"`
	Saved      bool        `json:"saved" jsonschema:"the answer was saved in the library (only when the server allows writes)"`
}

func (s *Server) addAsk() {
	var names, desc []string
	for _, info := range engine.Strategies() {
		names = append(names, info.Name())
		line := fmt.Sprintf("%s: %s", info.Name(), info.Description)
		if info.NeedsLLM {
			line += " (needs a model)"
		}
		desc = append(desc, line)
	}
	addTool(s, &mcp.Tool{
		Name:  "ask",
		Title: "Answer a question with citations",
		Description: "Answer a question from the library's documents as statements, each citing the exact sentences it rests on (document, sentence range, byte range, page as printed, text) with an offline support verdict. " +
			"Progress notifications report the answer's stages and each statement as it is written; cancelling the call stops the answer. " +
			"The strategies (default " + s.opts.Strategy + "):\n- " + strings.Join(desc, "\n- "),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !s.opts.AllowWrites, OpenWorldHint: ptr(false)},
	}, func(in *jsonschema.Schema) {
		property(in, "question").MinLength = ptr(1)
		st := property(in, "strategy")
		for _, n := range names {
			st.Enum = append(st.Enum, n)
		}
		st.Default = []byte(strconv.Quote(s.opts.Strategy))
		bounds(in, "k", 1, maxAskK, 0)
	}, s.ask)
}

// maxAskK bounds ask's k, the field and options.k alike: a client must
// not buy minutes of the server's time with a large number in a string.
const maxAskK = 400

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in AskInput) (AskResult, error) {
	var out AskResult
	env, err := s.environment()
	if err != nil {
		return out, err
	}
	ids, err := scope(env.Library, in.Documents)
	if err != nil {
		return out, err
	}
	name := in.Strategy
	if name == "" {
		name = s.opts.Strategy
	}
	strategy, err := engine.New(name, env)
	if err != nil {
		return out, err
	}
	var opts []engine.Setting
	keys := make([]string, 0, len(in.Options))
	for k := range in.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first option the strategy cannot use is the one reported: the same each time
	for _, k := range keys {
		if strings.TrimSpace(k) == "k" {
			// The schema bounds the field; the same number in a string
			// is bounded here.
			n, err := strconv.Atoi(strings.TrimSpace(in.Options[k]))
			if err != nil || n < 1 || n > maxAskK {
				return out, fmt.Errorf("%w: options.k=%q: give a whole number from 1 to %d", engine.ErrOption, textproc.OneLine(in.Options[k]), maxAskK)
			}
		}
		opts = append(opts, engine.Setting{Name: k, Value: in.Options[k]})
	}
	if in.K > 0 {
		opts = append(opts, engine.Setting{Name: "k", Value: strconv.Itoa(in.K)})
	}
	p := newProgress(ctx, req)
	defer p.settle()
	ans, runErr := engine.Run(ctx, env, strategy, engine.Request{Question: in.Question, Docs: ids, Options: opts}, p.event)
	if s.answered != nil {
		s.answered(ans, runErr)
	}
	if ans == nil {
		return out, runErr
	}
	if engine.Canceled(runErr) {
		// The client stopped the call and reads no result; the partial
		// answer is not saved either, as the terminal UI's is not.
		return out, runErr
	}
	if s.opts.AllowWrites {
		if err := engine.Save(env.Library, ans); err != nil {
			return out, err
		}
		out.Saved = !ans.Partial || len(ans.Statements) > 0
	}
	if runErr != nil && len(ans.Statements) == 0 {
		return out, runErr
	}
	return answerOf(ans, out.Saved), nil
}

// answerOf is an answer as ask returns it.
func answerOf(ans *engine.Answer, saved bool) AskResult {
	out := AskResult{AnswerID: ans.ID, Question: ans.Question, Strategy: ans.Strategy, Model: ans.Model, Documents: []string{},
		Statements: []Statement{}, Warnings: ans.Warnings, Partial: ans.Partial, Error: ans.Error, Saved: saved,
		Cost: Cost{PromptTokens: ans.Usage.PromptTokens, CompletionTokens: ans.Usage.CompletionTokens, ModelCalls: ans.Usage.LLMCalls,
			Estimated: ans.Usage.Estimated, Seconds: ans.Seconds}}
	for _, d := range ans.Docs {
		out.Documents = append(out.Documents, string(d.ID))
	}
	for _, st := range ans.Statements {
		o := Statement{Text: st.Text, Citations: []CitedPassage{}, Needs: st.NeedsCitation, Warnings: st.Warnings, Unfinish: st.Unfinished}
		if r := st.Relevance; r != nil {
			o.Relevance = &RelevanceOfText{Matched: r.Matched, InHeading: r.InHeading, Of: r.Of, Coverage: r.Coverage, Band: r.Band}
		}
		for i, c := range st.Citations {
			cp := CitedPassage{Citation: citationOf(c)}
			if i < len(st.Support) {
				cp.Support, cp.Score = string(st.Support[i].Level), st.Support[i].Score
			}
			o.Citations = append(o.Citations, cp)
		}
		out.Statements = append(out.Statements, o)
	}
	return out
}

// AddDocumentInput is add_document's input.
type AddDocumentInput struct {
	Path string `json:"path" jsonschema:"the absolute path of the file to add, on the machine citelens runs on"`
}

// AddDocumentResult is add_document's output.
type AddDocumentResult struct {
	Document DocumentInfo `json:"document"`
	Existed  bool         `json:"existed" jsonschema:"the same content was already in the library, and nothing was added"`
	Seconds  float64      `json:"seconds"`
}

func (s *Server) addAddDocument() {
	addTool(s, &mcp.Tool{
		Name:        "add_document",
		Title:       "Add a document",
		Description: "Add a file to the library (PDF, scanned PDF, web page, Word file, e-book, text or Markdown), so search and ask can use it. Progress notifications report the pages read. Adding the same content again changes nothing.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, func(in *jsonschema.Schema) {
		property(in, "path").MinLength = ptr(1)
	}, func(ctx context.Context, req *mcp.CallToolRequest, in AddDocumentInput) (AddDocumentResult, error) {
		var out AddDocumentResult
		env, err := s.environment()
		if err != nil {
			return out, err
		}
		l := env.Library
		start := time.Now()
		p := newProgress(ctx, req)
		defer p.settle()
		// Read as the configuration says (OCR).
		adder := ingest.New(l, &ingest.Options{Load: ingest.LoadOptionsFor(env.Config)})
		info, existed, err := adder.Add(ctx, in.Path, func(pr ingest.Progress) { p.add(pr) })
		if err != nil {
			if engine.Canceled(err) {
				return out, fmt.Errorf("adding %s was cancelled; nothing of it was written: %w", in.Path, err)
			}
			return out, err
		}
		d, err := l.Document(info.ID)
		if err != nil {
			return out, err
		}
		return AddDocumentResult{Document: infoOf(d), Existed: existed, Seconds: time.Since(start).Seconds()}, nil
	})
}
