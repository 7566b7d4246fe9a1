package retrieve

import (
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// said is how the document writes the name whose index terms are terms
// (space-separated), read from the sentence text that names it: the
// first run of words whose terms are those, in order, stop words between
// them kept ("base16 encod" is "base16 encoding", "advanc encrypt
// standard" "Advanced Encryption Standard"). A reader is told the
// document's words, not their stems; without such a run it is "".
func said(text, terms string) string {
	want := strings.Fields(terms)
	if len(want) == 0 {
		return ""
	}
	type word struct {
		start, end int
		term       string
	}
	var words []word
	textproc.Words(text, func(s, e int) {
		words = append(words, word{s, e, textproc.Term(text[s:e])})
	})
	for i, w := range words {
		if w.term != want[0] {
			continue
		}
		n, j := 1, i+1
		for ; n < len(want) && j < len(words); j++ {
			switch words[j].term {
			case want[n]:
				n++
			case "":
				continue // a stop word inside the name
			default:
				j = len(words) // another word: not this run
			}
		}
		if n == len(want) {
			return text[w.start:words[j-1].end]
		}
	}
	return ""
}

// withWords fills in how the sentence that names the alias writes its
// two names.
func (a Alias) withWords(sentence string) Alias {
	a.WordText, a.OtherText = said(sentence, a.Word), said(sentence, a.Other)
	return a
}

// inQuestion fills in the question's word as the question writes it when
// the sentence that names the alias does not (an index's alias is said
// at the heading of its section, which has only the section's name).
func (a Alias) inQuestion(question string) Alias {
	if a.WordText == "" {
		a.WordText = said(question, a.Word)
	}
	return a
}
