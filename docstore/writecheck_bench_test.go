//go:build unix

package docstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkWriteCheck measures the check every open makes of what a
// write relies on (checkBoltQuick) against the full page walk
// (checkBoltPages) that the sidecar spares an unchanged file, on a large
// library file: CITELENS_BENCH_LIBRARY names one (a copy: it is only
// read), else one of the library's shape is made, of
// CITELENS_BENCH_MB megabytes (default 64; the figures in handle.go are
// for 1,500).
func BenchmarkWriteCheck(b *testing.B) {
	path := os.Getenv("CITELENS_BENCH_LIBRARY")
	if path == "" {
		mb, _ := strconv.Atoi(os.Getenv("CITELENS_BENCH_MB"))
		if mb <= 0 {
			mb = 64
		}
		path = filepath.Join(b.TempDir(), "library.db")
		shapedLibrary(b, path, int64(mb)<<20)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b.Logf("%s: %.1f MB", path, float64(st.Size())/(1<<20))
	// The machine may be shared: the CPU time the process spent (user
	// and system) is reported beside the wall time.
	b.Run("quick", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			if err := checkBoltQuick(f, st.Size(), path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := checkBoltPages(f, st.Size(), path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU starts counting the process's CPU time; the function it
// returns reports it per operation as cpu-ms/op.
func reportCPU(b *testing.B) func() {
	var start syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &start)
	return func() {
		var end syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &end)
		cpu := end.Utime.Nano() + end.Stime.Nano() - start.Utime.Nano() - start.Stime.Nano()
		b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// shapedLibrary writes a bbolt file of about size bytes shaped as a
// library's: most of it the index's postings (blocks of up to 1 KiB
// under term keys, in segment and field buckets, written in key order),
// a third the text in 32 KiB pieces, and layout pieces; and a few
// thousand documents' small records. Its records are not a library's
// (Open would refuse it); its pages are, which is what the checks read.
func shapedLibrary(b *testing.B, path string, size int64) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true, NoFreelistSync: false})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 48<<10)
	for i := range val {
		val[i] = byte(rng.Uint32())
	}
	ndocs := max(int(size>>20)*4, 100)
	put := func(fn func(tx *bolt.Tx) error) {
		if err := db.Update(fn); err != nil {
			b.Fatal(err)
		}
	}
	put(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketDocs, bucketRecords, bucketListing, bucketNames, bucketText, bucketLayout, bucketIndex, bucketSegments, bucketAnswers, bucketGeometry} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		for d := range ndocs {
			id := fmt.Appendf(nil, "%016x", d)
			tx.Bucket(bucketDocs).Put(id, val[:300])
			tx.Bucket(bucketRecords).Put(id, val[:40])
			tx.Bucket(bucketListing).Put(binary.BigEndian.AppendUint32(nil, uint32(d)), val[:90])
			g, err := tx.Bucket(bucketGeometry).CreateBucket(id)
			if err != nil {
				return err
			}
			g.Put([]byte{0, 0, 0, 1}, val[:2000])
			tx.Bucket(bucketLayout).Put(pieceKey(DocNum(d), tagHeader, 0), val[:500])
		}
		return nil
	})
	// The text and layout: a third of the file.
	var piece uint32
	for written := int64(0); written < size/3; {
		put(func(tx *bolt.Tx) error {
			t, l := tx.Bucket(bucketText), tx.Bucket(bucketLayout)
			t.FillPercent, l.FillPercent = 1, 1
			for range 500 {
				k := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, piece%uint32(ndocs)), piece)
				t.Put(k, val[:32<<10])
				l.Put(pieceKey(DocNum(piece%uint32(ndocs)), tagSentences, piece), val[:4<<10+rng.IntN(8<<10)])
				written += 32<<10 + 8<<10
				piece++
			}
			return nil
		})
	}
	// The index: the rest, in segments of four fields.
	for seg := uint32(0); ; seg++ {
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		if st.Size() >= size {
			break
		}
		put(func(tx *bolt.Tx) error {
			sb, err := tx.Bucket(bucketIndex).CreateBucket(binary.BigEndian.AppendUint32(nil, seg))
			if err != nil {
				return err
			}
			tx.Bucket(bucketSegments).Put(binary.BigEndian.AppendUint32(nil, seg), val[:200])
			for _, field := range []string{"s", "c", "h", "t"} {
				fb, err := sb.CreateBucket([]byte(field))
				if err != nil {
					return err
				}
				fb.FillPercent = 1
				n := 20000
				if field == "h" || field == "t" {
					n = 2000
				}
				for i := range n {
					k := fmt.Appendf(nil, "term%07d\x00", i)
					k = binary.BigEndian.AppendUint32(k, uint32(i))
					fb.Put(k, val[:100+rng.IntN(900)])
				}
			}
			return nil
		})
	}
}
