package docstore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// bagVector embeds text as a hashed bag of its index terms, of unit
// length: texts sharing terms are close. It stands in for a model.
func bagVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, t := range textproc.Terms(text) {
		h := fnv.New64a()
		h.Write([]byte(t))
		v[h.Sum64()%uint64(dim)]++
	}
	var sum float64
	for _, x := range v {
		sum += float64(x * x)
	}
	if sum == 0 {
		return nil // a blank text: no vector, as the client returns
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(sum))
	}
	return v
}

// indexedFixture is derivedFixture with every chunk derived and indexed.
func indexedFixture(t *testing.T) (*Library, *Document, []Chunk) {
	t.Helper()
	l, d, chunks := derivedFixture(t)
	if _, err := l.Derived().Begin(d.ID, testSet, chunks); err != nil {
		t.Fatal(err)
	}
	var recs []DerivedChunk
	for i := range chunks {
		recs = append(recs, record(d, chunks, i))
	}
	if err := l.Derived().Put(d.ID, testSet, recs...); err != nil {
		t.Fatal(err)
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	return l, d, chunks
}

// embedDerived stores the bag vectors of every unit of kind, in batches
// of batch, and returns the texts.
func embedDerived(t *testing.T, l *Library, doc DocID, kind DerivedKind, dim, batch int) []string {
	t.Helper()
	texts, err := l.Derived().Texts(doc, testSet, kind)
	if err != nil {
		t.Fatal(err)
	}
	k := DerivedVectorKey(doc, "embed", testSet, kind)
	for start := 0; start < len(texts); start += batch {
		var vecs [][]float32
		for _, s := range texts[start:min(start+batch, len(texts))] {
			vecs = append(vecs, bagVector(s, dim))
		}
		if err := l.Vectors().Put(k, start, vecs); err != nil {
			t.Fatal(err)
		}
	}
	return texts
}

func TestDerivedTextsAreTheIndexUnits(t *testing.T) {
	t.Parallel()
	l, d, chunks := indexedFixture(t)
	for _, kind := range derivedKinds {
		texts, err := l.Derived().Texts(d.ID, testSet, kind)
		if err != nil {
			t.Fatal(err)
		}
		units, _ := l.Derived().Units(testSet, []DocID{d.ID})
		if len(texts) != units[kind] {
			t.Fatalf("%s: %d texts for %d units", kind, len(texts), units[kind])
		}
		// Each text is the unit its own words match best (or
		// one of the same text: overlapping chunks ask the same question).
		for u, text := range texts {
			hits, err := matchDerived(l, text, DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{kind}, K: 1})
			if err != nil || len(hits) == 0 || texts[hits[0].Unit] != text {
				t.Errorf("%s unit %d %q: best match %+v (%v)", kind, u, text, hits, err)
			}
		}
	}
	if texts, _ := l.Derived().Texts(d.ID, testSet, DerivedRaw); texts[1] != d.Text[d.Sentences[chunks[1].First].Start:d.Sentences[chunks[1].Last].End] {
		t.Errorf("raw text of chunk 1: %q", texts[1])
	}
	// Records written after indexing: the texts no longer match the index.
	r := record(d, chunks, 2)
	r.Summary = "A rewritten summary."
	if err := l.Derived().Put(d.ID, testSet, r); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Derived().Texts(d.ID, testSet, DerivedSummary); err == nil || !strings.Contains(err.Error(), "index it again") {
		t.Fatalf("texts of a stale index: %v", err)
	}
	if _, err := l.Derived().Texts("nope", testSet, DerivedSummary); !errors.Is(err, ErrNotFound) {
		t.Fatalf("texts of no document: %v", err)
	}
}

// TestDerivedVectorsSearch: the units' vectors are stored batch by batch
// (resumable), ranked by cosine as SearchDerived ranks by BM25, with the
// same hits, and the cosine of the int8 codes is the float one to 0.01.
func TestDerivedVectorsSearch(t *testing.T) {
	t.Parallel()
	l, d, _ := indexedFixture(t)
	const dim = 64
	k := DerivedVectorKey(d.ID, "embed", testSet, DerivedQuestion)
	gaps, n, err := l.Vectors().Gaps(k)
	if err != nil || len(gaps) != 1 || gaps[0] != (UnitRange{0, n - 1}) || n == 0 {
		t.Fatalf("gaps before embedding: %v of %d (%v)", gaps, n, err)
	}
	texts, _ := l.Derived().Texts(d.ID, testSet, DerivedQuestion)
	// An interrupted run: the first two batches only.
	if err := l.Vectors().Put(k, 0, [][]float32{bagVector(texts[0], dim), bagVector(texts[1], dim), bagVector(texts[2], dim)}); err != nil {
		t.Fatal(err)
	}
	if gaps, _, _ := l.Vectors().Gaps(k); len(gaps) != 1 || gaps[0] != (UnitRange{3, n - 1}) {
		t.Fatalf("gaps after one batch: %v", gaps)
	}
	if err := l.Vectors().Put(k, n-1, [][]float32{bagVector(texts[n-1], dim), bagVector("one too many", dim)}); !errors.Is(err, ErrBadVectors) {
		t.Fatalf("vectors beyond the last unit: %v", err)
	}
	embedDerived(t, l, d.ID, DerivedQuestion, dim, 4)
	if gaps, _, _ := l.Vectors().Gaps(k); len(gaps) != 0 {
		t.Fatalf("gaps after embedding: %v", gaps)
	}
	embedDerived(t, l, d.ID, DerivedSummary, dim, 5)

	query := "Which animal was recorded at location7?"
	q := bagVector(query, dim)
	opt := DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{DerivedQuestion}, K: 3}
	hits, err := nearestDerived(l, "embed", q, opt)
	if err != nil || len(hits) != 3 {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	best := slices.IndexFunc(texts, func(s string) bool { return strings.Contains(s, "location7?") })
	if hits[0].Unit != best {
		t.Errorf("best hit %+v; the question %q is unit %d", hits[0], texts[best], best)
	}
	lex, _ := matchDerived(l, query, opt)
	for _, h := range hits {
		if want := cosine(q, bagVector(texts[h.Unit], dim)); math.Abs(h.Score-want) > 0.01 {
			t.Errorf("unit %d scores %.4f; its float cosine is %.4f", h.Unit, h.Score, want)
		}
		for _, x := range lex {
			if x.Unit == h.Unit && (x.Chunk != h.Chunk || x.Item != h.Item || x.First != h.First || x.Last != h.Last) {
				t.Errorf("dense hit %+v and BM25 hit %+v of one unit differ", h, x)
			}
		}
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits out of order: %+v", hits)
		}
	}
	// Kinds rank together; a kind without vectors (raw) is not ranked.
	opt.Kinds, opt.K = []DerivedKind{DerivedSummary, DerivedQuestion, DerivedRaw}, 100
	all, err := nearestDerived(l, "embed", bagVector("creature3 location7", dim), opt)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[DerivedKind]int{}
	for _, h := range all {
		kinds[h.Kind]++
		if h.Score <= 0 {
			t.Errorf("a unit without similarity was ranked: %+v", h)
		}
	}
	if kinds[DerivedSummary] == 0 || kinds[DerivedQuestion] == 0 || kinds[DerivedRaw] != 0 {
		t.Errorf("kinds ranked: %v", kinds)
	}
	// Another embedding model has nothing stored.
	if hits, err := nearestDerived(l, "other-embed", q, opt); err != nil || len(hits) != 0 {
		t.Errorf("another model's search: %+v, %v", hits, err)
	}
	// A query of another length: the model changed behind its name.
	if _, err := nearestDerived(l, "embed", bagVector(query, dim/2), opt); !errors.Is(err, ErrBadVectors) {
		t.Errorf("a query of another length: %v", err)
	}
	// The document's own vectors and the derived ones do not mix.
	if sets, _ := l.Vectors().Sets(d.ID); len(sets) != 0 {
		t.Errorf("derived sets listed as the document's own: %+v", sets)
	}
}

// nearestDerived is the best opt.K units by cosine (those above 0), as
// engine/retrieve keeps them from Derived.ScanCosines.
func nearestDerived(l *Library, model string, q []float32, opt DerivedSearchOptions) ([]DerivedHit, error) {
	var hits []DerivedHit
	err := l.Derived().ScanCosines(model, q, opt, func(h DerivedHit) {
		if h.Score > 0 {
			hits = append(hits, h)
		}
	})
	hits = SortDerivedHits(hits)
	return hits[:min(len(hits), cmp.Or(opt.K, 10))], err
}

// TestDerivedVectorsFollowTheTexts: a rewritten summary invalidates the
// summaries' vectors once the index is rebuilt (the questions' stay);
// removing the set, or its vectors, or the document removes them.
func TestDerivedVectorsFollowTheTexts(t *testing.T) {
	t.Parallel()
	l, d, chunks := indexedFixture(t)
	const dim = 32
	embedDerived(t, l, d.ID, DerivedSummary, dim, 8)
	embedDerived(t, l, d.ID, DerivedQuestion, dim, 8)
	sk := DerivedVectorKey(d.ID, "embed", testSet, DerivedSummary)
	qk := DerivedVectorKey(d.ID, "embed", testSet, DerivedQuestion)
	r := record(d, chunks, 2)
	r.Summary = "A rewritten summary."
	if err := l.Derived().Put(d.ID, testSet, r); err != nil {
		t.Fatal(err)
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	if gaps, n, _ := l.Vectors().Gaps(sk); len(gaps) != 1 || gaps[0] != (UnitRange{0, n - 1}) {
		t.Errorf("summary vectors kept after a summary changed: gaps %v", gaps)
	}
	if gaps, _, _ := l.Vectors().Gaps(qk); len(gaps) != 0 {
		t.Errorf("question vectors lost though no question changed: gaps %v", gaps)
	}
	if hits, _ := nearestDerived(l, "embed", bagVector("creature2", dim), DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{DerivedSummary}}); len(hits) != 0 {
		t.Errorf("stale summary vectors ranked: %+v", hits)
	}

	// RemoveVectors drops one model's; Remove every one.
	if err := l.Derived().RemoveVectors(d.ID, testSet, "embed"); err != nil {
		t.Fatal(err)
	}
	if gaps, _, _ := l.Vectors().Gaps(qk); len(gaps) != 1 {
		t.Errorf("question vectors survived Derived.RemoveVectors: %v", gaps)
	}
	embedDerived(t, l, d.ID, DerivedQuestion, dim, 8)
	if err := l.Derived().Remove(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	if n := derivedVectorBuckets(t, l, d.ID); n != 0 {
		t.Errorf("%d derived vector sets survived Derived.Remove", n)
	}
	if _, _, err := l.Vectors().Gaps(qk); !errors.Is(err, ErrNotFound) {
		t.Errorf("gaps of a removed set: %v", err)
	}

	// Removing the document removes them with its other vectors.
	l2, d2, _ := indexedFixture(t)
	embedDerived(t, l2, d2.ID, DerivedRaw, dim, 8)
	if n := derivedVectorBuckets(t, l2, d2.ID); n != 1 {
		t.Fatalf("%d derived vector sets stored, want 1", n)
	}
	if err := l2.Remove(d2.ID); err != nil {
		t.Fatal(err)
	}
	if n := derivedVectorBuckets(t, l2, d2.ID); n != 0 {
		t.Errorf("%d derived vector sets survived the document", n)
	}
}

// derivedVectorBuckets counts doc's stored sets of derived units.
func derivedVectorBuckets(t *testing.T, l *Library, doc DocID) int {
	t.Helper()
	n := 0
	err := rawBolt(l).View(func(tx *bolt.Tx) error {
		db := tx.Bucket(bucketVectors).Bucket([]byte(doc))
		if db == nil {
			return nil
		}
		return db.ForEachBucket(func(m []byte) error {
			return db.Bucket(m).ForEachBucket(func(set []byte) error {
				if set[0] == 'd' {
					n++
				}
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDerivedIndexOfFormat1: an index written before the derived index
// took the library's blocks (its meta record the generation alone, its
// lists and lengths in formats of their own) counts as out of date and is
// not read; Derived.Index builds it again, and the vectors of its units,
// checked against the same texts, stay current.
func TestDerivedIndexOfFormat1(t *testing.T) {
	t.Parallel()
	l, d, _ := indexedFixture(t)
	embedDerived(t, l, d.ID, DerivedSummary, 64, 100)
	opt := DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{DerivedSummary}, K: 5}
	want, err := matchDerived(l, "creature2 water", opt)
	if err != nil || len(want) == 0 {
		t.Fatalf("before: %v, %v", want, err)
	}
	err = l.store.Update(func(tx storage.Tx) error {
		ib := setBucket(tx, d.ID, testSet).Bucket(keyDerivedIndex)
		gen, _ := indexGen(ib)
		if err := errors.Join(ib.DeleteBucket(keyIxBlocks), ib.Delete(keyIxTotals)); err != nil {
			return err
		}
		for _, k := range []string{"len", "p"} {
			if _, err := ib.CreateBucket([]byte(k)); err != nil {
				return err
			}
		}
		return ib.Put(keyDerivedMeta, binary.LittleEndian.AppendUint32(nil, gen))
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := l.Derived().Status(d.ID, testSet); st.Indexed {
		t.Error("an index of format 1 counts as current")
	}
	if _, err := matchDerived(l, "creature2 water", opt); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "older citelens") {
		t.Errorf("search of an index of format 1: %v", err)
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	if st, _ := l.Derived().Status(d.ID, testSet); !st.Indexed {
		t.Error("not indexed after Derived.Index")
	}
	if got, err := matchDerived(l, "creature2 water", opt); err != nil || !slices.Equal(got, want) {
		t.Errorf("after Derived.Index: %v, %v; want %v", got, err, want)
	}
	if gaps, _, err := l.Vectors().Gaps(DerivedVectorKey(d.ID, "embed", testSet, DerivedSummary)); err != nil || len(gaps) != 0 {
		t.Errorf("vectors after the rebuild: gaps %v, %v", gaps, err)
	}
}

// TestDerivedIndexWithoutFingerprint: an index written before the texts'
// fingerprints were kept counts as out of date, so it is built again, and
// its units cannot be embedded until then.
func TestDerivedIndexWithoutFingerprint(t *testing.T) {
	t.Parallel()
	l, d, _ := indexedFixture(t)
	err := l.store.Update(func(tx storage.Tx) error {
		return setBucket(tx, d.ID, testSet).Bucket(keyDerivedIndex).Delete(keyIxFingerprint)
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := l.Derived().Status(d.ID, testSet); st.Indexed {
		t.Error("an index without fingerprints counts as current")
	}
	if _, _, err := l.Vectors().Gaps(DerivedVectorKey(d.ID, "embed", testSet, DerivedSummary)); !errors.Is(err, ErrNotFound) {
		t.Errorf("gaps against an old index: %v", err)
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		t.Fatal(err)
	}
	if st, _ := l.Derived().Status(d.ID, testSet); !st.Indexed {
		t.Error("not indexed after Derived.Index")
	}
}

// BenchmarkScanDerivedCosines scans the questions of a 2,000-chunk
// derivation (16,000 questions, 768 dimensions) for their cosines.
func BenchmarkScanDerivedCosines(b *testing.B) {
	l := openTestLibrary(b)
	var text strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&text, "Sentence %d tells of item %d in the catalogue. ", i, i*7)
	}
	info, _, err := writeText(l, "big.txt", text.String())
	if err != nil {
		b.Fatal(err)
	}
	d, _ := l.Document(info.ID)
	var chunks []Chunk
	for first := 0; first+2 < len(d.Sentences); first += 3 {
		chunks = append(chunks, Chunk{First: int32(first), Last: int32(first + 2)})
	}
	if _, err := l.Derived().Begin(d.ID, testSet, chunks); err != nil {
		b.Fatal(err)
	}
	var recs []DerivedChunk
	for i, c := range chunks {
		r := DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last), Summary: fmt.Sprintf("Summary %d.", i)}
		for j := range 8 {
			r.Questions = append(r.Questions, fmt.Sprintf("Question %d of chunk %d?", j, i))
		}
		recs = append(recs, r)
	}
	if err := l.Derived().Put(d.ID, testSet, recs...); err != nil {
		b.Fatal(err)
	}
	if err := l.Derived().Index(d.ID, testSet); err != nil {
		b.Fatal(err)
	}
	const dim = 768
	k := DerivedVectorKey(d.ID, "embed", testSet, DerivedQuestion)
	_, n, _ := l.Vectors().Gaps(k)
	r := rand.New(rand.NewPCG(3, 4))
	for start := 0; start < n; start += 1000 {
		if err := l.Vectors().Put(k, start, randomVectors(r, min(1000, n-start), dim)); err != nil {
			b.Fatal(err)
		}
	}
	q := randomVectors(r, 1, dim)[0]
	opt := DerivedSearchOptions{Set: testSet, Docs: []DocID{d.ID}, Kinds: []DerivedKind{DerivedQuestion}}
	b.ReportMetric(float64(n), "units")
	b.ResetTimer()
	for b.Loop() {
		got := 0
		if err := l.Derived().ScanCosines("embed", q, opt, func(DerivedHit) { got++ }); err != nil || got != n {
			b.Fatal(got, err)
		}
	}
}
