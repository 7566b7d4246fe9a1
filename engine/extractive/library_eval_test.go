package extractive

// library-qa (issue 31): 69 questions over seven Debian manuals of very
// different sizes, from a 15-page fontconfig manual to R's 2,415-page
// reference, each asked of the whole library. Besides evidence recall it
// scores what a reader sees: whether the first three statements contain
// the answer key. The manuals are not in the repository;
// testdata/library-qa/fetch_docs.py puts them in its docs/ folder from the
// Debian packages, and the set is skipped without them.
//
//	go test ./engine/extractive -run TestLibraryQA -v

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
)

const libraryDir = "../../testdata/library-qa"

// libraryKey is a question's answer key: every string must be in the
// answer, each as itself or one of its alternatives.
type libraryKey struct {
	Answers      []string
	Alternatives map[string][]string
	Kind         string
}

// libraryKeys reads the answer keys of questions.jsonl and the kinds and
// alternatives of questions_meta.jsonl, by question ID.
func libraryKeys(t *testing.T) map[string]*libraryKey {
	t.Helper()
	keys := map[string]*libraryKey{}
	read := func(name string, each func(line []byte) error) {
		f, err := os.Open(filepath.Join(libraryDir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			if err := each(sc.Bytes()); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	read("questions.jsonl", func(line []byte) error {
		var q struct {
			ID      string   `json:"id"`
			Answers []string `json:"answers"`
		}
		err := json.Unmarshal(line, &q)
		keys[q.ID] = &libraryKey{Answers: q.Answers}
		return err
	})
	read("questions_meta.jsonl", func(line []byte) error {
		var m struct {
			ID           string              `json:"id"`
			Kind         string              `json:"kind"`
			Alternatives map[string][]string `json:"alternatives"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return err
		}
		if k := keys[m.ID]; k != nil {
			k.Kind, k.Alternatives = m.Kind, m.Alternatives
		}
		return nil
	})
	return keys
}

// foldText lower-cases s and collapses its white space, as answer_hit
// compares (citations.Score).
func foldText(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// answeredBy reports whether statements' text contains every string of
// the key (or one of its alternatives): testdata/library-qa's
// answered_first3.py, which scores `citelens eval --out` records.
func answeredBy(statements []string, key *libraryKey) bool {
	hay := foldText(strings.Join(statements, "\n"))
	for _, a := range key.Answers {
		found := false
		for _, s := range append([]string{a}, key.Alternatives[a]...) {
			if strings.Contains(hay, foldText(s)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// answeredFirst3 answers every question with k = 3 and returns the share
// whose first three statements hold the answer key, overall and by kind
// ("answered/asked"). With scoped, each question is asked of the
// document its evidence is in instead of the whole library.
func answeredFirst3(t *testing.T, ds *dataset, keys map[string]*libraryKey, scoped bool) (float64, map[string][2]int) {
	t.Helper()
	byKind := map[string][2]int{}
	hits := 0
	for _, q := range ds.qs {
		key := keys[q.ID]
		if key == nil || len(key.Answers) == 0 {
			t.Fatalf("%s: no answer key", q.ID)
		}
		req := engine.Request{Question: q.Question, Options: engine.Settings("k", "3")}
		for _, name := range askedOf(q, scoped) {
			req.Docs = append(req.Docs, ds.ids[name])
		}
		ans, err := engine.Run(context.Background(), &engine.Env{Library: ds.lib}, Strategy{}, req, nil)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		var texts []string
		for _, st := range ans.Statements {
			if len(texts) == 3 {
				break
			}
			texts = append(texts, st.Text)
		}
		c := byKind[key.Kind]
		c[1]++
		if answeredBy(texts, key) {
			hits++
			c[0]++
		}
		byKind[key.Kind] = c
	}
	return float64(hits) / float64(len(ds.qs)), byKind
}

// askedOf is the documents a question is asked of: all of the set's, or
// with scoped, the ones its evidence is in.
func askedOf(q question, scoped bool) []string {
	if !scoped {
		return q.Docs
	}
	var docs []string
	for _, e := range q.Evidence {
		if !slices.Contains(docs, e.Doc) {
			docs = append(docs, e.Doc)
		}
	}
	return docs
}

// scopedSet is ds with each question asked of its evidence's document.
func scopedSet(ds *dataset) *dataset {
	s := *ds
	s.qs = nil
	for _, q := range ds.qs {
		q.Docs = askedOf(q, true)
		s.qs = append(s.qs, q)
	}
	return &s
}

// TestLibraryQA holds the extractive strategy's figures on library-qa
// above floors a little under the baseline in its README (asked of the
// whole library: evidence_recall 0.478 at k = 3 and 0.507 at k = 5;
// answered in the first three statements 0.362), and logs the scoped
// figures beside them. Issue 31's first ranking work (statements that take
// what they introduce, document balance, feedback) raised them to 0.507
// at 3, 0.536 at 5, 0.420 answered; the second (a lead-in takes only the
// items under it, sentences joined across page breaks, a description
// with its option line, a term with its definition) to 0.536, 0.565 and
// 0.478; the third (a statement takes what its sentence leaves to its
// neighbours, a term weighs between its idf in the library and in its
// document, how-to questions want the lead-in to a command, a firmer
// document balance, steps, pointers demoted) to 0.652, 0.710 and
// 0.652; the fourth (aliases whenever a candidate says them, a quantity
// for how-much questions, a lead-in ranked with its command, a usage
// line's default, a long option for how-to questions, table rows kept
// whole and quoted under their header, an index's aliases) to 0.725,
// 0.754 and 0.739, above the goal of 0.70. The floors sit a
// little under those.
func TestLibraryQA(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("evaluation: skipped with -short")
	}
	for _, name := range []string{"fontconfig-user.pdf", "bzip2-manual.pdf", "nettle.pdf", "git-user-manual.html",
		"debian-reference.en.pdf", "valgrind_manual.pdf", "fullrefman.pdf"} {
		if _, err := os.Stat(filepath.Join(libraryDir, "docs", name)); err != nil {
			t.Skipf("library-qa's manuals are not in %s/docs (they are not in the repository): run python3 fetch_docs.py there to get them from the Debian packages (%v)", libraryDir, err)
		}
	}
	ds := loadDataset(t, libraryDir)
	keys := libraryKeys(t)

	whole := map[int]figures{}
	scoped := map[int]figures{}
	for _, k := range []int{3, 5} {
		whole[k] = evaluate(t, ds, strategyAnswerer(nil, nil), k)
		scoped[k] = evaluate(t, scopedSet(ds), strategyAnswerer(nil, nil), k)
	}
	first3, byKind := answeredFirst3(t, ds, keys, false)
	first3Scoped, _ := answeredFirst3(t, ds, keys, true)
	t.Logf("library: recall@3 %.3f @5 %.3f, answered in the first three %.3f; scoped: recall@3 %.3f @5 %.3f, answered in the first three %.3f",
		whole[3].Recall, whole[5].Recall, first3, scoped[3].Recall, scoped[5].Recall, first3Scoped)
	kinds := make([]string, 0, len(byKind))
	for kind := range byKind {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)
	for _, kind := range kinds {
		t.Logf("  %-16s answered in the first three %d/%d", kind, byKind[kind][0], byKind[kind][1])
	}

	if whole[3].Recall < 0.70 {
		t.Errorf("evidence_recall@3 = %.3f, want at least 0.70", whole[3].Recall)
	}
	if whole[5].Recall < 0.73 {
		t.Errorf("evidence_recall@5 = %.3f, want at least 0.73", whole[5].Recall)
	}
	if first3 < 0.70 {
		t.Errorf("answered in the first three statements = %.3f, want at least 0.70 (issue 31's goal)", first3)
	}
}
