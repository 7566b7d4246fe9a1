package docstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// IndexReader reads the library's index of one field for a query's terms,
// inside one read transaction (Library.ReadIndex): the scope's statistics
// and, term by term, the postings of the documents that hold the term.
// Ranking is the caller's business (engine/retrieve): the library stores
// postings, lengths and statistics, and scores nothing.
//
// What a read costs is what the terms' lists hold: a document without
// any of the terms is never read, whatever the size of the library.
type IndexReader struct {
	tx    *bolt.Tx
	field Field
	terms []string
	b     *bolt.Bucket
	// in is the scope as a bitmap of document numbers; nums the scope as
	// a sorted list when the caller named its documents (nil for the
	// whole library), recs their records.
	in    liveSet
	nums  []DocNum
	recs  []docRecord
	ids   map[DocNum]DocID
	stats *FieldStats
}

// ReadIndex calls fn with a reader of field's index for terms over docs
// (every document of the library when empty), in one read transaction.
// The reader and what it returns are valid only inside fn. A document of
// docs that is not in the library is ErrNotFound.
func (l *Library) ReadIndex(docs []DocID, field Field, terms []string, fn func(*IndexReader) error) error {
	if field >= numFields {
		return fmt.Errorf("unknown index field %d", field)
	}
	return l.db.View(func(tx *bolt.Tx) error {
		r := &IndexReader{tx: tx, field: field, terms: terms, ids: map[DocNum]DocID{}}
		if ix := tx.Bucket(bucketIndex); ix != nil {
			r.b = ix.Bucket(field.key())
		}
		if r.b == nil {
			return damaged("the library has no %s index", field)
		}
		live := readLive(tx)
		if len(docs) == 0 {
			r.in = live
			return fn(r)
		}
		seen := map[DocNum]bool{}
		for _, id := range docs {
			rec, ok, err := readRecord(tx, id)
			if err != nil {
				return err
			}
			if !ok || !live.has(rec.num) {
				return errorf(ErrNotFound, "no document %s in the library", id)
			}
			if seen[rec.num] {
				continue
			}
			seen[rec.num] = true
			r.in = r.in.with(rec.num)
			r.nums = append(r.nums, rec.num)
			r.recs = append(r.recs, rec)
			r.ids[rec.num] = id
		}
		slices.Sort(r.nums)
		return fn(r)
	})
}

// Terms returns the query's terms, as given.
func (r *IndexReader) Terms() []string { return r.terms }

// Field returns the field read.
func (r *IndexReader) Field() Field { return r.field }

// Stats returns the scope's statistics of the field for the query's
// terms: units, average length, and each term's document frequency (the
// units holding it), which costs a pass over the terms' lists.
func (r *IndexReader) Stats() (FieldStats, error) {
	if r.stats != nil {
		return *r.stats, nil
	}
	st := FieldStats{DF: make([]int, len(r.terms)), AvgLen: 1}
	var total uint64
	if r.nums == nil {
		t, err := readTotals(r.tx)
		if err != nil {
			return st, err
		}
		st.Units, total = int(t.units[r.field]), t.length[r.field]
	} else {
		for _, rec := range r.recs {
			st.Units += int(rec.units[r.field])
			total += rec.length[r.field]
		}
	}
	if st.Units > 0 {
		st.AvgLen = max(float64(total)/float64(st.Units), 1)
	}
	for t := range r.terms {
		p := r.Postings(t)
		for p.Next() {
			st.DF[t] += p.Count()
		}
		if err := p.Err(); err != nil {
			return st, err
		}
	}
	r.stats = &st
	return st, nil
}

// DocID returns the ID of document n (a number a TermPostings gave).
func (r *IndexReader) DocID(n DocNum) (DocID, error) {
	if id, ok := r.ids[n]; ok {
		return id, nil
	}
	v := r.tx.Bucket(bucketListing).Get(numKey(n))
	if v == nil {
		return "", damaged("the index names document number %d, which is not in the listing", n)
	}
	// The listing entry starts with the ID (see ListEntry.encode).
	size, k := binary.Uvarint(v)
	if k <= 0 || size > uint64(len(v)-k) {
		return "", damaged("the listing record of document number %d does not decode", n)
	}
	id := DocID(v[k : k+int(size)])
	r.ids[n] = id
	return id, nil
}

// Postings returns a cursor over the postings of term t (an index into
// the query's terms) in the scope, document by document in number order.
func (r *IndexReader) Postings(t int) *TermPostings {
	term := r.terms[t]
	return &TermPostings{r: r, term: term, prefix: termPrefix(term), c: r.b.Cursor()}
}

// TermPostings walks one term's postings, document by document. Next (or
// Seek) moves to a document; Each and Count read its postings.
type TermPostings struct {
	r      *IndexReader
	term   string
	prefix []byte
	c      *bolt.Cursor
	key    []byte // the current block's key
	blk    blockReader
	open   bool // blk has groups left
	ended  bool
	err    error

	// The current document and its groups, read on demand.
	doc     DocNum
	first   rawGroup // the current document's first group
	groups  []rawGroup
	grouped bool // groups holds every group of doc
	// pending is a group read past the current document's.
	pending    rawGroup
	hasPending bool
}

type rawGroup struct {
	doc  DocNum
	n    int
	data []byte
}

// Err returns the error that stopped the walk (a damaged list), if any.
func (p *TermPostings) Err() error {
	if p.err != nil {
		return fmt.Errorf("the %s index of %q: %w", p.r.field, p.term, p.err)
	}
	return nil
}

// Doc returns the current document's number.
func (p *TermPostings) Doc() DocNum { return p.doc }

// Bound returns a bound on the current document's postings: no posting
// in its block has a higher term frequency or a shorter unit.
func (p *TermPostings) Bound() (maxTF, minLen int) {
	return int(p.blk.maxTF), int(p.blk.minLen)
}

// nextGroup reads the next group of the list (any document), moving to
// the next block as needed.
func (p *TermPostings) nextGroup() (rawGroup, bool) {
	if p.hasPending {
		p.hasPending = false
		return p.pending, true
	}
	for !p.ended && p.err == nil {
		if p.open {
			doc, n, data, ok, err := p.blk.next()
			if err != nil {
				p.err = err
				return rawGroup{}, false
			}
			if ok {
				return rawGroup{doc, n, data}, true
			}
			p.open = false
		}
		var k, v []byte
		if p.key == nil {
			k, v = p.c.Seek(p.prefix)
		} else {
			k, v = p.c.Next()
		}
		p.openBlock(k, v)
	}
	return rawGroup{}, false
}

// openBlock makes the block at k the current one, or ends the walk when
// k is not one of the term's.
func (p *TermPostings) openBlock(k, v []byte) {
	d, _, ok := keyStart(k, p.prefix)
	if !ok {
		p.ended = true
		return
	}
	p.key = append(p.key[:0], k...)
	p.blk, p.err = openBlock(v, d)
	p.open = p.err == nil
}

// finish reads the rest of the current document's groups.
func (p *TermPostings) finish() {
	if p.grouped {
		return
	}
	p.groups = append(p.groups[:0], p.first)
	for {
		g, ok := p.nextGroup()
		if !ok {
			break
		}
		if g.doc != p.doc {
			p.pending, p.hasPending = g, true
			break
		}
		p.groups = append(p.groups, g)
	}
	p.grouped = true
}

// Next moves to the next document of the scope holding the term and
// reports whether there is one.
func (p *TermPostings) Next() bool {
	if p.doc != 0 || p.grouped {
		p.finish()
	}
	for {
		g, ok := p.nextGroup()
		if !ok {
			return false
		}
		if p.r.in.has(g.doc) {
			p.start(g)
			return true
		}
		if p.r.nums != nil {
			// A named scope: jump to its next document.
			i, _ := slices.BinarySearch(p.r.nums, g.doc)
			if i == len(p.r.nums) {
				p.ended = true
				return false
			}
			if !p.seekGroup(p.r.nums[i]) {
				return false
			}
			if p.r.in.has(p.pending.doc) {
				p.hasPending = false
				p.start(p.pending)
				return true
			}
		}
	}
}

// start makes g's document the current one.
func (p *TermPostings) start(g rawGroup) {
	p.doc, p.first, p.grouped = g.doc, g, false
	p.groups = p.groups[:0]
}

// Seek moves to the first document numbered d or above of the scope
// holding the term, and reports whether there is one. It never moves
// back.
func (p *TermPostings) Seek(d DocNum) bool {
	if p.doc >= d && (p.doc != 0 || p.grouped) {
		return true
	}
	if p.doc != 0 || p.grouped {
		p.finish()
	}
	if !p.seekGroup(d) {
		return false
	}
	p.hasPending = false
	if p.r.in.has(p.pending.doc) {
		p.start(p.pending)
		return true
	}
	p.hasPending = true
	return p.Next()
}

// seekGroup finds the first group of a document numbered d or above,
// leaving it in pending; false at the end of the list.
func (p *TermPostings) seekGroup(d DocNum) bool {
	if p.hasPending && p.pending.doc >= d {
		return true
	}
	p.hasPending = false
	// Within the current block first: the next document is often there.
	for p.open {
		g, ok := p.nextGroup()
		if !ok {
			break
		}
		if g.doc >= d {
			p.pending, p.hasPending = g, true
			return true
		}
	}
	if p.ended || p.err != nil {
		return false
	}
	// Jump: the block holding d's first group starts at or before (d, 0),
	// unless d's first group opens a block of its own.
	target := listKey(nil, p.term, d, 0)
	k, _ := p.c.Seek(target)
	var fk, fv []byte
	if k == nil {
		fk, fv = p.c.Last()
	} else {
		fk, fv = p.c.Prev()
	}
	if fk == nil || !bytes.HasPrefix(fk, p.prefix) || bytes.Compare(fk, p.key) <= 0 {
		// The block before is the current one (or another term's):
		// start at the one found.
		if k == nil {
			p.ended = true
			return false
		}
		fk, fv = p.c.Seek(target)
	}
	p.openBlock(fk, fv)
	for {
		g, ok := p.nextGroup()
		if !ok {
			return false
		}
		if g.doc >= d {
			p.pending, p.hasPending = g, true
			return true
		}
	}
}

// Count returns the number of the current document's units holding the
// term.
func (p *TermPostings) Count() int {
	p.finish()
	n := 0
	for _, g := range p.groups {
		n += g.n
	}
	return n
}

// Each calls fn with each of the current document's postings in unit
// order: the unit, the term's frequency in it and the unit's length in
// index terms.
func (p *TermPostings) Each(fn func(unit, tf, length int)) error {
	p.finish()
	for _, g := range p.groups {
		err := eachPosting(g.data, g.n, func(u, tf, ln uint32) { fn(int(u), int(tf), int(ln)) })
		if err != nil {
			p.err = err
			return p.Err()
		}
	}
	return nil
}
