package retrieve

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// Aliases the documents name: manuals write "X, also known as Y", "X (or
// Y)", "Advanced Encryption Standard (AES)". A question may use either
// name; the document's other name joins the question at AliasWeight, below
// a direct match, so the passages that use only the document's word are
// found too. The aliases are read at query time from the candidates that
// hold a question word (a sentence that names an alias of a question word
// holds that word), so nothing is stored and a question pays for the
// sentences it ranks only.

// AliasWeight is the weight of a word reached through an alias, relative
// to a question word.
const AliasWeight = 0.6

// Alias is one pair of names a document gives, with where it says so.
type Alias struct {
	// Word is the question's word, Other the document's other name for it.
	Word, Other string
	// Doc and Sentence are where the document names them.
	Doc      docstore.DocID
	DocName  string
	Sentence int
	Page     int
}

var aliasPatterns = []*regexp.Regexp{
	// "X (also known as Y)", "X (or Y)", "X (i.e. Y)", "X (aka Y)": the
	// parenthesis holds the other name and at most two more words, and
	// the name ends at a space or the parenthesis, so "freed (or
	// alloc'd)" and "(or, at your option, any later version)" name nothing
	regexp.MustCompile(`([\p{L}\p{N}][\p{L}\p{N}\-_.]*)\s*\((?:also known as|also called|sometimes called|or|i\.e\.,?|aka|a\.k\.a\.)\s+(?:the\s+)?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)(?:\s+[^()\s]+){0,2}\)`),
	// "X, also known as Y", "X, sometimes also called Y", "X, known as Y":
	// the comma sets the other name apart, so "a function called free"
	// names nothing
	// ("The base16 encoding, also known as “hexadecimal”": the name may
	// be two or three words)
	regexp.MustCompile(`((?:[\p{L}\p{N}][\p{L}\p{N}\-_.]*\s+){0,2}[\p{L}\p{N}][\p{L}\p{N}\-_.]*),\s+(?:sometimes\s+|often\s+)?(?:also\s+)?(?:known as|called)\s+["“]?([\p{L}\p{N}][\p{L}\p{N}\-_.]*)`),
	// "Advanced Encryption Standard (AES)", `the agreement (the "Agreement")`
	regexp.MustCompile(`((?:\p{Lu}[\p{L}\-]+\s+){1,5})\(\s*(?:the\s+)?["“]?(\p{Lu}[\p{Lu}\p{N}\-]{1,11})["”]?\s*\)`),
}

// aliasesIn returns the name pairs sentence text gives, each side as its
// index terms.
func aliasesIn(text string) [][2][]string {
	if !strings.ContainsAny(text, "(") && !strings.Contains(text, "known as") && !strings.Contains(text, "called") {
		return nil
	}
	var out [][2][]string
	for _, re := range aliasPatterns {
		for _, m := range re.FindAllStringSubmatch(text, 4) {
			a, b := terms(m[1]), terms(m[2])
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			out = append(out, [2][]string{a, b})
		}
	}
	return out
}

// terms are text's index terms.
func terms(text string) []string {
	var out []string
	textproc.Words(text, func(s, e int) {
		if t := textproc.Term(text[s:e]); t != "" {
			out = append(out, t)
		}
	})
	return out
}

// aliases finds, among the candidates, the names documents give to the
// question's words, and the other names not yet in the question.
func (rk *ranker) aliases(cands []*candidate) ([]Alias, []string) {
	var found []Alias
	var add []string
	seen := map[string]bool{}
	for _, c := range cands {
		own := c.own
		hasQ := false
		for t := 0; t < rk.q.orig; t++ {
			if own.tf[t] > 0 {
				hasQ = true
				break
			}
		}
		if !hasQ {
			continue
		}
		for _, pair := range aliasesIn(c.doc.SentenceText(c.idx)) {
			for side := range 2 {
				word, other := pair[side], pair[1-side]
				if len(word) != 1 {
					continue // a question word is one word; a long form reaches its acronym
				}
				i, ok := rk.q.index[word[0]]
				if !ok || i >= rk.q.orig {
					continue
				}
				for _, t := range other {
					if _, in := rk.q.index[t]; in || seen[t] || len(t) < 2 {
						continue
					}
					seen[t] = true
					add = append(add, t)
				}
				found = append(found, Alias{Word: word[0], Other: strings.Join(other, " "), Doc: c.doc.ID(),
					DocName: c.doc.Info().Name, Sentence: c.idx, Page: int(c.doc.Sentence(c.idx).Page)})
			}
		}
	}
	return found, add
}

// String says where the document named the alias.
func (a Alias) String() string {
	return fmt.Sprintf("%q is also %q (%s, p. %d, sentence %d)", a.Word, a.Other, a.DocName, a.Page, a.Sentence)
}

// throughAliases ranks again with the other names the documents give to
// the question's words, when there are any.
func (r *Retriever) throughAliases(ctx context.Context, rk *ranker, hits []Hit, cands []*candidate, docs []docstore.DocID, opt *Options) (*ranker, []*candidate, []Alias, error) {
	if !weak(cands) {
		return rk, cands, nil, nil // the question's own words do
	}
	found, add := rk.aliases(cands)
	if len(add) == 0 {
		return rk, cands, nil, nil
	}
	found, add, err := r.towardsDocumentWords(rk, found, docs)
	if err != nil || len(add) == 0 {
		return rk, cands, nil, err
	}
	rk2, cands2, err := r.requery(ctx, rk, hits, docs, opt, add, AliasWeight)
	return rk2, cands2, found, err
}

// towardsDocumentWords keeps the aliases that lead from a question's word
// to a name the documents in scope use more (in more sentences): the
// reader's "Rijndael" reaches the manual's "AES", while a word the
// documents use everywhere ("bzip2") gains nothing from a rarer other
// name ("bunzip2") but noise. It returns the aliases kept and their
// other names' terms not yet in the question.
func (r *Retriever) towardsDocumentWords(rk *ranker, found []Alias, docs []docstore.DocID) ([]Alias, []string, error) {
	var terms []string
	at := map[string]int{}
	note := func(t string) {
		if _, ok := at[t]; !ok {
			at[t] = len(terms)
			terms = append(terms, t)
		}
	}
	for _, a := range found {
		note(a.Word)
		for _, t := range strings.Fields(a.Other) {
			note(t)
		}
	}
	st, err := r.lib.Index().Stats(docs, docstore.FieldSentences, terms)
	if err != nil {
		return nil, nil, err
	}
	var kept []Alias
	var add []string
	seen := map[string]bool{}
	for _, a := range found {
		other := strings.Fields(a.Other)
		most := 0
		for _, t := range other {
			most = max(most, int(st.DF[at[t]]))
		}
		if most <= int(st.DF[at[a.Word]]) {
			continue
		}
		kept = append(kept, a)
		for _, t := range other {
			if _, in := rk.q.index[t]; in || seen[t] || len(t) < 2 {
				continue
			}
			seen[t] = true
			add = append(add, t)
		}
	}
	return kept, add, nil
}
