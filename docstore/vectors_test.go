package docstore

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// randomVectors returns n unit vectors of dim coordinates.
func randomVectors(r *rand.Rand, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dim)
		var sum float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			sum += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(sum))
		}
		out[i] = v
	}
	return out
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func addSample(t *testing.T, l *Library) *Document {
	t.Helper()
	return addFile(t, l, sampleText)
}

func units(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestVectorsRoundTripAndGaps(t *testing.T) {
	t.Parallel()
	forBackends(t, testVectorsRoundTripAndGaps)
}

func testVectorsRoundTripAndGaps(t *testing.T, bk backend) {
	l := bk.library(t)
	d := addSample(t, l)
	k := VectorKey{Doc: d.ID, Model: "embed-a", Level: SentenceLevel}
	n := len(d.Sentences)
	r := rand.New(rand.NewPCG(1, 2))
	vecs := randomVectors(r, n, 96)

	gaps, total, err := l.Vectors().Gaps(k)
	if err != nil || total != n || len(gaps) != 1 || gaps[0] != (UnitRange{0, n - 1}) {
		t.Fatalf("gaps of an empty set: %v %d %v", gaps, total, err)
	}
	// Two batches, leaving a hole in the middle, as an interrupted run
	// would (batches are not necessarily stored in order).
	if err := l.Vectors().Put(k, 20, vecs[20:30]); err != nil {
		t.Fatal(err)
	}
	if err := l.Vectors().Put(k, 0, vecs[0:10]); err != nil {
		t.Fatal(err)
	}
	gaps, _, err = l.Vectors().Gaps(k)
	if err != nil {
		t.Fatal(err)
	}
	want := []UnitRange{{10, 19}, {30, n - 1}}
	if fmt.Sprint(gaps) != fmt.Sprint(want) {
		t.Fatalf("gaps %v, want %v", gaps, want)
	}
	// A batch overlapping what is stored keeps the stored vectors and
	// fills only the hole.
	other := randomVectors(r, 25, 96)
	if err := l.Vectors().Put(k, 5, other); err != nil {
		t.Fatal(err)
	}
	copy(vecs[10:20], other[5:15])
	if err := l.Vectors().Put(k, 30, vecs[30:]); err != nil {
		t.Fatal(err)
	}
	gaps, _, _ = l.Vectors().Gaps(k)
	if len(gaps) != 0 {
		t.Fatalf("gaps after filling: %v", gaps)
	}
	got, dim, err := l.Vectors().Get(k, append(units(0, n-1), -1, n))
	if err != nil || dim != 96 || len(got) != n+2 {
		t.Fatalf("Vectors: %d vectors, dim %d, %v", len(got), dim, err)
	}
	var buf []float32
	for i := range n {
		if !got[i].Stored() {
			t.Fatalf("unit %d has no vector", i)
		}
		buf = got[i].Float32s(buf)
		if c := cosine(buf, vecs[i]); c < 0.995 {
			t.Errorf("unit %d: cosine %.4f between stored and original", i, c)
		}
	}
	if got[n].Stored() || got[n+1].Stored() {
		t.Error("units out of range got vectors")
	}
	sets, err := l.Vectors().Sets(d.ID)
	if err != nil || len(sets) != 1 {
		t.Fatalf("VectorSets: %+v %v", sets, err)
	}
	if s := sets[0]; s.Model != "embed-a" || s.Dim != 96 || s.Stored != n || !s.Complete() || s.Bytes < n*100 || s.Bytes > n*100+len(gaps)*16+200 {
		t.Errorf("set info %+v", s)
	}
}

func TestVectorsKeyedByModelAndLevel(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addSample(t, l)
	r := rand.New(rand.NewPCG(3, 4))
	a := VectorKey{Doc: d.ID, Model: "embed-a", Level: SentenceLevel}
	b := VectorKey{Doc: d.ID, Model: "org/embed-b:v2", Level: SentenceLevel}
	c := VectorKey{Doc: d.ID, Model: "embed-a", Level: ChunkLevel}
	if err := l.Vectors().Put(a, 0, randomVectors(r, 4, 16)); err != nil {
		t.Fatal(err)
	}
	if err := l.Vectors().Put(c, 0, randomVectors(r, len(d.Chunks), 16)); err != nil {
		t.Fatal(err)
	}
	got, dim, _ := l.Vectors().Get(b, []int{0})
	if got[0].Stored() || dim != 0 {
		t.Error("another model's vectors were returned")
	}
	if gaps, _, _ := l.Vectors().Gaps(c); len(gaps) != 0 {
		t.Errorf("chunk gaps %v", gaps)
	}
	if gaps, _, _ := l.Vectors().Gaps(a); len(gaps) != 1 || gaps[0].First != 4 {
		t.Errorf("sentence gaps %v", gaps)
	}
	if err := l.Vectors().Put(VectorKey{Doc: d.ID, Level: SentenceLevel}, 0, randomVectors(r, 1, 4)); !errors.Is(err, ErrBadVectors) {
		t.Errorf("no model: %v", err)
	}
	if err := l.Vectors().Delete(d.ID, "embed-a"); err != nil {
		t.Fatal(err)
	}
	if sets, _ := l.Vectors().Sets(d.ID); len(sets) != 0 {
		t.Errorf("sets after delete: %+v", sets)
	}
}

func TestVectorsBadInput(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addSample(t, l)
	k := VectorKey{Doc: d.ID, Model: "m", Level: ChunkLevel}
	nan := []float32{1, float32(math.NaN())}
	for name, put := range map[string]func() error{
		"past the end":    func() error { return l.Vectors().Put(k, len(d.Chunks), [][]float32{{1, 2}}) },
		"negative start":  func() error { return l.Vectors().Put(k, -1, [][]float32{{1, 2}}) },
		"mixed lengths":   func() error { return l.Vectors().Put(k, 0, [][]float32{{1, 2}, {1, 2, 3}}) },
		"not a number":    func() error { return l.Vectors().Put(k, 0, [][]float32{nan}) },
		"unknown level":   func() error { return l.Vectors().Put(VectorKey{Doc: d.ID, Model: "m", Level: 7}, 0, nil) },
		"unknown doc":     func() error { return l.Vectors().Put(VectorKey{Doc: "nope", Model: "m"}, 0, [][]float32{{1}}) },
		"empty vector ok": func() error { return l.Vectors().Put(k, 0, nil) },
	} {
		err := put()
		switch {
		case name == "empty vector ok":
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case name == "unknown doc":
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: %v", name, err)
			}
		case !errors.Is(err, ErrBadVectors):
			t.Errorf("%s: %v, want ErrBadVectors", name, err)
		}
	}
	if sets, _ := l.Vectors().Sets(d.ID); len(sets) != 0 {
		t.Errorf("bad input stored something: %+v", sets)
	}
}

// A model that changes its vectors' length behind the same name starts the
// set afresh rather than mixing lengths; blank units keep the set's length.
func TestVectorsModelChangedDimension(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addSample(t, l)
	k := VectorKey{Doc: d.ID, Model: "m", Level: SentenceLevel}
	r := rand.New(rand.NewPCG(5, 6))
	if err := l.Vectors().Put(k, 0, randomVectors(r, 10, 8)); err != nil {
		t.Fatal(err)
	}
	if err := l.Vectors().Put(k, 10, [][]float32{nil, nil}); err != nil {
		t.Fatal(err)
	}
	got, dim, _ := l.Vectors().Get(k, []int{10, 11})
	if dim != 8 || !got[0].Stored() || got[0].Scale != 0 || len(got[0].Codes) != 8 {
		t.Fatalf("blank units: dim %d, %+v", dim, got[0])
	}
	if err := l.Vectors().Put(k, 20, randomVectors(r, 5, 12)); err != nil {
		t.Fatal(err)
	}
	gaps, n, _ := l.Vectors().Gaps(k)
	if want := []UnitRange{{0, 19}, {25, n - 1}}; fmt.Sprint(gaps) != fmt.Sprint(want) {
		t.Fatalf("after a change of dimension: gaps %v, want %v", gaps, want)
	}
	if _, dim, _ := l.Vectors().Get(k, []int{20}); dim != 12 {
		t.Errorf("dim %d after the change", dim)
	}
}

// Vectors stored for one segmentation of a document are not read against
// another (a library written by a citelens that split sentences
// differently).
func TestVectorsOtherSegmentation(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addSample(t, l)
	k := VectorKey{Doc: d.ID, Model: "m", Level: SentenceLevel}
	r := rand.New(rand.NewPCG(7, 8))
	if err := l.Vectors().Put(k, 0, randomVectors(r, len(d.Sentences), 8)); err != nil {
		t.Fatal(err)
	}
	// Pretend the sentence table changed: the cached document is what
	// every reader sees.
	d.Sentences[3].End--
	defer func() { d.Sentences[3].End++ }()
	got, dim, err := l.Vectors().Get(k, []int{0})
	if err != nil || got[0].Stored() || dim != 0 {
		t.Fatalf("read vectors of another segmentation: %+v %d %v", got[0], dim, err)
	}
	if gaps, n, _ := l.Vectors().Gaps(k); len(gaps) != 1 || gaps[0] != (UnitRange{0, n - 1}) {
		t.Errorf("gaps %v", gaps)
	}
}

func TestVectorsRemovedWithDocument(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	d := addSample(t, l)
	r := rand.New(rand.NewPCG(9, 10))
	k := VectorKey{Doc: d.ID, Model: "m", Level: ChunkLevel}
	if err := l.Vectors().Put(k, 0, randomVectors(r, len(d.Chunks), 8)); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove(d.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	addFile(t, l, sampleText)
	if gaps, n, _ := l.Vectors().Gaps(k); len(gaps) != 1 || gaps[0] != (UnitRange{0, n - 1}) {
		t.Errorf("vectors survived the document's removal: gaps %v", gaps)
	}
}

// TestVectorStorageSize measures the file a large set takes: 40,000
// sentences at 768 dimensions, extrapolated to 150,000.
func TestVectorStorageSize(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 30 MB")
	}
	const n, dim, batch = 40000, 768, 64
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Sentence number %d says something. ", i)
		if i%8 == 7 {
			b.WriteString("\n\n")
		}
	}
	l := openTestLibrary(t)
	info, _, err := writeText(l, "big.txt", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if info.NumSents != n {
		t.Fatalf("%d sentences, want %d", info.NumSents, n)
	}
	before := l.usedBytes(t)
	r := rand.New(rand.NewPCG(11, 12))
	k := VectorKey{Doc: info.ID, Model: "m", Level: SentenceLevel}
	for start := 0; start < n; start += batch {
		if err := l.Vectors().Put(k, start, randomVectors(r, min(batch, n-start), dim)); err != nil {
			t.Fatal(err)
		}
	}
	per := float64(l.usedBytes(t)-before) / n
	fi, _ := os.Stat(l.Path())
	t.Logf("%.0f bytes per %d-dim vector in pages in use (%d raw); 150,000 sentences: %.0f MB; file %.0f MB (bbolt grows it in 16 MB steps and keeps free pages)",
		per, dim, dim+4, per*150000/1e6, float64(fi.Size())/1e6)
	if per > 1.3*(dim+4) {
		t.Errorf("%.0f bytes per vector: more than 30%% above the raw %d", per, dim+4)
	}
}

// usedBytes is the size of the pages the library uses: its high-water
// mark less the pages on the free list.
func (l *Library) usedBytes(t *testing.T) int64 {
	t.Helper()
	var size int64
	if err := rawBolt(l).View(func(tx *bolt.Tx) error {
		size = tx.Size()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, pageSize, err := l.file.stats()
	if err != nil {
		t.Fatal(err)
	}
	return size - int64(st.FreePageN+st.PendingPageN)*int64(pageSize)
}

func BenchmarkPutVectors(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "library.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	info := addFile(b, l, sampleText).DocInfo
	r := rand.New(rand.NewPCG(1, 1))
	vecs := randomVectors(r, info.NumSents, 768)
	b.SetBytes(int64(len(vecs) * 772))
	for b.Loop() {
		if err := l.Vectors().Delete(info.ID, ""); err != nil {
			b.Fatal(err)
		}
		k := VectorKey{Doc: info.ID, Model: "m", Level: SentenceLevel}
		for s := 0; s < len(vecs); s += 64 {
			if err := l.Vectors().Put(k, s, vecs[s:min(s+64, len(vecs))]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReadVectors(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "library.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	info := addFile(b, l, sampleText).DocInfo
	r := rand.New(rand.NewPCG(1, 1))
	k := VectorKey{Doc: info.ID, Model: "m", Level: SentenceLevel}
	vecs := randomVectors(r, info.NumSents, 768)
	for s := 0; s < len(vecs); s += 16 {
		if err := l.Vectors().Put(k, s, vecs[s:min(s+16, len(vecs))]); err != nil {
			b.Fatal(err)
		}
	}
	want := units(0, min(20, info.NumSents)-1)
	for b.Loop() {
		if _, _, err := l.Vectors().Get(k, want); err != nil {
			b.Fatal(err)
		}
	}
}
