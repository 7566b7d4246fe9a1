package docstore

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/storage"
)

// docWrite writes one version of a document, number num, a piece at a
// time: its text, sentences and chunks as they come (each kept until a
// whole piece is ready), its compounds and its postings (through a
// postingBatch, into a segment); then publish makes it a document of the
// library. Nothing it writes before publish is seen by a reader
// (records.go).
type docWrite struct {
	id  DocID
	num DocNum
	rec docRecord

	text   []byte // the text after the pieces written
	textN  uint32
	sents  []Sentence
	sentN  uint32
	chunks []Chunk
	chunkN uint32

	// textChanged says the document's text may differ from what the
	// library stores under its ID (geometry.go: stored geometry is kept
	// only for the same text). A Rebuild clears it for a document rebuilt
	// from its stored text.
	textChanged bool
}

func newDocWrite(id DocID, num DocNum) *docWrite {
	return &docWrite{id: id, num: num, rec: docRecord{num: num}, textChanged: true}
}

// addText appends text, writing every whole piece.
func (w *docWrite) addText(tx storage.Tx, s string) error {
	b := tx.Bucket(bucketText)
	b.SetAppendOnly() // keyed by number: written in key order
	for len(s) > 0 {
		n := min(len(s), textPiece-len(w.text))
		w.text = append(w.text, s[:n]...)
		s = s[n:]
		if len(w.text) == textPiece {
			if err := b.Put(pieceKey(w.num, 0, w.textN), w.text); err != nil {
				return err
			}
			w.textN++
			w.text = w.text[:0] // Put copied it
		}
	}
	return nil
}

// addSentences appends sentences, writing every whole piece.
func (w *docWrite) addSentences(tx storage.Tx, ss []Sentence) error {
	b := tx.Bucket(bucketLayout)
	b.SetAppendOnly() // keyed by number: written in key order
	for len(ss) > 0 {
		n := min(len(ss), sentPiece-len(w.sents))
		w.sents = append(w.sents, ss[:n]...)
		ss = ss[n:]
		if len(w.sents) == sentPiece {
			if err := b.Put(pieceKey(w.num, tagSentences, w.sentN), encodeSentences(w.sents)); err != nil {
				return err
			}
			w.sentN++
			w.sents = w.sents[:0]
		}
	}
	return nil
}

// addChunks appends chunks, writing every whole piece.
func (w *docWrite) addChunks(tx storage.Tx, cs []Chunk) error {
	b := tx.Bucket(bucketLayout)
	for len(cs) > 0 {
		n := min(len(cs), chunkPiece-len(w.chunks))
		w.chunks = append(w.chunks, cs[:n]...)
		cs = cs[n:]
		if len(w.chunks) == chunkPiece {
			if err := b.Put(pieceKey(w.num, tagChunks, w.chunkN), encodeChunks(w.chunks)); err != nil {
				return err
			}
			w.chunkN++
			w.chunks = w.chunks[:0]
		}
	}
	return nil
}

// addCompounds writes the parts of compound words, in key order (bbolt
// inserts out of order into a node by moving what follows).
func (w *docWrite) addCompounds(tx storage.Tx, parts map[string][]string) error {
	b := tx.Bucket(bucketLayout)
	words := make([]string, 0, len(parts))
	for word := range parts {
		words = append(words, word)
	}
	slices.Sort(words)
	for _, word := range words {
		k := compoundKey(w.num, word)
		if len(k) > storage.MaxKeySize {
			continue
		}
		if err := b.Put(k, []byte(strings.Join(parts[word], "\x00"))); err != nil {
			return err
		}
	}
	return nil
}

// indexed is a document's (or a piece's) index ready to write: per field,
// its terms in order with their postings as groups (their document number
// set when written), and its units and their lengths.
type indexed struct {
	terms         [numFields][]string
	groups        [numFields][][]group
	units, length [numFields]uint64
}

// compile turns a built index whose units are numbered from base (per
// field) into groups: the writer's work done where the document was read.
func (bi *builtIndex) compile(base [numFields]uint32) *indexed {
	ix := &indexed{}
	var ps []groupPosting
	for f := range numFields {
		lens := bi.lens[f]
		ix.units[f] = uint64(len(lens))
		for _, n := range lens {
			ix.length[f] += uint64(max(n, 0))
		}
		var tids []int32
		for t, list := range bi.postings[f] {
			if len(list) > 0 {
				tids = append(tids, int32(t))
			}
		}
		slices.SortFunc(tids, func(a, b int32) int { return strings.Compare(bi.terms[a], bi.terms[b]) })
		ix.terms[f] = make([]string, len(tids))
		ix.groups[f] = make([][]group, len(tids))
		for i, t := range tids {
			ix.terms[f][i] = bi.terms[t]
			ps = ps[:0]
			for _, p := range bi.postings[f][t] {
				if int(p.idx) >= len(lens) {
					continue
				}
				ps = append(ps, groupPosting{unit: base[f] + uint32(p.idx), tf: uint32(p.tf), length: uint32(max(lens[p.idx], 0))})
			}
			ix.groups[f][i] = appendGroups(nil, 0, ps)
		}
	}
	return ix
}

// addIndex adds a compiled index to the batch and counts its units.
func (w *docWrite) addIndex(ix *indexed, pb *postingBatch) {
	for f := range numFields {
		w.rec.units[f] += ix.units[f]
		w.rec.length[f] += ix.length[f]
		for i, t := range ix.terms[f] {
			gs := ix.groups[f][i]
			for j := range gs {
				gs[j].doc = w.num
			}
			pb.add(f, t, gs)
		}
	}
}

// flush writes what is left of the text, sentences and chunks.
func (w *docWrite) flush(tx storage.Tx) error {
	if len(w.text) > 0 {
		if err := tx.Bucket(bucketText).Put(pieceKey(w.num, 0, w.textN), w.text); err != nil {
			return err
		}
		w.textN++
		w.text = nil
	}
	if len(w.sents) > 0 {
		if err := tx.Bucket(bucketLayout).Put(pieceKey(w.num, tagSentences, w.sentN), encodeSentences(w.sents)); err != nil {
			return err
		}
		w.sentN++
		w.sents = w.sents[:0]
	}
	if len(w.chunks) > 0 {
		if err := tx.Bucket(bucketLayout).Put(pieceKey(w.num, tagChunks, w.chunkN), encodeChunks(w.chunks)); err != nil {
			return err
		}
		w.chunkN++
		w.chunks = w.chunks[:0]
	}
	return nil
}

// errExists says a document with the same content was published first
// (by another process, or earlier in the batch).
var errExists = errors.New("already in the library")

// publish writes the document's header and metadata and makes it a
// document of the library, in tx: the transaction every reader sees the
// document from. It fails with errExists when the library has one with
// the same ID, and then writes nothing.
func (w *docWrite) publish(tx storage.Tx, d *Document) error {
	if tx.Bucket(bucketDocs).Get([]byte(w.id)) != nil {
		return errExists
	}
	return w.publishOver(tx, d, nil)
}

// publishOver publishes the document in place of old, its earlier version
// (nil for none): the old version leaves the library in the same
// transaction and its records are left for removal (pending).
func (w *docWrite) publishOver(tx storage.Tx, d *Document, old *docRecord) error {
	meta, err := json.Marshal(d.DocInfo)
	if err != nil {
		return err
	}
	if err := w.flush(tx); err != nil {
		return err
	}
	if err := tx.Bucket(bucketLayout).Put(pieceKey(w.num, tagHeader, 0), encodeHeader(d)); err != nil {
		return err
	}
	if err := writeGeometry(tx, d, w.textChanged); err != nil {
		return err
	}
	t, err := readTotals(tx)
	if err != nil {
		return err
	}
	live := readLive(tx)
	if old != nil {
		if err := unlist(tx, d.ID, *old); err != nil {
			return err
		}
		live = live.without(old.num)
		t.sub(old)
		if err := markRemoving(tx, old.num, d.ID); err != nil {
			return err
		}
		if err := markDead(tx, old.num); err != nil {
			return err
		}
	}
	t.add(&w.rec)
	entry := listEntryOf(w.num, &d.DocInfo)
	key := []byte(d.ID)
	for _, put := range []struct {
		bucket []byte
		k, v   []byte
	}{
		{bucketRecords, key, w.rec.encode()},
		{bucketListing, numKey(w.num), entry.encode()},
		{bucketNames, nameKey(d.Name, w.num), nil},
		{bucketMeta, keyLive, live.with(w.num)},
		{bucketDocs, key, meta},
	} {
		if len(put.k) > storage.MaxKeySize {
			continue // a file name too long for the names index
		}
		if err := tx.Bucket(put.bucket).Put(put.k, put.v); err != nil {
			return err
		}
	}
	if err := writeTotals(tx, t); err != nil {
		return err
	}
	return tx.Bucket(bucketPending).Delete(numKey(w.num))
}

// unlist removes document id (version r) from the listing, the names and
// the metadata, and its record.
func unlist(tx storage.Tx, id DocID, r docRecord) error {
	if v := tx.Bucket(bucketListing).Get(numKey(r.num)); v != nil {
		if e, err := decodeListEntry(r.num, v); err == nil {
			if err := tx.Bucket(bucketNames).Delete(nameKey(e.Name, r.num)); err != nil {
				return err
			}
		}
	}
	if err := tx.Bucket(bucketListing).Delete(numKey(r.num)); err != nil {
		return err
	}
	if err := tx.Bucket(bucketRecords).Delete([]byte(id)); err != nil {
		return err
	}
	return tx.Bucket(bucketDocs).Delete([]byte(id))
}

func (t *totals) add(r *docRecord) {
	for f := range numFields {
		t.units[f] += r.units[f]
		t.length[f] += r.length[f]
	}
}

func (t *totals) sub(r *docRecord) {
	for f := range numFields {
		t.units[f] -= min(t.units[f], r.units[f])
		t.length[f] -= min(t.length[f], r.length[f])
	}
}

// postingBatch gathers the postings of the documents (or pieces of one)
// written in one transaction, so that each term's list is written once.
type postingBatch struct {
	terms [numFields]map[string][]group
}

func (pb *postingBatch) add(f Field, term string, gs []group) {
	if pb.terms[f] == nil {
		pb.terms[f] = map[string][]group{}
	}
	pb.terms[f][term] = append(pb.terms[f][term], gs...)
}

// write writes the gathered postings into segment s, term by term in key
// order, empties the batch and returns the postings written.
func (pb *postingBatch) write(tx storage.Tx, s SegID) (uint64, error) {
	var n uint64
	for f := range numFields {
		m := pb.terms[f]
		if len(m) == 0 {
			continue
		}
		b := fieldBucket(tx, s, f)
		if b == nil {
			return n, damaged("the index's segment %d has no %s bucket", s, f)
		}
		b.SetAppendOnly() // written in key order, once
		terms := make([]string, 0, len(m))
		for t := range m {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			gs := m[t]
			slices.SortStableFunc(gs, func(a, b group) int {
				switch {
				case a.before(b):
					return -1
				case b.before(a):
					return 1
				}
				return 0
			})
			for _, g := range gs {
				n += uint64(g.n)
			}
			if err := putBlocks(b, t, gs); err != nil {
				return n, err
			}
		}
		pb.terms[f] = nil
	}
	return n, nil
}

// encodeSentences is a sentence piece: 6 × i32 a sentence.
func encodeSentences(ss []Sentence) []byte {
	b := make([]byte, 0, 24*len(ss))
	for _, s := range ss {
		b = putInt32s(b, s.Start, s.End, s.Page, s.Section, s.Table, int32(s.Flags))
	}
	return b
}

func decodeSentences(dst []Sentence, b []byte) ([]Sentence, error) {
	if len(b)%24 != 0 {
		return dst, ErrCorrupt
	}
	r := &reader{b: b}
	for len(r.b) > 0 {
		dst = append(dst, Sentence{Start: r.i32(), End: r.i32(), Page: r.i32(),
			Section: r.i32(), Table: r.i32(), Flags: structure.Flags(r.i32())})
	}
	return dst, nil
}

// encodeChunks is a chunk piece: 3 × i32 a chunk.
func encodeChunks(cs []Chunk) []byte {
	b := make([]byte, 0, 12*len(cs))
	for _, c := range cs {
		b = putInt32s(b, c.First, c.Last, c.Tokens)
	}
	return b
}

func decodeChunks(dst []Chunk, b []byte) ([]Chunk, error) {
	if len(b)%12 != 0 {
		return dst, ErrCorrupt
	}
	r := &reader{b: b}
	for len(r.b) > 0 {
		dst = append(dst, Chunk{First: r.i32(), Last: r.i32(), Tokens: r.i32()})
	}
	return dst, nil
}

// encodeHeader is the layout header: what a reader of pieces needs whole.
//
//	u32 nsents, u32 nchunks, u32 npages, npages × i32,
//	u32 nsections, nsections × (i32 start, end, level, parent, sentence),
//	u32 ntables, ntables × (i32 caption start, end,
//	    u32 nheader, nheader × (i32, i32), u32 nrows, nrows × (i32, i32))
func encodeHeader(d *Document) []byte {
	b := putInt32s(nil, int32(d.NumSents), int32(d.NumChunks), int32(len(d.PageStarts)))
	b = putInt32s(b, d.PageStarts...)
	b = putInt32s(b, int32(len(d.Sections)))
	for _, s := range d.Sections {
		b = putInt32s(b, s.Heading.Start, s.Heading.End, int32(s.Level), s.Parent, s.Sentence)
	}
	b = putInt32s(b, int32(len(d.Tables)))
	putSpans := func(ss []structure.Span) {
		b = putInt32s(b, int32(len(ss)))
		for _, s := range ss {
			b = putInt32s(b, s.Start, s.End)
		}
	}
	for _, t := range d.Tables {
		b = putInt32s(b, t.Caption.Start, t.Caption.End)
		putSpans(t.Header)
		putSpans(t.Rows)
	}
	return b
}

// header is a decoded layout header.
type header struct {
	sents, chunks int
	pageStarts    []int32
	sections      []structure.Section
	tables        []structure.Table
}

func decodeHeader(b []byte) (header, error) {
	var h header
	r := &reader{b: b}
	h.sents, h.chunks = int(r.i32()), int(r.i32())
	h.pageStarts = make([]int32, r.count(4))
	for i := range h.pageStarts {
		h.pageStarts[i] = r.i32()
	}
	h.sections = make([]structure.Section, r.count(20))
	for i := range h.sections {
		h.sections[i] = structure.Section{Heading: structure.Span{Start: r.i32(), End: r.i32()},
			Level: int(r.i32()), Parent: r.i32(), Sentence: r.i32()}
	}
	spans := func() []structure.Span {
		n := r.count(8)
		if n == 0 {
			return nil
		}
		ss := make([]structure.Span, n)
		for i := range ss {
			ss[i] = structure.Span{Start: r.i32(), End: r.i32()}
		}
		return ss
	}
	h.tables = make([]structure.Table, r.count(16))
	for i := range h.tables {
		h.tables[i].Caption = structure.Span{Start: r.i32(), End: r.i32()}
		h.tables[i].Header = spans()
		h.tables[i].Rows = spans()
	}
	if r.err != nil || h.sents < 0 || h.chunks < 0 || len(r.b) != 0 {
		return h, ErrCorrupt
	}
	return h, nil
}
