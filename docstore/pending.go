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
	// Who is writing it (stateAdding): Writer is the store's identity of
	// the writer, where the store gives one (storage.Writers: a server's,
	// shared by machines); else the process, PID, on the machine Host.
	// Touched is when it last wrote a piece.
	// Start is when the process PID started (processStart), so that a
	// later process given the same ID is not taken for it.
	Writer  string    `json:"writer,omitempty"`
	PID     int       `json:"pid,omitempty"`
	Start   uint64    `json:"start,omitempty"`
	Host    string    `json:"host,omitempty"`
	Touched time.Time `json:"touched"`
}

const (
	stateAdding   = "adding"
	stateRemoving = "removing"
)

// abandonAfter is how long a document being written may go without a
// piece before another process takes it for abandoned, when it cannot
// tell whether the writer is alive (a process of another machine, where
// the store gives no identities).
const abandonAfter = time.Hour

func putPending(tx storage.Tx, num DocNum, p pendingRecord) error {
	v, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketPending).Put(numKey(num), v)
}

// readPending reads num's pending record; ok is false when there is none
// (or it does not decode: not ours to judge).
func readPending(tx storage.Tx, num DocNum) (p pendingRecord, ok bool) {
	v := tx.Bucket(bucketPending).Get(numKey(num))
	if v == nil || json.Unmarshal(v, &p) != nil {
		return p, false
	}
	return p, true
}

// markAdding records that writer w writes document num in pieces.
func markAdding(tx storage.Tx, num DocNum, id DocID, w writer) error {
	return putPending(tx, num, pendingRecord{ID: id, State: stateAdding, Writer: w.id, PID: os.Getpid(), Start: thisStart, Host: w.host, Touched: time.Now().UTC()})
}

// markRemoving records that version num of id is to be deleted.
func markRemoving(tx storage.Tx, num DocNum, id DocID) error {
	return putPending(tx, num, pendingRecord{ID: id, State: stateRemoving, Touched: time.Now().UTC()})
}

// writer is who marks work in progress: the store's identity of this
// library's writer where it gives one (id), and this process's machine.
type writer struct {
	id, host string
}

// thisHost is the machine's name, which tells a process ID of this
// machine from one of another sharing the library; "" when unknown.
var thisHost, _ = os.Hostname()

// thisStart is when this process started (processStart).
var thisStart = processStart(os.Getpid())

// writer is this library's identity as a writer, for the pending work it
// marks: a store shared across machines (storage.Writers) gives one,
// which it keeps alive while this library is open and can reach it.
func (l *Library) writer() (writer, error) {
	w := writer{host: thisHost}
	if ws, ok := l.backend().(storage.Writers); ok {
		id, err := ws.WriterID()
		if err != nil {
			return w, fmt.Errorf("cannot write to the library %s: %w", l.path, err)
		}
		w.id = id
	}
	return w, nil
}

// liveness judges whether the writers of pending work are alive. A
// store's identities are judged before the transaction that collects
// (judge), for asking the store is a round trip of its own, outside any
// transaction; an identity first seen in the transaction is alive.
type liveness struct {
	now  time.Time
	dead map[string]bool // store identities judged dead
}

// judge asks the store of l about the writers of recs (those with a
// store identity) and returns the judgement. Where the store cannot
// answer, a writer is dead only once its work has gone abandonAfter
// without a piece, as for a process of another machine.
func (l *Library) judge(recs []pendingRecord) liveness {
	lv := liveness{now: time.Now(), dead: map[string]bool{}}
	ws, _ := l.backend().(storage.Writers)
	asked := map[string]bool{}
	for _, p := range recs {
		if p.State != stateAdding || p.Writer == "" || asked[p.Writer] {
			continue
		}
		asked[p.Writer] = true
		if ws != nil {
			alive, err := ws.WriterAlive(p.Writer)
			if err == nil {
				lv.dead[p.Writer] = !alive
				continue
			}
		}
		lv.dead[p.Writer] = lv.now.Sub(p.Touched) > abandonAfter
	}
	return lv
}

// abandoned reports whether a pending add was left by a writer that is
// gone: one the store knows dead (judged before), a process of this
// machine that is no longer running (its ID gone, or taken by a process
// started since), or one of another machine that has not written a piece
// for abandonAfter.
func (lv liveness) abandoned(p pendingRecord) bool {
	switch {
	case p.State != stateAdding:
		return false
	case p.Writer != "":
		return lv.dead[p.Writer]
	case p.Host != "" && p.Host != thisHost:
		return lv.now.Sub(p.Touched) > abandonAfter
	case p.PID == os.Getpid() && (p.Start == 0 || p.Start == thisStart):
		return false
	case p.Start != 0 && thisStart != 0 && processStart(p.PID) != p.Start:
		return true // that process is gone; another may have its ID
	}
	return !processAlive(p.PID) || lv.now.Sub(p.Touched) > abandonAfter
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
	var recs []pendingRecord // nothing pending: no write (see merge)
	if err := l.store.View(func(tx storage.Tx) error {
		recs = pendingRecords(tx)
		return nil
	}); err != nil || len(recs) == 0 {
		return err
	}
	lv := l.judge(recs)
	for {
		more := false
		err := l.store.Update(func(tx storage.Tx) error {
			var err error
			more, err = collectSome(tx, collectBudget, lv)
			return err
		})
		if err != nil || !more {
			return err
		}
	}
}

// pendingRecords reads every pending record that decodes.
func pendingRecords(tx storage.Tx) []pendingRecord {
	b := tx.Bucket(bucketPending)
	if b == nil {
		return nil
	}
	var recs []pendingRecord
	_ = b.ForEach(func(k, v []byte) error {
		var p pendingRecord
		if len(k) == 4 && json.Unmarshal(v, &p) == nil {
			recs = append(recs, p)
		}
		return nil
	})
	return recs
}

// collectSome does up to budget deletions of pending removals (taking
// adds abandoned, as lv judges, for removals first) and reports whether
// work is left.
func collectSome(tx storage.Tx, budget int, lv liveness) (more bool, err error) {
	pb := tx.Bucket(bucketPending)
	if pb == nil {
		return false, nil
	}
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
		if lv.abandoned(p) {
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
