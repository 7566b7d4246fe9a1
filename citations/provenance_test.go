package citations

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// WithProvenance adds the versions cited and the changes to a JSON
// export as fields of their own: the result is one valid object, the
// answer reads back as it was written, and a document's name cannot
// carry a control character out.
func TestWithProvenance(t *testing.T) {
	t.Parallel()
	a := &Answer{ID: "a1", Question: "Which law?", Statements: []Statement{{Text: "English law.", Citations: []Span{{Doc: "d1", DocName: "contract.txt", First: 3, Last: 3, Start: 10, End: 20, Page: 1, Text: "the law of England"}}}}}
	var doc bytes.Buffer
	if err := Export(&doc, "json", a, nil); err != nil {
		t.Fatal(err)
	}
	p := Provenance{
		Versions: []VersionCited{{Doc: "d1", InLibrary: true, Name: "contract\x1b]0;pwned\x07.txt", Version: 1, Versions: 2, Added: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Line: "contract.txt: version 1 of 2"}},
		Changed:  &EvidenceChange{Recheck: "citelens recheck a1", Changes: []CitationChanged{{Statement: 1, Citation: 1, Class: "changed", OldText: "the law of England", NewText: "the law of Scotland", Line: "statement 1, citation 1: changed"}}},
	}
	out, err := WithProvenance(doc.Bytes(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) || !bytes.HasSuffix(out, []byte("\n}\n")) || !bytes.HasPrefix(out, doc.Bytes()[:len(doc.Bytes())-3]) {
		t.Fatalf("not the export with fields added:\n%s", out)
	}
	if bytes.ContainsAny(out, "\x1b\x07") {
		t.Errorf("a control character reached the export:\n%s", out)
	}
	back, err := ReadJSON(bytes.NewReader(out))
	if err != nil || back.ID != a.ID || len(back.Statements) != 1 || back.Statements[0].Citations[0].Text != "the law of England" {
		t.Errorf("read back %+v, %v", back, err)
	}
	var got struct {
		Provenance
		Question string `json:"question"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Question != a.Question || len(got.Versions) != 1 || got.Versions[0].Version != 1 || !got.Versions[0].Added.Equal(p.Versions[0].Added) ||
		got.Changed == nil || got.Changed.Changes[0].NewText != "the law of Scotland" || !strings.HasPrefix(got.Versions[0].Name, "contract") {
		t.Errorf("fields read back %+v", got)
	}

	// An empty object takes the fields without a stray comma; what is
	// not an object is refused.
	if out, err := WithProvenance([]byte("{}\n"), Provenance{Versions: []VersionCited{}}); err != nil || !json.Valid(out) {
		t.Errorf("{}: %s, %v", out, err)
	}
	if _, err := WithProvenance([]byte("[1]\n"), p); err == nil {
		t.Error("an array was taken for an answer")
	}
}
