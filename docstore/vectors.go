package docstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/citelens/citelens/storage"
)

// Embeddings of a document's sentences and chunks, one set per embedding
// model and level, computed once (by the engine, through the model
// endpoint) and kept here so dense retrieval never embeds a document twice.
// The units of a derivation (derived.go: its summaries, questions and raw
// chunks) are embedded the same way, one set per embedding model,
// derivation and kind.
//
// Layout: vectors/<DocID>/<model name>/<unit set> is a bucket, where the
// unit set is the level ("s" or "c") or, for a derivation's units, "d",
// the kind's letter, a space and the derivation's key ("ds v1 256/50
// MODEL", "dq …", "dr …"), with
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
// arrive, so an interrupted run keeps what it committed and Vectors.Gaps says
// what is left. The model name keys the set, so vectors of another model
// never mix in; the fingerprint of the document's sentence (or chunk)
// table is checked, so vectors of another segmentation are never read as
// this one's. A derivation's units are checked against the fingerprint
// of their texts that the derived index keeps (derived.go), so a
// summary rewritten since (a failed chunk derived again) never keeps the
// old summary's vector: the kind's set is embedded afresh. Removing the
// document removes its vectors (vectors is one of perDocBuckets), and
// removing a derivation removes its units' vectors.

// VectorKey names one set of stored embeddings: a document's sentences or
// chunks (Level) embedded by Model, or, when Derived is set, the units of
// one kind of that derivation of the document.
type VectorKey struct {
	Doc   DocID
	Model string
	Level Level
	// Derived, when its Model is set, makes the key name the embeddings of
	// that derivation's units of Kind — summaries, questions or raw chunks,
	// numbered as DerivedHit.Unit numbers them — instead of the document's
	// own sentences or chunks; Level is then not used.
	Derived DerivedSet
	Kind    DerivedKind
}

// DerivedVectorKey names the embeddings by model of the units of kind of
// doc's derivation set.
func DerivedVectorKey(doc DocID, model string, set DerivedSet, kind DerivedKind) VectorKey {
	return VectorKey{Doc: doc, Model: model, Derived: set, Kind: kind}
}

// IsDerived reports whether k names a derivation's units.
func (k VectorKey) IsDerived() bool { return k.Derived.Model != "" }

// unitSet is the bucket name of k's units under its model.
func (k VectorKey) unitSet() []byte {
	if k.IsDerived() {
		return derivedUnitSet(k.Kind, k.Derived)
	}
	return k.Level.key()
}

func derivedUnitSet(kind DerivedKind, set DerivedSet) []byte {
	return append([]byte{'d', kind.key()[0], ' '}, set.key()...)
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

// ErrBadVectors means vectors handed to Vectors.Put cannot be stored (out
// of the document's range, of different lengths, or not finite), or a
// query vector cannot be compared with the stored ones (another length:
// the model behind the name changed).
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

// layoutFunc returns what k's vectors are checked against, read inside a
// transaction: the fingerprint of the units and their number. A document's
// own levels are fingerprinted from its (cached) tables, read here, outside
// any transaction; a derivation's units from its index, which must exist.
func (l *Vectors) layoutFunc(k VectorKey) (func(storage.Tx) (uint64, int, error), error) {
	if k.IsDerived() {
		return func(tx storage.Tx) (uint64, int, error) { return derivedLayout(tx, k.Doc, k.Derived, k.Kind) }, nil
	}
	d, err := l.library().Document(k.Doc)
	if err != nil {
		return nil, err
	}
	layout, units := layoutFingerprint(d, k.Level)
	return func(storage.Tx) (uint64, int, error) { return layout, units, nil }, nil
}

// vectorBucket returns the set's bucket (nil if absent); create makes it.
func vectorBucket(tx storage.Tx, k VectorKey, create bool) (storage.Bucket, error) {
	root := tx.Bucket(bucketVectors)
	if root == nil {
		if !create {
			return nil, nil
		}
		return nil, damaged("it has no vectors bucket")
	}
	path := [][]byte{[]byte(k.Doc), []byte(k.Model), k.unitSet()}
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
	if k.IsDerived() {
		if int(k.Kind) >= len(derivedKinds) {
			return fmt.Errorf("%w: unknown derived kind %d", ErrBadVectors, k.Kind)
		}
		return nil
	}
	if k.Level != SentenceLevel && k.Level != ChunkLevel {
		return fmt.Errorf("%w: unknown level %d", ErrBadVectors, k.Level)
	}
	return nil
}

// currentMeta reads the set's meta and reports whether it matches the
// document as it is now (its unit count and layout).
func currentMeta(b storage.Bucket, want vectorMeta) (vectorMeta, bool) {
	m, ok := decodeVectorMeta(b.Get(keyVectorMeta))
	return m, ok && m.units == want.units && m.layout == want.layout
}

// Writable reports whether vectors embedded now can be stored: false in
// a library opened for reading only, whose callers should embed what one
// question needs rather than every unit of the scope, to store nothing.
func (l *Vectors) Writable() bool {
	lib := l.library()
	if lib.file != nil {
		return !lib.file.readOnly
	}
	if s, ok := lib.store.(*storeDB); ok {
		return !s.readOnly
	}
	return true
}

// Put stores the vectors of units start, start+1, … of the set in
// one transaction. A nil vector stores "no text" for its unit (a batch of
// nothing but nil vectors before any real one stores nothing, since the
// set's dimension is not known yet). Units that
// already have a vector keep it (a second process, or a resumed run,
// embedding the same batch loses nothing and duplicates nothing). Vectors
// of another length than those stored mean the model behind the name
// changed: the set is started afresh.
func (l *Vectors) Put(k VectorKey, start int, vecs [][]float32) error {
	if err := k.check(); err != nil {
		return err
	}
	layoutOf, err := l.layoutFunc(k)
	if err != nil {
		return err
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
	return l.store.Update(func(tx storage.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(k.Doc)) == nil {
			return errorf(ErrNotFound, "no document %s in the library", k.Doc)
		}
		layout, units, err := layoutOf(tx)
		if err != nil {
			return err
		}
		if start < 0 || start+len(vecs) > units {
			return fmt.Errorf("%w: units %d-%d of a set of %d", ErrBadVectors, start, start+len(vecs)-1, units)
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
func clearBucket(b storage.Bucket) error {
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
func storedIn(b storage.Bucket, dim, first, last int) []bool {
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
func seekBlock(c storage.Cursor, u int) ([]byte, []byte) {
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

// Gaps returns the units of the set that have no vector yet, as
// ranges in order, and how many units the document has. A set stored for
// another segmentation counts as empty.
func (l *Vectors) Gaps(k VectorKey) ([]UnitRange, int, error) {
	if err := k.check(); err != nil {
		return nil, 0, err
	}
	layoutOf, err := l.layoutFunc(k)
	if err != nil {
		return nil, 0, err
	}
	var gaps []UnitRange
	var units int
	err = l.store.View(func(tx storage.Tx) error {
		var layout uint64
		var err error
		if layout, units, err = layoutOf(tx); err != nil {
			return err
		}
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

// Get returns the stored vectors of the given units of the set, in
// the order asked (a unit without a vector gets the zero Vector), and the
// set's dimension (0 when nothing is stored). Reading a few hundred units
// of a large set touches only their blocks.
func (l *Vectors) Get(k VectorKey, units []int) ([]Vector, int, error) {
	out := make([]Vector, len(units))
	dim := 0
	err := l.viewCurrentSet(k, func(b storage.Bucket, m vectorMeta) error {
		dim = m.dim
		c := b.Cursor()
		for i, u := range units {
			if u < 0 || u >= m.units {
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
	if err != nil {
		return nil, 0, err
	}
	return out, dim, nil
}

// viewCurrentSet calls fn, in a read transaction, with the bucket and meta
// of the set k names when it is stored for the document's current layout;
// a set that is absent or stored for another layout calls nothing.
func (l *Vectors) viewCurrentSet(k VectorKey, fn func(b storage.Bucket, m vectorMeta) error) error {
	if err := k.check(); err != nil {
		return err
	}
	layoutOf, err := l.layoutFunc(k)
	if err != nil {
		return err
	}
	return l.store.View(func(tx storage.Tx) error {
		b, m, err := currentSet(tx, k, layoutOf)
		if err != nil || b == nil {
			return err
		}
		return fn(b, m)
	})
}

// currentSet returns, inside tx, the bucket and meta of the set k names
// when it is stored for the layout layoutOf reads (layoutFunc); the bucket
// is nil when the set is absent or stored for another layout.
func currentSet(tx storage.Tx, k VectorKey, layoutOf func(storage.Tx) (uint64, int, error)) (storage.Bucket, vectorMeta, error) {
	layout, n, err := layoutOf(tx)
	if err != nil {
		return nil, vectorMeta{}, err
	}
	b, err := vectorBucket(tx, k, false)
	if err != nil || b == nil {
		return nil, vectorMeta{}, err
	}
	m, ok := currentMeta(b, vectorMeta{units: n, layout: layout})
	if !ok {
		return nil, vectorMeta{}, nil
	}
	return b, m, nil
}

// ScanCosines calls fn with the cosine similarity to q of every unit of
// the set that has a current vector, in unit order (a set stored for an
// older layout of the document is skipped, as Get skips it). It is the
// storage side of nearest-neighbour search; engine/retrieve keeps the
// best. A query of another length than the stored vectors is an error
// wrapping ErrBadVectors.
func (l *Vectors) ScanCosines(k VectorKey, q []float32, fn func(unit int, cos float64)) error {
	if err := k.check(); err != nil {
		return err
	}
	layoutOf, err := l.layoutFunc(k)
	if err != nil {
		return err
	}
	return l.store.View(func(tx storage.Tx) error { return scanSet(tx, k, layoutOf, q, fn) })
}

// scanSet is the cosine scan of every stored set, a document's sentences
// or chunks (Vectors.ScanCosines) as a derivation's units of one kind
// (Derived.ScanCosines): inside tx, it calls fn with the cosine similarity
// to q of every unit of k's set that has a current vector (layoutOf, from
// layoutFunc, says what is current), in unit order. A query of another
// length than the stored vectors is an error wrapping ErrBadVectors.
func scanSet(tx storage.Tx, k VectorKey, layoutOf func(storage.Tx) (uint64, int, error), q []float32, fn func(unit int, cos float64)) error {
	b, m, err := currentSet(tx, k, layoutOf)
	if err != nil || b == nil {
		return err
	}
	if m.dim != len(q) {
		what := "vectors"
		if k.IsDerived() {
			what = k.Kind.String() + " vectors"
		}
		return fmt.Errorf("%w: the %s of document %s have %d coordinates and the query's %d; the model %s changed behind its name",
			ErrBadVectors, what, k.Doc, m.dim, len(q), k.Model)
	}
	scanCosines(b, m.dim, q, fn)
	return nil
}

// Sets lists the embedding sets of doc's own sentences and chunks,
// by model and level (a derivation's sets are not listed).
func (l *Vectors) Sets(doc DocID) ([]VectorInfo, error) {
	d, err := l.library().Document(doc)
	if err != nil {
		return nil, err
	}
	var out []VectorInfo
	err = l.store.View(func(tx storage.Tx) error {
		root := tx.Bucket(bucketVectors)
		if root == nil {
			return nil
		}
		db := root.Bucket([]byte(doc))
		if db == nil {
			return nil
		}
		return db.ForEach(func(model, v []byte) error {
			if v != nil {
				return nil // a value, not a model's bucket
			}
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

// Delete removes the vectors model computed for doc — of its
// sentences, its chunks and its derivations' units — (every model's when
// model is "").
func (l *Vectors) Delete(doc DocID, model string) error {
	return l.store.Update(func(tx storage.Tx) error {
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

// scanCosines is scanSet's loop: it calls fn with the cosine similarity
// to q of every unit of the set stored in b (of dimension dim), in unit
// order; units stored
// without text (zero vectors) are skipped. The similarity is computed on
// the int8 codes as they are stored: a vector's scale multiplies its dot
// product and its norm alike, so it cancels and is never applied.
func scanCosines(b storage.Bucket, dim int, q []float32, fn func(unit int, cos float64)) {
	var qq float64
	for _, x := range q {
		qq += float64(x) * float64(x)
	}
	if qq == 0 || len(q) != dim {
		return
	}
	qn := math.Sqrt(qq)
	c := b.Cursor()
	for k, v := c.Seek([]byte{vectorBlockTag}); k != nil && k[0] == vectorBlockTag; k, v = c.Next() {
		blk, ok := decodeBlock(k, v, dim)
		if !ok {
			continue
		}
		for i := range blk.n {
			rec := blk.data[i*(dim+4) : (i+1)*(dim+4)]
			if binary.LittleEndian.Uint32(rec) == 0 {
				continue // scale 0: a unit without text
			}
			dot, cc := int8Dot(rec[4:], q)
			if cc == 0 {
				continue
			}
			fn(blk.start+i, dot/(math.Sqrt(cc)*qn))
		}
	}
}

// int8Dot returns the dot product of the int8 codes with q and the codes'
// squared norm. Four independent sums keep the adds from waiting on each
// other (twice as fast as one sum on 768 dimensions).
func int8Dot(codes []byte, q []float32) (dot, norm2 float64) {
	q = q[:len(codes)]
	var d0, d1, d2, d3 float32
	var n0, n1 int32
	j := 0
	for ; j+4 <= len(codes); j += 4 {
		c0, c1, c2, c3 := int8(codes[j]), int8(codes[j+1]), int8(codes[j+2]), int8(codes[j+3])
		d0 += float32(c0) * q[j]
		d1 += float32(c1) * q[j+1]
		d2 += float32(c2) * q[j+2]
		d3 += float32(c3) * q[j+3]
		n0 += int32(c0)*int32(c0) + int32(c1)*int32(c1)
		n1 += int32(c2)*int32(c2) + int32(c3)*int32(c3)
	}
	for ; j < len(codes); j++ {
		c := int8(codes[j])
		d0 += float32(c) * q[j]
		n0 += int32(c) * int32(c)
	}
	return float64(d0 + d1 + d2 + d3), float64(n0 + n1)
}
