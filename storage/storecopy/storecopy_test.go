package storecopy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/pgkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/citelens/citelens/storage/storecopy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backends make a fresh, empty store of each kind.
var backends = []struct {
	name string
	open func(t *testing.T) storage.DB
}{
	{"bolt", func(t *testing.T) storage.DB {
		db, err := boltkv.Open(filepath.Join(t.TempDir(), "s.db"), &boltkv.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}},
	{"pg", func(t *testing.T) storage.DB {
		db, err := pgkv.Open(context.Background(), pgtest.New(t).ConnString())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}},
}

// fill writes a store with what a library's copy must keep: keys in
// byte order with 0x00 and 0xff bytes, empty values, an 8 MB value,
// buckets nested three deep, counters on top-level and nested buckets,
// and more keys than one batch holds.
func fill(t *testing.T, db storage.DB) {
	t.Helper()
	err := db.Update(func(tx storage.Tx) error {
		// Meta sorts first: only Options.Last keeps it to the end.
		meta, _ := tx.CreateBucket([]byte("Meta"))
		meta.Put([]byte("schema"), []byte("9"))
		docs, _ := tx.CreateBucket([]byte("docs"))
		docs.SetSequence(41)
		for i := 0; i < 5000; i++ {
			docs.Put(fmt.Appendf(nil, "doc%05d", i), bytes.Repeat([]byte{byte(i)}, i%300))
		}
		docs.Put([]byte{0x00}, []byte{})
		docs.Put([]byte{0xff, 0x00, 0xff}, []byte("high"))
		a, _ := docs.CreateBucket([]byte("nested"))
		a.SetSequence(7)
		b, _ := a.CreateBucket([]byte{0x01, 0x02})
		c, _ := b.CreateBucket([]byte("deep"))
		c.Put([]byte("k"), []byte("v"))
		c.SetSequence(1 << 63)
		a.Put([]byte("after"), []byte("x"))
		big, _ := tx.CreateBucket([]byte("big"))
		return big.Put([]byte("file"), bytes.Repeat([]byte("0123456789abcdef"), 8<<20/16))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dump is everything db holds, as text: buckets, keys, values (their
// length and a digest-free prefix), counters.
func dump(t *testing.T, db storage.DB) string {
	t.Helper()
	var b strings.Builder
	var walk func(bk storage.Bucket, depth int)
	walk = func(bk storage.Bucket, depth int) {
		fmt.Fprintf(&b, "%*sseq %d keys %d\n", depth, "", bk.Sequence(), bk.KeyCount())
		cur := bk.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if v == nil {
				fmt.Fprintf(&b, "%*s%x/\n", depth, "", k)
				walk(bk.Bucket(k), depth+1)
				continue
			}
			fmt.Fprintf(&b, "%*s%x = %d %x %v\n", depth, "", k, len(v), v[:min(len(v), 32)], v != nil)
			if len(v) > 32 {
				fmt.Fprintf(&b, "%*s  …%x\n", depth, "", v[len(v)-32:])
			}
		}
	}
	err := db.View(func(tx storage.Tx) error {
		return tx.ForEachBucket(func(name []byte) error {
			fmt.Fprintf(&b, "%s/\n", name)
			walk(tx.Bucket(name), 1)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCopy: each backend to each, everything kept, in several
// transactions, the Last bucket only in the final one.
func TestCopy(t *testing.T) {
	t.Parallel()
	for _, from := range backends {
		for _, to := range backends {
			t.Run(from.name+"-to-"+to.name, func(t *testing.T) {
				t.Parallel()
				src, dst := from.open(t), to.open(t)
				fill(t, src)
				want := dump(t, src)
				var seen []storecopy.Stats
				metaEarly := false
				st, err := storecopy.Copy(context.Background(), dst, src, storecopy.Options{
					Last:      [][]byte{[]byte("Meta")},
					BatchKeys: 1000,
					Progress: func(s storecopy.Stats) {
						seen = append(seen, s)
						if s.Keys < 5006 {
							dst.View(func(tx storage.Tx) error {
								metaEarly = metaEarly || tx.Bucket([]byte("Meta")) != nil
								return nil
							})
						}
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				if got := dump(t, dst); got != want {
					t.Errorf("the copy differs:\n%s\nwant\n%s", got, want)
				}
				if st.Keys != 5006 || st.Buckets != 6 || st.Batches < 5 || len(seen) != int(st.Batches) {
					t.Errorf("stats %+v, %d progress calls", st, len(seen))
				}
				if metaEarly {
					t.Error("the Last bucket was visible before the copy was whole")
				}
			})
		}
	}
}

// TestNotEmpty: a destination that holds anything is refused and kept;
// Replace replaces it whole.
func TestNotEmpty(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			src, dst := b.open(t), b.open(t)
			fill(t, src)
			dst.Update(func(tx storage.Tx) error {
				old, _ := tx.CreateBucket([]byte("old"))
				return old.Put([]byte("k"), []byte("v"))
			})
			before := dump(t, dst)
			if _, err := storecopy.Copy(context.Background(), dst, src, storecopy.Options{}); !errors.Is(err, storecopy.ErrNotEmpty) {
				t.Fatalf("copy into a store that is not empty: %v", err)
			}
			if dump(t, dst) != before {
				t.Fatal("a refused copy changed the destination")
			}
			if _, err := storecopy.Copy(context.Background(), dst, src, storecopy.Options{Replace: true}); err != nil {
				t.Fatal(err)
			}
			if dump(t, dst) != dump(t, src) {
				t.Error("Replace did not leave an exact copy")
			}
		})
	}
}

// TestFailure: a copy stopped part-way removes what it wrote.
func TestFailure(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			src, dst := b.open(t), b.open(t)
			fill(t, src)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := storecopy.Copy(ctx, dst, src, storecopy.Options{BatchKeys: 500, Last: [][]byte{[]byte("Meta")},
				Progress: func(s storecopy.Stats) {
					if s.Batches == 3 {
						cancel()
					}
				}})
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "removed") {
				t.Fatalf("a cancelled copy: %v", err)
			}
			if got := dump(t, dst); got != "" {
				t.Errorf("a failed copy left:\n%s", got)
			}
		})
	}
}

// BenchmarkCopy copies 64 MB in 65,536 values of 1 kB, in 16 buckets,
// between each pair of backends: the rate a library's copy goes at.
func BenchmarkCopy(b *testing.B) {
	for _, from := range backends {
		for _, to := range backends {
			b.Run(from.name+"-to-"+to.name, func(b *testing.B) {
				src := openB(b, from.name)
				value := bytes.Repeat([]byte("x"), 1024)
				for i := 0; i < 16; i++ {
					err := src.Update(func(tx storage.Tx) error {
						bk, err := tx.CreateBucket(fmt.Appendf(nil, "b%02d", i))
						if err != nil {
							return err
						}
						for k := 0; k < 4096; k++ {
							if err := bk.Put(fmt.Appendf(nil, "%08d", k), value); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(64 << 20)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					dst := openB(b, to.name)
					if _, err := storecopy.Copy(context.Background(), dst, src, storecopy.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// openB is a fresh store of the backend name, for a benchmark.
func openB(b *testing.B, name string) storage.DB {
	var db storage.DB
	var err error
	if name == "bolt" {
		db, err = boltkv.Open(filepath.Join(b.TempDir(), "s.db"), nil)
	} else {
		db, err = pgkv.Open(context.Background(), pgtest.New(b).ConnString())
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}
