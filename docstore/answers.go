package docstore

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/storage"
)

// AnswerMeta is what a listing of saved answers shows. The record itself is
// opaque to the library (the engine's JSON answer), but must carry these
// fields at its top level.
type AnswerMeta struct {
	ID       string    `json:"answer_id"`
	Question string    `json:"question"`
	Strategy string    `json:"strategy"`
	Created  time.Time `json:"created"`
	// Author is who saved it (Save records it); nil for an answer saved
	// before authors were.
	Author *Author `json:"author,omitempty"`
	// Thread is the ID of the thread the answer continues (threads.go),
	// empty for one that starts a thread or was saved before threads.
	Thread string `json:"thread,omitempty"`
}

// NewAnswerID returns a new answer ID: the time in milliseconds and some
// random bits, in hex, so IDs sort by creation and short prefixes work.
func NewAnswerID() string {
	var r [2]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%011x%04x", time.Now().UnixMilli(), binary.BigEndian.Uint16(r[:]))
}

// Save stores an answer record (JSON with the AnswerMeta fields) under
// its ID, replacing any earlier record with that ID. A record without an
// "author" gets one: the earlier record's, when it is saved again, else
// who is saving it now (Library.Author).
func (l *Answers) Save(id string, record []byte) error {
	if id == "" {
		return fmt.Errorf("answer has no ID")
	}
	now := (*Library)(l).author()
	return l.store.Update(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		rec, err := withAuthor(record, b.Get([]byte(id)), now)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), rec)
	})
}

// List lists saved answers, oldest first.
func (l *Answers) List() ([]AnswerMeta, error) {
	var out []AnswerMeta
	err := l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var m AnswerMeta
			if err := json.Unmarshal(v, &m); err != nil {
				return damaged("saved answer %s does not decode", k)
			}
			m.ID = string(k)
			out = append(out, m)
			return nil
		})
	})
	slices.SortStableFunc(out, func(a, b AnswerMeta) int { return a.Created.Compare(b.Created) })
	return out, err
}

// Get returns the record of the answer whose ID is ref or starts with it.
func (l *Answers) Get(ref string) (id string, record []byte, err error) {
	err = l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		if b == nil {
			return errorf(ErrNotFound, "no saved answer %q", ref)
		}
		if v := b.Get([]byte(ref)); v != nil {
			id, record = ref, slices.Clone(v)
			return nil
		}
		var matches []string
		c := b.Cursor()
		for k, v := c.Seek([]byte(ref)); k != nil && strings.HasPrefix(string(k), ref); k, v = c.Next() {
			matches = append(matches, string(k))
			id, record = string(k), slices.Clone(v)
		}
		switch {
		case len(matches) == 0 || ref == "":
			return errorf(ErrNotFound, "no saved answer %q", ref)
		case len(matches) > 1:
			return errorf(ErrAmbiguous, "answer %q is ambiguous: it matches %s", ref, strings.Join(matches, ", "))
		}
		return nil
	})
	return id, record, err
}

// AnswerRecord is a saved answer's record and its ID.
type AnswerRecord struct {
	ID     string
	Record []byte
}

// Recent returns up to n saved answers whose IDs sort before
// before ("" for none: the newest), newest first, and whether older ones
// remain. IDs sort by creation (NewAnswerID), so a front end shows the
// latest answers at once and reads older ones as the reader scrolls back,
// never every record (one can be megabytes).
func (l *Answers) Recent(before string, n int) (recs []AnswerRecord, more bool, err error) {
	err = l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		var k, v []byte
		if before == "" {
			k, v = c.Last()
		} else {
			k, v = c.Seek([]byte(before))
			if k == nil {
				k, v = c.Last()
			}
			for k != nil && string(k) >= before {
				k, v = c.Prev()
			}
		}
		for ; k != nil; k, v = c.Prev() {
			if len(recs) == n {
				more = true
				return nil
			}
			recs = append(recs, AnswerRecord{ID: string(k), Record: slices.Clone(v)})
		}
		return nil
	})
	return recs, more, err
}

// Newer returns the IDs of saved answers that sort after after
// (answers saved since, by this process or another), oldest first, at
// most n.
func (l *Answers) Newer(after string, n int) ([]string, error) {
	var ids []string
	err := l.store.View(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		k, _ := c.Seek([]byte(after))
		if k != nil && string(k) == after {
			k, _ = c.Next()
		}
		for ; k != nil && len(ids) < n; k, _ = c.Next() {
			ids = append(ids, string(k))
		}
		return nil
	})
	return ids, err
}

// Delete removes a saved answer.
func (l *Answers) Delete(id string) error {
	return l.store.Update(func(tx storage.Tx) error {
		b := tx.Bucket(bucketAnswers)
		if b.Get([]byte(id)) == nil {
			return errorf(ErrNotFound, "no saved answer %q", id)
		}
		return b.Delete([]byte(id))
	})
}
