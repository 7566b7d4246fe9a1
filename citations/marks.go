package citations

import (
	"fmt"
	"strings"
)

// Marks are the one vocabulary in which every front end — the terminal
// UI, `ask`, the Markdown and HTML exports — says what a statement's
// evidence is.
//
// A quote (the extractive strategy's statements) cites itself, so a
// support verdict says nothing of it: its mark is which of the
// question's words it holds, named, so the reader judges the match
// rather than a band. A model's statement is marked by what the check
// of its citations found, and "supported" is said only when a check
// supported it. Marks are meant to be shown quietly: only what needs the
// reader's attention — a statement its citation does not support, a
// fact with no citation, a statement cut short — warns (Mark.Warns).

// MarkKind is what a mark says.
type MarkKind int

// The kinds of mark.
const (
	NoMark MarkKind = iota
	// MarkWords: a quote, and which of the question's words it holds.
	MarkWords
	// MarkQuote: a quote whose question words were not recorded (an
	// answer saved before they were).
	MarkQuote
	// MarkSupported, MarkPartial and MarkUnsupported: what the check of
	// a model's statement against its citation found.
	MarkSupported
	MarkPartial
	MarkUnsupported
	// MarkUncited: a statement of fact that cites nothing.
	MarkUncited
	// MarkUnfinished: the statement being written when the answer
	// stopped.
	MarkUnfinished
)

// Mark is a statement's (or one of its citations') evidence, in words.
type Mark struct {
	Kind MarkKind
	// Words are the question's words a quote holds, as the question
	// writes them; InHeading those only its heading holds; Of counts the
	// question's words that count.
	Words     []string
	InHeading []string
	Of        int
	// Verdict is the check's verdict behind MarkSupported, MarkPartial
	// and MarkUnsupported.
	Verdict Verdict
}

// StatementMark is the mark of a statement as a whole: a quote's question
// words; for a model's statement the best verdict of its citations;
// unfinished or uncited when it is so; NoMark when there is nothing to
// say.
func StatementMark(s *Statement) Mark {
	switch {
	case s.Unfinished:
		return Mark{Kind: MarkUnfinished}
	case s.Relevance != nil || s.IsQuote():
		return quoteMark(s)
	case len(s.Citations) == 0:
		if s.NeedsCitation {
			return Mark{Kind: MarkUncited}
		}
		return Mark{}
	}
	best := -1
	for i, v := range s.Support {
		if best < 0 || levelRank[v.Level] > levelRank[s.Support[best].Level] {
			best = i
		}
	}
	if best < 0 {
		return Mark{}
	}
	return verdictMark(s.Support[best])
}

// CitationMark is the mark of citation i of s, for a list of sources: a
// quote's question words, or the verdict on that citation.
func CitationMark(s *Statement, i int) Mark {
	switch {
	case s.Relevance != nil || s.IsQuote():
		return quoteMark(s)
	case i < len(s.Support):
		return verdictMark(s.Support[i])
	}
	return Mark{}
}

var levelRank = map[Level]int{Supported: 3, Partial: 2, Unsupported: 1}

func quoteMark(s *Statement) Mark {
	r := s.Relevance
	switch {
	case r == nil:
		return Mark{Kind: MarkQuote}
	case r.Of == 0:
		return Mark{} // a question of no words that count
	}
	return Mark{Kind: MarkWords, Words: r.Matched, InHeading: r.InHeading, Of: r.Of}
}

func verdictMark(v Verdict) Mark {
	k := map[Level]MarkKind{Supported: MarkSupported, Partial: MarkPartial, Unsupported: MarkUnsupported}[v.Level]
	if k == NoMark {
		return Mark{}
	}
	return Mark{Kind: k, Verdict: v}
}

// String says the mark in words: "2 of 4 question words: taxes,
// consent", "supported", "partly supported", "not supported", "no
// citation", "unfinished"; "" for NoMark.
func (m Mark) String() string {
	switch m.Kind {
	case MarkWords:
		var s string
		if len(m.Words) == 0 {
			s = fmt.Sprintf("none of the %d question words", m.Of)
		} else {
			s = fmt.Sprintf("%d of %d question words: %s", len(m.Words), m.Of, strings.Join(m.Words, ", "))
		}
		if len(m.InHeading) > 0 {
			s += "; its heading: " + strings.Join(m.InHeading, ", ")
		}
		return s
	case MarkQuote:
		return "quote"
	case MarkSupported:
		return "supported"
	case MarkPartial:
		return "partly supported"
	case MarkUnsupported:
		return "not supported"
	case MarkUncited:
		return "no citation"
	case MarkUnfinished:
		return "unfinished"
	}
	return ""
}

// Short says the mark in fewer cells, for a narrow screen: "2/4 words",
// "partly"; the same words as String otherwise.
func (m Mark) Short() string {
	switch m.Kind {
	case MarkWords:
		return fmt.Sprintf("%d/%d words", len(m.Words), m.Of)
	case MarkPartial:
		return "partly"
	}
	return m.String()
}

// Warns reports whether the mark needs the reader's attention: a
// statement its citation does not support, a fact with no citation, a
// statement cut short. Every other mark is shown quietly.
func (m Mark) Warns() bool {
	return m.Kind == MarkUnsupported || m.Kind == MarkUncited || m.Kind == MarkUnfinished
}

// Class names the mark for a style sheet: "words", "quote",
// "supported", "partial", "unsupported", "uncited", "unfinished"; "" for
// NoMark.
func (m Mark) Class() string {
	return [...]string{"", "words", "quote", "supported", "partial", "unsupported", "uncited", "unfinished"}[m.Kind]
}
