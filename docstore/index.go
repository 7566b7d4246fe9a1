package docstore

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// Level says what a unit of text is: a sentence or a chunk.
type Level uint8

// Index levels.
const (
	SentenceLevel Level = iota
	ChunkLevel
)

func (lv Level) key() []byte {
	if lv == ChunkLevel {
		return []byte("c")
	}
	return []byte("s")
}

// Field names one of a document's inverted indexes: the units it indexes
// and what text of theirs. Sentences and chunks index their own text;
// headings index each section's heading (a sentence's heading path is the
// chain of its sections); tables index each table's caption and header
// rows, the context of its rows.
type Field uint8

// Fields.
const (
	FieldSentences Field = iota
	FieldChunks
	FieldHeadings
	FieldTables
	numFields
)

// Field is the index of a level's units.
func (lv Level) Field() Field { return Field(lv) }

var fieldKeys = [numFields][]byte{[]byte("s"), []byte("c"), []byte("h"), []byte("t")}

func (f Field) key() []byte { return fieldKeys[f] }

// String names the field.
func (f Field) String() string {
	return [...]string{"sentences", "chunks", "headings", "tables"}[min(f, numFields-1)]
}

// builtIndex is a document's index before it is written: terms are
// numbered as they are met, so that counting a term in a unit costs one
// map lookup (of its number) and the rest is slices.
type builtIndex struct {
	lens     [numFields][]int32
	ids      map[string]int32
	terms    []string               // by number
	postings [numFields][][]posting // by field, by term number
}

// id is term's number.
func (bi *builtIndex) id(term string) int32 {
	if i, ok := bi.ids[term]; ok {
		return i
	}
	i := int32(len(bi.terms))
	bi.ids[term] = i
	bi.terms = append(bi.terms, term)
	return i
}

// buildIndex computes the postings of d's fields. Chunk postings are the
// sums of their sentences', so the text is analysed once.
func buildIndex(d *Document) *builtIndex {
	bi := &builtIndex{ids: make(map[string]int32, 1<<10)}
	bi.lens[SentenceLevel] = make([]int32, len(d.Sentences))
	bi.lens[ChunkLevel] = make([]int32, len(d.Chunks))
	chunkOf := make([]int32, len(d.Sentences))
	for i := range chunkOf {
		chunkOf[i] = -1
	}
	for c, ch := range d.Chunks {
		for s := ch.First; s <= ch.Last && int(s) < len(chunkOf); s++ {
			if chunkOf[s] < 0 {
				chunkOf[s] = int32(c)
			}
		}
	}
	var ids []int32
	// Each distinct word is analysed once: its term (-1: none, a stop
	// word), how it may take part in compounds, and — for long words, the
	// compounds among which get their parts indexed too once the
	// document's vocabulary is known — the sentences it is in.
	type wordStat struct {
		term        int32
		uses        int32 // as a possible part of a compound
		part, check bool  // a possible part; a possible compound
		lower, n    int8  // lower-case ASCII (1) or not (0); length class
		long        []posting
	}
	const (
		short   = 0 // under 4 bytes
		medium  = 1
		lengthy = 2 // compoundMin or more
	)
	var stats []wordStat
	wordIdx := make(map[string]int32, 1<<10)
	names := map[string]bool{} // words capitalised inside a sentence
	eachWord := func(text string, fn func(word string, ws *wordStat)) {
		textproc.Words(text, func(s, e int) {
			w := text[s:e]
			i, ok := wordIdx[w]
			if !ok {
				st := wordStat{term: -1}
				if r, n := utf8.DecodeRuneInString(w); n != len(w) || !textproc.IsCJK(r) {
					if term := textproc.Term(w); term != "" {
						st.term = bi.id(term)
					}
				}
				n := len(w)
				if n >= 4 {
					st.n = medium
					if n >= compoundMin {
						st.n = lengthy
					}
					if textproc.IsLowerASCII(w) {
						st.lower = 1
						st.part = n <= maxPart
					}
					st.check = st.n == lengthy || (st.lower == 0 && textproc.IsCamel(w))
				}
				i = int32(len(stats))
				stats = append(stats, st)
				wordIdx[w] = i
			}
			if stats[i].term >= 0 {
				fn(w, &stats[i])
			}
		})
	}
	for i, s := range d.Sentences {
		ids = ids[:0]
		first := true
		eachWord(d.Text[s.Start:s.End], func(word string, ws *wordStat) {
			ids = append(ids, ws.term)
			if ws.n == short {
				first = false
				return
			}
			if ws.part {
				ws.uses++
			}
			if ws.lower == 0 && !first && ws.n == lengthy && !textproc.IsCamel(word) {
				names[textproc.Fold(word)] = true
			}
			first = false
			if ws.check {
				if n := len(ws.long); n > 0 && ws.long[n-1].idx == int32(i) {
					ws.long[n-1].tf++
				} else {
					ws.long = append(ws.long, posting{idx: int32(i), tf: 1})
				}
			}
		})
		bi.lens[SentenceLevel][i] = int32(len(ids))
		c := chunkOf[i]
		if c >= 0 {
			bi.lens[ChunkLevel][c] += int32(len(ids))
		}
		eachCount(ids, func(t, tf int32) {
			bi.addPosting(FieldSentences, t, int32(i), tf)
			if c >= 0 {
				bi.addPosting(FieldChunks, t, c, tf)
			}
		})
	}
	long := map[string][]posting{}
	for w, i := range wordIdx {
		if len(stats[i].long) > 0 {
			long[w] = stats[i].long
		}
	}
	words := func(w string) int {
		if i, ok := wordIdx[w]; ok && stats[i].part {
			return int(stats[i].uses)
		}
		return 0
	}
	parts := bi.addCompounds(long, chunkOf, words, func(w string) bool { return names[w] })
	d.Compounds = parts
	analyse := func(text string) []int32 {
		ids = ids[:0]
		eachWord(text, func(word string, ws *wordStat) {
			ids = append(ids, ws.term)
			for _, p := range parts[word] {
				ids = append(ids, bi.id(p))
			}
		})
		return ids
	}
	addUnits := func(f Field, n int, text func(u int) string) {
		bi.lens[f] = make([]int32, n)
		for u := range n {
			ids := analyse(text(u))
			bi.lens[f][u] = int32(len(ids))
			eachCount(ids, func(t, tf int32) { bi.addPosting(f, t, int32(u), tf) })
		}
	}
	addUnits(FieldHeadings, len(d.Sections), func(u int) string { return d.spanLine(d.Sections[u].Heading) })
	addUnits(FieldTables, len(d.Tables), func(u int) string {
		tb := d.Tables[u]
		parts := []string{d.spanLine(tb.Caption)}
		for _, h := range tb.Header {
			parts = append(parts, d.spanLine(h))
		}
		return strings.Join(parts, "\n")
	})
	return bi
}

// eachCount calls fn with each distinct term number of ids and how often
// it occurs. It sorts ids.
func eachCount(ids []int32, fn func(t, tf int32)) {
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		fn(ids[i], int32(j-i))
		i = j
	}
}

// compoundMin is the shortest word looked at as a compound (see
// textproc.CompoundParts; camelCase words are looked at at any length),
// and maxPart the longest word counted as a possible part of one.
const (
	compoundMin = 8
	maxPart     = 16
)

// addPosting adds tf occurrences of term t in unit u of field f. Units
// come in order, except for compound parts, which addCompounds sorts
// after.
func (bi *builtIndex) addPosting(f Field, t, u, tf int32) {
	if int(t) >= len(bi.postings[f]) {
		bi.postings[f] = append(bi.postings[f], make([][]posting, int(t)+1-len(bi.postings[f]))...)
	}
	list := bi.postings[f][t]
	if n := len(list); n > 0 && list[n-1].idx == u {
		list[n-1].tf += tf
		return
	}
	bi.postings[f][t] = append(list, posting{idx: u, tf: tf})
}

// addCompounds indexes the parts of the compound words among long (word
// → its sentences) as terms of their own in those sentences and their
// chunks, judged against the document's words (lower-cased word → uses),
// and returns the parts found by word, for the other fields.
func (bi *builtIndex) addCompounds(long map[string][]posting, chunkOf []int32, words func(string) int, names func(string) bool) map[string][]string {
	parts := map[string][]string{}
	for word := range long {
		if p := textproc.CompoundParts(word, words, names); p != nil {
			parts[word] = p
		}
	}
	touched := map[[2]int32]bool{}
	for word, ps := range parts {
		for _, occ := range long[word] {
			c := chunkOf[occ.idx]
			for _, p := range ps {
				t := bi.id(p)
				bi.grow(t)
				bi.postings[SentenceLevel][t] = append(bi.postings[SentenceLevel][t], occ)
				bi.lens[SentenceLevel][occ.idx] += occ.tf
				touched[[2]int32{int32(SentenceLevel), t}] = true
				if c >= 0 {
					bi.postings[ChunkLevel][t] = append(bi.postings[ChunkLevel][t], posting{idx: c, tf: occ.tf})
					bi.lens[ChunkLevel][c] += occ.tf
					touched[[2]int32{int32(ChunkLevel), t}] = true
				}
			}
		}
	}
	for k := range touched {
		f, t := Field(k[0]), k[1]
		bi.postings[f][t] = sortPostings(bi.postings[f][t])
	}
	return parts
}

// grow makes room for term t's postings in the sentence and chunk fields.
func (bi *builtIndex) grow(t int32) {
	for _, f := range []Field{FieldSentences, FieldChunks} {
		if int(t) >= len(bi.postings[f]) {
			bi.postings[f] = append(bi.postings[f], make([][]posting, int(t)+1-len(bi.postings[f]))...)
		}
	}
}

// sortPostings orders a list by unit and merges a unit's entries.
func sortPostings(list []posting) []posting {
	slices.SortStableFunc(list, func(a, b posting) int { return int(a.idx) - int(b.idx) })
	out := list[:0]
	for _, p := range list {
		if n := len(out); n > 0 && out[n-1].idx == p.idx {
			out[n-1].tf += p.tf
			continue
		}
		out = append(out, p)
	}
	return out
}
