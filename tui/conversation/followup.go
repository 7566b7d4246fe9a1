package conversation

import (
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// Whether a question follows up on the conversation or starts a new
// topic. A follow-up is read with the conversation (engine.Request's
// History: a model rewrites it to stand alone, or the previous question's
// words join its search), so taking every question for one mixes topics:
// a gnuplot question searched with an R question's words. The decision is
// made here from the words alone, shown before the question is asked, and
// switched with a key when it is wrong (KeyMap.Input.FollowUp).

// refersBack reports whether question refers back to the earlier
// questions of the conversation (oldest first; none: it cannot). It does
// when it
//
//   - opens as a continuation: "and …", "also …", "or …", "but …",
//     "what about …", "how about …";
//   - is an ellipsis: one word ("why?", "gnuplot?"), a short phrase
//     opening with a preposition or an article ("and for PDFs?", "the
//     default?"), or says "else", "instead", "too" or "more" of something
//     said before;
//   - has a pronoun without its noun ("it", "they", "their"…; not the "it"
//     of "is it possible to"), a demonstrative standing alone ("why is
//     that?", "does this work?"; not "this document", not the "that" of
//     "says that taxes…"), or "one" standing for a noun ("this one", "the
//     second one");
//   - shares its subject with an earlier question: a content word in
//     common, stop words and the words of asking ("how do I use", "tell
//     me", "explain") aside.
func refersBack(question string, earlier []string) bool {
	if len(earlier) == 0 {
		return false
	}
	w := questionWords(question)
	if len(w) == 0 {
		return false
	}
	return continues(w) || elliptic(w) || hasReference(w) || sharesSubject(question, earlier)
}

// questionWords are question's words, case-folded, contractions spelled
// out ("it's" is "it is", "doesn't" "does not").
func questionWords(q string) []string {
	var out []string
	textproc.Words(q, func(s, e int) {
		w := strings.ReplaceAll(textproc.Fold(q[s:e]), "’", "'")
		switch {
		case strings.HasSuffix(w, "n't"):
			base := strings.TrimSuffix(w, "n't")
			switch base {
			case "ca":
				base = "can"
			case "wo":
				base = "will"
			}
			out = append(out, base, "not")
		case strings.HasSuffix(w, "'s") && spelledOut[strings.TrimSuffix(w, "'s")]:
			out = append(out, strings.TrimSuffix(w, "'s"), "is")
		default:
			out = append(out, w)
		}
	})
	return out
}

// spelledOut are the words whose "'s" is "is" ("it's"), not a possessive.
var spelledOut = set("it", "that", "this", "what", "who", "where", "how", "there", "here", "which")

// continues reports whether the words open as a continuation.
func continues(w []string) bool {
	if openers[w[0]] {
		return true
	}
	return len(w) > 1 && (w[0] == "what" || w[0] == "how") && w[1] == "about"
}

var openers = set("and", "also", "or", "but", "plus")

// elliptic reports whether the words are a fragment that leans on what
// was asked before.
func elliptic(w []string) bool {
	switch {
	case len(w) == 1:
		return true // "why?", "examples?", "gnuplot?"
	case len(w) == 2 && questionWords1[w[0]] && (w[1] == "not" || w[1] == "so" || w[1] == "exactly"):
		return true // "why not?", "how so?"
	case len(w) <= 4 && prepositions[w[0]]:
		return true // "for PDFs?", "in which chapter?"
	case len(w) <= 3 && articles[w[0]]:
		return true // "the default?"
	}
	for i, x := range w {
		last := i == len(w)-1
		switch {
		case x == "else" || x == "instead":
			return true // "what else?", "how do I do that in gnuplot instead?"
		case x == "too" && last:
			return true // "can gnuplot plot histograms too?"
		case x == "more" && (last || w[i+1] == "about" || w[i+1] == "on" || strings.HasPrefix(w[i+1], "detail")):
			return true // "tell me more", "more about the taxes"
		case (x == "former" || x == "latter" || x == "same") && i > 0 && w[i-1] == "the":
			return true
		}
	}
	return false
}

// hasReference reports whether the words hold a pronoun, demonstrative or
// "one" that stands for something named before.
func hasReference(w []string) bool {
	for i, x := range w {
		switch {
		case pronouns[x]:
			if x == "it" && dummyIt(w, i) || antecedentBefore(w, i) {
				continue
			}
			return true
		case demonstratives[x]:
			if standsAlone(w, i) {
				return true
			}
		case x == "one" || x == "ones":
			if proOne(w, i) {
				return true
			}
		}
	}
	return false
}

// pronouns refer to someone or something not named in the question.
var pronouns = set("it", "its", "itself", "they", "them", "their", "theirs", "themselves",
	"he", "him", "his", "himself", "she", "her", "hers", "herself")

var demonstratives = set("this", "that", "these", "those")

// dummyIt reports whether the "it" at i stands for nothing: "is it
// possible to…", "how long does it take…", "it is worth…".
func dummyIt(w []string, i int) bool {
	for _, x := range w[i+1:] {
		switch {
		case x == "is" || x == "was" || x == "be" || x == "been" || x == "not" || x == "really" || x == "still" || x == "even" || x == "ever":
			continue
		case dummyPredicates[x]:
			return true
		}
		return false
	}
	return false
}

var dummyPredicates = set("possible", "impossible", "true", "false", "necessary", "worth", "better", "best",
	"important", "safe", "ok", "okay", "hard", "easy", "difficult", "common", "usual", "normal", "wise",
	"fine", "allowed", "required", "needed", "likely", "unlikely", "enough", "mandatory", "legal", "illegal",
	"advisable", "recommended", "faster", "slower", "cheaper", "take", "takes", "matter", "matters",
	"seem", "seems", "appear", "appears", "rain", "raining", "mean", "means")

// antecedentBefore reports whether the pronoun at i has its noun earlier
// in the question, across a joining word: "read a file and parse it",
// "the colonists, when they…".
func antecedentBefore(w []string, i int) bool {
	noun := false
	for j := 0; j < i; j++ {
		switch {
		case determiners[w[j]] && j+1 < i && !textproc.IsStopWord(w[j+1]):
			noun = true
		case noun && joiners[w[j]]:
			return true
		}
	}
	return false
}

var determiners = set("the", "a", "an", "my", "our", "your", "each", "every")

// joiners join a clause to the noun before it; verbs of saying and
// thinking too, their "that" left out ("the colonists say they…").
var joiners = set("and", "or", "then", "but", "that", "which", "who", "when", "if", "so", "until", "before",
	"after", "while", "because", "say", "says", "said", "think", "thinks", "thought", "believe", "believed",
	"claim", "claims", "claimed")

// standsAlone reports whether the demonstrative at i stands for something
// rather than pointing at a noun after it ("this document") or joining a
// clause ("says that taxes…", "so that the plot fits").
func standsAlone(w []string, i int) bool {
	if i == len(w)-1 {
		return true // "why is that?", "how do I do this"
	}
	next := w[i+1]
	prev := ""
	if i > 0 {
		prev = w[i-1]
	}
	switch {
	case next == "one" || next == "ones":
		return true // "this one"
	case w[i] == "that" && (prev != "" && !textproc.IsStopWord(prev) && !verbsOfDoing[prev] || clauseOpeners[prev]):
		return false // "the function that reads", "says that", "so that"
	case auxiliaries[next] || prepositions[next] || articles[next]:
		return true // "that is", "this in R", "is this the default"
	}
	// "does that work?", "is this true?", "how does that compare to…":
	// the subject of a verb that ends the question or takes a
	// preposition, after an auxiliary, a question word or nothing.
	if prev != "" && !auxiliaries[prev] && !questionWords1[prev] {
		return false
	}
	return i == len(w)-2 || prepositions[w[i+2]]
}

// verbsOfDoing take "that" as their object: "do that", "explain that".
var verbsOfDoing = set("do", "does", "did", "explain", "mean", "change", "fix", "use", "show", "repeat")

var clauseOpeners = set("so", "such", "now", "given", "except", "provided", "assuming", "in")

// proOne reports whether the "one" at i stands for a noun named before:
// "this one", "which one", "the second one" — not "one of the…" or "one
// page".
func proOne(w []string, i int) bool {
	if i+1 < len(w) && (w[i+1] == "of" || !textproc.IsStopWord(w[i+1]) && !auxiliaries[w[i+1]]) {
		return false
	}
	switch {
	case i > 0 && (demonstratives[w[i-1]] || w[i-1] == "which" || w[i-1] == "other" || w[i-1] == "another" || w[i-1] == "the"):
		return true
	case i > 1 && w[i-2] == "the":
		return true // "the second one", "the red one"
	}
	return false
}

var auxiliaries = set("is", "are", "was", "were", "be", "been", "am", "do", "does", "did", "has", "have", "had",
	"can", "could", "will", "would", "shall", "should", "may", "might", "must", "not")

var prepositions = set("in", "on", "at", "for", "with", "without", "about", "to", "into", "from", "by", "of",
	"under", "over", "during", "before", "after", "since", "between", "through", "per", "via", "than")

var articles = set("the", "a", "an")

var questionWords1 = set("what", "why", "how", "when", "where", "who", "whom", "whose", "which")

// sharesSubject reports whether question has a content word in common
// with an earlier one: terms as the search indexes them (stemmed, stop
// words dropped), the words of asking dropped too.
func sharesSubject(question string, earlier []string) bool {
	mine := map[string]bool{}
	for _, t := range textproc.Terms(question) {
		if !askingTerms[t] {
			mine[t] = true
		}
	}
	for _, q := range earlier {
		for _, t := range textproc.Terms(q) {
			if mine[t] {
				return true
			}
		}
	}
	return false
}

// askingTerms are the terms of the words questions ask with, which name
// no subject: "how do I use…", "tell me about…", "what does the document
// say…".
var askingTerms = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"use", "using", "make", "get", "show", "tell", "explain", "describe", "say", "says",
		"said", "mean", "means", "find", "give", "list", "know", "want", "need", "way", "ways", "thing", "things",
		"work", "works", "happen", "happens", "document", "documents", "text", "please", "many", "much", "one",
		"kind", "like", "possible", "good", "well", "let", "write", "go", "help", "question", "answer"} {
		if t := textproc.Term(w); t != "" {
			m[t] = true
		}
	}
	return m
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
