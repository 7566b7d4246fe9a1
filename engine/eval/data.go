package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/internal/fix"
)

// ReadQuestions reads a data set's questions.jsonl: one citations.Gold a
// line, blank lines skipped. A file without questions is an error. A
// questions_meta.jsonl beside it (per question: "id" and "alternatives",
// other spellings of answer strings, as testdata/library-qa keeps them)
// fills each question's Alternatives.
func ReadQuestions(path string) ([]citations.Gold, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fix.With(err, "A data set is a folder with docs/ and questions.jsonl (see docs/EVAL.md).")
	}
	defer f.Close()
	var out []citations.Gold
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var g citations.Gold
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no questions", path)
	}
	return out, readAlternatives(filepath.Join(filepath.Dir(path), "questions_meta.jsonl"), out)
}

// readAlternatives fills golds' Alternatives from the meta file at path,
// if there is one.
func readAlternatives(path string, golds []citations.Gold) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	byID := map[string]*citations.Gold{}
	for i := range golds {
		byID[golds[i].ID] = &golds[i]
	}
	for n, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m struct {
			ID           string              `json:"id"`
			Alternatives map[string][]string `json:"alternatives"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n+1, err)
		}
		if g := byID[m.ID]; g != nil && len(m.Alternatives) > 0 && g.Alternatives == nil {
			g.Alternatives = m.Alternatives
		}
	}
	return nil
}

// DocFiles lists the documents of the data set in dir: the regular files
// of dir/docs, by name. Symbolic links are followed, so a data set may
// link documents kept elsewhere.
func DocFiles(dir string) ([]string, error) {
	files, err := os.ReadDir(filepath.Join(dir, "docs"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		if st, err := os.Stat(filepath.Join(dir, "docs", f.Name())); err == nil && st.Mode().IsRegular() {
			names = append(names, f.Name())
		}
	}
	sort.Strings(names)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, "docs", n)
	}
	return paths, nil
}
