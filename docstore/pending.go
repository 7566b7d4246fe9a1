package docstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/citelens/citelens/storage"
)

// A document written in pieces (a large text, over many transactions)
// and one removed (whose postings and pieces may take more than one
// transaction to delete) have a pending record under their number, so
// that what a process left behind — killed while it wrote, or in the
// middle of a removal — is found and deleted by the next one that writes.
// Until then it is invisible: readers reach a document's records only
// through its docs record and its bit in live, which the publishing
// transaction sets (and the removing one clears) with everything else of
// the change.

// pendingRecord is what is under way for a document number.
type pendingRecord struct {
	ID    DocID  `json:"id"`
	State string `json:"state"` // stateAdding or stateRemoving
	// PID is the process writing it (stateAdding), and Touched when it
	// last wrote a piece.
	PID     int       `json:"pid,omitempty"`
	Touched time.Time `json:"touched"`
}

const (
	stateAdding   = "adding"
	stateRemoving = "removing"
)

// abandonAfter is how long a document being written may go without a
// piece before another process takes it for abandoned, when it cannot
// tell whether the writer is alive.
const abandonAfter = time.Hour

func putPending(tx storage.Tx, num DocNum, p pendingRecord) error {
	v, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketPending).Put(numKey(num), v)
}

// markAdding records that this process writes document num in pieces.
func markAdding(tx storage.Tx, num DocNum, id DocID) error {
	return putPending(tx, num, pendingRecord{ID: id, State: stateAdding, PID: os.Getpid(), Touched: time.Now().UTC()})
}

// markRemoving records that version num of id is to be deleted.
func markRemoving(tx storage.Tx, num DocNum, id DocID) error {
	return putPending(tx, num, pendingRecord{ID: id, State: stateRemoving, Touched: time.Now().UTC()})
}

// abandoned reports whether a pending add was left by a process that is
// gone.
func (p pendingRecord) abandoned(now time.Time) bool {
	if p.State != stateAdding {
		return false
	}
	if p.PID == os.Getpid() {
		return false
	}
	return !processAlive(p.PID) || now.Sub(p.Touched) > abandonAfter
}

// collectBudget bounds the work of one collecting transaction, in pieces
// deleted, so that removing a large document holds the library in short
// turns and a bounded amount of memory.
const collectBudget = 20000

// collect deletes the records of removed document versions and of adds
// abandoned by a process that died, a transaction of at most
// collectBudget deletions at a time, until nothing is left. Another
// process may collect at the same time; each deletion is done once.
func (l *Library) collect() error {
	idle := false // nothing pending: no write (see merge)
	if err := l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketPending)
		if b != nil {
			k, _ := b.Cursor().First()
			idle = k == nil
		} else {
			idle = true
		}
		return nil
	}); err != nil || idle {
		return err
	}
	for {
		more := false
		err := l.store.Update(func(tx storage.Tx) error {
			var err error
			more, err = collectSome(tx, collectBudget)
			return err
		})
		if err != nil || !more {
			return err
		}
	}
}

// collectSome does up to budget deletions of pending removals (taking
// abandoned adds for removals first) and reports whether work is left.
func collectSome(tx storage.Tx, budget int) (more bool, err error) {
	pb := tx.Bucket(bucketPending)
	if pb == nil {
		return false, nil
	}
	now := time.Now()
	type item struct {
		num DocNum
		p   pendingRecord
	}
	var todo []item
	err = pb.ForEach(func(k, v []byte) error {
		var p pendingRecord
		if len(k) != 4 || json.Unmarshal(v, &p) != nil {
			return nil // not ours to judge: Inspect reports it
		}
		if p.abandoned(now) {
			p.State = stateRemoving
		}
		if p.State == stateRemoving {
			todo = append(todo, item{DocNum(binary.BigEndian.Uint32(k)), p})
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	for _, it := range todo {
		if budget <= 0 {
			return true, nil
		}
		done, err := deleteVersion(tx, it.num, &budget)
		if err != nil {
			return false, fmt.Errorf("removing the records of document %s: %w", it.p.ID, err)
		}
		if done {
			if err := pb.Delete(numKey(it.num)); err != nil {
				return false, err
			}
		} else if err := putPending(tx, it.num, it.p); err != nil {
			return false, err
		}
	}
	return false, nil
}

// deleteVersion deletes document version num's text and layout, spending
// budget; done reports that nothing is left. (Its postings are skipped by
// readers from the transaction that removed it, and dropped by the merge
// of their segment.)
func deleteVersion(tx storage.Tx, num DocNum, budget *int) (done bool, err error) {
	for _, b := range []storage.Bucket{tx.Bucket(bucketText), tx.Bucket(bucketLayout)} {
		prefix := numKey(num)
		var keys [][]byte
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(keys) < max(*budget, 1); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return false, err
			}
		}
		*budget -= len(keys)
		if k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			return false, nil
		}
	}
	return true, nil
}
