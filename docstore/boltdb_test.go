package docstore

import (
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/storage"
	"github.com/citelens/citelens/storage/boltkv"
)

// boltDB is a library's store seen as bbolt, for the tests that build or
// inspect what only a bbolt file has (its size, a record written past the
// library's checks).
type boltDB struct{ store storage.DB }

// rawBolt returns l's store as bbolt.
func rawBolt(l *Library) boltDB { return boltDB{l.store} }

// View runs fn in a read transaction of the store, as bbolt's.
func (b boltDB) View(fn func(*bolt.Tx) error) error {
	return b.store.View(func(tx storage.Tx) error {
		btx, ok := boltkv.BoltTx(tx)
		if !ok {
			return errors.New("the library's store is not bbolt")
		}
		return fn(btx)
	})
}

// Update runs fn in a write transaction of the store, as bbolt's.
func (b boltDB) Update(fn func(*bolt.Tx) error) error {
	return b.store.Update(func(tx storage.Tx) error {
		btx, ok := boltkv.BoltTx(tx)
		if !ok {
			return errors.New("the library's store is not bbolt")
		}
		return fn(btx)
	})
}
