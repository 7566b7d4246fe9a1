package citations

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// Offline support verification.
//
// A citation's support score is the weighted fraction of the statement's
// content terms (textproc.Terms: case-folded, stop words dropped, stemmed —
// the index's own analysis) that occur among the cited text's terms. Each
// distinct term counts once. A term with a digit, a number word ("two" =
// "2") or a scale word ("million") is a number: it must match exactly (after
// dropping thousands separators, so "1,000" = "1000") and weighs NumberWeight, because a wrong figure is the error a reader most
// needs flagged. A statement whose words appear verbatim, in order, in the
// cited text (case and whitespace aside, at least QuoteMinWords words) is an
// exact quote and scores 1.
//
// The score maps to a level the way LongCite's judge prompts grade
// (Figures 7 and 9): Supported from SupportedAt (most of the statement is
// in the snippet), Partial from PartialAt (some key point of it is: a
// statement listing four films, citing one sentence per film, gets a
// partial verdict on each), Unsupported below (unrelated sentences share a
// common word or two at most and score about 0.1). A number of the statement missing from the cited text caps the
// level at Partial, whatever the score: the snippet may say the rest, but
// not that figure.
const (
	SupportedAt   = 0.7
	PartialAt     = 0.2
	NumberWeight  = 3.0
	QuoteMinWords = 4
	// OfflineJudge names this verifier in Verdict.Judge.
	OfflineJudge = "offline"
)

// analysis is a text's terms for scoring.
type analysis struct {
	terms  map[string]bool // content terms, numbers normalised
	words  string          // " w1 w2 … " folded words, for the exact-quote test
	nwords int
}

func analyse(text string) analysis {
	a := analysis{terms: map[string]bool{}}
	for _, t := range textproc.Terms(text) {
		a.terms[numKey(t)] = true
	}
	var b strings.Builder
	b.Grow(len(text) + 2)
	b.WriteByte(' ')
	textproc.Words(text, func(s, e int) {
		b.WriteString(textproc.Fold(numKey(text[s:e])))
		b.WriteByte(' ')
		a.nwords++
	})
	a.words = b.String()
	return a
}

// numKey normalises a number term: thousands separators go ("1,000" =
// "1000") and a number word becomes its digits ("two" = "2").
func numKey(t string) string {
	if d, ok := numberWords[t]; ok {
		return d
	}
	if isNumber(t) && strings.IndexByte(t, ',') >= 0 {
		return strings.ReplaceAll(t, ",", "")
	}
	return t
}

// isNumber reports whether a (normalised) term is a number: it has a digit,
// or it is a scale word such as "million".
func isNumber(t string) bool {
	for i := 0; i < len(t); i++ {
		if '0' <= t[i] && t[i] <= '9' {
			return true
		}
	}
	return scaleWords[t]
}

// numberWords maps the terms of number words to digits. "one" is left out:
// it is mostly a pronoun ("one of the films").
var numberWords = map[string]string{}

// scaleWords are the terms of words that scale a number; a statement saying
// "million" where its source says "billion" misquotes a figure.
var scaleWords = map[string]bool{}

func init() {
	for i, w := range []string{"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"} {
		numberWords[textproc.Term(w)] = strconv.Itoa(i + 2)
	}
	for i, w := range []string{"thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		numberWords[textproc.Term(w)] = strconv.Itoa(30 + 10*i)
	}
	for _, w := range []string{"hundred", "thousand", "million", "billion", "trillion", "dozen"} {
		scaleWords[textproc.Term(w)] = true
	}
}

// Support judges how well cited supports statement, offline.
func Support(statement, cited string) Verdict {
	return support(analyse(statement), analyse(cited))
}

func support(st, ct analysis) Verdict {
	if len(st.terms) == 0 {
		return Verdict{Level: Unsupported, Score: 0, Judge: OfflineJudge}
	}
	if st.nwords >= QuoteMinWords && strings.Contains(ct.words, st.words) {
		return Verdict{Level: Supported, Score: 1, Judge: OfflineJudge}
	}
	var have, total float64
	numberMissing := false
	for t := range st.terms {
		w := 1.0
		num := isNumber(t)
		if num {
			w = NumberWeight
		}
		total += w
		if ct.terms[t] {
			have += w
		} else if num {
			numberMissing = true
		}
	}
	score := have / total
	v := Verdict{Score: round3(score), Judge: OfflineJudge}
	switch {
	case score >= SupportedAt && !numberMissing:
		v.Level = Supported
	case score >= PartialAt:
		v.Level = Partial
	default:
		v.Level = Unsupported
	}
	return v
}

// Lexical is the lexical evidence behind an offline verdict: the
// statement's words whose index terms the cited text holds and those it
// lacks, as the statement writes them, each once. A number among the
// missing (NumberMissing) caps the verdict at Partial.
type Lexical struct {
	Verdict
	Found         []string `json:"found"`
	Missing       []string `json:"missing"`
	NumberMissing bool     `json:"number_missing,omitempty"`
}

// Explain judges how well cited supports statement, offline, as Support
// does, and says which of the statement's words the cited text holds.
func Explain(statement, cited string) Lexical {
	ct := analyse(cited)
	e := Lexical{Verdict: support(analyse(statement), ct), Found: []string{}, Missing: []string{}}
	seen := map[string]bool{}
	textproc.EachWordTerm(statement, func(word, term string) {
		key := numKey(term)
		if seen[key] {
			return
		}
		seen[key] = true
		if ct.terms[key] {
			e.Found = append(e.Found, word)
			return
		}
		e.Missing = append(e.Missing, word)
		e.NumberMissing = e.NumberMissing || isNumber(key)
	})
	return e
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// Verify fills s.Support with one offline verdict per citation and, for a
// statement without citations, sets NeedsCitation.
func Verify(s *Statement) { verify(s, nil) }

func verify(s *Statement, known map[string]bool) {
	s.Support = make([]Verdict, len(s.Citations))
	s.NeedsCitation = false
	if len(s.Citations) == 0 {
		s.NeedsCitation = needsCitation(s.Text, known)
		return
	}
	st := analyse(s.Text)
	for i, c := range s.Citations {
		s.Support[i] = support(st, analyse(c.Text))
	}
}

// VerifyAnswer verifies every statement of a. An uncited statement that
// opens with a reasoning connective ("Therefore, …") needs no citation
// unless it brings a number or a name that neither the question nor an
// earlier statement or citation mentioned.
func VerifyAnswer(a *Answer) {
	known := map[string]bool{}
	addTerms(known, a.Question)
	for i := range a.Statements {
		s := &a.Statements[i]
		verify(s, known)
		addTerms(known, s.Text)
		for _, c := range s.Citations {
			addTerms(known, c.Text)
		}
	}
}

// Joint judges all of a statement's citations together, as LongCite's
// citation recall does (the snippets concatenated); an uncited statement
// gets Unsupported with score 0.
func Joint(s *Statement) Verdict {
	if len(s.Citations) == 0 {
		return Verdict{Level: Unsupported, Judge: OfflineJudge}
	}
	var b strings.Builder
	for _, c := range s.Citations {
		b.WriteString(c.Text)
		b.WriteString("\n\n")
	}
	return Support(s.Text, b.String())
}

func addTerms(known map[string]bool, text string) {
	for _, t := range textproc.Terms(text) {
		known[numKey(t)] = true
	}
}

// NeedsCitation reports whether an uncited statement states a fact from the
// documents, and so should have cited them, rather than being one of the
// "functional sentences" LongCite's judge excuses (Figure 8: introductory
// sentences, transitions, summaries, reasoning or inference from what came
// before). It is a heuristic standing in for that judge; a statement needs
// no citation when, after a leading list marker and an interjection ("Yes,",
// "Sure!") are set aside, it
//
//   - has no content word (only stop words and punctuation);
//   - is a question, or ends with ':' (it introduces what follows);
//   - opens an answer or a summary: "Here is", "The following", "In
//     summary", "In conclusion", "Overall", "To sum up", "Let me", …;
//   - says the documents lack something: "does not mention", "no
//     information", "not specified", …;
//   - opens with a reasoning connective ("Therefore", "Thus", "So", "Hence",
//     "As a result", "This means", …) and contains no number (in
//     VerifyAnswer: no number or capitalised name new to the answer);
//   - is shorter than four words and contains no number ("Yes, both were.").
//
// Anything else states something, and needs a citation.
func NeedsCitation(text string) bool { return needsCitation(text, nil) }

var (
	openers = []string{
		"here is", "here are", "here's", "the following", "following are", "following is",
		"below is", "below are", "in summary", "to summarize", "to summarise", "summary:",
		"to sum up", "in conclusion", "in short", "in brief", "overall", "all in all",
		"let me", "let's", "i hope", "hope this", "i'm sorry", "i am sorry", "sorry",
		"as an ai", "i cannot", "i can't", "great question", "good question",
	}
	lacking = []string{
		"does not mention", "doesn't mention", "do not mention", "don't mention",
		"does not provide", "doesn't provide", "does not specify", "doesn't specify",
		"does not say", "doesn't say", "does not state", "doesn't state",
		"does not contain", "doesn't contain", "does not include", "doesn't include",
		"not mentioned", "not specified", "not stated", "not provided", "not given",
		"no information", "no mention", "no details", "there is no indication",
		"could not find", "couldn't find", "cannot find", "can't find", "unable to find",
	}
	connectives = []string{
		"therefore", "thus", "so", "hence", "consequently", "accordingly", "as a result",
		"as such", "this means", "this suggests", "this indicates", "this shows",
		"this implies", "which means", "in other words", "it follows", "that means",
		"this makes", "in this case", "that is",
	}
	interjections = []string{"yes", "no", "sure", "certainly", "of course", "indeed", "okay", "ok"}
)

func needsCitation(text string, known map[string]bool) bool {
	t := strings.TrimSpace(stripListMarker(strings.TrimSpace(text)))
	terms := textproc.Terms(t)
	if len(terms) == 0 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(t, " *_\"'”’)"))
	if last == '?' || last == ':' || last == '：' || last == '？' {
		return false
	}
	low := textproc.ASCIILower(t) // same length as t, so offsets carry over
	for _, p := range lacking {
		if strings.Contains(low, p) {
			return false
		}
	}
	for _, p := range interjections {
		if rest, ok := cutWord(low, p); ok && rest != low {
			rest = strings.TrimLeft(rest, " ,.!;—–-")
			if rest != "" {
				t = t[len(t)-len(rest):]
				low = rest
			}
			break
		}
	}
	for _, p := range openers {
		if _, ok := cutWord(low, p); ok {
			return false
		}
	}
	nwords := 0
	textproc.Words(t, func(int, int) { nwords++ })
	hasNumber := false
	for _, term := range terms {
		if isNumber(term) {
			hasNumber = true
			break
		}
	}
	for _, p := range connectives {
		if _, ok := cutWord(low, p); ok {
			return bringsNew(t, terms, known)
		}
	}
	if nwords < 4 && !hasNumber {
		return false
	}
	return true
}

// bringsNew reports whether a reasoning statement adds a number — or, when
// known terms are given, a number or capitalised name not among them.
func bringsNew(t string, terms []string, known map[string]bool) bool {
	for _, term := range terms {
		if isNumber(term) && (known == nil || !known[numKey(term)]) {
			return true
		}
	}
	if known == nil {
		return false
	}
	first := true
	isNew := false
	textproc.Words(t, func(s, e int) {
		w := t[s:e]
		r, _ := utf8.DecodeRuneInString(w)
		// One-letter words ("U.S.", "C. Robert") are initials, not names.
		if !first && unicode.IsUpper(r) && utf8.RuneCountInString(w) > 1 {
			if term := textproc.Term(w); term != "" && !known[term] {
				isNew = true
			}
		}
		first = false
	})
	return isNew
}

// cutWord reports whether s starts with the phrase p as whole words, and
// returns what follows it.
func cutWord(s, p string) (string, bool) {
	if !strings.HasPrefix(s, p) {
		return s, false
	}
	rest := s[len(p):]
	if rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return s, false
		}
	}
	return rest, true
}

// stripListMarker drops a leading "- ", "* ", "• ", "1. ", "2) " and
// Markdown emphasis.
func stripListMarker(s string) string {
	_, rest := listMarker(s)
	return strings.TrimLeft(rest, "*_# ")
}
