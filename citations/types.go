// Package citations turns model text into statements whose citations are
// byte ranges in documents, judges how well each citation supports its
// statement, scores answers against gold evidence, and writes answers out
// with their evidence.
//
// It depends only on docstore (types, and textproc for words and stems).
package citations

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/cost"
)

// Span is one resolved citation: a run of whole sentences of one document.
type Span struct {
	Doc     docstore.DocID `json:"doc"`
	DocName string         `json:"doc_name"`
	First   int            `json:"first_sentence"` // sentence indices in the document, inclusive
	Last    int            `json:"last_sentence"`
	Start   int            `json:"start"` // byte offsets into the document's stored text
	End     int            `json:"end"`
	Page    int            `json:"page"`
	// Printed is the page's own label as the document prints it ("xii",
	// "316", "A-3"), when it has labels and this one differs from Page
	// (a PDF's /PageLabels); "" otherwise.
	Printed string `json:"page_label,omitempty"`
	// Heading is the heading path the cited sentences lie under, "7 Data
	// import > 7.1 Spreadsheet-like data" ("" when under none).
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text"` // the cited bytes, Text == doc.Text[Start:End]
	// OCR is set when the cited page was read by OCR from a scan, so its
	// text may hold recognition errors.
	OCR bool `json:"ocr,omitempty"`
}

// PageLabel names the cited page for people: "p. 3"; the page as
// printed with the file's page beside it when they differ, "p. 316 (PDF
// p. 347)"; with "(OCR)" when the page was read by OCR.
func (s Span) PageLabel() string {
	label := fmt.Sprintf("p. %d", s.Page)
	if s.Printed != "" {
		label = fmt.Sprintf("p. %s (PDF p. %d)", s.Printed, s.Page)
	}
	if s.OCR {
		label += " (OCR)"
	}
	return label
}

// Level is a support verdict.
type Level string

// Support levels, from best to worst.
const (
	Supported   Level = "supported"
	Partial     Level = "partial"
	Unsupported Level = "unsupported"
)

// Verdict is how well one citation supports its statement.
type Verdict struct {
	Level Level   `json:"support"`
	Score float64 `json:"score"`           // 0..1
	Judge string  `json:"judge,omitempty"` // "offline", or the judge model's name
}

// Statement is one statement of an answer with its citations.
type Statement struct {
	Text      string    `json:"text"`
	Citations []Span    `json:"citations"`
	Support   []Verdict `json:"-"` // one per citation, same order (JSON: inside each citation)
	// NeedsCitation is set on an uncited statement that states a fact (as
	// opposed to introducing, transitioning or summarising).
	NeedsCitation bool `json:"needs_citation,omitempty"`
	// Warnings report what was dropped or changed while resolving the
	// model's citations (out-of-range numbers, capped lists).
	Warnings []string `json:"warnings,omitempty"`
	// Unfinished marks the statement the model was writing when the
	// answer stopped (see UnfinishedStatement): cut short, uncited.
	Unfinished bool `json:"unfinished,omitempty"`
	// Relevance, set by strategies that quote the documents rather than
	// write (extractive), says which of the question's words the quote
	// holds; for a quote, support is true by construction and says
	// nothing (see StatementMark).
	Relevance *Relevance `json:"relevance,omitempty"`
}

// Relevance is how well a quoted statement matches the question it was
// retrieved for.
type Relevance struct {
	// Matched are the question's words found in the quote, as the
	// question writes them; InHeading those found only in the heading it
	// lies under; Of counts the question's words that count (its index
	// terms).
	Matched   []string `json:"matched"`
	InHeading []string `json:"in_heading,omitempty"`
	Of        int      `json:"of"`
	// Coverage is the share of the question's weight (its terms by
	// rarity in the scope) the quote and its heading hold, 0..1.
	Coverage float64 `json:"coverage"`
	// Band reads Coverage: RelevanceStrong, RelevanceFair or
	// RelevanceWeak. It is kept for scripts; people are shown the words
	// (StatementMark), which a band's name can belie.
	Band string `json:"band"`
}

// Relevance bands, and the coverage each starts at.
const (
	RelevanceStrong = "strong"
	RelevanceFair   = "fair"
	RelevanceWeak   = "weak"

	StrongCoverage = 0.7
	FairCoverage   = 0.4
)

// RelevanceBand names a coverage's band.
func RelevanceBand(coverage float64) string {
	switch {
	case coverage >= StrongCoverage:
		return RelevanceStrong
	case coverage >= FairCoverage:
		return RelevanceFair
	}
	return RelevanceWeak
}

// Usage counts the model work behind an answer (internal/cost: the
// model client counts in the same type).
type Usage = cost.Usage

// Answer is a finished (or cancelled) answer: the lossless record that is
// saved in the library and exported.
type Answer struct {
	ID       string   `json:"answer_id"`
	Question string   `json:"question"`
	Strategy string   `json:"strategy"`
	Model    string   `json:"model"`
	Docs     []DocRef `json:"docs"` // the scope it was asked over
	// Library, for a question asked over a whole library too large to
	// list in Docs, is the number of documents it held (Docs is then
	// empty).
	Library int `json:"library,omitempty"`
	// Options are the strategy's options as the question gave them
	// ("k=5"), in order; the strategy's defaults are not repeated.
	Options []string `json:"options,omitempty"`
	// Retrieval says how the answer's evidence was found ("words and
	// meaning (bge-m3), reranked by bge-reranker-v2-m3"), "" when the
	// strategy read the whole scope or recorded none.
	Retrieval  string      `json:"retrieval,omitempty"`
	Statements []Statement `json:"statements"`
	Stages     []string    `json:"stages"`
	// Plan is a strategy's account of what it chose to do and why (OkraLong's
	// workflow), as a JSON-able value; nil for strategies without one.
	Plan     any       `json:"plan,omitempty"`
	Usage    Usage     `json:"usage"`
	Seconds  float64   `json:"seconds"`
	Created  time.Time `json:"created"`
	Partial  bool      `json:"partial,omitempty"` // cancelled or failed part-way
	Error    string    `json:"error,omitempty"`   // why it is partial
	Warnings []string  `json:"warnings,omitempty"`
	// Reasoning is a reasoning model's thinking behind the answer (its
	// <think> blocks and reasoning_content), a block per model call: kept
	// for the reader, never part of the statements, never cited.
	Reasoning string `json:"reasoning,omitempty"`
	// FollowUp is set when the question was asked as a follow-up to
	// earlier ones in a conversation; Question stays as asked.
	FollowUp *FollowUp `json:"follow_up,omitempty"`
	// Thread is the ID of the first answer of the thread this one
	// continues (a follow-up asked where that thread's last answer was
	// the conversation): a saved conversation is resumed, listed and
	// exported by it. Empty for an answer that starts a thread (its own
	// ID is the thread's) and for answers saved before threads were.
	Thread string `json:"thread,omitempty"`
	// Shown is the text the model was shown to answer from, as byte
	// ranges (Numbering.Shown of each prompt that numbered text), for
	// eval's chunk-retrieval figure; nil when no model read the
	// documents. It is not stored or exported: it can be as long as the
	// scope.
	Shown []Range `json:"-"`
}

// FollowUp says how a follow-up question was read.
type FollowUp struct {
	// After are the earlier questions given to the model as conversation
	// context (with their answers), oldest first.
	After []string `json:"after"`
	// Standalone is the question rewritten to stand on its own, which
	// retrieval used; "" when it was not rewritten (no model), and the
	// previous question's words joined the search at a lower weight.
	Standalone string `json:"standalone,omitempty"`
	// ContextTokens estimates what the conversation context adds to each
	// prompt that answers (part of Usage's prompt tokens).
	ContextTokens int `json:"context_tokens,omitempty"`
}

// DocRef names a document in an answer's scope.
type DocRef struct {
	ID   docstore.DocID `json:"id"`
	Name string         `json:"name"`
}

// IsQuote reports whether the statement is, word for word, the text of its
// one citation: the document's own words (as the extractive strategy writes
// them) rather than a model's prose. Quotes are shown and exported verbatim,
// never read as Markdown.
func (s *Statement) IsQuote() bool {
	return len(s.Citations) == 1 && strings.TrimSpace(s.Text) == strings.TrimSpace(s.Citations[0].Text)
}

// statementJSON is a statement as JSON: each citation carries its own
// verdict, which is how a reader (or a script) wants it. The answer record
// saved in the library, the JSON export and `ask --json` all use it.
type statementJSON struct {
	Text          string         `json:"text"`
	Citations     []citationJSON `json:"citations"`
	NeedsCitation bool           `json:"needs_citation,omitempty"`
	Warnings      []string       `json:"warnings,omitempty"`
	Unfinished    bool           `json:"unfinished,omitempty"`
	Relevance     *Relevance     `json:"relevance,omitempty"`
}

type citationJSON struct {
	Span
	Support Level   `json:"support,omitempty"`
	Score   float64 `json:"score"`
	Judge   string  `json:"judge,omitempty"`
}

// MarshalJSON writes the statement with each verdict inside its citation.
func (s Statement) MarshalJSON() ([]byte, error) {
	out := statementJSON{Text: s.Text, NeedsCitation: s.NeedsCitation, Warnings: s.Warnings, Unfinished: s.Unfinished, Relevance: s.Relevance,
		Citations: make([]citationJSON, len(s.Citations))}
	for i, c := range s.Citations {
		out.Citations[i].Span = c
		if i < len(s.Support) {
			v := s.Support[i]
			out.Citations[i].Support, out.Citations[i].Score, out.Citations[i].Judge = v.Level, v.Score, v.Judge
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes. Support has one verdict per
// citation when any citation carries one, and is nil otherwise.
func (s *Statement) UnmarshalJSON(b []byte) error {
	var in statementJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*s = Statement{Text: in.Text, NeedsCitation: in.NeedsCitation, Warnings: in.Warnings, Unfinished: in.Unfinished, Relevance: in.Relevance,
		Citations: make([]Span, len(in.Citations))}
	judged := false
	for i, c := range in.Citations {
		s.Citations[i] = c.Span
		judged = judged || c.Support != ""
	}
	if judged {
		s.Support = make([]Verdict, len(in.Citations))
		for i, c := range in.Citations {
			s.Support[i] = Verdict{Level: c.Support, Score: c.Score, Judge: c.Judge}
		}
	}
	return nil
}
