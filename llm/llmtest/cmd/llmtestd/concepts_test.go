package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConceptsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("# synonyms\ncapex | capital expenditure\n\ncar|automobile|motor vehicle\n"), 0o600)
	c, err := readConcepts(good)
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Embed("capex", 64), c.Embed("Capital Expenditures", 64)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("capex and capital expenditures embed apart")
		}
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("car | automobile\nvehicle | car\n"), 0o600)
	if _, err := readConcepts(bad); err == nil || !strings.Contains(err.Error(), bad+`: line 2: "car" is also in line 1`) {
		t.Fatalf("bad file: %v", err)
	}
	if _, err := readConcepts(filepath.Join(dir, "none.txt")); err == nil {
		t.Fatal("a missing file read")
	}
}
