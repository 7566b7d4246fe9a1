package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc/aliases"
)

// Aliases the documents name: manuals write "X, also known as Y", "X (or
// Y)", "Advanced Encryption Standard (AES)". A question may use either
// name; the document's other name joins the question at AliasWeight, below
// a direct match, so the passages that use only the document's word are
// found too. The aliases are mined when a document is added and stored
// with it (docstore/aliases.go): a question looks its words up, a read of
// a record per document and word. A document stored before they were
// mined has no record; for it the candidates that hold a question word
// are read with the same patterns (a sentence that names an alias of a
// question word holds that word), as before the records were.

// AliasWeight is the weight of a word reached through an alias, relative
// to a question word.
const AliasWeight = 0.6

// Alias is one pair of names a document gives, with where it says so.
type Alias struct {
	// Word is the question's word, Other the document's other name for it,
	// as index terms.
	Word, Other string
	// WordText and OtherText are the two names as the document writes
	// them where it names the alias ("" when not found there).
	WordText, OtherText string
	// Doc and Sentence are where the document names them.
	Doc      docstore.DocID
	DocName  string
	Sentence int
	Page     int
	// Section is the heading of the section the alias leads to when the
	// document's index or a cross-reference names it (said at the
	// heading, not in a sentence that says so), else "".
	Section string
}

// storedAliases looks the question's words up in the aliases stored
// with the candidates' documents, and reads the candidates of documents
// stored without them (aliasesAmong). It keeps the aliases said in a
// candidate, a sentence that holds a question word among the best the
// first pass found: a document names many things, and an alias said far
// from the question is most often another sense of its word (a manual's
// "name (or function)" taken for a question's "name" cost library-qa a
// question when every stored alias of the scope was used). It returns
// the aliases found and their other names' terms not yet in the question.
// An alias from the document's back-of-book index or a cross-reference
// is said at the heading of the section it leads to (docstore's
// indexaliases.go), so it is kept when a candidate lies in that section
// (inNamedSection): the question found the section the index sends its
// word to.
func (r *Retriever) storedAliases(rk *ranker, cands []*candidate) ([]Alias, []string, error) {
	near := map[docstore.DocID]map[int]*docstore.View{}
	var docs []docstore.DocID
	for _, c := range cands {
		id := c.doc.ID()
		if near[id] == nil {
			near[id] = map[int]*docstore.View{}
			docs = append(docs, id)
		}
		near[id][c.idx] = c.doc
	}
	stored, unmined, err := r.lib.Index().Aliases(docs, rk.q.q.Terms[:rk.q.orig])
	if err != nil {
		return nil, nil, err
	}
	var found []Alias
	var add []string
	seen := map[string]bool{}
	note := func(other []string) {
		for _, t := range other {
			if _, in := rk.q.index[t]; in || seen[t] || len(t) < 2 {
				continue
			}
			seen[t] = true
			add = append(add, t)
		}
	}
	for _, a := range stored {
		d, section := near[a.Doc][int(a.Sentence)], ""
		if d == nil {
			if d, section = inNamedSection(near[a.Doc], int(a.Sentence), a.Other); d == nil {
				continue
			}
		}
		note(strings.Fields(a.Other))
		found = append(found, Alias{Word: a.Word, Other: a.Other, Doc: a.Doc, DocName: d.Info().Name,
			Sentence: int(a.Sentence), Page: int(d.Sentence(int(a.Sentence)).Page), Section: section}.withWords(d.SentenceText(int(a.Sentence))).inQuestion(rk.q.text))
	}
	if len(unmined) > 0 {
		var in []*candidate
		for _, c := range cands {
			if slices.Contains(unmined, c.doc.ID()) {
				in = append(in, c)
			}
		}
		f, _ := rk.aliasesAmong(in)
		for _, a := range f {
			note(strings.Fields(a.Other))
		}
		found = append(found, f...)
	}
	return found, add, nil
}

// inNamedSection returns the document and the heading of the section
// whose heading is sentence sent and whose name (the heading without its
// number) is other, when one of the candidates cands (a document's, by
// sentence) lies in its own text; nil when none does.
func inNamedSection(cands map[int]*docstore.View, sent int, other string) (*docstore.View, string) {
	var d *docstore.View
	for _, v := range cands {
		d = v
		break
	}
	if d == nil || sent < 0 || sent >= d.NumSentences() {
		return nil, ""
	}
	secs := d.Sections()
	at := d.Sentence(sent)
	target := -1
	for i, s := range secs {
		if int(s.Sentence) == sent || s.Sentence < 0 && s.Heading.Start >= at.Start && s.Heading.Start < at.End {
			if h := d.Slice(int(s.Heading.Start), int(s.Heading.End)); strings.Join(aliases.Terms(aliases.HeadingName(h)), " ") == other {
				target = i
				break
			}
		}
	}
	if target < 0 {
		return nil, ""
	}
	// The candidate's innermost section: a chapter holds many things, and
	// a candidate in one of its subsections is about that one ("Cipher
	// functions" holds every cipher's section).
	for idx := range cands {
		if int(d.Sentence(idx).Section) == target {
			return d, strings.Join(strings.Fields(d.Slice(int(secs[target].Heading.Start), int(secs[target].Heading.End))), " ")
		}
	}
	return nil, ""
}

// aliasesAmong finds, among the candidates, the names documents give to
// the question's words, and the other names not yet in the question.
func (rk *ranker) aliasesAmong(cands []*candidate) ([]Alias, []string) {
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
		aliases.Leads(c.doc.SentenceText(c.idx), func(word string, other []string) {
			if i, ok := rk.q.index[word]; !ok || i >= rk.q.orig {
				return
			}
			for _, t := range other {
				if _, in := rk.q.index[t]; in || seen[t] || len(t) < 2 {
					continue
				}
				seen[t] = true
				add = append(add, t)
			}
			found = append(found, Alias{Word: word, Other: strings.Join(other, " "), Doc: c.doc.ID(),
				DocName: c.doc.Info().Name, Sentence: c.idx, Page: int(c.doc.Sentence(c.idx).Page)}.withWords(c.doc.SentenceText(c.idx)))
		})
	}
	return found, add
}

// String says where the document named the alias.
func (a Alias) String() string {
	word, other := a.WordText, a.OtherText
	if word == "" {
		word = a.Word
	}
	if other == "" {
		other = a.Other
	}
	if a.Section != "" {
		return fmt.Sprintf("%q is also %q (%s index or cross-reference: %q, p. %d)", word, other, a.DocName, a.Section, a.Page)
	}
	return fmt.Sprintf("%q is also %q (%s, p. %d, sentence %d)", word, other, a.DocName, a.Page, a.Sentence)
}

// throughAliases ranks again with the other names the documents give to
// the question's words, when there are any.
func (r *Retriever) throughAliases(ctx context.Context, rk *ranker, hits []Hit, cands []*candidate, docs []docstore.DocID, opt *Options) (*ranker, []*candidate, []Alias, error) {
	found, add, err := r.storedAliases(rk, cands)
	if err != nil || len(add) == 0 {
		return rk, cands, nil, err
	}
	found, add, err = r.towardsDocumentWords(rk, found, docs)
	if err != nil || len(add) == 0 {
		return rk, cands, nil, err
	}
	// A document's other names are its own: valgrind's keep ("archive")
	// says nothing of an archive in Debian's reference.
	within := map[string]map[docstore.DocID]bool{}
	for _, a := range found {
		for _, t := range strings.Fields(a.Other) {
			if within[t] == nil {
				within[t] = map[docstore.DocID]bool{}
			}
			within[t][a.Doc] = true
		}
	}
	rk2, cands2, err := r.requeryWithin(ctx, rk, hits, docs, opt, add, AliasWeight, within)
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

// aliasesUsed are the aliases of found whose other name a passage of
// their own document holds: an answer says which aliases found what it
// quotes, not every one it searched through.
func aliasesUsed(found []Alias, ps []Passage) []Alias {
	var used []Alias
	for _, a := range found {
		other := strings.Fields(a.Other)
		for _, p := range ps {
			if p.Doc == a.Doc && slices.ContainsFunc(aliases.Terms(p.Text), func(t string) bool { return slices.Contains(other, t) }) {
				used = append(used, a)
				break
			}
		}
	}
	return used
}
