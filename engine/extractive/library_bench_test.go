package extractive

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
)

// BenchmarkLibraryQA is ask's speed as a user meets it: library-qa's
// questions, each asked of its whole library of seven manuals (issue 31:
// aliases and feedback may cost a second pass only when the first is
// weak, and ask stays within 10% of its speed before them). Without the
// manuals (testdata/library-qa/fetch_docs.py) it skips, saying so.
//
//	go test ./engine/extractive -run '^$' -bench LibraryQA -count 6
func BenchmarkLibraryQA(b *testing.B) {
	lib, questions := libraryQALibrary(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		req := engine.Request{Question: questions[i%len(questions)], Options: engine.Settings("k", "3")}
		if _, err := answer(ctx, lib, req, nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

var (
	libQAOnce sync.Once
	libQALib  *docstore.Library
	libQAQs   []string
	libQAErr  error
	libQASkip string
)

// libraryQALibrary adds library-qa's manuals to a fresh library once per
// test binary and reads its questions.
func libraryQALibrary(b *testing.B) (*docstore.Library, []string) {
	libQAOnce.Do(func() {
		docs, _ := filepath.Glob(filepath.Join(libraryDir, "docs", "*"))
		if len(docs) == 0 {
			libQASkip = "no " + filepath.Join(libraryDir, "docs") + " (run testdata/library-qa/fetch_docs.py)"
			return
		}
		f, err := os.Open(filepath.Join(libraryDir, "questions.jsonl"))
		if err != nil {
			libQAErr = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var q struct{ Question string }
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				libQAErr = err
				return
			}
			libQAQs = append(libQAQs, q.Question)
		}
		dir, err := os.MkdirTemp("", "citelens-libqa-")
		if err != nil {
			libQAErr = err
			return
		}
		lib, err := docstore.Open(filepath.Join(dir, "library.db"), nil)
		if err != nil {
			libQAErr = err
			return
		}
		for _, p := range docs {
			if _, _, err := ingest.New(lib, nil).Add(context.Background(), p, nil); err != nil {
				libQAErr = err
				return
			}
		}
		libQALib = lib
	})
	if libQASkip != "" {
		b.Skip(libQASkip)
	}
	if libQAErr != nil {
		b.Fatal(libQAErr)
	}
	return libQALib, libQAQs
}
