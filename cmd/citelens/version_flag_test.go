package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// versionedContract adds the signed contract, then its redline (the law
// of Scotland, not England) from the same path, and returns the IDs of
// version 1 and version 2.
func versionedContract(t *testing.T, c *cli) (v1, v2 string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "contract.txt")
	add := func(text string) string {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var added []addedDoc
		if err := json.Unmarshal([]byte(c.ok("add", "--json", path)), &added); err != nil {
			t.Fatal(err)
		}
		return string(added[0].ID)
	}
	v1 = add(signedContract)
	v2 = add(strings.Replace(signedContract, "the law of England", "the law of Scotland", 1))
	if v1 == v2 {
		t.Fatal("the redline was not added as a document of its own")
	}
	return v1, v2
}

// TestVersionFlag: search, ask and show read the latest version of a
// document, and the whole library its latest versions, unless --version
// names an older one.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	v1, v2 := versionedContract(t, c)

	// search: the whole library is the latest versions.
	if out := c.ok("search", "England"); !strings.Contains(out, "no matches") {
		t.Errorf("a whole-library search found the old version's word:\n%s", out)
	}
	var hits []searchHit
	if err := json.Unmarshal([]byte(c.ok("search", "--json", "--doc", "contract.txt", "--version", "1", "England")), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || string(hits[0].Doc) != v1 || !strings.Contains(hits[0].Text, "law of England") {
		t.Errorf("search --version 1: %+v, want the sentence of %s", hits, v1)
	}
	if err := json.Unmarshal([]byte(c.ok("search", "--json", "--doc", "contract.txt", "law", "governed")), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || string(hits[0].Doc) != v2 {
		t.Errorf("search by name: %+v, want the latest version %s", hits, v2)
	}

	// ask: the whole library, a name, and a name at --version 1.
	type answer struct {
		Docs []struct {
			ID string `json:"id"`
		} `json:"docs"`
		Statements []struct {
			Citations []struct {
				Doc  string `json:"doc"`
				Text string `json:"text"`
			} `json:"citations"`
		} `json:"statements"`
	}
	ask := func(args ...string) answer {
		t.Helper()
		var a answer
		if err := json.Unmarshal([]byte(c.ok(append([]string{"ask", "--json", "--no-save", "--k", "1"}, args...)...)), &a); err != nil {
			t.Fatal(err)
		}
		if len(a.Statements) == 0 || len(a.Statements[0].Citations) == 0 {
			t.Fatalf("ask %q: no cited statement", args)
		}
		return a
	}
	const q = "Which law governs the agreement?"
	for _, a := range []answer{ask(q), ask("--doc", "contract.txt", q)} {
		for _, d := range a.Docs {
			if d.ID == v1 {
				t.Errorf("an answer over the latest versions was asked over %s too: %+v", v1, a.Docs)
			}
		}
		if cit := a.Statements[0].Citations[0]; cit.Doc != v2 || !strings.Contains(cit.Text, "Scotland") {
			t.Errorf("the answer cites %s %q, want the latest version %s", cit.Doc, cit.Text, v2)
		}
	}
	if cit := ask("--doc", "contract.txt", "--version", "1", q).Statements[0].Citations[0]; cit.Doc != v1 || !strings.Contains(cit.Text, "England") {
		t.Errorf("ask --version 1 cites %s %q, want %s", cit.Doc, cit.Text, v1)
	}

	// show: the name is the latest, --version 1 the first.
	if out := c.ok("show", "--json", "--version", "1", "contract.txt"); !strings.Contains(out, v1) {
		t.Errorf("show --version 1 does not show %s:\n%s", v1, out)
	}
	if out := c.ok("show", "--version", "2", "--sentences", "contract.txt"); !strings.Contains(out, "Scotland") {
		t.Errorf("show --version 2 --sentences:\n%s", out)
	}

	// Mistakes say what to do.
	for _, bad := range [][]string{
		{"search", "--version", "3", "--doc", "contract.txt", "law"},
		{"search", "--version", "1", "law"},
		{"show", "--version", "3", "contract.txt"},
		{"ask", "--version", "-1", "--doc", "contract.txt", q},
	} {
		_, errs, code := c.run(bad...)
		if code == 0 {
			t.Errorf("%q succeeded", bad)
			continue
		}
		if !strings.Contains(errs, "--version") {
			t.Errorf("%q: %s", bad, errs)
		}
	}
	if _, errs, _ := c.run("search", "--version", "3", "--doc", "contract.txt", "law"); !strings.Contains(errs, "has 2 versions") || !strings.Contains(errs, "from 1 to 2") {
		t.Errorf("--version 3 of 2: %s", errs)
	}
}
