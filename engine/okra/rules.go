package okra

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// The rule-based analyzer stands in for the paper's fine-tuned model when
// no model answers (analyzer=rules, or no client) or the model's reply is
// unusable. It reads the question's wording for the question and
// information types, and the primary windows for the evidence. The rules,
// first match wins for the question type:
//
//  1. arithmetic: "how many", "how much", or a word of calculation
//     (difference, total, sum, average, mean, median, percent, percentage,
//     proportion, ratio, calculate, compute, combined, altogether), or
//     "increase/decrease/growth/decline/change in|of|by|from".
//  2. multi-source: "both", "either", "neither", "in common", "the same",
//     "compare", "comparison"; or a which/who/what question offering a
//     choice ("…, A or B?", or "A or B" with a comparative such as
//     "older", "first", "more"); or a yes/no question (is, are, was, were,
//     do, does, did, has, have, had, can, could) with a name on each side
//     of "and" ("Were Scott Derrickson and Ed Wood…").
//  3. multi-bridge: a role of another entity ("the director of…", "this
//     singer of…"); a noun phrase or a name with a relative clause ("the
//     woman who portrayed…", "of the band that…", "…University which was
//     founded…"); or a participle phrase naming another entity ("the film
//     directed by…", "a series … written and illustrated by…", "a western
//     film, starring an actress…", "the city named after…", "a company
//     based in…").
//  4. abstractive: "why", or "how" not followed by a measure word (many,
//     much, old, long, far, large, big, tall, often, high, deep, wide,
//     early, late, fast); or explain, describe, summarise/summarize,
//     summary, overview, discuss, elaborate, outline, "in what way(s)",
//     "what are the main/key/major", "what is/was the purpose/role/
//     significance/impact/effect of".
//  5. extractive otherwise.
//
// Information type: a quoted phrase makes it exact. Otherwise the share of
// the question's content words (words with an index term) that are exact
// cues — numbers, identifiers (with digits, underscores, dots or inner
// capitals: lm.fit, snake_case, iPhone), acronyms, and capitalised names
// after the first word — decides: half or more is exact, none is
// semantic, anything between is same. The paper's analyzer also looks at
// the context for this term; the rules look at the question only.
//
// Evidence contained: yes when the primary windows hold at least
// EvidenceCoverage of the question's index terms, each weighted by its idf
// in the scope (a rare name counts for more than "film"); no when they
// hold less or nothing was retrieved.

// EvidenceCoverage is the idf-weighted share of the question's terms the
// primary windows must hold for the rules to say the evidence is there.
const EvidenceCoverage = 0.75

var (
	reArithmetic = regexp.MustCompile(`\bhow (many|much)\b|\b(difference|differences|total|sum|average|mean|median|percent|percentage|proportion|ratio|calculate|compute|combined|altogether)\b|\b(increase|decrease|growth|decline|change)s? (in|of|by|from)\b`)
	reBothWords  = regexp.MustCompile(`\b(both|either|neither|in common|the same|compare|compared|comparison)\b`)
	reChoice     = regexp.MustCompile(`^(which|who|whom|whose|what)\b.*\bor\b`)
	reYesNo      = regexp.MustCompile(`^(is|are|was|were|do|does|did|has|have|had|can|could)\b`)
	reRelative   = regexp.MustCompile(`\b(the|a|an|of|by|to|for|with|from|in|on)\s+([\w'’,-]+\s+){1,4}?(who|whom|whose|which|that|where)\s+\w`)
	reParticiple = regexp.MustCompile(`\b(the|a|an)\s+([\w'’,-]+\s+){0,3}?((directed|written|produced|founded|created|composed|designed|owned|played|performed|released|published|developed|built|hosted|led|coached|managed|sung|recorded|invented|discovered|won|illustrated)( and \w+)? by|(starring|featuring) \w+|(named|known) (after|as|for)|(located|born|headquartered) in|based (in|on))\b`)
	reRole       = regexp.MustCompile(`\b(the|whose|this|that|these|its|their|his|her)\s+(director|author|founder|creator|composer|writer|producer|star|owner|father|mother|wife|husband|son|daughter|brother|sister|spouse|capital|president|leader|head|ceo|singer|member|host|coach|manager|successor|predecessor|publisher|manufacturer|parent company|headquarters)s?\s+of\b`)
	// A name followed by a relative clause, on the original casing:
	// "…represented Virginia Commonwealth University which was founded…".
	reNameRelative = regexp.MustCompile(`\S\s+\p{Lu}[\p{L}'’-]*,?\s+(who|whom|whose|which)\s+\p{Ll}`)
	reWhy          = regexp.MustCompile(`^why\b|\bwhy (is|are|was|were|do|does|did|has|have|had|would|should|could|can)\b`)
	reHow          = regexp.MustCompile(`^how\s+(\w+)`)
	reAbstract     = regexp.MustCompile(`\b(explain|explains|describe|describes|summari[sz]e|summary|overview|discuss|elaborate|outline)\b|\bin what ways?\b|\bwhat (are|were) the (main|key|major)\b|\bwhat (is|was|are|were) the (purpose|role|significance|impact|effect|effects|reason|reasons) of\b`)
	reQuoted       = regexp.MustCompile(`"[^"]+"|“[^”]+”|«[^»]+»`)
)

// measureWords follow "how" in factoid questions.
var measureWords = map[string]bool{
	"many": true, "much": true, "old": true, "long": true, "far": true, "large": true,
	"big": true, "tall": true, "often": true, "high": true, "deep": true, "wide": true,
	"early": true, "late": true, "fast": true,
}

// questionWords are capitalised at the start of a question without being
// names.
var questionWords = map[string]bool{
	"what": true, "which": true, "who": true, "whom": true, "whose": true, "when": true,
	"where": true, "why": true, "how": true, "is": true, "are": true, "was": true, "were": true,
	"do": true, "does": true, "did": true, "in": true, "the": true, "a": true, "an": true, "i": true,
}

// ruleQuestionType classifies question by the rules above, saying which
// rule decided.
func ruleQuestionType(question string) (string, string) {
	orig := strings.Join(strings.Fields(question), " ")
	q := strings.ToLower(orig)
	switch {
	case reArithmetic.MatchString(q):
		return Arithmetic, fmt.Sprintf("arithmetic: %q asks for a calculation", reArithmetic.FindString(q))
	case reBothWords.MatchString(q):
		return MultiSource, fmt.Sprintf("multi-source: %q joins several sources", reBothWords.FindString(q))
	case reChoice.MatchString(q) && strings.Contains(q, ","):
		return MultiSource, "multi-source: a choice between alternatives (\", A or B\")"
	case reChoice.MatchString(q) && reComparative(q):
		return MultiSource, "multi-source: a comparison between alternatives (\"A or B\")"
	case reYesNo.MatchString(q) && namesAroundAnd(orig):
		return MultiSource, "multi-source: a yes/no question about two names joined by \"and\""
	case reRole.MatchString(q):
		return MultiBridge, fmt.Sprintf("multi-bridge: %q is an entity to find first", reRole.FindString(q))
	case reRelative.MatchString(q):
		return MultiBridge, fmt.Sprintf("multi-bridge: %q is a relative clause to resolve first", strings.TrimSpace(reRelative.FindString(q)))
	case reNameRelative.MatchString(orig):
		return MultiBridge, fmt.Sprintf("multi-bridge: %q is a relative clause to resolve first", strings.TrimSpace(reNameRelative.FindString(orig)))
	case reParticiple.MatchString(q):
		return MultiBridge, fmt.Sprintf("multi-bridge: %q names an entity to find first", reParticiple.FindString(q))
	case reWhy.MatchString(q):
		return Abstractive, "abstractive: a \"why\" question"
	case reAbstract.MatchString(q):
		return Abstractive, fmt.Sprintf("abstractive: %q asks for an account", reAbstract.FindString(q))
	}
	if m := reHow.FindStringSubmatch(q); m != nil && !measureWords[m[1]] {
		return Abstractive, "abstractive: a \"how\" question that is not about a measure"
	}
	return Extractive, "extractive: no rule for another type matched"
}

// namesAroundAnd reports a capitalised name (after the first word) on
// each side of the question's first "and": "Were Scott Derrickson and Ed
// Wood…", "Is Cypress a genus of plants and Ajuga a genus…".
func namesAroundAnd(orig string) bool {
	fields := strings.Fields(orig)
	at := slices.Index(fields, "and")
	if at < 2 {
		return false
	}
	name := func(ws []string, skipFirst bool) bool {
		for i, w := range ws {
			w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if w != "" && !(skipFirst && i == 0) && exactCue(w, false) {
				return true
			}
		}
		return false
	}
	return name(fields[:at], true) && name(fields[at+1:], false)
}

// reComparative reports a comparative or superlative word ("older",
// "larger", "first", "more").
func reComparative(q string) bool {
	for _, w := range strings.Fields(q) {
		w = strings.Trim(w, ",?.!;:")
		switch {
		case w == "more" || w == "less" || w == "fewer" || w == "first" || w == "last" || w == "earlier" || w == "later" || w == "most" || w == "least":
			return true
		case len(w) > 4 && (strings.HasSuffix(w, "er") || strings.HasSuffix(w, "est")):
			return true
		}
	}
	return false
}

// ruleInfoType decides exact, semantic or same from the question's cues.
func ruleInfoType(question string) (string, string) {
	if reQuoted.MatchString(question) {
		return Exact, "exact: the question quotes a phrase"
	}
	content, cues := 0, 0
	for i, f := range strings.Fields(question) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(textproc.Terms(w)) == 0 {
			continue // a stop word or punctuation
		}
		content++
		if exactCue(w, i == 0) {
			cues++
		}
	}
	switch {
	case content == 0 || cues == 0:
		return Semantic, "semantic: no names, numbers or identifiers in the question"
	case 2*cues >= content:
		return Exact, fmt.Sprintf("exact: %d of %d content words are names, numbers or identifiers", cues, content)
	}
	return Same, fmt.Sprintf("same: %d of %d content words are names, numbers or identifiers", cues, content)
}

// exactCue reports a word that is matched exactly rather than by meaning:
// a number, an identifier, an acronym, or a capitalised name (not the
// question's first word, and not a question word).
func exactCue(w string, first bool) bool {
	upper, lower := 0, false
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case r == '_' || r == '.':
			return true // lm.fit, snake_case (w is trimmed of outer punctuation)
		case unicode.IsUpper(r):
			if lower {
				return true // camelCase, McDonald, iPhone
			}
			upper++
		case unicode.IsLower(r):
			lower = true
		}
	}
	if upper >= 2 && !lower {
		return true // acronym
	}
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && !first && !questionWords[strings.ToLower(w)]
}

// ruleEvidence decides whether the primary context holds the question's
// terms, weighting each by idf (nil idf weighs them alike).
func ruleEvidence(question string, context []string, idf map[string]float64) (bool, string) {
	if len(context) == 0 {
		return false, "evidence: no: nothing was retrieved"
	}
	have := map[string]bool{}
	for _, c := range context {
		for _, t := range textproc.Terms(c) {
			have[t] = true
		}
	}
	seen := map[string]bool{}
	var total, found float64
	for _, t := range textproc.Terms(question) {
		if seen[t] {
			continue
		}
		seen[t] = true
		w := 1.0
		if idf != nil {
			if v, ok := idf[t]; ok {
				w = v
			}
		}
		total += w
		if have[t] {
			found += w
		}
	}
	if total == 0 {
		return false, "evidence: no: the question has no index terms"
	}
	share := found / total
	if share >= EvidenceCoverage {
		return true, fmt.Sprintf("evidence: yes: the segments hold %.0f%% of the question's terms (idf-weighted)", 100*share)
	}
	return false, fmt.Sprintf("evidence: no: the segments hold %.0f%% of the question's terms (idf-weighted), under %.0f%%", 100*share, 100*EvidenceCoverage)
}

// analyzeRules is the whole rule-based analysis.
func analyzeRules(question string, context []string, idf map[string]float64) Analysis {
	qt, r1 := ruleQuestionType(question)
	it, r2 := ruleInfoType(question)
	ev, r3 := ruleEvidence(question, context, idf)
	return Analysis{QuestionType: qt, InformationType: it, EvidenceContained: ev, Source: SourceRules,
		Reasons: []string{r1, r2, r3}}
}
