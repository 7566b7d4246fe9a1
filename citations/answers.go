package citations

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// LongBench's answer metrics (THUDM/LongBench, metrics.py and eval.py),
// by which it scores HotpotQA and the other single- and multi-document QA
// sets, and by which in-context editing and OkraLong report their F1 on
// HotpotQA:
//
//   - the prediction and each gold answer are normalised as
//     normalize_answer does: lower-cased, ASCII punctuation removed, the
//     articles "a", "an" and "the" removed as whole words, and white space
//     runs made one space;
//   - token-level F1 (qa_f1_score): the normalised texts split at white
//     space, the tokens they share counted with repeats (Counter
//     intersection), precision over the prediction's tokens, recall over
//     the gold answer's, F1 their harmonic mean, 0 when none is shared;
//   - exact match: the normalised texts are equal (LongBench itself
//     reports F1 only; EM is the SQuAD and HotpotQA companion with the same
//     normalisation);
//   - a question's score is the best over its gold answers.
//
// The prediction is the answer's text without its citations: its
// statements, joined by spaces (AnswerText).

// NormalizeAnswer is LongBench's normalize_answer.
func NormalizeAnswer(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && strings.ContainsRune(asciiPunctuation, r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(removeArticles(s)), " ")
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// removeArticles is re.sub(r"\b(a|an|the)\b", " ", s) with Python's
// Unicode word boundaries: no letter, digit or underscore on either side.
func removeArticles(s string) string {
	var b strings.Builder
	prev := ' '
	for i := 0; i < len(s); {
		if !isWordRune(prev) {
			if n := articleAt(s[i:]); n > 0 {
				b.WriteByte(' ')
				i, prev = i+n, ' '
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+n])
		i, prev = i+n, r
	}
	return b.String()
}

// articleAt is the length of the article s starts with as a whole word, 0
// if it starts with none.
func articleAt(s string) int {
	for _, a := range [...]string{"the", "an", "a"} {
		if !strings.HasPrefix(s, a) {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(s[len(a):]); len(s) == len(a) || !isWordRune(next) {
			return len(a)
		}
	}
	return 0
}

// isWordRune is Python's \w for str patterns.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// AnswerF1 is LongBench's qa_f1_score of prediction against the best of
// golds.
func AnswerF1(prediction string, golds []string) float64 {
	pred := strings.Fields(NormalizeAnswer(prediction))
	best := 0.0
	for _, g := range golds {
		best = max(best, tokenF1(pred, strings.Fields(NormalizeAnswer(g))))
	}
	return best
}

func tokenF1(pred, gold []string) float64 {
	count := map[string]int{}
	for _, t := range gold {
		count[t]++
	}
	same := 0
	for _, t := range pred {
		if count[t] > 0 {
			count[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	p := float64(same) / float64(len(pred))
	r := float64(same) / float64(len(gold))
	return 2 * p * r / (p + r)
}

// AnswerEM is 1 when the normalised prediction equals a normalised gold
// answer, else 0.
func AnswerEM(prediction string, golds []string) float64 {
	pred := NormalizeAnswer(prediction)
	for _, g := range golds {
		if NormalizeAnswer(g) == pred {
			return 1
		}
	}
	return 0
}

// AnswerText is an answer as the answer metrics and the correctness judge
// read it: its statements' text, without citations, joined by spaces.
func AnswerText(a *Answer) string {
	parts := make([]string, 0, len(a.Statements))
	for _, st := range a.Statements {
		if t := strings.TrimSpace(st.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}
