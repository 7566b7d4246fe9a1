package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest"
)

// read and verify take a version: by number (as a number or a string) or
// by a version's ID; without one, a file name reads the latest version.
func TestReadAndVerifyVersions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var hits SearchResult
	f.call("search", map[string]any{"query": "taxes without consent", "k": 1}, &hits)
	taxes := hits.Hits[0].Citation
	b, err := os.ReadFile(declaration)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "imposing Taxes on us without our Consent", "imposing Duties on us without our Consent", 1)
	path := filepath.Join(t.TempDir(), filepath.Base(declaration))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	info, _, err := ingest.New(f.lib, &ingest.Options{NewVersionOf: taxes.Document}).Add(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := taxes.Document, info.ID
	at := func(version any) map[string]any {
		in := map[string]any{"document": "declaration.txt", "first_sentence": taxes.FirstSentence}
		if version != nil {
			in["version"] = version
		}
		return in
	}
	var out ReadResult
	f.call("read", at(nil), &out)
	if out.Document != v2 || !strings.Contains(out.Text, "Duties") {
		t.Errorf("read by name: %s %q, want the latest version %s", out.Document, out.Text, v2)
	}
	for _, v := range []any{1, "1", string(v1), string(v1[:6])} {
		out = ReadResult{}
		f.call("read", at(v), &out)
		if out.Document != v1 || out.Text != taxes.Text {
			t.Errorf("read version %v: %s %q, want %s %q", v, out.Document, out.Text, v1, taxes.Text)
		}
	}
	for v, want := range map[any]string{3: "has 2 version(s)", "0": "numbered from 1", "ffffff": "is not a version of"} {
		if msg := f.fail("read", at(v)); !strings.Contains(msg, want) || !strings.Contains(msg, "\nGive") {
			t.Errorf("read version %v: %q, want %q and what to give", v, msg, want)
		}
	}

	if msg := f.fail("read", at(1.5)); !strings.Contains(msg, "version") {
		t.Errorf("read version 1.5: %q", msg)
	}

	// verify checks a claim against the version asked for: the latest
	// by the document's name, the first by number.
	claim := "They imposed taxes on us without our consent."
	var vr VerifyResult
	f.call("verify", map[string]any{"claim": claim, "citation": map[string]any{"document": "declaration.txt", "first_sentence": taxes.FirstSentence}}, &vr)
	if vr.Cited.Document != v2 || strings.Contains(vr.Cited.Text, "Taxes") {
		t.Errorf("verify by name cited %s %q", vr.Cited.Document, vr.Cited.Text)
	}
	vr = VerifyResult{}
	f.call("verify", map[string]any{"claim": claim, "citation": map[string]any{"document": "declaration.txt", "first_sentence": taxes.FirstSentence, "version": 1}}, &vr)
	if vr.Cited.Document != v1 || vr.Cited.Text != taxes.Text || vr.Verdict != "supported" {
		t.Errorf("verify version 1: %+v", vr)
	}
}
