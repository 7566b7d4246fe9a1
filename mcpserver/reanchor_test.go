package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest"
)

// reanchor carries a citation of an older version to the latest: the
// latest version says so, an unchanged sentence gets its new bytes, a
// reworded one the difference.
func TestReanchor(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{}, nil)
	var hits SearchResult
	f.call("search", map[string]any{"query": "taxes without consent", "k": 1}, &hits)
	taxes := hits.Hits[0].Citation
	f.call("search", map[string]any{"query": "truths self-evident created equal", "k": 1}, &hits)
	truths := hits.Hits[0].Citation

	var out ReanchorResult
	f.call("reanchor", map[string]any{"citation": taxes}, &out)
	if out.Class != "latest" || out.Versions != 1 || out.New != nil {
		t.Fatalf("a document of one version: %+v", out)
	}

	b, err := os.ReadFile(declaration)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "imposing Taxes on us without our Consent", "imposing Duties on us without our Consent", 1)
	if text == string(b) {
		t.Fatal("the edit did not apply")
	}
	path := filepath.Join(t.TempDir(), "declaration-2.txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ingest.New(f.lib, &ingest.Options{NewVersionOf: taxes.Document}).Add(t.Context(), path, nil); err != nil {
		t.Fatal(err)
	}

	// Over the whole library, search and ask read the latest version
	// only: the older one is still citable by its ID, but not a match of
	// its own beside the newer.
	f.call("search", map[string]any{"query": "truths self-evident created equal", "k": 5}, &hits)
	for _, h := range hits.Hits {
		if h.Citation.Document == taxes.Document {
			t.Errorf("a whole-library search found the older version: %+v", h.Citation)
		}
	}
	var ans AskResult
	f.call("ask", map[string]any{"question": "Which truths are self-evident?"}, &ans)
	for _, st := range ans.Statements {
		for _, c := range st.Citations {
			if c.Document == taxes.Document {
				t.Errorf("a whole-library answer cites the older version: %+v", c)
			}
		}
	}

	out = ReanchorResult{}
	f.call("reanchor", map[string]any{"citation": taxes}, &out)
	if out.Class != "changed" || out.Version != 1 || out.Versions != 2 || out.New == nil || !strings.Contains(out.New.Text, "Duties") || len(out.Diff) == 0 {
		t.Errorf("the reworded grievance: %+v", out)
	}
	out = ReanchorResult{}
	f.call("reanchor", map[string]any{"citation": map[string]any{"document": string(truths.Document), "first_sentence": truths.FirstSentence, "last_sentence": truths.LastSentence}}, &out)
	if out.Class != "unchanged" || out.New == nil || out.New.Text != truths.Text || out.New.Document == truths.Document ||
		text[out.New.Start:out.New.End] != truths.Text {
		t.Errorf("an unchanged sentence: %+v", out)
	}
}
