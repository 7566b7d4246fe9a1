package docstore

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/citelens/citelens/storage"
)

// The index is a set of segments, as in Lucene: each transaction that
// adds documents writes their postings as a new segment — a bucket of its
// own, written once, in key order — so an add costs what it adds, not what
// the library holds (updating one index in place rewrote most of its pages
// at every batch). A question reads each term's list in every segment.
// Segments of about the same size are merged, mergeFactor at a time, in
// one transaction each, so there are few of them (a merge rewrites a
// posting a few times over the life of a library); a merge also drops the
// postings of removed documents, which until then are skipped by readers
// (a document's postings count only while it is live).
//
//	segments  SegID → segRecord
//	index     SegID/ field/ term 0x00 DocNum unit → a block (blocks.go)
//
// A segment being written in pieces (a streamed text's, one per piece) is
// building: readers ignore it until the transaction that publishes its
// document makes it active. One left building by a process that died is
// deleted by the next that writes.

// SegID names a segment.
type SegID uint32

// Segment states.
const (
	segActive   = 1
	segBuilding = 2
)

// Merge policy.
const (
	// mergeFactor segments of a size tier are merged into one.
	mergeFactor = 10
	// tierBase is the size (postings) of the smallest tier: segments
	// below it are one tier.
	tierBase = 100_000
	// maxMerged bounds the postings of a merge's output, and so the
	// memory of its transaction; larger segments are not merged again
	// (but rewritten alone when a third of their documents are gone).
	maxMerged = 4 << 20
)

// segRecord is what the library keeps of a segment.
type segRecord struct {
	state    byte
	pid      int   // building: the writing process
	touched  int64 // building: when it last wrote (Unix seconds)
	postings uint64
	dead     int      // documents removed since it was written
	docs     []DocNum // the documents with postings in it, in order
}

func (r *segRecord) encode() []byte {
	b := []byte{r.state}
	b = binary.AppendUvarint(b, uint64(max(r.pid, 0)))
	b = binary.AppendVarint(b, r.touched)
	b = binary.AppendUvarint(b, r.postings)
	b = binary.AppendUvarint(b, uint64(max(r.dead, 0)))
	b = binary.AppendUvarint(b, uint64(len(r.docs)))
	prev := DocNum(0)
	for _, d := range r.docs {
		b = binary.AppendUvarint(b, uint64(d-prev))
		prev = d
	}
	return b
}

func decodeSegRecord(v []byte) (segRecord, error) {
	var r segRecord
	if len(v) < 1 {
		return r, ErrCorrupt
	}
	r.state, v = v[0], v[1:]
	pid, ok1 := uvarint(&v)
	t, k := binary.Varint(v)
	if !ok1 || k <= 0 {
		return r, ErrCorrupt
	}
	v = v[k:]
	p, ok2 := uvarint(&v)
	dead, ok3 := uvarint(&v)
	n, ok4 := uvarint(&v)
	if !ok2 || !ok3 || !ok4 || n > uint64(len(v)) || pid > math.MaxInt32 {
		return r, ErrCorrupt
	}
	r.pid, r.touched, r.postings, r.dead = int(pid), t, p, int(min(dead, math.MaxInt32))
	r.docs = make([]DocNum, 0, n)
	prev := uint64(0)
	for range n {
		d, ok := uvarint(&v)
		if !ok || prev+d > math.MaxUint32 {
			return r, ErrCorrupt
		}
		prev += d
		r.docs = append(r.docs, DocNum(prev))
	}
	return r, nil
}

func segKey(s SegID) []byte { return binary.BigEndian.AppendUint32(nil, uint32(s)) }

func putSegRecord(tx storage.Tx, s SegID, r *segRecord) error {
	return tx.Bucket(bucketSegments).Put(segKey(s), r.encode())
}

// segment is a segment as a reader or merger sees it.
type segInfo struct {
	id  SegID
	rec segRecord
}

// readSegments lists the segments in the given state, oldest first.
func readSegments(tx storage.Tx, state byte) ([]segInfo, error) {
	var out []segInfo
	err := tx.Bucket(bucketSegments).ForEach(func(k, v []byte) error {
		if len(k) != 4 {
			return damaged("the index has a malformed segment key %x", k)
		}
		r, err := decodeSegRecord(v)
		if err != nil {
			return damaged("the index's segment record %x does not decode", k)
		}
		if r.state == state {
			out = append(out, segInfo{SegID(binary.BigEndian.Uint32(k)), r})
		}
		return nil
	})
	return out, err
}

// fieldBucket is field f's bucket of segment s, nil if missing.
func fieldBucket(tx storage.Tx, s SegID, f Field) storage.Bucket {
	sb := tx.Bucket(bucketIndex).Bucket(segKey(s))
	if sb == nil {
		return nil
	}
	return sb.Bucket(f.key())
}

// newSegment creates an empty segment in state, with its buckets.
func newSegment(tx storage.Tx, state byte) (SegID, error) {
	meta := tx.Bucket(bucketMeta)
	n := uint32(1)
	if v := meta.Get(keyNextSeg); len(v) == 4 {
		n = binary.BigEndian.Uint32(v)
	}
	if n == math.MaxUint32 {
		return 0, fmt.Errorf("the library has written 4 billion index segments; run 'citelens reindex'")
	}
	if err := meta.Put(keyNextSeg, binary.BigEndian.AppendUint32(nil, n+1)); err != nil {
		return 0, err
	}
	s := SegID(n)
	sb, err := tx.Bucket(bucketIndex).CreateBucket(segKey(s))
	if err != nil {
		return 0, err
	}
	for f := range numFields {
		if _, err := sb.CreateBucket(f.key()); err != nil {
			return 0, err
		}
	}
	r := segRecord{state: state}
	if state == segBuilding {
		r.pid, r.touched = os.Getpid(), time.Now().Unix()
	}
	return s, putSegRecord(tx, s, &r)
}

// deleteSegment deletes segment s: its postings and its record.
func deleteSegment(tx storage.Tx, s SegID) error {
	if tx.Bucket(bucketIndex).Bucket(segKey(s)) != nil {
		if err := tx.Bucket(bucketIndex).DeleteBucket(segKey(s)); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketSegments).Delete(segKey(s))
}

// writeBatchSegment writes a batch's postings as segment s and adds the
// batch's documents (docs) and postings to its record, in state.
func writeBatchSegment(tx storage.Tx, s SegID, pb *postingBatch, docs []DocNum, state byte) error {
	v := tx.Bucket(bucketSegments).Get(segKey(s))
	rec, err := decodeSegRecord(v)
	if err != nil {
		return damaged("the index's segment record %d does not decode", s)
	}
	n, err := pb.write(tx, s)
	if err != nil {
		return err
	}
	rec.postings += n
	rec.docs = mergeDocs(rec.docs, docs)
	rec.state = state
	if state == segBuilding {
		rec.pid, rec.touched = os.Getpid(), time.Now().Unix()
	}
	return putSegRecord(tx, s, &rec)
}

// mergeDocs returns the sorted union of two sorted lists.
func mergeDocs(a, b []DocNum) []DocNum {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// activate makes building segments active: their document is published.
func activate(tx storage.Tx, segs []SegID) error {
	for _, s := range segs {
		rec, err := decodeSegRecord(tx.Bucket(bucketSegments).Get(segKey(s)))
		if err != nil {
			return damaged("the index's segment record %d does not decode", s)
		}
		rec.state, rec.pid, rec.touched = segActive, 0, 0
		if err := putSegRecord(tx, s, &rec); err != nil {
			return err
		}
	}
	return nil
}

// markDead counts document n as removed in the segments holding it.
func markDead(tx storage.Tx, n DocNum) error {
	segs, err := readSegments(tx, segActive)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if _, found := slices.BinarySearch(s.rec.docs, n); found {
			s.rec.dead++
			if err := putSegRecord(tx, s.id, &s.rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// tier is a segment's size class: segments of a tier are merged together.
func tier(postings uint64) int {
	if postings < tierBase {
		return 0
	}
	return 1 + int(math.Log10(float64(postings)/tierBase))
}

// pickMerge chooses the next merge among active segments: a segment a
// third of whose documents are removed, rewritten alone; else the
// smallest segments of the lowest tier that has mergeFactor of them, as
// many as fit in maxMerged. nil when nothing needs merging.
func pickMerge(segs []segInfo) []segInfo {
	for _, s := range segs {
		if len(s.rec.docs) > 0 && 3*s.rec.dead >= len(s.rec.docs) {
			return []segInfo{s}
		}
	}
	byTier := map[int][]segInfo{}
	low := math.MaxInt
	for _, s := range segs {
		if s.rec.postings >= maxMerged/2 {
			continue
		}
		t := tier(s.rec.postings)
		byTier[t] = append(byTier[t], s)
		if len(byTier[t]) >= mergeFactor {
			low = min(low, t)
		}
	}
	if low == math.MaxInt {
		return nil
	}
	ss := byTier[low]
	slices.SortStableFunc(ss, func(a, b segInfo) int { return cmp.Compare(a.rec.postings, b.rec.postings) })
	var out []segInfo
	total := uint64(0)
	for _, s := range ss {
		if len(out) >= mergeFactor || (len(out) >= 2 && total+s.rec.postings > maxMerged) {
			break
		}
		out = append(out, s)
		total += s.rec.postings
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// merge merges segments as pickMerge chooses, a transaction each, until
// nothing needs merging, and deletes the segments left building by a
// process that died.
func (l *Library) merge() error {
	// A read first: a library with nothing to merge is not written (a
	// damaged one, or one on a read-only mount, refuses every write).
	idle := false
	var recs []pendingRecord
	if err := l.store.View(func(tx storage.Tx) error {
		building, err := readSegments(tx, segBuilding)
		if err != nil {
			return err
		}
		active, err := readSegments(tx, segActive)
		idle = len(building) == 0 && pickMerge(active) == nil
		if len(building) > 0 {
			recs = pendingRecords(tx) // their writers, judged below
		}
		return err
	}); err != nil || idle {
		return err
	}
	lv := l.judge(recs)
	for {
		done := true
		err := l.store.Update(func(tx storage.Tx) error {
			if err := dropAbandonedSegments(tx, lv); err != nil {
				return err
			}
			segs, err := readSegments(tx, segActive)
			if err != nil {
				return err
			}
			in := pickMerge(segs)
			if in == nil {
				return nil
			}
			done = false
			return mergeSegments(tx, in)
		})
		if err != nil || done {
			return err
		}
		l.unmap() // a merge reads its segments through the file's mapping
	}
}

// dropAbandonedSegments deletes building segments whose writer is gone:
// those of a document whose pending add is gone (collected, or given up)
// or abandoned, as lv judges. A building segment is written with its
// document's pending add, in one transaction, and made active with its
// publication, in another, so one whose document has no pending add has
// no writer at work. (Segments do not name their writer: the pending
// record does, and the two cannot disagree.)
func dropAbandonedSegments(tx storage.Tx, lv liveness) error {
	segs, err := readSegments(tx, segBuilding)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if segmentWriterAtWork(tx, s, lv) {
			continue
		}
		if err := deleteSegment(tx, s.id); err != nil {
			return err
		}
	}
	return nil
}

// segmentWriterAtWork reports whether building segment s has a writer at
// work: a pending add of its document that lv does not judge abandoned.
func segmentWriterAtWork(tx storage.Tx, s segInfo, lv liveness) bool {
	for _, d := range s.rec.docs {
		if p, ok := readPending(tx, d); ok && p.State == stateAdding && !lv.abandoned(p) {
			return true
		}
	}
	return false
}

// mergeSegments writes the live postings of segments in as one new
// segment and deletes them, in tx.
func mergeSegments(tx storage.Tx, in []segInfo) error {
	live := readLive(tx)
	out, err := newSegment(tx, segActive)
	if err != nil {
		return err
	}
	rec := segRecord{state: segActive}
	for _, s := range in {
		for _, d := range s.rec.docs {
			if live.has(d) {
				rec.docs = append(rec.docs, d)
			}
		}
	}
	slices.Sort(rec.docs)
	rec.docs = slices.Compact(rec.docs)
	for f := range numFields {
		dst := fieldBucket(tx, out, f)
		dst.SetAppendOnly()
		var srcs []storage.Bucket
		for _, s := range in {
			if b := fieldBucket(tx, s.id, f); b != nil {
				srcs = append(srcs, b)
			}
		}
		n, err := mergeField(dst, srcs, live)
		if err != nil {
			return fmt.Errorf("merging the %s index: %w", f, err)
		}
		rec.postings += n
	}
	for _, s := range in {
		if err := deleteSegment(tx, s.id); err != nil {
			return err
		}
	}
	return putSegRecord(tx, out, &rec)
}

// groupIter walks the groups of one field bucket of a segment in key
// order: term by term, document by document.
type groupIter struct {
	c    storage.Cursor
	term []byte
	blk  blockReader
	open bool
	g    group // current
	ok   bool
	err  error
}

func newGroupIter(b storage.Bucket) *groupIter {
	it := &groupIter{c: b.Cursor()}
	k, v := it.c.First()
	it.load(k, v)
	it.next()
	return it
}

// load opens the block at k.
func (it *groupIter) load(k, v []byte) {
	if k == nil {
		it.open = false
		return
	}
	i := bytes.IndexByte(k, termSep)
	if i < 0 || len(k) != i+9 {
		it.err = ErrCorrupt
		return
	}
	it.term = k[:i]
	d := DocNum(binary.BigEndian.Uint32(k[i+1:]))
	it.blk, it.err = openBlock(v, d)
	it.open = it.err == nil
}

// next moves to the next group; ok is false at the end.
func (it *groupIter) next() {
	for it.err == nil && it.open {
		d, n, data, ok, err := it.blk.next()
		if err != nil {
			it.err = err
			break
		}
		if ok {
			it.g = group{doc: d, n: n, data: data}
			it.ok = true
			return
		}
		k, v := it.c.Next()
		it.load(k, v)
	}
	it.ok = false
}

// iterHeap orders iterators by (term, document, first unit).
type iterHeap []*groupIter

func (h iterHeap) Len() int { return len(h) }
func (h iterHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].term, h[j].term); c != 0 {
		return c < 0
	}
	return h[i].g.before(h[j].g) || (h[i].g.doc == h[j].g.doc && h[i].g.first == h[j].g.first && i < j)
}
func (h iterHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *iterHeap) Push(x any)   { *h = append(*h, x.(*groupIter)) }
func (h *iterHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeField merges the groups of srcs into dst, term by term, dropping
// those of documents not live, and returns the postings written.
func mergeField(dst storage.Bucket, srcs []storage.Bucket, live liveSet) (uint64, error) {
	h := iterHeap{}
	for _, b := range srcs {
		it := newGroupIter(b)
		if it.err != nil {
			return 0, it.err
		}
		if it.ok {
			// A group's first unit orders groups of one document.
			it.g.first = firstUnit(it.g)
			h = append(h, it)
		}
	}
	heap.Init(&h)
	var written uint64
	var term string
	var gs []group
	flush := func() error {
		if len(gs) == 0 {
			return nil
		}
		for _, g := range gs {
			written += uint64(g.n)
		}
		err := putBlocks(dst, term, gs)
		gs = gs[:0]
		return err
	}
	for len(h) > 0 {
		it := h[0]
		if string(it.term) != term {
			if err := flush(); err != nil {
				return written, err
			}
			term = string(it.term)
		}
		if live.has(it.g.doc) {
			g, err := withBounds(it.g)
			if err != nil {
				return written, err
			}
			gs = append(gs, g)
		}
		it.next()
		if it.err != nil {
			return written, it.err
		}
		if it.ok {
			it.g.first = firstUnit(it.g)
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return written, flush()
}

// firstUnit is a group's first unit (0 if it cannot be read: the merge
// reports the damage when it decodes the group).
func firstUnit(g group) uint32 {
	d := g.data
	u, ok := uvarint(&d)
	if !ok || u > math.MaxUint32 {
		return 0
	}
	return uint32(u)
}

// withBounds fills a group's first and last units and bounds from its
// postings, which putBlocks writes into the block header.
func withBounds(g group) (group, error) {
	g.minLen = math.MaxUint32
	i := 0
	err := eachPosting(g.data, g.n, func(unit, tf, length uint32) {
		if i == 0 {
			g.first = unit
		}
		i++
		g.last = unit
		g.maxTF, g.minLen = max(g.maxTF, tf), min(g.minLen, length)
	})
	return g, err
}
