package docstore

import (
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/textproc"
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

// docIndex is a document's per-unit term counts, loaded once.
type docIndex struct {
	lens [numFields][]uint16 // by Field
	sum  [numFields]float64  // total terms, for the average length
}

func (l *Library) loadIndex(tx *bolt.Tx, id DocID) (*docIndex, error) {
	l.mu.Lock()
	di, ok := l.idx[id]
	l.mu.Unlock()
	if ok {
		return di, nil
	}
	b := tx.Bucket(bucketLengths).Bucket([]byte(id))
	if b == nil {
		return nil, errorf(ErrNotFound, "no document %s in the library", id)
	}
	di = &docIndex{}
	for f := range numFields {
		di.lens[f] = decodeLengths(b.Get(f.key()))
		for _, n := range di.lens[f] {
			di.sum[f] += float64(n)
		}
	}
	l.mu.Lock()
	l.idx[id] = di
	l.mu.Unlock()
	return di, nil
}

// Postings is one document's inverted index of one field, read for some
// terms: what a ranking function needs to score the field's units.
type Postings struct {
	Doc   DocID
	Field Field
	// Lens[u] is unit u's length in index terms (saturated at 65535).
	// Shared with the library's cache: do not modify.
	Lens []uint16
	// Sum is the total of Lens.
	Sum float64
	// Lists[t] is query term t's encoded postings list, nil when no unit
	// holds it. Valid only inside the ReadPostings callback.
	Lists [][]byte
}

// DF returns the number of units that hold term t.
func (p *Postings) DF(t int) int {
	if p.Lists[t] == nil {
		return 0
	}
	return postingsLen(p.Lists[t])
}

// Each calls fn with every unit holding term t and the term's frequency
// there, in unit order. A list pointing past Lens is damage: Each stops
// with ErrCorrupt.
func (p *Postings) Each(t int, fn func(unit int, tf int)) error {
	if p.Lists[t] == nil {
		return nil
	}
	n := int32(len(p.Lens))
	bad := false
	err := forEachPosting(p.Lists[t], func(idx, tf int32) {
		if idx < 0 || idx >= n {
			bad = true
			return
		}
		fn(int(idx), int(tf))
	})
	if err == nil && bad {
		err = ErrCorrupt
	}
	if err != nil {
		return fmt.Errorf("document %s %s index: %w", p.Doc, p.Field, err)
	}
	return nil
}

// ReadPostings reads, in one read transaction, the postings of terms in
// field of each document of docs (every document when empty), and calls
// fn with each document's in turn. Ranking them is the caller's
// business (engine/retrieve): the library stores postings, lengths and
// statistics, and scores nothing.
func (l *Library) ReadPostings(docs []DocID, field Field, terms []string, fn func(*Postings) error) error {
	if field >= numFields {
		return fmt.Errorf("unknown index field %d", field)
	}
	docs, err := l.scope(docs)
	if err != nil {
		return err
	}
	return l.db.View(func(tx *bolt.Tx) error {
		p := &Postings{Field: field, Lists: make([][]byte, len(terms))}
		for _, id := range docs {
			di, err := l.loadIndex(tx, id)
			if err != nil {
				return err
			}
			pb := tx.Bucket(bucketPostings).Bucket([]byte(id))
			if pb != nil {
				pb = pb.Bucket(field.key())
			}
			if pb == nil {
				return fmt.Errorf("document %s has no %s index: %w", id, field, ErrCorrupt)
			}
			p.Doc, p.Lens, p.Sum = id, di.lens[field], di.sum[field]
			for t, term := range terms {
				p.Lists[t] = pb.Get([]byte(term))
			}
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// scope returns docs, or every document of the library when docs is
// empty: the scope of a search.
func (l *Library) scope(docs []DocID) ([]DocID, error) {
	if len(docs) > 0 {
		return docs, nil
	}
	infos, err := l.List()
	if err != nil {
		return nil, err
	}
	ids := make([]DocID, len(infos))
	for i, d := range infos {
		ids[i] = d.ID
	}
	return ids, nil
}

// lookupTerms reads the postings of terms from pb: each term's list into
// lists (unless lists is nil; a term pb lacks stays nil) and the number of
// units holding it added to df.
func lookupTerms(pb *bolt.Bucket, terms []string, lists [][]byte, df []int) {
	for t, term := range terms {
		if v := pb.Get([]byte(term)); v != nil {
			if lists != nil {
				lists[t] = v
			}
			df[t] += postingsLen(v)
		}
	}
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

// builtIndex is a document's index before it is written.
type builtIndex struct {
	lens     [numFields][]int32
	postings [numFields]map[string][]posting
}

// buildIndex computes the postings of d's fields. Chunk postings are the
// sums of their sentences', so the text is analysed once.
func buildIndex(d *Document) *builtIndex {
	bi := &builtIndex{}
	for f := range numFields {
		bi.postings[f] = make(map[string][]posting, 1<<10)
	}
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
	var terms []string
	counts := map[string]int32{}
	for i, s := range d.Sentences {
		terms = textproc.AppendTerms(terms[:0], d.Text[s.Start:s.End])
		bi.lens[SentenceLevel][i] = int32(len(terms))
		clear(counts)
		for _, t := range terms {
			counts[t]++
		}
		c := chunkOf[i]
		if c >= 0 {
			bi.lens[ChunkLevel][c] += int32(len(terms))
		}
		for t, tf := range counts {
			sp := bi.postings[SentenceLevel]
			sp[t] = append(sp[t], posting{idx: int32(i), tf: tf})
			if c < 0 {
				continue
			}
			cp := bi.postings[ChunkLevel]
			list := cp[t]
			if n := len(list); n > 0 && list[n-1].idx == c {
				list[n-1].tf += tf
			} else {
				cp[t] = append(list, posting{idx: c, tf: tf})
			}
		}
	}
	addUnits := func(f Field, n int, text func(u int) string) {
		bi.lens[f] = make([]int32, n)
		for u := range n {
			terms = textproc.AppendTerms(terms[:0], text(u))
			bi.lens[f][u] = int32(len(terms))
			clear(counts)
			for _, t := range terms {
				counts[t]++
			}
			for t, tf := range counts {
				bi.postings[f][t] = append(bi.postings[f][t], posting{idx: int32(u), tf: tf})
			}
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
	// Postings lists must be in unit order; the map iteration above kept
	// each term's list in order since units were visited in order.
	return bi
}

// write stores the index under the document's buckets.
func (bi *builtIndex) write(tx *bolt.Tx, id DocID) error {
	lb, err := tx.Bucket(bucketLengths).CreateBucket([]byte(id))
	if err != nil {
		return err
	}
	pb, err := tx.Bucket(bucketPostings).CreateBucket([]byte(id))
	if err != nil {
		return err
	}
	for f := range numFields {
		if err := lb.Put(f.key(), encodeLengths(bi.lens[f])); err != nil {
			return err
		}
		if err := putPostings(pb, f.key(), bi.postings[f]); err != nil {
			return err
		}
	}
	return nil
}

// putPostings writes postings, term by term, as the new bucket key of
// parent: Search's (and SearchDerived's) inverted index of one level or
// kind.
func putPostings(parent *bolt.Bucket, key []byte, postings map[string][]posting) error {
	b, err := parent.CreateBucket(key)
	if err != nil {
		return err
	}
	// Sorted keys fill bbolt's pages sequentially, and 90% full pages
	// suit a bucket that is written once and then only read.
	b.FillPercent = 0.9
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	var buf []byte
	for _, t := range terms {
		if len(t) > bolt.MaxKeySize {
			continue
		}
		buf = encodePostings(buf[:0], postings[t])
		if err := b.Put([]byte(t), slices.Clone(buf)); err != nil {
			return err
		}
	}
	return nil
}
