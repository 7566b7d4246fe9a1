package docstore

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/storage"

	"github.com/citelens/citelens/internal/textproc"
)

// Derived documents are text a model wrote about a document's chunks —
// RAIDD's concept-level summaries and reading-comprehension questions —
// kept as retrieval keys for the original text. The library stores them
// and indexes them; engine/raidd writes them and ranks with them.
//
// Layout, under the derived bucket:
//
//	<DocID>/                     one bucket per document; Remove deletes it
//	  <set key>/                 one per DerivedSet (prompt version, chunking, model)
//	    meta                     JSON derivedMeta: the set, the chunk count and fingerprint
//	    c/<u32 big-endian i>     JSON DerivedChunk of chunk i
//	    ix/                      the BM25 index, rebuilt whole from the records
//	      meta                   u32 generation it was built from, u32 format (derivedIndexFormat)
//	      ranges                 nchunks × (i32 first, i32 last) sentence ranges
//	      owner                  nquestions × i32: the chunk each question is about
//	      fp                     3 × u64: fingerprints of the s, q and r units' texts
//	      totals                 3 × (uvarint units, uvarint their total length), s, q, r
//	      b/{s,q,r}/<block key>  the units' postings, as blocks.go stores the library's
//
// The units of the index are summaries (s, one per chunk), questions (q)
// and raw chunks (r, the chunk's own text), so one search can rank any
// union of them. Each kind's postings are stored as the library's index
// stores a field's (blocks.go), as the index of one document numbered
// derivedDoc, and read by the same reader (IndexReader), so that one BM25
// (engine/retrieve's) scores both. Chunk records are written in batches as derivation goes,
// so an interrupted derivation resumes where it stopped; the index is
// built once every chunk has its record.
//
// The index's units are also what dense retrieval embeds: their vectors
// are kept with the document's other vectors (vectors.go, one set per
// embedding model, derivation and kind), numbered as the index numbers
// them and checked against the index's fingerprint of their texts, and
// Derived.ScanCosines gives their cosine similarity to a query vector, for
// engine/retrieve to rank them by meaning as it ranks them by BM25.

// DerivedSet names one derivation of a document: which model wrote it,
// how the document was cut into chunks, and the prompt's version. Several
// sets of one document coexist.
type DerivedSet struct {
	Model   string `json:"model"`
	Tokens  int    `json:"chunk_tokens"`  // chunk size in estimated tokens
	Overlap int    `json:"chunk_overlap"` // overlap of consecutive chunks
	Version int    `json:"prompt_version"`
}

// key is the set's bucket name: "v1 256/50 MODEL". The model comes last,
// so any model name keeps the key unambiguous.
func (s DerivedSet) key() []byte {
	return []byte(fmt.Sprintf("v%d %d/%d %s", s.Version, s.Tokens, s.Overlap, s.Model))
}

// String describes the set for messages: "test-model, 256-token chunks".
func (s DerivedSet) String() string {
	return fmt.Sprintf("%s, %d-token chunks", s.Model, s.Tokens)
}

// DerivedChunk is what the model derived from one chunk.
type DerivedChunk struct {
	Index       int      `json:"-"` // the chunk's number in the set
	First, Last int      `json:"-"` // the chunk's sentences, inclusive
	Summary     string   `json:"summary,omitempty"`
	Questions   []string `json:"questions,omitempty"`
	// Failed, if set, says why the model's reply was unusable (after a
	// retry); what was usable of it is kept. A later derivation retries it.
	Failed string `json:"failed,omitempty"`
	// The model work spent on the chunk.
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	Calls            int  `json:"calls"`
	Estimated        bool `json:"estimated,omitempty"`
}

// derivedChunkJSON is the stored form: the sentence range is stored too.
type derivedChunkJSON struct {
	First int `json:"first"`
	Last  int `json:"last"`
	DerivedChunk
}

// derivedMeta is a set's meta record.
type derivedMeta struct {
	DerivedSet
	Chunks      int       `json:"chunks"`
	Fingerprint uint64    `json:"fingerprint"` // of the chunks' sentence ranges
	Gen         uint32    `json:"gen"`         // bumped by every write of records
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// DerivedStatus is how far a document's derivation has come.
type DerivedStatus struct {
	Set DerivedSet
	// Chunks is the number of chunks the document is cut into; 0 means
	// derivation never began.
	Chunks int
	// Done counts chunks with a record, Failed those of them whose reply
	// was unusable.
	Done, Failed int
	// Summaries and Questions count the derived texts stored.
	Summaries, Questions int
	// Indexed reports that the index is built from every stored record.
	Indexed bool
	// The model work spent so far.
	PromptTokens, CompletionTokens, Calls int
	Estimated                             bool
	Updated                               time.Time
}

// Complete reports that every chunk has its record (some may have failed).
func (s DerivedStatus) Complete() bool { return s.Chunks > 0 && s.Done == s.Chunks }

// DerivedKind is a kind of unit in the derived index.
type DerivedKind uint8

// The kinds of derived-index units.
const (
	DerivedSummary  DerivedKind = iota // a chunk's summary
	DerivedQuestion                    // one generated question
	DerivedRaw                         // the chunk's own text
)

var derivedKinds = []DerivedKind{DerivedSummary, DerivedQuestion, DerivedRaw}

func (k DerivedKind) key() []byte { return []byte{"sqr"[k]} }

// String names the kind: "summary", "question", "raw".
func (k DerivedKind) String() string {
	switch k {
	case DerivedSummary:
		return "summary"
	case DerivedQuestion:
		return "question"
	}
	return "raw"
}

var (
	keyDerivedMeta   = []byte("meta")
	keyDerivedChunks = []byte("c")
	keyDerivedIndex  = []byte("ix")
	keyIxRanges      = []byte("ranges")
	keyIxOwner       = []byte("owner")
	keyIxFingerprint = []byte("fp")
	keyIxTotals      = []byte("totals")
	keyIxBlocks      = []byte("b")
)

// derivedIndexFormat is the layout of a derived index this build writes
// and reads. Format 1 (citelens before it; its meta record holds the
// generation alone) kept a list per term in a format of its own and the
// units' lengths in a table: such an index counts as out of date, so
// raidd (or 'citelens derive') builds it again from the records, which
// takes no model call. A build that reads format 1 only sees a format 2
// index as out of date the same way, and builds it again in its own.
const derivedIndexFormat = 2

// derivedDoc is the document number a derived index's blocks name: each
// index holds one document's units.
const derivedDoc DocNum = 1

// maxDerivedLength is the most a unit's length counts for in the derived
// index: the saturation its lengths have always had, so that rankings do
// not change with the format.
const maxDerivedLength = 65535

// indexGen reads the generation a derived index was built from, false
// when it is of another format than this build's.
func indexGen(ib storage.Bucket) (uint32, bool) {
	v := ib.Get(keyDerivedMeta)
	if len(v) != 8 || binary.LittleEndian.Uint32(v[4:]) != derivedIndexFormat {
		return 0, false
	}
	return binary.LittleEndian.Uint32(v), true
}

// derivedTotals reads the number of kind's units in a derived index and
// their total length.
func derivedTotals(ib storage.Bucket, kind DerivedKind) (unitTotals, bool) {
	v := ib.Get(keyIxTotals)
	var t unitTotals
	for _, k := range derivedKinds {
		units, ok1 := uvarint(&v)
		length, ok2 := uvarint(&v)
		if !ok1 || !ok2 || units > 1<<31-1 {
			return t, false
		}
		if k == kind {
			t = unitTotals{units: int(units), length: length}
		}
	}
	return t, true
}

// derivedFingerprint hashes the chunks' sentence ranges.
func derivedFingerprint(chunks []Chunk) uint64 {
	h := fnv.New64a()
	var b []byte
	for _, c := range chunks {
		b = putInt32s(b[:0], c.First, c.Last)
		h.Write(b)
	}
	return h.Sum64()
}

func chunkKey(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

// setBucket returns the set's bucket, nil if it does not exist.
func setBucket(tx storage.Tx, doc DocID, set DerivedSet) storage.Bucket {
	db := tx.Bucket(bucketDerived)
	if db == nil {
		return nil
	}
	if db = db.Bucket([]byte(doc)); db == nil {
		return nil
	}
	return db.Bucket(set.key())
}

// begunSet returns the bucket of doc's set and its meta record, or an
// error wrapping ErrNotFound when no derivation of it has begun
// (Derived.Begin).
func begunSet(tx storage.Tx, doc DocID, set DerivedSet) (storage.Bucket, derivedMeta, error) {
	sb := setBucket(tx, doc, set)
	if sb == nil {
		return nil, derivedMeta{}, errorf(ErrNotFound, "no derivation of document %s by %s has begun", doc, set)
	}
	m, err := readMeta(sb)
	return sb, m, err
}

func readMeta(sb storage.Bucket) (derivedMeta, error) {
	var m derivedMeta
	v := sb.Get(keyDerivedMeta)
	if v == nil {
		return m, damaged("a set of derived documents has no meta record")
	}
	if err := json.Unmarshal(v, &m); err != nil {
		return m, damaged("a derived-documents meta record does not decode")
	}
	return m, nil
}

func putMeta(sb storage.Bucket, m derivedMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return sb.Put(keyDerivedMeta, b)
}

// Begin prepares doc's set for a derivation over chunks (sentence
// ranges in document order; Tokens is not used). A set begun before over
// the same chunks is kept, so the derivation resumes; one begun over other
// chunks (the segmentation changed) is dropped and begun again. It returns
// the set's status.
func (l *Derived) Begin(doc DocID, set DerivedSet, chunks []Chunk) (DerivedStatus, error) {
	if len(chunks) == 0 {
		return DerivedStatus{}, fmt.Errorf("document %s has no chunks to derive from", doc)
	}
	fp := derivedFingerprint(chunks)
	err := l.store.Update(func(tx storage.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(doc)) == nil {
			return errorf(ErrNotFound, "no document %s in the library", doc)
		}
		db, err := tx.Bucket(bucketDerived).CreateBucketIfNotExists([]byte(doc))
		if err != nil {
			return err
		}
		if sb := db.Bucket(set.key()); sb != nil {
			m, err := readMeta(sb)
			if err == nil && m.Fingerprint == fp && m.Chunks == len(chunks) {
				return nil
			}
			if err := db.DeleteBucket(set.key()); err != nil {
				return err
			}
		}
		sb, err := db.CreateBucket(set.key())
		if err != nil {
			return err
		}
		if _, err := sb.CreateBucket(keyDerivedChunks); err != nil {
			return err
		}
		now := time.Now().UTC()
		return putMeta(sb, derivedMeta{DerivedSet: set, Chunks: len(chunks), Fingerprint: fp, Created: now, Updated: now})
	})
	if err != nil {
		return DerivedStatus{}, err
	}
	return l.Status(doc, set)
}

// Put stores chunk records of doc's set in one transaction,
// replacing earlier records of the same chunks. The set must have been
// begun (Begin).
func (l *Derived) Put(doc DocID, set DerivedSet, recs ...DerivedChunk) error {
	if len(recs) == 0 {
		return nil
	}
	return l.store.Update(func(tx storage.Tx) error {
		sb, m, err := begunSet(tx, doc, set)
		if err != nil {
			return err
		}
		cb := sb.Bucket(keyDerivedChunks)
		for _, r := range recs {
			if r.Index < 0 || r.Index >= m.Chunks || r.First < 0 || r.Last < r.First {
				return fmt.Errorf("derived chunk %d (sentences %d-%d) is outside document %s's %d chunks", r.Index, r.First, r.Last, doc, m.Chunks)
			}
			b, err := json.Marshal(derivedChunkJSON{First: r.First, Last: r.Last, DerivedChunk: r})
			if err != nil {
				return err
			}
			if err := cb.Put(chunkKey(r.Index), b); err != nil {
				return err
			}
		}
		m.Gen++
		m.Updated = time.Now().UTC()
		return putMeta(sb, m)
	})
}

// Chunks returns the stored records of doc's set in chunk order
// (chunks not derived yet are absent).
func (l *Derived) Chunks(doc DocID, set DerivedSet) ([]DerivedChunk, error) {
	var out []DerivedChunk
	err := l.store.View(func(tx storage.Tx) error {
		sb := setBucket(tx, doc, set)
		if sb == nil {
			return nil
		}
		var err error
		out, err = readChunks(sb)
		return err
	})
	return out, err
}

// ChunksAt returns the records of the given chunks of doc's set, in
// the order asked; a chunk without a record gets one with only its Index.
func (l *Derived) ChunksAt(doc DocID, set DerivedSet, chunks []int) ([]DerivedChunk, error) {
	out := make([]DerivedChunk, len(chunks))
	err := l.store.View(func(tx storage.Tx) error {
		sb := setBucket(tx, doc, set)
		var cb storage.Bucket
		if sb != nil {
			cb = sb.Bucket(keyDerivedChunks)
		}
		for i, c := range chunks {
			out[i].Index = c
			if cb == nil || c < 0 {
				continue
			}
			v := cb.Get(chunkKey(c))
			if v == nil {
				continue
			}
			var r derivedChunkJSON
			if err := json.Unmarshal(v, &r); err != nil {
				return damaged("derived chunk %d does not decode", c)
			}
			out[i] = r.DerivedChunk
			out[i].Index, out[i].First, out[i].Last = c, r.First, r.Last
		}
		return nil
	})
	return out, err
}

func readChunks(sb storage.Bucket) ([]DerivedChunk, error) {
	cb := sb.Bucket(keyDerivedChunks)
	if cb == nil {
		return nil, damaged("a set of derived documents has no records")
	}
	var out []DerivedChunk
	err := cb.ForEach(func(k, v []byte) error {
		if len(k) != 4 {
			return damaged("derived chunk key %x is malformed", k)
		}
		var r derivedChunkJSON
		if err := json.Unmarshal(v, &r); err != nil {
			return damaged("derived chunk %d does not decode", binary.BigEndian.Uint32(k))
		}
		c := r.DerivedChunk
		c.Index, c.First, c.Last = int(binary.BigEndian.Uint32(k)), r.First, r.Last
		out = append(out, c)
		return nil
	})
	return out, err
}

// Status reports how far doc's set has come. A set never begun has
// Chunks 0 and no error.
func (l *Derived) Status(doc DocID, set DerivedSet) (DerivedStatus, error) {
	st := DerivedStatus{Set: set}
	err := l.store.View(func(tx storage.Tx) error {
		sb := setBucket(tx, doc, set)
		if sb == nil {
			return nil
		}
		var err error
		st, err = statusOf(sb)
		return err
	})
	return st, err
}

func statusOf(sb storage.Bucket) (DerivedStatus, error) {
	m, err := readMeta(sb)
	if err != nil {
		return DerivedStatus{}, err
	}
	st := DerivedStatus{Set: m.DerivedSet, Chunks: m.Chunks, Updated: m.Updated}
	recs, err := readChunks(sb)
	if err != nil {
		return st, err
	}
	for _, r := range recs {
		st.Done++
		if r.Failed != "" {
			st.Failed++
		}
		if r.Summary != "" {
			st.Summaries++
		}
		st.Questions += len(r.Questions)
		st.PromptTokens += r.PromptTokens
		st.CompletionTokens += r.CompletionTokens
		st.Calls += r.Calls
		st.Estimated = st.Estimated || r.Estimated
	}
	if ib := sb.Bucket(keyDerivedIndex); ib != nil {
		// An index of another format or without the texts' fingerprints
		// (written by an older citelens) counts as out of date, so it is
		// built again.
		if gen, ok := indexGen(ib); ok && len(ib.Get(keyIxFingerprint)) == 8*len(derivedKinds) {
			st.Indexed = gen == m.Gen
		}
	}
	return st, nil
}

// Sets lists the sets stored for doc, by key.
func (l *Derived) Sets(doc DocID) ([]DerivedStatus, error) {
	var out []DerivedStatus
	err := l.store.View(func(tx storage.Tx) error {
		db := tx.Bucket(bucketDerived)
		if db == nil {
			return nil
		}
		if db = db.Bucket([]byte(doc)); db == nil {
			return nil
		}
		return db.ForEach(func(k, v []byte) error {
			sb := db.Bucket(k)
			if v != nil || sb == nil {
				return nil
			}
			st, err := statusOf(sb)
			if err != nil {
				return fmt.Errorf("document %s, derived set %q: %w", doc, k, err)
			}
			out = append(out, st)
			return nil
		})
	})
	return out, err
}

// Remove deletes doc's set (records and index) and the vectors of
// its units, of every embedding model. Removing a set that does not exist
// is not an error.
func (l *Derived) Remove(doc DocID, set DerivedSet) error {
	return l.store.Update(func(tx storage.Tx) error {
		if err := deleteDerivedVectors(tx, doc, set, ""); err != nil {
			return err
		}
		db := tx.Bucket(bucketDerived).Bucket([]byte(doc))
		if db == nil || db.Bucket(set.key()) == nil {
			return nil
		}
		return db.DeleteBucket(set.key())
	})
}

// RemoveVectors deletes the vectors model computed for the units of
// doc's set (every model's when model is ""); the set itself stays.
func (l *Derived) RemoveVectors(doc DocID, set DerivedSet, model string) error {
	return l.store.Update(func(tx storage.Tx) error { return deleteDerivedVectors(tx, doc, set, model) })
}

func deleteDerivedVectors(tx storage.Tx, doc DocID, set DerivedSet, model string) error {
	root := tx.Bucket(bucketVectors)
	if root == nil {
		return nil
	}
	db := root.Bucket([]byte(doc))
	if db == nil {
		return nil
	}
	var models [][]byte
	_ = db.ForEach(func(m, v []byte) error {
		if v == nil && (model == "" || string(m) == model) {
			models = append(models, slices.Clone(m))
		}
		return nil
	})
	for _, m := range models {
		mb := db.Bucket(m)
		for _, k := range derivedKinds {
			name := derivedUnitSet(k, set)
			if mb.Bucket(name) == nil {
				continue
			}
			if err := mb.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// builtDerived is a set's index before it is written.
type builtDerived struct {
	ranges   []int32 // first, last per chunk
	owner    []int32 // per question
	totals   [3]unitTotals
	postings [3]map[string][]groupPosting
}

// add indexes the next unit of kind, whose text's index terms are terms.
func (bd *builtDerived) add(kind DerivedKind, terms []string, counts map[string]int32) {
	unit := uint32(bd.totals[kind].units)
	n := uint32(min(len(terms), maxDerivedLength))
	bd.totals[kind].units++
	bd.totals[kind].length += uint64(n)
	clear(counts)
	for _, t := range terms {
		counts[t]++
	}
	for t, tf := range counts {
		bd.postings[kind][t] = append(bd.postings[kind][t], groupPosting{unit: unit, tf: uint32(tf), length: n})
	}
}

// Index builds the index of doc's set from its records: summaries,
// questions, and the text of the chunks themselves. It replaces an earlier
// index and needs every chunk to have its record.
func (l *Derived) Index(doc DocID, set DerivedSet) error {
	d, err := l.library().Document(doc)
	if err != nil {
		return err
	}
	return l.store.Update(func(tx storage.Tx) error {
		sb, m, err := begunSet(tx, doc, set)
		if err != nil {
			return err
		}
		recs, err := readChunks(sb)
		if err != nil {
			return err
		}
		if len(recs) != m.Chunks {
			return fmt.Errorf("document %s has derived documents for %d of its %d chunks; derive the rest before indexing", doc, len(recs), m.Chunks)
		}
		bd := &builtDerived{}
		for k := range bd.postings {
			bd.postings[k] = map[string][]groupPosting{}
		}
		var terms []string
		counts := map[string]int32{}
		var fps [3]textsFingerprint
		for _, r := range recs {
			if r.First < 0 || r.Last < r.First || r.Last >= len(d.Sentences) {
				return damaged("derived chunk %d covers sentences %d-%d; document %s has %d", r.Index, r.First, r.Last, doc, len(d.Sentences))
			}
			bd.ranges = append(bd.ranges, int32(r.First), int32(r.Last))
			terms = textproc.AppendTerms(terms[:0], r.Summary)
			bd.add(DerivedSummary, terms, counts)
			fps[DerivedSummary].add(r.Summary)
			terms = terms[:0]
			for s := r.First; s <= r.Last; s++ {
				terms = textproc.AppendTerms(terms, d.SentenceText(s))
			}
			bd.add(DerivedRaw, terms, counts)
			fps[DerivedRaw].add(rawText(d, r.First, r.Last))
			for _, q := range r.Questions {
				bd.owner = append(bd.owner, int32(r.Index))
				terms = textproc.AppendTerms(terms[:0], q)
				bd.add(DerivedQuestion, terms, counts)
				fps[DerivedQuestion].add(q)
			}
		}
		if sb.Bucket(keyDerivedIndex) != nil {
			if err := sb.DeleteBucket(keyDerivedIndex); err != nil {
				return err
			}
		}
		ib, err := sb.CreateBucket(keyDerivedIndex)
		if err != nil {
			return err
		}
		if err := bd.write(ib); err != nil {
			return err
		}
		var fp []byte
		for _, k := range derivedKinds {
			fp = binary.LittleEndian.AppendUint64(fp, fps[k].sum())
		}
		if err := ib.Put(keyIxFingerprint, fp); err != nil {
			return err
		}
		meta := binary.LittleEndian.AppendUint32(nil, m.Gen)
		return ib.Put(keyDerivedMeta, binary.LittleEndian.AppendUint32(meta, derivedIndexFormat))
	})
}

// write writes the built index into ib: each kind's postings as the
// blocks of a one-document index, term by term in key order.
func (bd *builtDerived) write(ib storage.Bucket) error {
	if err := ib.Put(keyIxRanges, putInt32s(nil, bd.ranges...)); err != nil {
		return err
	}
	if err := ib.Put(keyIxOwner, putInt32s(nil, bd.owner...)); err != nil {
		return err
	}
	var totals []byte
	for _, k := range derivedKinds {
		totals = binary.AppendUvarint(totals, uint64(bd.totals[k].units))
		totals = binary.AppendUvarint(totals, bd.totals[k].length)
	}
	if err := ib.Put(keyIxTotals, totals); err != nil {
		return err
	}
	bb, err := ib.CreateBucket(keyIxBlocks)
	if err != nil {
		return err
	}
	for _, k := range derivedKinds {
		b, err := bb.CreateBucket(k.key())
		if err != nil {
			return err
		}
		b.SetAppendOnly() // written in key order, once
		terms := make([]string, 0, len(bd.postings[k]))
		for t := range bd.postings[k] {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			if err := putBlocks(b, t, appendGroups(nil, derivedDoc, bd.postings[k][t])); err != nil {
				return err
			}
		}
	}
	return nil
}

// DerivedSearchOptions say which derived units a search ranks.
type DerivedSearchOptions struct {
	Set  DerivedSet
	Docs []DocID // the scope; every document must have the set indexed
	// Kinds are the units ranked together: summaries, questions, raw
	// chunks, or any union of them.
	Kinds []DerivedKind
	K     int // hits wanted (default 10)
}

// DerivedHit is one ranked unit of the derived index, with the chunk it
// stands for.
type DerivedHit struct {
	Doc  DocID
	Kind DerivedKind
	// Unit is the unit's number among its kind's in the document: the
	// chunk for summaries and raw text, the question's running number.
	Unit int
	// Chunk is the chunk the unit stands for, First..Last its sentences.
	Chunk, First, Last int
	// Item is a question's place among its chunk's questions (0 for the
	// other kinds).
	Item  int
	Score float64
}

// Units counts a scope's units of each kind in the index of set.
func (l *Derived) Units(set DerivedSet, docs []DocID) (map[DerivedKind]int, error) {
	out := map[DerivedKind]int{}
	err := l.store.View(func(tx storage.Tx) error {
		for _, id := range docs {
			ib, err := derivedIndex(tx, id, set)
			if err != nil {
				return err
			}
			for _, k := range derivedKinds {
				t, ok := derivedTotals(ib, k)
				if !ok {
					return damaged("document %s's derived-document index has bad totals", id)
				}
				out[k] += t.units
			}
		}
		return nil
	})
	return out, err
}

// derivedIndex returns doc's index of set; one that does not exist, or is
// of an older format, is ErrNotFound.
func derivedIndex(tx storage.Tx, doc DocID, set DerivedSet) (storage.Bucket, error) {
	sb := setBucket(tx, doc, set)
	var ib storage.Bucket
	if sb != nil {
		ib = sb.Bucket(keyDerivedIndex)
	}
	if ib == nil {
		return nil, errorf(ErrNotFound, "document %s has no derived-document index by %s", doc, set)
	}
	if _, ok := indexGen(ib); !ok {
		return nil, errorf(ErrNotFound, "document %s's derived-document index by %s is from an older citelens; it is built again when a raidd strategy or 'citelens derive' next runs", doc, set)
	}
	if ib.Bucket(keyIxBlocks) == nil {
		return nil, damaged("document %s's derived-document index by %s has no postings", doc, set)
	}
	return ib, nil
}

// DerivedPostings is one kind's inverted index in one document's
// derived-document index, read for some terms: what engine/retrieve
// ranks the derived units with. Its IndexReader reads it as the
// library's index is read, as the index of one document.
type DerivedPostings struct {
	*IndexReader
	Doc  DocID
	Kind DerivedKind
	// Units is the number of the kind's units in the document, and Sum
	// their total length in index terms (each at most 65535).
	Units int
	Sum   float64
	// ranges and owner are the index's records of the chunks' sentences
	// and of the questions' chunks.
	ranges, owner []byte
}

// Hit is the hit of unit u with score: the chunk it stands for and, for a
// question, its place among the chunk's questions.
func (p *DerivedPostings) Hit(u int, score float64) (DerivedHit, error) {
	return unitHit(p.Doc, p.Kind, u, p.ranges, p.owner, score)
}

// ReadPostings calls fn, in one read transaction, with readers of the
// postings of terms in each kind of opt.Kinds of each document of
// opt.Docs' derived index by opt.Set: documents in order, and kinds in the
// order given within each. They are all read in one transaction, so that
// the statistics a ranking takes from all of them and the postings it
// scores are of one state of the library; they are valid only inside fn.
func (l *Derived) ReadPostings(opt DerivedSearchOptions, terms []string, fn func([]*DerivedPostings) error) error {
	return l.store.View(func(tx storage.Tx) error {
		ps := make([]*DerivedPostings, 0, len(opt.Docs)*len(opt.Kinds))
		for _, id := range opt.Docs {
			ib, err := derivedIndex(tx, id, opt.Set)
			if err != nil {
				return err
			}
			for _, k := range opt.Kinds {
				if int(k) >= len(derivedKinds) {
					return fmt.Errorf("unknown derived kind %d", k)
				}
				b := ib.Bucket(keyIxBlocks).Bucket(k.key())
				t, ok := derivedTotals(ib, k)
				if b == nil || !ok {
					return damaged("document %s's derived-document index is malformed", id)
				}
				ps = append(ps, &DerivedPostings{IndexReader: oneDocumentReader(tx, FieldChunks, b, id, derivedDoc, t, terms),
					Doc: id, Kind: k, Units: t.units, Sum: float64(t.length), ranges: ib.Get(keyIxRanges), owner: ib.Get(keyIxOwner)})
			}
		}
		return fn(ps)
	})
}

// unitHit is the hit of unit u of kind in doc's index (ranges and owner
// are the index's records): the chunk it stands for and, for a question,
// its place among the chunk's questions.
func unitHit(doc DocID, kind DerivedKind, u int, ranges, owner []byte, score float64) (DerivedHit, error) {
	chunk, item := u, 0
	if kind == DerivedQuestion {
		if u < 0 || 4*u+4 > len(owner) {
			return DerivedHit{}, damaged("document %s's derived-document index has bad question owners", doc)
		}
		ownerOf := func(u int) int { return int(int32(binary.LittleEndian.Uint32(owner[4*u:]))) }
		chunk = ownerOf(u)
		for item < u && ownerOf(u-item-1) == chunk {
			item++
		}
	}
	if chunk < 0 || 8*chunk+8 > len(ranges) {
		return DerivedHit{}, damaged("document %s's derived-document index has bad chunk ranges", doc)
	}
	return DerivedHit{Doc: doc, Kind: kind, Unit: u, Chunk: chunk,
		First: int(int32(binary.LittleEndian.Uint32(ranges[8*chunk:]))),
		Last:  int(int32(binary.LittleEndian.Uint32(ranges[8*chunk+4:]))),
		Item:  item, Score: score}, nil
}

// SortDerivedHits orders hits best first; ties go by document, kind and
// unit, so rankings are deterministic.
func SortDerivedHits(out []DerivedHit) []DerivedHit {
	slices.SortFunc(out, func(a, b DerivedHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.Doc != b.Doc:
			return strings.Compare(string(a.Doc), string(b.Doc))
		case a.Kind != b.Kind:
			return int(a.Kind) - int(b.Kind)
		}
		return a.Unit - b.Unit
	})
	return out
}

// textsFingerprint hashes a sequence of texts, each with its length, so
// that no two sequences of different texts collide by concatenation.
type textsFingerprint struct{ h hash.Hash64 }

func (f *textsFingerprint) add(text string) {
	if f.h == nil {
		f.h = fnv.New64a()
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(text)))
	f.h.Write(n[:])
	io.WriteString(f.h, text)
}

func (f *textsFingerprint) sum() uint64 {
	if f.h == nil {
		f.h = fnv.New64a()
	}
	return f.h.Sum64()
}

// rawText is the text of sentences first..last of d: a raw chunk.
func rawText(d *Document, first, last int) string {
	return d.Text[d.Sentences[first].Start:d.Sentences[last].End]
}

// derivedLayout is the fingerprint and number of the units of kind in
// doc's index of set: what the vectors of those units are checked against.
func derivedLayout(tx storage.Tx, doc DocID, set DerivedSet, kind DerivedKind) (uint64, int, error) {
	ib, err := derivedIndex(tx, doc, set)
	if err != nil {
		return 0, 0, err
	}
	fp := ib.Get(keyIxFingerprint)
	if len(fp) != 8*len(derivedKinds) {
		return 0, 0, errorf(ErrNotFound, "document %s's derived-document index by %s is from an older citelens; it is built again when a raidd strategy or 'citelens derive' next runs", doc, set)
	}
	units := len(ib.Get(keyIxRanges)) / 8
	if kind == DerivedQuestion {
		units = len(ib.Get(keyIxOwner)) / 4
	}
	return binary.LittleEndian.Uint64(fp[8*int(kind):]), units, nil
}

// Texts returns the texts of the units of kind in doc's index of
// set, numbered as the index numbers them (DerivedHit.Unit): each chunk's
// summary (blank for a chunk whose derivation failed), every question in
// chunk order, or each chunk's own text. They are the texts dense
// retrieval embeds. An index older than the records (records written
// since it was built) is an error: build it again first (Index).
func (l *Derived) Texts(doc DocID, set DerivedSet, kind DerivedKind) ([]string, error) {
	if int(kind) >= len(derivedKinds) {
		return nil, fmt.Errorf("unknown derived kind %d", kind)
	}
	d, err := l.library().Document(doc)
	if err != nil {
		return nil, err
	}
	var out []string
	err = l.store.View(func(tx storage.Tx) error {
		fp, units, err := derivedLayout(tx, doc, set, kind)
		if err != nil {
			return err
		}
		recs, err := readChunks(setBucket(tx, doc, set))
		if err != nil {
			return err
		}
		var got textsFingerprint
		for _, r := range recs {
			switch kind {
			case DerivedSummary:
				out = append(out, r.Summary)
			case DerivedQuestion:
				out = append(out, r.Questions...)
			case DerivedRaw:
				if r.First < 0 || r.Last < r.First || r.Last >= len(d.Sentences) {
					return damaged("derived chunk %d of document %s covers sentences outside the document", r.Index, doc)
				}
				out = append(out, rawText(d, r.First, r.Last))
			}
		}
		for _, t := range out {
			got.add(t)
		}
		if len(out) != units || got.sum() != fp {
			return fmt.Errorf("document %s's derived-document index by %s is older than its records: index it again", doc, set)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanCosines calls fn with each unit of opt.Kinds in the scope's
// derived indexes that has a current vector embedded by model, as a hit
// whose Score is the vector's cosine similarity to the query vector q:
// documents in order, kinds in the order given, units in order (opt.K is
// not used). It is the storage side of ranking derived units by meaning;
// engine/retrieve keeps the best. Units without a stored vector, stored
// without text, or stored for other texts than the index's (a stale set)
// are skipped. A query of another length than the stored vectors is an
// error wrapping ErrBadVectors: the model behind the name changed, and the
// units must be embedded again (RemoveVectors).
func (l *Derived) ScanCosines(model string, q []float32, opt DerivedSearchOptions, fn func(DerivedHit)) error {
	if len(q) == 0 || len(opt.Docs) == 0 || len(opt.Kinds) == 0 {
		return nil
	}
	return l.store.View(func(tx storage.Tx) error {
		for _, id := range opt.Docs {
			ib, err := derivedIndex(tx, id, opt.Set)
			if err != nil {
				return err
			}
			ranges, owner := ib.Get(keyIxRanges), ib.Get(keyIxOwner)
			for _, kind := range opt.Kinds {
				k := DerivedVectorKey(id, model, opt.Set, kind)
				if err := k.check(); err != nil {
					return err
				}
				layoutOf := func(tx storage.Tx) (uint64, int, error) { return derivedLayout(tx, id, opt.Set, kind) }
				var hitErr error
				err := scanSet(tx, k, layoutOf, q, func(u int, cos float64) {
					if hitErr != nil {
						return
					}
					h, err := unitHit(id, kind, u, ranges, owner, cos)
					if err != nil {
						hitErr = err
						return
					}
					fn(h)
				})
				if err != nil || hitErr != nil {
					return cmp.Or(err, hitErr)
				}
			}
		}
		return nil
	})
}
