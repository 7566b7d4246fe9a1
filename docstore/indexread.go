package docstore

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/citelens/citelens/storage"
)

// IndexReader reads the library's index of one field for a query's terms,
// inside one read transaction (Index.Read): the scope's statistics
// and, term by term, the postings of the documents that hold the term.
// Ranking is the caller's business (engine/retrieve): the library stores
// postings, lengths and statistics, and scores nothing.
//
// What a read costs is what the terms' lists hold: a document without
// any of the terms is never read, whatever the size of the library.
//
// A derivation's index of one kind of unit (derived.go) is read by the
// same reader: its postings are stored in the same blocks, as a
// one-document index (Derived.ReadPostings).
type IndexReader struct {
	tx    storage.Tx
	field Field
	terms []string
	// bs are the field's buckets of the active segments.
	bs []storage.Bucket
	// in is the scope as a bitmap of document numbers; nums the scope as
	// a sorted list when the caller named its documents (nil for the
	// whole library), recs their records.
	in    liveSet
	nums  []DocNum
	recs  []docRecord
	ids   map[DocNum]DocID
	stats *FieldStats
	// own, for a one-document index, are its units and their total
	// length: the statistics that the library's totals and the
	// documents' records hold for the library's index.
	own *unitTotals
}

// unitTotals are an index's units and their total length in index terms.
type unitTotals struct {
	units  int
	length uint64
}

// oneDocumentReader reads the index of one document stored in b, whose
// blocks name it as document number num: a derivation's index of one kind
// of unit. Its statistics are own's and the terms' summaries in b.
func oneDocumentReader(tx storage.Tx, field Field, b storage.Bucket, id DocID, num DocNum, own unitTotals, terms []string) *IndexReader {
	return &IndexReader{tx: tx, field: field, terms: terms, bs: []storage.Bucket{b},
		in: liveSet(nil).with(num), nums: []DocNum{num}, ids: map[DocNum]DocID{num: id}, own: &own}
}

// Read calls fn with a reader of field's index for terms over docs
// (every document of the library when empty), in one read transaction.
// The reader and what it returns are valid only inside fn. A document of
// docs that is not in the library is ErrNotFound.
func (l *Index) Read(docs []DocID, field Field, terms []string, fn func(*IndexReader) error) error {
	if field >= numFields {
		return fmt.Errorf("unknown index field %d", field)
	}
	return l.store.View(func(tx storage.Tx) error {
		r := &IndexReader{tx: tx, field: field, terms: terms, ids: map[DocNum]DocID{}}
		segs, err := readSegments(tx, segActive)
		if err != nil {
			return err
		}
		for _, s := range segs {
			b := fieldBucket(tx, s.id, field)
			if b == nil {
				return damaged("the index's segment %d has no %s bucket", s.id, field)
			}
			r.bs = append(r.bs, b)
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
// units holding it) and bounds. Over the whole library they are read
// from each segment's summary of the term (so removed documents count
// until their segment is merged); over named documents, from their
// postings; over a one-document index, from its summaries.
func (r *IndexReader) Stats() (FieldStats, error) {
	if r.stats != nil {
		return *r.stats, nil
	}
	n := len(r.terms)
	st := FieldStats{DF: make([]int, n), MaxTF: make([]int, n), MinLen: make([]int, n), AvgLen: 1}
	for t := range st.MinLen {
		st.MinLen[t] = math.MaxInt32
	}
	var total uint64
	if r.nums == nil || r.own != nil {
		if r.own != nil {
			st.Units, total = r.own.units, r.own.length
		} else {
			t, err := readTotals(r.tx)
			if err != nil {
				return st, err
			}
			st.Units, total = int(t.units[r.field]), t.length[r.field]
		}
		for t, term := range r.terms {
			for _, b := range r.bs {
				sum, ok, err := termSummaryIn(b, term)
				if err != nil {
					return st, damaged("the %s index's summary of %q does not decode", r.field, term)
				}
				if !ok {
					continue
				}
				st.DF[t] += int(sum.units)
				st.MaxTF[t] = max(st.MaxTF[t], int(sum.maxTF))
				st.MinLen[t] = min(st.MinLen[t], int(sum.minLen))
			}
			st.DF[t] = min(st.DF[t], st.Units)
		}
	} else {
		for _, rec := range r.recs {
			st.Units += int(rec.units[r.field])
			total += rec.length[r.field]
		}
		for t := range r.terms {
			p := r.Postings(t)
			for p.Next() {
				st.DF[t] += p.Count()
				tf, ln := p.Bound()
				st.MaxTF[t], st.MinLen[t] = max(st.MaxTF[t], tf), min(st.MinLen[t], ln)
			}
			if err := p.Err(); err != nil {
				return st, err
			}
		}
	}
	if st.Units > 0 {
		st.AvgLen = max(float64(total)/float64(st.Units), 1)
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
	id, ok := listEntryID(v)
	if !ok {
		return "", damaged("the listing record of document number %d does not decode", n)
	}
	r.ids[n] = id
	return id, nil
}

// Postings returns a cursor over the postings of term t (an index into
// the query's terms) in the scope, document by document in number order.
func (r *IndexReader) Postings(t int) *TermPostings {
	term := r.terms[t]
	p := &TermPostings{term: term, field: r.field}
	for _, b := range r.bs {
		p.subs = append(p.subs, &listCursor{r: r, term: term, prefix: termPrefix(term), c: b.Cursor()})
	}
	return p
}

// TermPostings walks one term's postings, document by document, across
// the index's segments. Next (or Seek) moves to a document; Each and Count
// read its postings.
type TermPostings struct {
	term    string
	field   Field
	subs    []*listCursor // one per segment
	live    []*listCursor // those not at their end
	cur     []*listCursor // those on the current document
	doc     DocNum
	started bool
	read    int64 // the last unit its runs gave: the next must start after it
}

// Err returns the error that stopped the walk (a damaged list), if any.
func (p *TermPostings) Err() error {
	for _, c := range p.subs {
		if c.err != nil {
			return fmt.Errorf("the %s index of %q: %w", p.field, p.term, c.err)
		}
	}
	return nil
}

// Doc returns the current document's number.
func (p *TermPostings) Doc() DocNum { return p.doc }

// settle makes the current document the least of the cursors'.
func (p *TermPostings) settle() bool {
	kept := p.live[:0]
	for _, c := range p.live {
		if !c.done {
			kept = append(kept, c)
		}
	}
	p.live, p.cur = kept, p.cur[:0]
	if len(p.live) == 0 {
		return false
	}
	p.doc = p.live[0].doc
	for _, c := range p.live[1:] {
		p.doc = min(p.doc, c.doc)
	}
	for _, c := range p.live {
		if c.doc == p.doc {
			p.cur = append(p.cur, c)
		}
	}
	return true
}

// Next moves to the next document of the scope holding the term and
// reports whether there is one.
func (p *TermPostings) Next() bool {
	if !p.started {
		p.started = true
		p.live = slices.Clone(p.subs)
		for _, c := range p.live {
			c.done = !c.next()
		}
		return p.settle()
	}
	for _, c := range p.cur {
		c.done = !c.next()
	}
	return p.settle()
}

// Seek moves to the first document numbered d or above of the scope
// holding the term, and reports whether there is one. It never moves
// back.
func (p *TermPostings) Seek(d DocNum) bool {
	if !p.started {
		p.started = true
		p.live = slices.Clone(p.subs)
		for _, c := range p.live {
			c.done = !c.seek(d)
		}
		return p.settle()
	}
	if p.doc >= d {
		return len(p.cur) > 0
	}
	for _, c := range p.live {
		if c.doc < d {
			c.done = !c.seek(d)
		}
	}
	return p.settle()
}

// Bound returns a bound on the current document's postings: none has a
// higher term frequency or a shorter unit.
func (p *TermPostings) Bound() (maxTF, minLen int) {
	minLen = math.MaxInt
	for _, c := range p.cur {
		c.finish()
		maxTF, minLen = max(maxTF, int(c.maxTF)), min(minLen, int(c.minLen))
	}
	return maxTF, minLen
}

// Count returns the number of the current document's units holding the
// term.
func (p *TermPostings) Count() int {
	n := 0
	for _, c := range p.cur {
		n += c.count()
	}
	return n
}

// Each calls fn with each of the current document's postings in unit
// order: the unit, the term's frequency in it and the unit's length in
// index terms.
func (p *TermPostings) Each(fn func(unit, tf, length int)) error {
	runs, err := p.Runs(nil)
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := r.Each(fn); err != nil {
			return err
		}
	}
	return nil
}

// Runs appends the current document's postings to dst as runs that
// follow each other in unit order, each decoded only when it is read
// (PostingRun.Each): a caller merging several terms' postings holds a
// run of each at a time, not every posting (a common word of a 500 MB
// text has millions). The runs are read in order, and are good until the
// next call of Runs, Next or Seek.
func (p *TermPostings) Runs(dst []PostingRun) ([]PostingRun, error) {
	p.read = -1
	start := len(dst)
	for _, c := range p.cur {
		c.finish()
		if c.err != nil {
			return dst, p.wrap(c.err)
		}
		for _, g := range c.groups {
			dst = append(dst, PostingRun{data: g.data, n: g.n, first: runStart(g.data), p: p})
		}
	}
	// A document written in pieces has postings in several segments.
	// Each group holds a run of units and the runs of one document do
	// not overlap, so ordering the groups by their first unit orders the
	// postings; Each checks it as it reads them.
	if len(p.cur) > 1 {
		slices.SortFunc(dst[start:], func(a, b PostingRun) int { return cmp.Compare(a.first, b.first) })
	}
	return dst, nil
}

// PostingRun is some of a document's postings of one term, in unit
// order, as stored: Each decodes them.
type PostingRun struct {
	data  []byte
	n     int
	first int64
	p     *TermPostings // whose read is the last unit its runs gave
}

// Len returns the number of the run's postings.
func (r PostingRun) Len() int { return r.n }

// Each calls fn with each of the run's postings in unit order: the unit,
// the term's frequency in it and the unit's length in index terms. A run
// that overlaps the one read before it is ErrCorrupt.
func (r PostingRun) Each(fn func(unit, tf, length int)) error {
	if r.first <= r.p.read {
		return r.p.wrap(fmt.Errorf("%w: postings of one document overlap", ErrCorrupt))
	}
	last := r.p.read
	err := eachPosting(r.data, r.n, func(u, tf, ln uint32) {
		last = int64(u)
		fn(int(u), int(tf), int(ln))
	})
	r.p.read = last
	return r.p.wrap(err)
}

func (p *TermPostings) wrap(err error) error {
	if err != nil {
		return fmt.Errorf("the %s index of %q: %w", p.field, p.term, err)
	}
	return nil
}

// listCursor walks one term's list in one segment, document by document.
type listCursor struct {
	r      *IndexReader
	term   string
	prefix []byte
	c      storage.Cursor
	key    []byte // the current block's key
	target []byte // the key a seek looks for, reused
	blk    blockReader
	open   bool // blk has groups left
	ended  bool
	done   bool // no document left (TermPostings' view)
	err    error

	// The current document and its groups, read on demand, and the
	// bounds of the blocks they are in.
	doc           DocNum
	first         rawGroup // the current document's first group
	groups        []rawGroup
	grouped       bool // groups holds every group of doc
	maxTF, minLen uint32
	// pending is a group read past the current document's.
	pending    rawGroup
	hasPending bool
}

type rawGroup struct {
	doc  DocNum
	n    int
	data []byte
}

// nextGroup reads the next group of the list (any document), moving to
// the next block as needed.
func (p *listCursor) nextGroup() (rawGroup, bool) {
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
func (p *listCursor) openBlock(k, v []byte) {
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
func (p *listCursor) finish() {
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
		p.maxTF, p.minLen = max(p.maxTF, p.blk.maxTF), min(p.minLen, p.blk.minLen)
	}
	p.grouped = true
}

// next moves to the next document of the scope holding the term and
// reports whether there is one.
func (p *listCursor) next() bool {
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
func (p *listCursor) start(g rawGroup) {
	p.doc, p.first, p.grouped = g.doc, g, false
	p.groups = p.groups[:0]
	p.maxTF, p.minLen = p.blk.maxTF, p.blk.minLen
}

// seek moves to the first document numbered d or above of the scope
// holding the term, and reports whether there is one. It never moves
// back.
func (p *listCursor) seek(d DocNum) bool {
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
	return p.next()
}

// seekGroup finds the first group of a document numbered d or above,
// leaving it in pending; false at the end of the list.
func (p *listCursor) seekGroup(d DocNum) bool {
	if p.hasPending && p.pending.doc >= d {
		return true
	}
	p.hasPending = false
	// Within the current block first: the next document is often there.
	// Only this block: nextGroup would open the ones after it, walking
	// the list instead of jumping.
	for p.open {
		doc, n, data, ok, err := p.blk.next()
		if err != nil {
			p.err = err
			return false
		}
		if !ok {
			p.open = false
			break
		}
		if doc >= d {
			p.pending, p.hasPending = rawGroup{doc, n, data}, true
			return true
		}
	}
	if p.ended || p.err != nil {
		return false
	}
	// Jump: the block holding d's first group starts at or before (d, 0),
	// unless d's first group opens a block of its own.
	p.target = listKey(p.target[:0], p.term, d, 0)
	target := p.target
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

// count returns the number of the current document's units holding the
// term.
func (p *listCursor) count() int {
	p.finish()
	n := 0
	for _, g := range p.groups {
		n += g.n
	}
	return n
}
