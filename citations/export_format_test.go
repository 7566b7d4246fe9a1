package citations

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportDispatch checks that Export writes each format exactly as its
// writer does, and that Formats and LookupFormat agree.
func TestExportDispatch(t *testing.T) {
	t.Parallel()
	answers, lookup := goldenAnswers(t)
	a := answers["temple"]
	golden := map[string]string{"md": "md", "json": "json", "html": "html", "longbench": "longbench.json"}
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Export(&buf, f.Name, a, lookup); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		want, err := os.ReadFile(filepath.Join("..", "testdata", "citations", "answer-temple."+golden[f.Name]))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("Export(%s) differs from the %s golden", f.Name, golden[f.Name])
		}
		// A file (or a terminal, after the prompt) ends its last line.
		if !bytes.HasSuffix(buf.Bytes(), []byte("\n")) || bytes.HasSuffix(buf.Bytes(), []byte("\n\n")) {
			t.Errorf("Export(%s) does not end with exactly one newline", f.Name)
		}
		if got, err := LookupFormat(strings.ToUpper(f.Name)); err != nil || got != f {
			t.Errorf("LookupFormat(%s) = %v, %v", f.Name, got, err)
		}
	}
	if f, err := LookupFormat("markdown"); err != nil || f.Name != "md" {
		t.Errorf("LookupFormat(markdown) = %v, %v", f, err)
	}
	err := Export(&bytes.Buffer{}, "docx", a, lookup)
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "longbench") {
		t.Errorf("unknown format: %v", err)
	}
}
