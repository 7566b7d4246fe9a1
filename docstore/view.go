package docstore

import (
	"fmt"
	"strings"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// View is a stored document read as it is needed: its sentences, their
// text, headings and tables, without loading the document whole. A
// question over a 500 MB text reads the pieces around the sentences it
// ranks (a few megabytes), not the text and its five million sentences.
// A document of at most viewWhole bytes is loaded whole, as Document does
// (it costs less than reading it in pieces).
//
// A View is for one goroutine. Its accessors do not return errors: a
// piece that cannot be read (damage) reads as empty, and Err says why;
// a ranking that used it should check Err at the end.
type View struct {
	info DocInfo
	doc  *Document // the document, when it is loaded whole

	// Read in pieces.
	l *Library
	*viewBase
	sents     map[uint32][]Sentence
	text      map[uint32]string
	compounds map[string][]string // words looked up, found or not
	err       error
}

// viewWhole is the largest document a View loads whole.
const viewWhole = 4 << 20

// viewBase is what the Views of a large document share, kept by the
// library: its number and layout header (pages, sections, tables).
type viewBase struct {
	num DocNum
	hdr header
}

// ViewOf is a View of a document loaded whole.
func ViewOf(d *Document) *View { return &View{info: d.DocInfo, doc: d} }

// View returns a View of document id.
func (l *Library) View(id DocID) (*View, error) {
	l.mu.Lock()
	d, whole := l.docs[id]
	base := l.views[id]
	l.mu.Unlock()
	if whole {
		return ViewOf(d), nil
	}
	v := &View{l: l, viewBase: base}
	var loaded *Document // a document small enough to load whole
	err := l.store.View(func(tx storage.Tx) error {
		info, ok, err := readInfo(tx, id)
		if err == nil && !ok {
			err = errorf(ErrNotFound, "no document %s in the library", id)
		}
		if err != nil {
			return err
		}
		v.info = info
		if info.Bytes <= viewWhole {
			// in this transaction, as Document would in another
			loaded, err = readDocument(tx, id)
			return err
		}
		if v.viewBase != nil {
			return nil
		}
		rec, ok, err := readRecord(tx, id)
		if err == nil && !ok {
			err = damaged("document %s has no index record", id)
		}
		if err != nil {
			return err
		}
		b := &viewBase{num: rec.num}
		if b.hdr, err = decodeHeader(tx.Bucket(bucketLayout).Get(pieceKey(rec.num, tagHeader, 0))); err != nil {
			return damaged("document %s's layout record is cut short or malformed", id)
		}
		if b.hdr.sents != info.NumSents {
			return damaged("document %s's metadata says %d sentences; the layout record has %d", id, info.NumSents, b.hdr.sents)
		}
		v.viewBase = b
		l.mu.Lock()
		l.views[id] = b
		l.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if loaded != nil {
		l.mu.Lock()
		l.docs[id] = loaded
		l.mu.Unlock()
		return ViewOf(loaded), nil
	}
	v.sents, v.text, v.compounds = map[uint32][]Sentence{}, map[uint32]string{}, map[string][]string{}
	return v, nil
}

// Info is the document's metadata.
func (v *View) Info() *DocInfo { return &v.info }

// ID is the document's ID.
func (v *View) ID() DocID { return v.info.ID }

// DisplayName is what people call the document (Document.DisplayName).
func (v *View) DisplayName() string { return v.info.DisplayName() }

// Err is the first error met reading the document in pieces.
func (v *View) Err() error { return v.err }

// Whole returns the document when the View holds it whole, else nil.
func (v *View) Whole() *Document { return v.doc }

// Len is the length of the stored text.
func (v *View) Len() int {
	if v.doc != nil {
		return len(v.doc.Text)
	}
	return v.info.Bytes
}

// NumSentences is the number of sentences.
func (v *View) NumSentences() int {
	if v.doc != nil {
		return len(v.doc.Sentences)
	}
	return v.hdr.sents
}

// NumChunks is the number of chunks.
func (v *View) NumChunks() int {
	if v.doc != nil {
		return len(v.doc.Chunks)
	}
	return v.hdr.chunks
}

// Sentence returns sentence i (0 ≤ i < NumSentences).
func (v *View) Sentence(i int) Sentence {
	if v.doc != nil {
		return v.doc.Sentences[i]
	}
	p := uint32(i / sentPiece)
	ss, ok := v.sents[p]
	if !ok {
		ss = v.readSentences(p)
		v.sents[p] = ss
	}
	if j := i % sentPiece; j < len(ss) {
		return ss[j]
	}
	return Sentence{Section: -1, Table: -1, Page: 1}
}

// Chunk returns chunk i (0 ≤ i < NumChunks).
func (v *View) Chunk(i int) Chunk {
	if v.doc != nil {
		return v.doc.Chunks[i]
	}
	var c Chunk
	v.read(func(tx storage.Tx) error {
		cs, err := decodeChunks(nil, tx.Bucket(bucketLayout).Get(pieceKey(v.num, tagChunks, uint32(i/chunkPiece))))
		if err != nil || i%chunkPiece >= len(cs) {
			return fmt.Errorf("chunk %d cannot be read", i)
		}
		c = cs[i%chunkPiece]
		return nil
	})
	return c
}

// Slice returns the stored text from start to end (clipped to the text).
func (v *View) Slice(start, end int) string {
	if v.doc != nil {
		start, end = max(start, 0), min(end, len(v.doc.Text))
		if start >= end {
			return ""
		}
		return v.doc.Text[start:end]
	}
	start, end = max(start, 0), min(end, v.info.Bytes)
	if start >= end {
		return ""
	}
	first, last := uint32(start/textPiece), uint32((end-1)/textPiece)
	if first == last {
		t := v.piece(first)
		a, b := start-int(first)*textPiece, end-int(first)*textPiece
		if b > len(t) {
			return ""
		}
		return t[a:b]
	}
	var sb strings.Builder
	for p := first; p <= last; p++ {
		t := v.piece(p)
		a, b := max(start-int(p)*textPiece, 0), min(end-int(p)*textPiece, len(t))
		if a < b {
			sb.WriteString(t[a:b])
		}
	}
	return sb.String()
}

// SentenceText returns the text of sentence i.
func (v *View) SentenceText(i int) string {
	s := v.Sentence(i)
	return v.Slice(int(s.Start), int(s.End))
}

// Sections are the document's sections (Document.Sections).
func (v *View) Sections() []structure.Section {
	if v.doc != nil {
		return v.doc.Sections
	}
	return v.hdr.sections
}

// Tables are the document's tables (Document.Tables).
func (v *View) Tables() []structure.Table {
	if v.doc != nil {
		return v.doc.Tables
	}
	return v.hdr.tables
}

// PageStarts are the byte offsets of the pages (Document.PageStarts).
func (v *View) PageStarts() []int32 {
	if v.doc != nil {
		return v.doc.PageStarts
	}
	return v.hdr.pageStarts
}

// Compound returns the index terms of a run-together word's parts
// (Document.Compounds), nil for a word that is none.
func (v *View) Compound(word string) []string {
	if v.doc != nil {
		return v.doc.Compounds[word]
	}
	parts, ok := v.compounds[word]
	if ok {
		return parts
	}
	v.read(func(tx storage.Tx) error {
		k := compoundKey(v.num, word)
		if len(k) > storage.MaxKeySize {
			return nil
		}
		if b := tx.Bucket(bucketLayout).Get(k); b != nil {
			parts = strings.Split(string(b), "\x00")
		}
		return nil
	})
	v.compounds[word] = parts
	return parts
}

// Compounds returns Compound as a function, for an analysis that looks
// words up.
func (v *View) Compounds() func(word string) []string { return v.Compound }

// PageOf returns the 1-based page containing byte offset off.
func (v *View) PageOf(off int) int { return pageOf(v.PageStarts(), off) }

// HeadingPath returns the headings sentence i lies under, outermost first
// (Document.HeadingPath).
func (v *View) HeadingPath(i int) []string {
	if i < 0 || i >= v.NumSentences() {
		return nil
	}
	return v.SectionPath(int(v.Sentence(i).Section))
}

// SectionPath returns the headings from the top down to section s.
func (v *View) SectionPath(s int) []string { return sectionNames(v.Sections(), v.spanLine, s) }

// HeadingTrail is the heading path of sentence i joined with " > ".
func (v *View) HeadingTrail(i int) string { return strings.Join(v.HeadingPath(i), " > ") }

// TableContext returns the caption and header rows of the table sentence
// i is a row of (Document.TableContext).
func (v *View) TableContext(i int) []string {
	if i < 0 || i >= v.NumSentences() {
		return nil
	}
	s := v.Sentence(i)
	return tableContext(v.Tables(), v.spanLine, int(s.Table), structure.Span{Start: s.Start, End: s.End})
}

// InContext returns sentences first..last with what they are about set
// before them (Document.InContext).
func (v *View) InContext(first, last int) string {
	if first < 0 || last < first || last >= v.NumSentences() {
		return ""
	}
	return inContext(v.HeadingTrail(first), v.TableContext(first), v.Slice(int(v.Sentence(first).Start), int(v.Sentence(last).End)))
}

// spanLine returns the text of span s on one line.
func (v *View) spanLine(s structure.Span) string {
	if !s.Valid(v.Len()) {
		return ""
	}
	return strings.Join(strings.Fields(v.Slice(int(s.Start), int(s.End))), " ")
}

// Prefetch reads, in one transaction, the sentences of the given indices
// and their text, so that what a ranking reads next is at hand.
func (v *View) Prefetch(sentences []int) {
	if v.doc != nil {
		return
	}
	var want []uint32
	for _, i := range sentences {
		if p := uint32(i / sentPiece); i >= 0 && i < v.hdr.sents {
			if _, ok := v.sents[p]; !ok {
				want = append(want, p)
				v.sents[p] = nil // asked for
			}
		}
	}
	v.read(func(tx storage.Tx) error {
		b := tx.Bucket(bucketLayout)
		keys := make([][]byte, len(want))
		for i, p := range want {
			keys[i] = pieceKey(v.num, tagSentences, p)
		}
		for i, piece := range b.GetMany(keys) {
			p := want[i]
			ss, err := decodeSentences(nil, piece)
			if err != nil {
				return fmt.Errorf("sentence piece %d is malformed", p)
			}
			v.sents[p] = ss
		}
		var texts []uint32
		keys = keys[:0]
		for _, i := range sentences {
			if i < 0 || i >= v.hdr.sents {
				continue
			}
			s := v.Sentence(i)
			for p := uint32(max(s.Start, 0)) / textPiece; int(p)*textPiece < int(s.End); p++ {
				if _, ok := v.text[p]; !ok {
					v.text[p] = "" // asked for
					texts = append(texts, p)
					keys = append(keys, pieceKey(v.num, 0, p))
				}
			}
		}
		for i, t := range tx.Bucket(bucketText).GetMany(keys) {
			v.text[texts[i]] = string(t)
		}
		// The compound words among them, which a ranking looks up.
		var words []string
		keys = keys[:0]
		for _, i := range sentences {
			if i < 0 || i >= v.hdr.sents {
				continue
			}
			text := v.SentenceText(i)
			textproc.Words(text, func(s, e int) {
				w := text[s:e]
				if _, ok := v.compounds[w]; ok || len(w) < 3 {
					return
				}
				v.compounds[w] = nil // none, unless the library has its parts
				if k := compoundKey(v.num, w); len(k) <= storage.MaxKeySize {
					words = append(words, w)
					keys = append(keys, k)
				}
			})
		}
		for i, parts := range b.GetMany(keys) {
			if parts != nil {
				v.compounds[words[i]] = strings.Split(string(parts), "\x00")
			}
		}
		return nil
	})
}

// readSentences reads sentence piece p.
func (v *View) readSentences(p uint32) []Sentence {
	var ss []Sentence
	v.read(func(tx storage.Tx) error {
		var err error
		if ss, err = decodeSentences(nil, tx.Bucket(bucketLayout).Get(pieceKey(v.num, tagSentences, p))); err != nil {
			return fmt.Errorf("sentence piece %d is malformed", p)
		}
		return nil
	})
	return ss
}

// piece returns text piece p.
func (v *View) piece(p uint32) string {
	t, ok := v.text[p]
	if !ok {
		v.read(func(tx storage.Tx) error {
			t = string(tx.Bucket(bucketText).Get(pieceKey(v.num, 0, p)))
			return nil
		})
		v.text[p] = t
	}
	return t
}

// read runs fn in a read transaction, keeping the first error.
func (v *View) read(fn func(tx storage.Tx) error) {
	if err := v.l.store.View(fn); err != nil && v.err == nil {
		v.err = fmt.Errorf("document %s: %w", v.info.ID, err)
	}
}

// pageOf returns the 1-based page of byte offset off given page starts.
func pageOf(starts []int32, off int) int {
	lo, hi := 0, len(starts)
	for lo < hi { // first page start > off
		mid := (lo + hi) / 2
		if int(starts[mid]) <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 1
	}
	return lo
}

// sectionNames returns the headings from the top down to section s, each
// read on one line by line.
func sectionNames(sections []structure.Section, line func(structure.Span) string, s int) []string {
	var rev []string
	for n := 0; s >= 0 && s < len(sections) && n < maxHeadingDepth; n++ {
		sec := sections[s]
		rev = append(rev, line(sec.Heading))
		s = int(sec.Parent)
	}
	out := make([]string, len(rev))
	for i, h := range rev {
		out[len(rev)-1-i] = h
	}
	return out
}

// tableContext returns the caption and header rows of table t, except
// the row self, each on one line.
func tableContext(tables []structure.Table, line func(structure.Span) string, t int, self structure.Span) []string {
	if t < 0 || t >= len(tables) {
		return nil
	}
	tb := tables[t]
	var out []string
	if l := line(tb.Caption); l != "" {
		out = append(out, l)
	}
	for _, h := range tb.Header {
		if l := line(h); l != "" && h != self {
			out = append(out, l)
		}
	}
	return out
}

// inContext writes text after its heading trail and table context.
func inContext(trail string, table []string, text string) string {
	var b strings.Builder
	if trail != "" {
		b.WriteString(trail)
		b.WriteByte('\n')
	}
	for _, line := range table {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteString(text)
	return b.String()
}
