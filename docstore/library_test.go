package docstore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/internal/textproc"
)

// openTestLibrary opens a library in a temporary folder and, when the test
// ends, checks its consistency and closes it.
func openTestLibrary(t testing.TB) *Library {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "library.db"))
}

// openAt opens the library at path, checked for consistency and closed at
// the end of the test.
func openAt(t testing.TB, path string) *Library {
	t.Helper()
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Check(); err != nil {
			t.Errorf("library inconsistent at end of test: %v", err)
		}
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

const sampleText = "../testdata/declaration.txt"

func TestResolve(t *testing.T) {
	t.Parallel()
	forBackends(t, testResolve)
}

func testResolve(t *testing.T, bk backend) {
	l := bk.library(t)
	a, _, _ := writeText(l, "alpha.txt", "First document. It talks about apples.")
	b, _, _ := writeText(l, "beta.md", "# Beta\n\nSecond document about pears.")
	for ref, want := range map[string]DocID{
		string(a.ID): a.ID, string(b.ID[:6]): b.ID, "alpha.txt": a.ID, b.Path: b.ID,
	} {
		got, err := l.Resolve(ref)
		if err != nil || got.ID != want {
			t.Errorf("Resolve(%q) = %v, %v; want %v", ref, got.ID, err, want)
		}
	}
	if _, err := l.Resolve("nope.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	// Same name, different content: the name is ambiguous.
	writeText(l, "alpha.txt", "Another alpha entirely.")
	if _, err := l.Resolve("alpha.txt"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ambiguous name: %v", err)
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	forBackends(t, testRemove)
}

func testRemove(t *testing.T, bk backend) {
	l := bk.library(t)
	info := addFile(t, l, sampleText).DocInfo
	keep, _, _ := writeText(l, "k.txt", "Unrelated text about tyranny of the majority.")
	if err := l.Remove(info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Document(info.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removed document still readable: %v", err)
	}
	var holders []DocID
	err := l.Index().Read(nil, FieldSentences, []string{"tyranni"}, func(r *IndexReader) error {
		for p := r.Postings(0); p.Next(); {
			id, err := r.DocID(p.Doc())
			if err != nil {
				return err
			}
			holders = append(holders, id)
		}
		return nil
	})
	if err != nil || len(holders) != 1 || holders[0] != keep.ID {
		t.Fatalf("postings after remove: %v %v", holders, err)
	}
	if err := l.Remove(info.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
}

func TestFileModeAndNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	db, _ := bolt.Open(path, 0o600, nil)
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion+1)))
	})
	db.Close()
	_, err = Open(path, nil)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "upgrade citelens") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	forBackends(t, testAnswers)
}

func testAnswers(t *testing.T, bk backend) {
	l := bk.library(t)
	id := NewAnswerID()
	rec := `{"answer_id":"` + id + `","question":"Why?","strategy":"extractive","created":"2026-01-02T03:04:05Z","statements":[],"author":{"user":"u"}}`
	if err := l.Answers().Save(id, []byte(rec)); err != nil {
		t.Fatal(err)
	}
	list, err := l.Answers().List()
	if err != nil || len(list) != 1 || list[0].Question != "Why?" || list[0].ID != id {
		t.Fatalf("%+v %v", list, err)
	}
	gotID, got, err := l.Answers().Get(id[:8])
	if err != nil || gotID != id || string(got) != rec {
		t.Fatalf("Get by prefix: %v %v", gotID, err)
	}
	if err := l.Answers().Delete(id); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Answers().Get(id); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

// matchCount counts the sentences of doc holding any term of q.
func matchCount(l *Library, doc DocID, q string) (int, error) {
	terms := textproc.Terms(q)
	n := 0
	err := l.Index().Read([]DocID{doc}, FieldSentences, terms, func(r *IndexReader) error {
		for t := range terms {
			p := r.Postings(t)
			for p.Next() {
				n += p.Count()
			}
			if err := p.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}
