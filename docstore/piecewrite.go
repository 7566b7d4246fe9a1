package docstore

import (
	"errors"
	"fmt"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/storage"
)

// A document too large to hold in memory (a large text file) is written a
// piece at a time, so that the memory an add takes does not grow with the
// file: each piece of its text, with the sentences, chunks, sections and
// tables that lie in it, is indexed and written in a transaction of its
// own, its postings a building segment; a last transaction publishes the
// document (docWrite.publish) and makes its segments active. Until then
// the pieces are invisible, and a pending record says whose they are: if
// the process dies, the next one to write deletes them (pending.go).

// PieceWriter writes one document a piece at a time. Write its pieces in
// order, then Publish it; after an error, or when Publish finds the
// document already in the library, Abandon it.
type PieceWriter struct {
	l    *Library
	w    *docWrite
	segs []SegID // the pieces' segments, building until published

	// What the pieces so far add up to: their bytes of text, and their
	// sentences, chunks, sections and tables (the units of each field).
	base  int
	units [numFields]uint32
}

// NewPieceWriter starts writing the document id, a piece at a time.
func (l *Library) NewPieceWriter(id DocID) (*PieceWriter, error) {
	pw := &PieceWriter{l: l}
	who, err := l.writer()
	if err != nil {
		return nil, err
	}
	err = l.store.Update(func(tx storage.Tx) error {
		num, err := nextDocNum(tx)
		if err != nil {
			return err
		}
		pw.w = newDocWrite(id, num)
		return markAdding(tx, num, id, who)
	})
	if err != nil {
		return nil, err
	}
	return pw, nil
}

// Piece is the next piece of a document a PieceWriter writes: its text,
// which follows the pieces before it, and what lies in it, in the whole
// document's terms — offsets into the whole text, sentences numbered from
// the document's first, sections and tables from its first.
type Piece struct {
	Text      string
	Sentences []Sentence
	Chunks    []Chunk
	// Sections are the sections whose headings lie in the piece, and
	// Tables the tables whose rows do: the document's next ones, in
	// order, indexed with the piece. (Publish takes the whole lists.)
	Sections []structure.Section
	Tables   []structure.Table
}

// Write indexes and writes the next piece in a transaction of its own.
func (pw *PieceWriter) Write(p *Piece) error {
	rel, err := pw.relative(p)
	if err != nil {
		return err
	}
	// The piece's units are numbered after the pieces' before it.
	ix := buildIndex(rel).compile(pw.units)
	// The piece's aliases, their sentences numbered in the document.
	as := MineAliases(rel)
	for i := range as {
		as[i].Sentence += int32(pw.units[FieldSentences])
	}
	who, err := pw.l.writer()
	if err != nil {
		return err
	}
	err = pw.l.store.Update(func(tx storage.Tx) error {
		if err := pw.stillOurs(tx); err != nil {
			return err
		}
		pb := &postingBatch{}
		d := &Document{Text: p.Text, Sentences: p.Sentences, Chunks: p.Chunks, Compounds: rel.Compounds, Aliases: as}
		if err := pw.w.writeContent(tx, d, ix, pb); err != nil {
			return err
		}
		seg, err := newSegment(tx, segBuilding)
		if err != nil {
			return err
		}
		if err := writeBatchSegment(tx, seg, pb, []DocNum{pw.w.num}, segBuilding); err != nil {
			return err
		}
		pw.segs = append(pw.segs, seg)
		return markAdding(tx, pw.w.num, pw.w.id, who)
	})
	if err != nil {
		return err
	}
	pw.base += len(p.Text)
	pw.units[FieldSentences] += uint32(len(p.Sentences))
	pw.units[FieldChunks] += uint32(len(p.Chunks))
	pw.units[FieldHeadings] += uint32(len(p.Sections))
	pw.units[FieldTables] += uint32(len(p.Tables))
	pw.l.unmap() // what the piece's transaction read stays out of memory
	return nil
}

// relative is piece p as a document of its own, every offset and number
// counted from the piece's start, which is what is indexed; it fails when
// p's sentences or chunks lie outside it.
func (pw *PieceWriter) relative(p *Piece) (*Document, error) {
	base, sentBase := int32(pw.base), int32(pw.units[FieldSentences])
	n := int32(len(p.Text))
	d := &Document{Text: p.Text, Sentences: make([]Sentence, len(p.Sentences)), Chunks: make([]Chunk, len(p.Chunks)),
		Sections: make([]structure.Section, len(p.Sections)), Tables: make([]structure.Table, len(p.Tables))}
	prev := base
	for i, s := range p.Sentences {
		if s.Start < prev || s.End < s.Start || s.End-base > n {
			return nil, fmt.Errorf("cannot store document %s: its piece at byte %d has sentence %d at bytes %d-%d, outside the piece or out of order", pw.w.id, base, int(sentBase)+i, s.Start, s.End)
		}
		prev = s.Start
		s.Start -= base
		s.End -= base
		d.Sentences[i] = s
	}
	for i, c := range p.Chunks {
		c.First -= sentBase
		c.Last -= sentBase
		if c.First < 0 || c.First > c.Last || int(c.Last) >= len(p.Sentences) {
			return nil, fmt.Errorf("cannot store document %s: its piece at byte %d has chunk %d over sentences %d-%d, outside the piece", pw.w.id, base, int(pw.units[FieldChunks])+i, c.First+sentBase, c.Last+sentBase)
		}
		d.Chunks[i] = c
	}
	for i, sec := range p.Sections {
		sec.Heading = sec.Heading.Shift(-base)
		d.Sections[i] = sec
	}
	for i, t := range p.Tables {
		d.Tables[i] = structure.Table{Caption: t.Caption.Shift(-base), Header: structure.ShiftSpans(t.Header, -base), Rows: structure.ShiftSpans(t.Rows, -base)}
	}
	return d, nil
}

// Publish makes the document a document of the library, in one
// transaction: d's metadata, page starts, sections and tables (the whole
// lists) with the text, sentences and chunks of the pieces written, whose
// counts it sets in d. existed reports that the library has a document
// with the same ID (another process added it meanwhile): nothing is
// published, and info is that document's.
func (pw *PieceWriter) Publish(d *Document) (info DocInfo, existed bool, err error) {
	if err := pw.checkHeader(d); err != nil {
		return DocInfo{}, false, err
	}
	d.Bytes, d.NumSents, d.NumChunks = pw.base, int(pw.units[FieldSentences]), int(pw.units[FieldChunks])
	d.AddedBy = pw.l.author()
	err = pw.l.store.Update(func(tx storage.Tx) error {
		if err := pw.stillOurs(tx); err != nil {
			return err
		}
		err := pw.w.publish(tx, d)
		if errors.Is(err, errExists) {
			existed = true
			d.DocInfo, _, err = readInfo(tx, pw.w.id)
			return err
		}
		if err != nil {
			return err
		}
		return activate(tx, pw.segs)
	})
	if err == nil && !existed {
		err = pw.l.merge()
	}
	return d.DocInfo, existed, err
}

// stillOurs fails, in a transaction that writes the document's pieces or
// publishes it, when another process took the pieces written so far for
// abandoned and collected them: this one lost its hold on a shared store
// for a while (its connection was cut) and was taken for dead. Writing on
// would publish a document without its first pieces.
func (pw *PieceWriter) stillOurs(tx storage.Tx) error {
	p, ok := readPending(tx, pw.w.num)
	lost := !ok || p.State != stateAdding || p.ID != pw.w.id
	if !lost {
		for _, s := range pw.segs {
			v := tx.Bucket(bucketSegments).Get(segKey(s))
			if r, err := decodeSegRecord(v); err != nil || r.state != segBuilding {
				lost = true
				break
			}
		}
	}
	if lost {
		return fmt.Errorf("cannot store document %s: another citelens took the pieces written so far for abandoned and removed them (this process lost its connection to the library %s for a while); add the file again", pw.w.id, pw.l.path)
	}
	return nil
}

// checkHeader checks what Publish is given against the pieces written.
func (pw *PieceWriter) checkHeader(d *Document) error {
	n := pw.base
	switch {
	case d.ID != pw.w.id:
		return fmt.Errorf("cannot store document %s: the pieces written are document %s's", d.ID, pw.w.id)
	case len(d.Sections) != int(pw.units[FieldHeadings]) || len(d.Tables) != int(pw.units[FieldTables]):
		return fmt.Errorf("cannot store document %s: it has %d sections and %d tables, its pieces %d and %d", d.ID, len(d.Sections), len(d.Tables), pw.units[FieldHeadings], pw.units[FieldTables])
	case !validPageStarts(d.PageStarts, n):
		return fmt.Errorf("cannot store document %s: its page starts are out of order or outside its %d-byte text", d.ID, n)
	}
	return nil
}

// Abandon deletes what the writer wrote, in a transaction, or — should
// that fail — leaves it to the next process that writes, as its pending
// record says.
func (pw *PieceWriter) Abandon() error {
	err := pw.l.store.Update(func(tx storage.Tx) error {
		for _, seg := range pw.segs {
			if err := deleteSegment(tx, seg); err != nil {
				return err
			}
		}
		return markRemoving(tx, pw.w.num, pw.w.id)
	})
	if err == nil {
		_ = pw.l.collect()
	}
	return err
}
