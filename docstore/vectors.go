package docstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Embeddings of a document's sentences and chunks, one set per embedding
// model and level, computed once (by the engine, through the model
// endpoint) and kept here so dense retrieval never embeds a document twice.
//
// Layout: vectors/<DocID>/<model name>/<level "s" or "c"> is a bucket with
//
//	"meta"            u32 format (1), u32 dim, u32 units, u64 layout fingerprint
//	"b" + u32be start a block of consecutive units start…start+n-1:
//	                  u32 n, then n × (f32 scale, dim × i8 code)
//
// A vector is stored as int8 codes with one float32 scale per vector
// (value ≈ code × scale, scale = max|value| / 127): dim+4 bytes, a quarter
// of float32. A 150,000-sentence document embedded at 768 dimensions takes
// 116 MB (plus about 6 MB for its 8,000 chunks and a few percent of bbolt
// pages); float16 would take twice that. The rounding error, at most half a
// step of the largest coordinate, moves cosines by well under 0.01, far
// less than what separates relevant text from the rest.
//
// Blocks are written one transaction each, as the embedding batches
// arrive, so an interrupted run keeps what it committed and VectorGaps says
// what is left. The model name keys the set, so vectors of another model
// never mix in; the fingerprint of the document's sentence (or chunk)
// table is checked, so vectors of another segmentation are never read as
// this one's. Removing the document removes its vectors (vectors is one of
// perDocBuckets).

// VectorKey names one set of stored embeddings: a document's sentences or
// chunks (Level) embedded by Model.
type VectorKey struct {
	Doc   DocID
	Model string
	Level Level
}

// Vector is one stored embedding.
type Vector struct {
	// Codes are the quantised coordinates; nil when the unit has no
	// stored vector yet.
	Codes []int8
	// Scale restores them: coordinate i ≈ Codes[i] × Scale. It is 0 for a
	// unit that had no text to embed.
	Scale float32
}

// Stored reports whether the unit has a vector stored (possibly a zero
// one, for a unit without text).
func (v Vector) Stored() bool { return v.Codes != nil }

// Float32s appends the vector's coordinates to dst[:0] and returns it.
func (v Vector) Float32s(dst []float32) []float32 {
	dst = dst[:0]
	for _, c := range v.Codes {
		dst = append(dst, float32(c)*v.Scale)
	}
	return dst
}

// VectorInfo describes a stored set.
type VectorInfo struct {
	Doc   DocID
	Model string
	Level Level
	Dim   int
	// Units is how many sentences or chunks the document has; Stored how
	// many of them have a vector so far.
	Units, Stored int
	// Bytes is the size of the stored blocks.
	Bytes int
}

// Complete reports whether every unit has its vector.
func (i VectorInfo) Complete() bool { return i.Stored >= i.Units }

// UnitRange is units First..Last, inclusive.
type UnitRange struct{ First, Last int }

// ErrBadVectors means vectors handed to PutVectors cannot be stored: out
// of the document's range, of different lengths, or not finite.
var ErrBadVectors = errors.New("cannot store these vectors")

const vectorFormat = 1

var (
	keyVectorMeta  = []byte("meta")
	vectorBlockTag = byte('b')
)

type vectorMeta struct {
	dim, units int
	layout     uint64
}

func (m vectorMeta) encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, vectorFormat)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(m.units))
	return binary.LittleEndian.AppendUint64(b, m.layout)
}

func decodeVectorMeta(b []byte) (vectorMeta, bool) {
	if len(b) != 20 || binary.LittleEndian.Uint32(b) != vectorFormat {
		return vectorMeta{}, false
	}
	return vectorMeta{
		dim:    int(binary.LittleEndian.Uint32(b[4:])),
		units:  int(binary.LittleEndian.Uint32(b[8:])),
		layout: binary.LittleEndian.Uint64(b[12:]),
	}, true
}

func blockKey(start int) []byte {
	return binary.BigEndian.AppendUint32([]byte{vectorBlockTag}, uint32(start))
}

// block is a decoded block header: units start…start+n-1, records of
// dim+4 bytes from data.
type block struct {
	start, n int
	data     []byte
}

func decodeBlock(k, v []byte, dim int) (block, bool) {
	if len(k) != 5 || k[0] != vectorBlockTag || len(v) < 4 {
		return block{}, false
	}
	b := block{start: int(binary.BigEndian.Uint32(k[1:])), n: int(binary.LittleEndian.Uint32(v)), data: v[4:]}
	if b.n <= 0 || len(b.data) != b.n*(dim+4) {
		return block{}, false
	}
	return b, true
}

func (b block) vector(i, dim int) Vector {
	rec := b.data[(i-b.start)*(dim+4):]
	v := Vector{Scale: math.Float32frombits(binary.LittleEndian.Uint32(rec)), Codes: make([]int8, dim)}
	for j := range dim {
		v.Codes[j] = int8(rec[4+j])
	}
	return v
}

// layoutFingerprint hashes the unit table of the level, so stored vectors
// are only ever read against the segmentation they were computed for.
func layoutFingerprint(d *Document, lv Level) (uint64, int) {
	h := fnv.New64a()
	var buf [8]byte
	if lv == ChunkLevel {
		for _, c := range d.Chunks {
			binary.LittleEndian.PutUint32(buf[:], uint32(c.First))
			binary.LittleEndian.PutUint32(buf[4:], uint32(c.Last))
			h.Write(buf[:])
		}
		return h.Sum64(), len(d.Chunks)
	}
	for _, s := range d.Sentences {
		binary.LittleEndian.PutUint32(buf[:], uint32(s.Start))
		binary.LittleEndian.PutUint32(buf[4:], uint32(s.End))
		h.Write(buf[:])
	}
	return h.Sum64(), len(d.Sentences)
}

// vectorBucket returns the set's bucket (nil if absent); create makes it.
func vectorBucket(tx *bolt.Tx, k VectorKey, create bool) (*bolt.Bucket, error) {
	root := tx.Bucket(bucketVectors)
	if root == nil {
		if !create {
			return nil, nil
		}
		return nil, fmt.Errorf("the library has no vectors bucket: %w", ErrCorrupt)
	}
	path := [][]byte{[]byte(k.Doc), []byte(k.Model), k.Level.key()}
	b := root
	for _, name := range path {
		next := b.Bucket(name)
		if next == nil {
			if !create {
				return nil, nil
			}
			var err error
			if next, err = b.CreateBucket(name); err != nil {
				return nil, err
			}
		}
		b = next
	}
	return b, nil
}

func (k VectorKey) check() error {
	if k.Model == "" {
		return fmt.Errorf("%w: no embedding model named", ErrBadVectors)
	}
	if k.Level != SentenceLevel && k.Level != ChunkLevel {
		return fmt.Errorf("%w: unknown level %d", ErrBadVectors, k.Level)
	}
	return nil
}

// currentMeta reads the set's meta and reports whether it matches the
// document as it is now (its unit count and layout).
func currentMeta(b *bolt.Bucket, want vectorMeta) (vectorMeta, bool) {
	m, ok := decodeVectorMeta(b.Get(keyVectorMeta))
	return m, ok && m.units == want.units && m.layout == want.layout
}

// PutVectors stores the vectors of units start, start+1, … of the set in
// one transaction. A nil vector stores "no text" for its unit (a batch of
// nothing but nil vectors before any real one stores nothing, since the
// set's dimension is not known yet). Units that
// already have a vector keep it (a second process, or a resumed run,
// embedding the same batch loses nothing and duplicates nothing). Vectors
// of another length than those stored mean the model behind the name
// changed: the set is started afresh.
func (l *Library) PutVectors(k VectorKey, start int, vecs [][]float32) error {
	if err := k.check(); err != nil {
		return err
	}
	d, err := l.Document(k.Doc)
	if err != nil {
		return err
	}
	layout, units := layoutFingerprint(d, k.Level)
	if start < 0 || start+len(vecs) > units {
		return fmt.Errorf("%w: units %d-%d of a document with %d", ErrBadVectors, start, start+len(vecs)-1, units)
	}
	dim := 0
	for i, v := range vecs {
		if v == nil {
			continue
		}
		if dim == 0 {
			dim = len(v)
		}
		if len(v) != dim || dim == 0 {
			return fmt.Errorf("%w: vectors of different lengths (%d and %d)", ErrBadVectors, dim, len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: vector %d has a coordinate that is not a number", ErrBadVectors, start+i)
			}
		}
	}
	if len(vecs) == 0 {
		return nil
	}
	return l.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(k.Doc)) == nil {
			return errorf(ErrNotFound, "no document %s in the library", k.Doc)
		}
		want := vectorMeta{dim: dim, units: units, layout: layout}
		b, err := vectorBucket(tx, k, dim != 0)
		if err != nil || b == nil {
			return err // b is nil only for blank units with nothing stored yet: nothing to record
		}
		m, ok := currentMeta(b, want)
		switch {
		case dim == 0 && !ok:
			return nil
		case dim == 0:
			want.dim = m.dim
		case !ok || m.dim != dim:
			// A new set, one of another segmentation, or a model that
			// changed behind its name.
			if err := clearBucket(b); err != nil {
				return err
			}
		}
		if err := b.Put(keyVectorMeta, want.encode()); err != nil {
			return err
		}
		stored := storedIn(b, want.dim, start, start+len(vecs)-1)
		for lo := 0; lo < len(vecs); {
			if stored[lo] {
				lo++
				continue
			}
			hi := lo
			for hi+1 < len(vecs) && !stored[hi+1] {
				hi++
			}
			if err := b.Put(blockKey(start+lo), encodeBlock(vecs[lo:hi+1], want.dim)); err != nil {
				return err
			}
			lo = hi + 1
		}
		return nil
	})
}

// clearBucket deletes every key of b.
func clearBucket(b *bolt.Bucket) error {
	var keys [][]byte
	_ = b.ForEach(func(k, _ []byte) error {
		keys = append(keys, slices.Clone(k))
		return nil
	})
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// storedIn reports, for units first..last, which already have a vector.
func storedIn(b *bolt.Bucket, dim, first, last int) []bool {
	out := make([]bool, last-first+1)
	c := b.Cursor()
	k, v := seekBlock(c, first)
	if k == nil {
		k, v = c.Seek([]byte{vectorBlockTag})
	}
	for ; k != nil; k, v = c.Next() {
		blk, ok := decodeBlock(k, v, dim)
		if !ok {
			continue
		}
		if blk.start > last {
			break
		}
		for i := max(blk.start, first); i < blk.start+blk.n && i <= last; i++ {
			out[i-first] = true
		}
	}
	return out
}

// seekBlock positions c on the block that would hold unit u: the block
// starting at u, else the last one starting before it. It returns a nil
// key when no block starts at or before u.
func seekBlock(c *bolt.Cursor, u int) ([]byte, []byte) {
	k, v := c.Seek(blockKey(u))
	if k != nil && k[0] == vectorBlockTag && len(k) == 5 && int(binary.BigEndian.Uint32(k[1:])) == u {
		return k, v
	}
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for k != nil && (k[0] != vectorBlockTag || len(k) != 5) {
		if k[0] < vectorBlockTag {
			return nil, nil
		}
		k, v = c.Prev()
	}
	return k, v
}

// encodeBlock quantises vecs (nil ones as zero vectors with scale 0).
func encodeBlock(vecs [][]float32, dim int) []byte {
	b := make([]byte, 4, 4+len(vecs)*(dim+4))
	binary.LittleEndian.PutUint32(b, uint32(len(vecs)))
	for _, v := range vecs {
		var maxAbs float32
		for _, x := range v {
			maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
		}
		scale := maxAbs / 127
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
		for j := range dim {
			var c int8
			if scale > 0 && j < len(v) {
				c = int8(math.Round(float64(v[j] / scale)))
			}
			b = append(b, byte(c))
		}
	}
	return b
}

// VectorGaps returns the units of the set that have no vector yet, as
// ranges in order, and how many units the document has. A set stored for
// another segmentation counts as empty.
func (l *Library) VectorGaps(k VectorKey) ([]UnitRange, int, error) {
	if err := k.check(); err != nil {
		return nil, 0, err
	}
	d, err := l.Document(k.Doc)
	if err != nil {
		return nil, 0, err
	}
	layout, units := layoutFingerprint(d, k.Level)
	var gaps []UnitRange
	err = l.db.View(func(tx *bolt.Tx) error {
		next := 0
		b, err := vectorBucket(tx, k, false)
		if err != nil {
			return err
		}
		if b != nil {
			if m, ok := currentMeta(b, vectorMeta{units: units, layout: layout}); ok {
				c := b.Cursor()
				for k, v := c.Seek([]byte{vectorBlockTag}); k != nil && k[0] == vectorBlockTag; k, v = c.Next() {
					blk, ok := decodeBlock(k, v, m.dim)
					if !ok {
						continue
					}
					if blk.start > next {
						gaps = append(gaps, UnitRange{next, blk.start - 1})
					}
					next = max(next, blk.start+blk.n)
				}
			}
		}
		if next < units {
			gaps = append(gaps, UnitRange{next, units - 1})
		}
		return nil
	})
	return gaps, units, err
}

// Vectors returns the stored vectors of the given units of the set, in
// the order asked (a unit without a vector gets the zero Vector), and the
// set's dimension (0 when nothing is stored). Reading a few hundred units
// of a large set touches only their blocks.
func (l *Library) Vectors(k VectorKey, units []int) ([]Vector, int, error) {
	if err := k.check(); err != nil {
		return nil, 0, err
	}
	d, err := l.Document(k.Doc)
	if err != nil {
		return nil, 0, err
	}
	layout, n := layoutFingerprint(d, k.Level)
	out := make([]Vector, len(units))
	dim := 0
	err = l.db.View(func(tx *bolt.Tx) error {
		b, err := vectorBucket(tx, k, false)
		if err != nil || b == nil {
			return err
		}
		m, ok := currentMeta(b, vectorMeta{units: n, layout: layout})
		if !ok {
			return nil
		}
		dim = m.dim
		c := b.Cursor()
		for i, u := range units {
			if u < 0 || u >= n {
				continue
			}
			k, v := seekBlock(c, u)
			if k == nil {
				continue
			}
			blk, ok := decodeBlock(k, v, dim)
			if ok && u >= blk.start && u < blk.start+blk.n {
				out[i] = blk.vector(u, dim)
			}
		}
		return nil
	})
	return out, dim, err
}

// VectorSets lists the embedding sets stored for doc, by model and level.
func (l *Library) VectorSets(doc DocID) ([]VectorInfo, error) {
	d, err := l.Document(doc)
	if err != nil {
		return nil, err
	}
	var out []VectorInfo
	err = l.db.View(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketVectors)
		if root == nil {
			return nil
		}
		db := root.Bucket([]byte(doc))
		if db == nil {
			return nil
		}
		return db.ForEachBucket(func(model []byte) error {
			mb := db.Bucket(model)
			for _, lv := range []Level{SentenceLevel, ChunkLevel} {
				b := mb.Bucket(lv.key())
				if b == nil {
					continue
				}
				layout, units := layoutFingerprint(d, lv)
				info := VectorInfo{Doc: doc, Model: string(model), Level: lv, Units: units}
				if m, ok := currentMeta(b, vectorMeta{units: units, layout: layout}); ok {
					info.Dim = m.dim
					c := b.Cursor()
					for k, v := c.Seek([]byte{vectorBlockTag}); k != nil && k[0] == vectorBlockTag; k, v = c.Next() {
						if blk, ok := decodeBlock(k, v, m.dim); ok {
							info.Stored += blk.n
							info.Bytes += len(k) + len(v)
						}
					}
				}
				out = append(out, info)
			}
			return nil
		})
	})
	return out, err
}

// DeleteVectors removes the vectors model computed for doc (every model's
// when model is "").
func (l *Library) DeleteVectors(doc DocID, model string) error {
	return l.db.Update(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketVectors)
		if root == nil {
			return nil
		}
		if model == "" {
			if root.Bucket([]byte(doc)) == nil {
				return nil
			}
			return root.DeleteBucket([]byte(doc))
		}
		db := root.Bucket([]byte(doc))
		if db == nil || db.Bucket([]byte(model)) == nil {
			return nil
		}
		return db.DeleteBucket([]byte(model))
	})
}
