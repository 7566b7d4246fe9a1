package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// testLibrary is a library and the pipeline that adds to it: the tests
// add through the one and read back through the other.
type testLibrary struct {
	*docstore.Library
	*Pipeline
}

// openTestLibrary opens a library in a temporary folder and, when the test
// ends, checks its consistency and closes it.
func openTestLibrary(t testing.TB) testLibrary {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "library.db"), nil)
}

// openAt opens the library at path with a pipeline of opt, checked for
// consistency and closed at the end of the test.
func openAt(t testing.TB, path string, opt *Options) testLibrary {
	t.Helper()
	l, err := docstore.Open(path, nil)
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
	return testLibrary{l, New(l, opt)}
}

// addDocument adds the file at path to l and returns it.
func addDocument(t *testing.T, l testLibrary, path string) *docstore.Document {
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
	t.Parallel()
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
	t.Parallel()
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

func TestCancelledAddWritesNothing(t *testing.T) {
	t.Parallel()
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
func matchCount(l *docstore.Library, doc docstore.DocID, q string) (int, error) {
	terms := textproc.Terms(q)
	n := 0
	err := l.Index().Read([]docstore.DocID{doc}, docstore.FieldSentences, terms, func(r *docstore.IndexReader) error {
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
