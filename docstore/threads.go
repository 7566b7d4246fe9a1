package docstore

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// Threads: a conversation kept in the library is the chain of saved
// answers that follow up on one another. An answer that continues a
// thread records the thread's ID (the ID of its first answer), or the ID
// of any earlier answer of the thread, in its record's "thread" field;
// an answer without one starts a thread of its own, under its own ID. Answers saved before threads were recorded no
// thread, only the questions they followed up on (follow_up.after): one
// of them whose last earlier question is the question of an answer
// before it continues that answer's thread. A thread is named by its
// first question, shortened, until it is renamed; a name given is kept
// in the threads bucket (FORMAT.md). Nothing here changes a record's
// bytes, so a library with threads is read by a citelens without them
// as before (the field and the bucket ignored).

// bucketThreads: thread ID → threadRecord JSON, for threads that were
// renamed; made by the first rename.
var bucketThreads = []byte("threads")

// threadRecord is what the library keeps of a thread beside its
// answers: the name given to it.
type threadRecord struct {
	Name    string    `json:"name"`
	Renamed time.Time `json:"renamed"`
}

// ThreadMeta is a thread of saved answers as a listing shows it.
type ThreadMeta struct {
	ID   string `json:"thread_id"`
	Name string `json:"name"`
	// Named says the name was given (RenameThread), not the first
	// question's.
	Named   bool      `json:"named,omitempty"`
	Answers []string  `json:"answer_ids"` // its answers' IDs, oldest first
	First   time.Time `json:"first_asked"`
	Last    time.Time `json:"last_asked"`
}

// LastAnswer is the ID of the thread's newest answer: what a question
// that resumes the thread follows up on.
func (t ThreadMeta) LastAnswer() string { return t.Answers[len(t.Answers)-1] }

// threadFields are the fields of an answer record threads are made of.
type threadFields struct {
	AnswerMeta
	FollowUp *struct {
		After []string `json:"after"`
	} `json:"follow_up,omitempty"`
}

// MaxThreadName bounds a thread's name, in bytes: a name is one line of
// a listing, not a note.
const MaxThreadName = 200

// defaultNameRunes is how much of its first question names a thread.
const defaultNameRunes = 60

// ThreadName is the name a thread has until it is renamed: its first
// question on one line, cut at a word to about 60 characters.
func ThreadName(question string) string {
	q := strings.Join(strings.Fields(textproc.OneLine(question)), " ")
	if utf8.RuneCountInString(q) <= defaultNameRunes {
		return q
	}
	r := []rune(q)[:defaultNameRunes]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > defaultNameRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

// Threads lists the threads of saved answers, the one asked in last
// first. It reads every answer's record, as List does.
func (l *Answers) Threads() ([]ThreadMeta, error) {
	var out []ThreadMeta
	err := l.store.View(func(tx storage.Tx) error {
		var err error
		out, err = threads(tx)
		return err
	})
	return out, err
}

// threads gathers the threads of the answers bucket, newest first.
func threads(tx storage.Tx) ([]ThreadMeta, error) {
	b := tx.Bucket(bucketAnswers)
	if b == nil {
		return nil, nil
	}
	var recs []threadFields
	if err := b.ForEach(func(k, v []byte) error {
		var f threadFields
		if err := json.Unmarshal(v, &f); err != nil {
			return damaged("saved answer %s does not decode", k)
		}
		f.ID = string(k)
		recs = append(recs, f)
		return nil
	}); err != nil {
		return nil, err
	}
	// Oldest first, so that an answer's thread is known before the
	// answers that continue it; IDs sort by creation too (NewAnswerID).
	slices.SortStableFunc(recs, func(a, b threadFields) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	byID := map[string]int{}         // thread ID → index in out
	lastAsked := map[string]string{} // question → thread of the last answer to it
	threadOf := map[string]string{}  // answer ID → its thread's ID
	var out []ThreadMeta
	for _, r := range recs {
		id := r.Thread
		if t, ok := threadOf[id]; ok {
			// The answer it names may itself continue a thread (one
			// saved before threads, whose thread was found by its
			// question): the answers join that thread.
			id = t
		}
		if id == "" {
			id = r.ID
			if r.FollowUp != nil && len(r.FollowUp.After) > 0 {
				if t, ok := lastAsked[r.FollowUp.After[len(r.FollowUp.After)-1]]; ok {
					id = t
				}
			}
		}
		i, ok := byID[id]
		if !ok {
			i = len(out)
			byID[id] = i
			out = append(out, ThreadMeta{ID: id, Name: ThreadName(r.Question), First: r.Created})
		}
		t := &out[i]
		t.Answers = append(t.Answers, r.ID)
		if r.Created.After(t.Last) {
			t.Last = r.Created
		}
		lastAsked[r.Question] = id
		threadOf[r.ID] = id
	}
	if names := tx.Bucket(bucketThreads); names != nil {
		for i := range out {
			if v := names.Get([]byte(out[i].ID)); v != nil {
				var rec threadRecord
				if json.Unmarshal(v, &rec) == nil && rec.Name != "" {
					out[i].Name, out[i].Named = rec.Name, true
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ThreadMeta) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Thread returns the thread whose ID is ref or starts with it.
func (l *Answers) Thread(ref string) (ThreadMeta, error) {
	var t ThreadMeta
	err := l.store.View(func(tx storage.Tx) error {
		all, err := threads(tx)
		if err != nil {
			return err
		}
		t, err = findThread(all, ref)
		return err
	})
	return t, err
}

// findThread finds the thread ref names by its ID or a unique prefix of
// it.
func findThread(all []ThreadMeta, ref string) (ThreadMeta, error) {
	var matches []ThreadMeta
	for _, t := range all {
		if t.ID == ref {
			return t, nil
		}
		if ref != "" && strings.HasPrefix(t.ID, ref) {
			matches = append(matches, t)
		}
	}
	switch len(matches) {
	case 0:
		return ThreadMeta{}, errorf(ErrNotFound, "no thread %q", ref)
	case 1:
		return matches[0], nil
	}
	ids := make([]string, len(matches))
	for i, t := range matches {
		ids[i] = t.ID
	}
	return ThreadMeta{}, errorf(ErrAmbiguous, "thread %q is ambiguous: it matches %s", ref, strings.Join(ids, ", "))
}

// RenameThread gives the thread ref names (its ID or a unique prefix)
// the name name, made one line; an empty name gives it back its first
// question's. It returns the thread as renamed.
func (l *Answers) RenameThread(ref, name string) (ThreadMeta, error) {
	name = strings.Join(strings.Fields(textproc.OneLine(name)), " ")
	if len(name) > MaxThreadName {
		return ThreadMeta{}, fix.With(fmt.Errorf("a thread's name is at most %d bytes; this one has %d", MaxThreadName, len(name)), "Give a shorter name.")
	}
	var t ThreadMeta
	err := l.store.Update(func(tx storage.Tx) error {
		all, err := threads(tx)
		if err != nil {
			return err
		}
		if t, err = findThread(all, ref); err != nil {
			return err
		}
		if name == "" {
			if b := tx.Bucket(bucketThreads); b != nil {
				if err := b.Delete([]byte(t.ID)); err != nil {
					return err
				}
			}
			all, err = threads(tx)
			if err == nil {
				t, err = findThread(all, t.ID)
			}
			return err
		}
		b, err := tx.CreateBucketIfNotExists(bucketThreads)
		if err != nil {
			return err
		}
		rec, err := json.Marshal(threadRecord{Name: name, Renamed: time.Now().UTC()})
		if err != nil {
			return err
		}
		t.Name, t.Named = name, true
		return b.Put([]byte(t.ID), rec)
	})
	return t, err
}
