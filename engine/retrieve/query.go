package retrieve

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// AnswerType is what kind of fact a question asks for, read from its
// question words. A sentence that contains a fact of that kind is more
// likely to answer it.
type AnswerType uint8

// Answer types.
const (
	AnyAnswer   AnswerType = iota
	TimeAnswer             // "when", "what year", "in which century": years and dates
	CountAnswer            // "how many", "how much", "how old", "what percentage": numbers
	NameAnswer             // "who", "whom", "whose": names of people or bodies
)

// query is an analysed question: its index terms with their weights, the
// phrases it names and the kind of answer it wants.
type query struct {
	text  string
	q     Query
	index map[string]int // term -> index in q.Terms
	// weight[t] is the term's importance: its idf times its query weight.
	weight []float64
	total  float64 // sum of weight
	// pairs are consecutive query terms (with at most stop words between
	// them in the question), for phrase matches: multi-word names.
	pairs []termPair
	want  AnswerType
	// orig is the number of the question's own terms; terms after them
	// were added by the second hop (see Weights.Hop).
	orig int
	// code: the question asks for code, syntax or a command (asksCode).
	code bool
	// how: the question asks how to do something (see asksHow).
	how bool
	// def: the question asks for a default (see asksDefault).
	def bool
	// negated are the terms the question uses inside a negated compound
	// ("non-linear"); elsewhere a term in such a compound is no match.
	negated map[string]bool
}

type termPair struct {
	a, b int // query term indices, a before b in the question
	gap  int // words between them in the question (stop words)
}

func parseQuery(text string) *query {
	q := &query{text: text, q: ParseQuery(text), index: map[string]int{}}
	for i, t := range q.q.Terms {
		q.index[t] = i
	}
	// Phrases: consecutive content words of the question.
	prev, prevPos, pos := -1, 0, 0
	textproc.Words(text, func(s, e int) {
		t := textproc.Term(text[s:e])
		if t != "" {
			if i, ok := q.index[t]; ok {
				if prev >= 0 && prev != i && pos-prevPos <= 3 {
					q.pairs = append(q.pairs, termPair{a: prev, b: i, gap: pos - prevPos - 1})
				}
				prev, prevPos = i, pos
			}
		}
		pos++
	})
	q.want = answerType(text)
	q.orig = len(q.q.Terms)
	q.code = asksCode(text)
	q.how = asksHow(text)
	q.def = asksDefault(text)
	q.negated = negatedTerms(text)
	for _, t := range frameTerms(text) {
		if i, ok := q.index[t]; ok {
			q.q.Weights[i] *= FrameWeight
		}
	}
	return q
}

// FrameWeight is the weight of a word that frames a question rather than
// naming what it is about: "happens" in "What happens if I violate the
// licence?", "mean" in "What does RAIDD mean?". At full weight a rare
// frame word ranks a sentence that says only "this happens at the end
// of a session" above the one about violating the licence.
const FrameWeight = 0.25

// frameTerms returns the index terms of the words that frame text as a
// question: "what happens/happened (if, when, to …)", "what does … mean",
// "what does … stand for", "how much", "how many".
func frameTerms(text string) []string {
	words := foldedWords(text)
	var out []string
	for i, w := range words {
		if i == 0 || words[i-1] != "what" && (i < 2 || words[i-2] != "what") {
			continue
		}
		switch w {
		case "happens", "happened", "happen":
			out = append(out, textproc.Term(w))
		}
	}
	// "How much bigger…", "how many digits…": the quantity asked for
	// is the answer's (Weights.Quantity), the word is not.
	for i, w := range words {
		if i > 0 && words[i-1] == "how" && (w == "much" || w == "many") {
			if t := textproc.Term(w); t != "" {
				out = append(out, t)
			}
		}
	}
	if len(words) >= 3 && words[0] == "what" && (words[1] == "does" || words[1] == "do") {
		switch last := words[len(words)-1]; {
		case last == "mean":
			out = append(out, textproc.Term(last))
		case last == "for" && words[len(words)-2] == "stand":
			out = append(out, textproc.Term("stand"))
		}
	}
	// "What should X look like?", "what does X look like?"
	if looksLike(words) {
		out = append(out, textproc.Term("look"))
	}
	return append(out, defaultFrame(words)...)
}

// defaultFrame returns the index terms of the words with which a
// question asks for a default without the word: "unless told
// otherwise", "unless I say so". The documents
// state a default in other words ("compression = 9", "the default is"),
// so these words would only find sentences about being told or saying.
// ("without specifying" is left as it is: "without" and the verb are
// often the question's own, "--with-blas without naming a library".)
func defaultFrame(words []string) []string {
	var out []string
	add := func(ws ...string) {
		for _, w := range ws {
			if t := textproc.Term(w); t != "" {
				out = append(out, t)
			}
		}
	}
	for i, w := range words {
		switch w {
		case "unless":
			add(w)
			// "unless told otherwise", "unless I say so", "unless it is set"
			for _, n := range words[i+1 : min(i+5, len(words))] {
				switch n {
				case "told", "tell", "say", "said", "says", "specified", "specify", "given", "set", "stated", "asked", "otherwise", "so":
					add(n)
				}
			}
		case "otherwise":
			add(w)
		}
	}
	return out
}

// looksLike reports whether a question's words ask what something looks
// like: "what" first, "look like" (or "looks like") last.
func looksLike(words []string) bool {
	n := len(words)
	return n >= 4 && words[0] == "what" && words[n-1] == "like" && (words[n-2] == "look" || words[n-2] == "looks")
}

// extend returns q with terms added at weight w (relative to a question
// term's), for the second hop.
func (q *query) extend(terms []string, w float64) *query {
	e := *q
	e.q.Terms = slices.Clone(q.q.Terms)
	e.q.Weights = slices.Clone(q.q.Weights)
	e.index = maps.Clone(q.index)
	for _, t := range terms {
		if _, dup := e.index[t]; dup {
			continue
		}
		e.index[t] = len(e.q.Terms)
		e.q.Terms = append(e.q.Terms, t)
		e.q.Weights = append(e.q.Weights, w)
	}
	return &e
}

// withContext returns q with the index terms of text it lacks added at
// ContextWeight. A question with no words of its own ("and then?")
// takes the context's as its own, at that weight, so coverage and
// phrases have something to count.
func (q *query) withContext(text string) *query {
	c := ParseQuery(text)
	if len(q.q.Terms) == 0 {
		e := parseQuery(text)
		for i := range e.q.Weights {
			e.q.Weights[i] *= ContextWeight
		}
		e.text = q.text
		if q.want != AnyAnswer {
			e.want = q.want // "and when?" still asks for a date
		}
		return e
	}
	return q.extend(c.Terms, ContextWeight)
}

// setWeights fills the term weights from the scope's statistics.
func (q *query) setWeights(st docstore.FieldStats) {
	q.weight = make([]float64, len(q.q.Terms))
	q.total = 0
	for t := range q.q.Terms {
		w := 1.0
		if q.q.Weights != nil {
			w = q.q.Weights[t]
		}
		q.weight[t] = w * fieldIDF(st, t)
		if t < q.orig {
			q.total += q.weight[t]
		}
	}
}

// defaultTerm is the index term of "default".
var defaultTerm = textproc.Term("default")

// asksDefault reports whether a question asks what happens when the user
// leaves something unset: "by default", "out of the box", "unless I change
// it", "if I don't give an angle", "without saying which". Manuals and
// specifications state those answers as defaults ("the default is 1.0",
// "by default, these options are off"), in words the question lacks.
func asksDefault(question string) bool {
	words := foldedWords(question)
	for i, w := range words {
		next := func(k int) string {
			if i+k < len(words) {
				return words[i+k]
			}
			return ""
		}
		switch w {
		case "default", "defaults", "preset", "assumed", "assume", "assumes":
			return true
		case "box":
			if i >= 2 && words[i-2] == "of" && words[i-1] == "the" && i >= 3 && words[i-3] == "out" {
				return true
			}
		case "unless":
			return true
		case "without":
			switch next(1) {
			case "saying", "specifying", "naming", "giving", "setting", "choosing", "telling", "any", "a", "an":
				return true
			}
		case "don't", "dont", "never", "not":
			if i > 0 && (words[i-1] == "i" || words[i-1] == "you" || words[i-1] == "do" || words[i-1] == "if") {
				switch next(1) {
				case "give", "set", "say", "specify", "change", "position", "configure", "assign", "assigned", "ask", "name", "choose", "pass", "provide", "touch":
					return true
				}
			}
		case "leave", "leaves", "left", "omit", "omits", "omitted":
			return true
		}
	}
	return false
}

// answerType reads the question words of a question.
func answerType(question string) AnswerType {
	words := foldedWords(question)
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch w {
		case "when":
			return TimeAnswer
		case "year", "years", "century", "decade", "date":
			// "what year", "which century", "in what decade"
			if i > 0 && (words[i-1] == "what" || words[i-1] == "which") {
				return TimeAnswer
			}
		case "how":
			switch next {
			case "many", "much", "old", "long", "far", "large", "big", "tall", "high", "often",
				"small", "fast", "slow", "precise", "accurate", "wide", "deep", "heavy", "frequently":
				return CountAnswer
			}
		case "number", "percentage", "percent", "population", "amount":
			if i > 0 && (words[i-1] == "what" || words[i-1] == "which" || words[i-1] == "the") {
				return CountAnswer
			}
		case "least", "most", "largest", "smallest", "maximum", "minimum", "fewest", "highest", "lowest":
			// "what is the least memory…", "the largest number of…": a
			// limit is a quantity. ("which is the most important" is
			// not, but then no quantity answers it either.)
			if i > 0 && words[i-1] == "the" && next != "important" && next != "common" && next != "popular" {
				return CountAnswer
			}
		case "who", "whom", "whose":
			return NameAnswer
		}
	}
	return AnyAnswer
}

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true,
	"july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

var numberWords = map[string]bool{
	"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
	"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true,
	"twenty": true, "thirty": true, "forty": true, "fifty": true, "hundred": true,
	"thousand": true, "million": true, "billion": true, "dozen": true, "half": true,
	"once": true, "twice": true,
}

// isYear reports whether w is a plausible year ("1776", "1990s").
func isYear(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if len(w) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return w[0] == '1' || (w[0] == '2' && w[1] == '0')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// has reports whether t is one of the question's own terms.
func (q *query) has(t string) bool {
	_, ok := q.index[t]
	return t != "" && ok
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if '0' <= w[i] && w[i] <= '9' {
			return true
		}
	}
	return false
}

func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// foldedWords returns text's words, case- and accent-folded, in order:
// what the question readers (answerType, asksDefault, frameTerms) match.
func foldedWords(text string) []string {
	var words []string
	textproc.Words(text, func(s, e int) {
		words = append(words, textproc.Fold(text[s:e]))
	})
	return words
}
