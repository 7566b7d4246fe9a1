package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccentFolding: search and ask find a word whatever its accents,
// ligatures or width, written either way in the document or the question.
func TestAccentFolding(t *testing.T) {
	t.Parallel()
	doc := filepath.Join(t.TempDir(), "travel.txt")
	text := "The office in Zürich has a glass façade. The naive plan was dropped.\n\n" +
		"Our ﬁling system lives in ＡＢＣ folders. Nothing else is stored there.\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	c.ok("add", doc)
	for query, want := range map[string]string{
		"Zurich":     "Zürich",
		"facade":     "façade",
		"naïve plan": "naive plan",
		"filing":     "ﬁling",
		"abc":        "ＡＢＣ",
	} {
		if out := c.ok("search", query); !strings.Contains(out, want) {
			t.Errorf("search %q does not find %q:\n%s", query, want, out)
		}
	}
	if out := c.ok("ask", "Where is the office with the facade?"); !strings.Contains(out, "Zürich has a glass façade") {
		t.Errorf("ask does not find the accented sentence:\n%s", out)
	}
}
