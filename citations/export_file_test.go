package citations

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFileName(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 27, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		q, format, want string
	}{
		{"What did the colonists object to?", "md", "2026-11-27-what-did-the-colonists-object-to.md"},
		{"Où est la façade de Zürich ?", "html", "2026-11-27-ou-est-la-facade-de-zurich.html"},
		{"How does lm() handle NA values when fitting a model with many predictors and weights?", "longbench",
			"2026-11-27-how-does-lm-handle-na-values-when-fitting-a.longbench.json"},
		{"???", "json", "2026-11-27-answer.json"},
	} {
		f, err := LookupFormat(c.format)
		if err != nil {
			t.Fatal(err)
		}
		if got := FileName(&Answer{Question: c.q, Created: created}, f); got != c.want {
			t.Errorf("FileName(%q, %s) = %q, want %q", c.q, c.format, got, c.want)
		}
	}
}

// TestWriteFileNeverOverwrites: exporting twice keeps both files, the
// second numbered, and leaves nothing else behind.
func TestWriteFileNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := &Answer{ID: "a1", Question: "Why?", Created: time.Now(), Statements: []Statement{{Text: "Because."}}}
	f, _ := LookupFormat("md")
	first, err := WriteFile(dir, a, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := WriteFile(dir, a, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || filepath.Base(second) != FileName(a, f)[:len(FileName(a, f))-3]+"-2.md" {
		t.Errorf("second export at %s (first %s)", second, first)
	}
	if b, _ := os.ReadFile(first); string(b) != "edited by hand" {
		t.Error("the first export was overwritten")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files in the folder, want the two exports", len(ents))
	}
}
