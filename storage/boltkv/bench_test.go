package boltkv_test

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkCursorScan walks one bucket of 100,000 postings-sized records
// from first to last, through bbolt and through the seam, over the same
// file: the adapters' cost on the library's hottest path.
func BenchmarkCursorScan(b *testing.B) {
	const n = 100000
	db, err := boltkv.Open(filepath.Join(b.TempDir(), "scan.db"), &boltkv.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx storage.Tx) error {
		bk, err := tx.CreateBucket([]byte("postings"))
		if err != nil {
			return err
		}
		bk.SetAppendOnly()
		v := make([]byte, 24)
		for i := range n {
			binary.BigEndian.PutUint64(v, uint64(i)*31)
			if err := bk.Put(binary.BigEndian.AppendUint32([]byte("t"), uint32(i)), v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("bbolt", func(b *testing.B) {
		for b.Loop() {
			sum := 0
			if err := db.Bolt().View(func(tx *bolt.Tx) error {
				c := tx.Bucket([]byte("postings")).Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					sum += len(v)
				}
				return nil
			}); err != nil || sum != n*24 {
				b.Fatal(err, sum)
			}
		}
	})
	b.Run("boltkv", func(b *testing.B) {
		for b.Loop() {
			sum := 0
			if err := db.View(func(tx storage.Tx) error {
				c := tx.Bucket([]byte("postings")).Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					sum += len(v)
				}
				return nil
			}); err != nil || sum != n*24 {
				b.Fatal(err, sum)
			}
		}
	})
}
