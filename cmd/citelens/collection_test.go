package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/storage"
)

// TestCollections: a collection made of two of three documents scopes
// search, ask and ls to them, with the same results as --doc of the same
// two; ls lists it, rm deletes it, and a collection of no document left
// is an error rather than every document.
func TestCollections(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	docs := filepath.Join("..", "..", "testdata", "manuals-qa", "docs")
	c.ok("add", filepath.Join(docs, "gnuplot.txt"), filepath.Join(docs, "libtasn1.txt"), filepath.Join(docs, "shared-mime-info-spec.txt"))
	c.ok("collection", "create", "tools", "gnuplot.txt", "libtasn1.txt")
	out := c.ok("collection", "ls", "--json")
	var list []storage.Collection
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Name != "tools" || len(list[0].Docs) != 2 || list[0].Private || list[0].Owner == "" {
		t.Fatalf("collection ls --json: %s %v", out, err)
	}
	for _, q := range []string{"search", "ask"} {
		args := []string{q, "--json"}
		if q == "ask" {
			args = append(args, "--no-save", "--strategy", "extractive")
		}
		query := "how to read a file format"
		byDoc := c.ok(append(args, "--doc", "gnuplot.txt", "--doc", "libtasn1.txt", query)...)
		byColl := c.ok(append(args, "--collection", "tools", query)...)
		all := c.ok(append(args, query)...)
		if q == "ask" {
			byDoc, byColl = dropVolatile(t, byDoc), dropVolatile(t, byColl)
			all = dropVolatile(t, all)
		}
		if byDoc != byColl {
			t.Errorf("%s --collection differs from --doc of its documents:\n%s\n%s", q, byColl, byDoc)
		}
		if byColl == all {
			t.Errorf("%s --collection is not scoped: the same as over every document", q)
		}
	}
	ls := c.ok("ls", "--collection", "tools")
	if !strings.Contains(ls, "gnuplot.txt") || !strings.Contains(ls, "libtasn1.txt") || strings.Contains(ls, "shared-mime") {
		t.Errorf("ls --collection tools:\n%s", ls)
	}
	c.ok("collection", "remove", "tools", "gnuplot.txt")
	c.ok("collection", "add", "tools", "shared-mime-info-spec.txt")
	if ls := c.ok("ls", "--collection", "tools"); strings.Contains(ls, "gnuplot.txt") || !strings.Contains(ls, "shared-mime") {
		t.Errorf("ls after remove and add:\n%s", ls)
	}
	c.ok("collection", "create", "--private", "solo", "gnuplot.txt")
	if out := c.ok("collection", "ls"); !strings.Contains(out, "solo") || !strings.Contains(out, "private") {
		t.Errorf("collection ls:\n%s", out)
	}
	// A collection whose documents are gone is an error, not the whole
	// library.
	c.ok("rm", "gnuplot.txt")
	if _, errs, code := c.run("search", "--collection", "solo", "file"); code == 0 || !strings.Contains(errs, "removed") {
		t.Errorf("search of a collection of removed documents: status %d, %s", code, errs)
	}
	if _, errs, code := c.run("collection", "create", "tools", "libtasn1.txt"); code == 0 || !strings.Contains(errs, "exists") {
		t.Errorf("a second create: status %d, %s", code, errs)
	}
	if _, errs, code := c.run("ask", "--collection", "nope", "what"); code == 0 || !strings.Contains(errs, "collection ls") {
		t.Errorf("ask of a missing collection: status %d, %s", code, errs)
	}
	c.ok("collection", "rm", "solo")
	if out := c.ok("collection", "ls"); strings.Contains(out, "solo") {
		t.Errorf("collection rm left it:\n%s", out)
	}
	if _, _, code := c.run("collection", "frobnicate"); code != 2 {
		t.Errorf("an unknown collection command: status %d", code)
	}
}

// dropVolatile is an answer's JSON without what differs between two runs
// of one question (its ID, times, durations).
func dropVolatile(t *testing.T, s string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	// The scope's documents as a set: --doc lists them in the order
	// given, a collection in the order they were added.
	if docs, ok := m["docs"].([]any); ok {
		sort.Slice(docs, func(i, j int) bool { return fmt.Sprint(docs[i]) < fmt.Sprint(docs[j]) })
	}
	for _, k := range []string{"answer_id", "created", "seconds", "elapsed_ms", "timings", "duration_ms", "stages", "cost"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestAnswersShowAuthor: a saved answer records who asked, and answers
// lists it (on a library file: the operating-system user).
func TestAnswersShowAuthor(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", filepath.Join("..", "..", "testdata", "declaration.txt"))
	c.ok("ask", "--strategy", "extractive", "what truths are self-evident")
	l, err := docstore.Open(c.db, &docstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	who := l.Answers().Author().String()
	l.Close()
	rows := strings.Split(strings.TrimSpace(c.ok("answers")), "\n")
	if len(rows) != 2 || !strings.Contains(rows[0], "BY") || !strings.Contains(rows[1], " "+who+" ") {
		t.Errorf("answers, want the author %q:\n%s", who, strings.Join(rows, "\n"))
	}
	var list []docstore.AnswerMeta
	if err := json.Unmarshal([]byte(c.ok("answers", "--json")), &list); err != nil || len(list) != 1 || list[0].Author == nil || list[0].Author.User == "" {
		t.Errorf("answers --json: %+v %v", list, err)
	}
}
