package docstore

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/citelens/citelens/internal/textproc/aliases"
	"github.com/citelens/citelens/storage"
)

// The aliases a document gives: "X (or Y)", "X, also known as Y",
// `capital expenditures ("capex")`, an acronym's expansion. They are
// mined from its sentences when it is prepared for the library (Prepare,
// on the add pipeline's goroutines, and PieceWriter.Write for a piece)
// and stored with it, so that retrieval looks a question's word up
// rather than reading sentences at question time. The records
// (FORMAT.md, "Aliases"):
//
//	layoutpieces / u32 DocNum 'a'        a byte: the mining's version (the document was mined)
//	layoutpieces / u32 DocNum 'a' word   per alias of word: uvarint sentence,
//	                                     uvarint length, the other name's terms
//
// A document stored before has no record, and a reader asks again of its
// sentences (Index.Aliases reports it unmined); `citelens reindex`
// writes the records.

// aliasMining is the version of the mining a document's records come
// from, the value of its marker record: 1 the sentences' patterns, 2
// also the back-of-book index and cross-references (indexaliases.go).
// Readers take any value for mined.
const aliasMining = 2

// Alias is one other name a document gives one of its words.
type Alias struct {
	// Word is one index term (textproc.Term); Other the other name's
	// terms, separated by spaces.
	Word, Other string
	// Sentence is the sentence that says so.
	Sentence int32
}

// MineAliases returns the aliases d's sentences give, in sentence order:
// each word a sentence says leads to another name (aliases.Leads). After
// them come the aliases its back-of-book index and cross-references give
// (indexaliases.go), each said at the heading of the section it leads to.
func MineAliases(d *Document) []Alias {
	var out []Alias
	for i, s := range d.Sentences {
		if s.Start < 0 || s.End > int32(len(d.Text)) || s.Start > s.End {
			continue // validated before a write; skipped rather than panic here
		}
		aliases.Leads(d.Text[s.Start:s.End], func(word string, other []string) {
			out = append(out, Alias{Word: word, Other: strings.Join(other, " "), Sentence: int32(i)})
		})
	}
	return append(out, indexAliases(d)...)
}

// aliasKey is the key of the aliases of word in document n; word "" is
// the document's marker.
func aliasKey(n DocNum, word string) []byte {
	return append(append(numKey(n), tagAlias), word...)
}

// addAliases writes as and the marker that says the document was mined.
// A word's aliases already stored (an earlier piece's) are kept, the new
// appended.
func (w *docWrite) addAliases(tx storage.Tx, as []Alias) error {
	b := tx.Bucket(bucketLayout)
	if err := b.Put(aliasKey(w.num, ""), []byte{aliasMining}); err != nil {
		return err
	}
	by := map[string][]byte{}
	for _, a := range as {
		if a.Word == "" || len(aliasKey(w.num, a.Word)) > storage.MaxKeySize {
			continue
		}
		v := by[a.Word]
		v = binary.AppendUvarint(v, uint64(a.Sentence))
		v = binary.AppendUvarint(v, uint64(len(a.Other)))
		by[a.Word] = append(v, a.Other...)
	}
	words := make([]string, 0, len(by))
	for word := range by {
		words = append(words, word)
	}
	slices.Sort(words) // in key order, as bbolt inserts best
	for _, word := range words {
		k := aliasKey(w.num, word)
		v := by[word]
		if old := b.Get(k); old != nil {
			v = append(slices.Clone(old), v...)
		}
		if err := b.Put(k, v); err != nil {
			return err
		}
	}
	return nil
}

// decodeAliases decodes one word's record.
func decodeAliases(word string, v []byte) ([]Alias, bool) {
	var out []Alias
	for len(v) > 0 {
		s, n := binary.Uvarint(v)
		if n <= 0 || s > 1<<31-1 {
			return nil, false
		}
		v = v[n:]
		l, n := binary.Uvarint(v)
		if n <= 0 || l > uint64(len(v)-n) {
			return nil, false
		}
		v = v[n:]
		out = append(out, Alias{Word: word, Other: string(v[:l]), Sentence: int32(s)})
		v = v[l:]
	}
	return out, true
}

// FoundAlias is an alias a document in scope gives a word looked up.
type FoundAlias struct {
	Doc DocID
	Alias
}

// Aliases looks words (index terms) up in the aliases the documents docs
// give (aliases.go): a read of one record per document and word, never
// of sentences. It is the index's because it answers a query's words, as
// the postings do. unmined are the documents stored before aliases were mined (no record
// at all), whose sentences the caller may read instead. A document not
// in the library is skipped.
func (l *Index) Aliases(docs []DocID, words []string) (found []FoundAlias, unmined []DocID, err error) {
	err = l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketLayout)
		if b == nil {
			unmined = slices.Clone(docs)
			return nil
		}
		keys := make([][]byte, 0, len(words))
		for _, id := range docs {
			rec, ok, err := readRecord(tx, id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if b.Get(aliasKey(rec.num, "")) == nil {
				unmined = append(unmined, id)
				continue
			}
			keys = keys[:0]
			for _, word := range words {
				keys = append(keys, aliasKey(rec.num, word))
			}
			vals := b.GetMany(keys)
			prefix := aliasKey(rec.num, "")
			for i, v := range vals {
				if v == nil {
					continue
				}
				word := string(bytes.TrimPrefix(keys[i], prefix))
				as, ok := decodeAliases(word, v)
				if !ok {
					return damaged("document %s's aliases of %q are cut short or malformed", id, word)
				}
				for _, a := range as {
					found = append(found, FoundAlias{Doc: id, Alias: a})
				}
			}
		}
		return nil
	})
	return found, unmined, err
}
