package docstore

import (
	"context"
	"errors"
	"github.com/citelens/citelens/internal/textproc"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
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

// addDocument adds the file at path to l and returns it.
func addDocument(t *testing.T, l *Library, path string) *Document {
	t.Helper()
	info, _, err := l.Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sampleText = "../testdata/declaration.txt"

func TestAddTextVerbatimAndDedup(t *testing.T) {
	l := openTestLibrary(t)
	info, existed, err := l.Add(t.Context(), sampleText, nil)
	if err != nil || existed {
		t.Fatalf("Add: %v existed=%v", err, existed)
	}
	raw, _ := os.ReadFile(sampleText)
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != string(raw) {
		t.Fatal("stored text is not the file verbatim")
	}
	if info.Kind != "text" || info.Pages != 1 || info.NumSents < 40 || info.NumChunks < 5 || info.Bytes != len(raw) {
		t.Fatalf("unexpected info %+v", info)
	}
	if info.Title != "The Declaration of Independence" {
		t.Errorf("title %q", info.Title)
	}
	prevEnd := int32(0)
	for i, s := range d.Sentences {
		if s.Start < prevEnd || s.End <= s.Start || int(s.End) > len(d.Text) || s.Page != 1 {
			t.Fatalf("sentence %d %+v out of order or range", i, s)
		}
		prevEnd = s.End
	}
	// Same content under another name: a no-op that reports the original.
	again := writeFile(t, "copy.txt", string(raw))
	info2, existed, err := l.Add(t.Context(), again, nil)
	if err != nil || !existed || info2.ID != info.ID || info2.Name != "declaration.txt" {
		t.Fatalf("re-add: %+v existed=%v err=%v", info2, existed, err)
	}
	docs, _ := l.List()
	if len(docs) != 1 {
		t.Fatalf("%d documents after re-add", len(docs))
	}
}

func TestLoaderErrors(t *testing.T) {
	l := openTestLibrary(t)
	cases := []struct {
		name, content string
		want          error
		mention       string
	}{
		{"bin.txt", "abc\x00def", ErrBinary, "offset 3"},
		{"latin1.txt", "caf\xe9 au lait", ErrInvalidUTF8, "offset 3"},
		{"empty.txt", "", ErrEmpty, "empty"},
		{"blank.md", " \n\n\t\n", ErrEmpty, "whitespace"},
		{"data.xlsx", "PK\x03\x04", ErrUnsupported, ".docx"},
	}
	for _, c := range cases {
		_, _, err := l.Add(t.Context(), writeFile(t, c.name, c.content), nil)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.mention) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: got %v, want %v mentioning %q and the file", c.name, err, c.want, c.mention)
		}
	}
	if _, _, err := l.Add(t.Context(), filepath.Join(t.TempDir(), "missing.txt"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	if docs, _ := l.List(); len(docs) != 0 {
		t.Errorf("failed adds left %d documents", len(docs))
	}
}

func TestResolve(t *testing.T) {
	l := openTestLibrary(t)
	a, _, _ := l.Add(t.Context(), writeFile(t, "alpha.txt", "First document. It talks about apples."), nil)
	b, _, _ := l.Add(t.Context(), writeFile(t, "beta.md", "# Beta\n\nSecond document about pears."), nil)
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
	l.Add(t.Context(), writeFile(t, "alpha.txt", "Another alpha entirely."), nil)
	if _, err := l.Resolve("alpha.txt"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ambiguous name: %v", err)
	}
}

func TestRemove(t *testing.T) {
	l := openTestLibrary(t)
	info, _, _ := l.Add(t.Context(), sampleText, nil)
	keep, _, _ := l.Add(t.Context(), writeFile(t, "k.txt", "Unrelated text about tyranny of the majority."), nil)
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
	l := openTestLibrary(t)
	id := NewAnswerID()
	rec := `{"answer_id":"` + id + `","question":"Why?","strategy":"extractive","created":"2026-01-02T03:04:05Z","statements":[]}`
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

func TestCancelledAddWritesNothing(t *testing.T) {
	l := openTestLibrary(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := l.Add(ctx, sampleText, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if docs, _ := l.List(); len(docs) != 0 {
		t.Fatal("cancelled add left a document")
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
