package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/llm/llmtest"
)

const signedContract = `Supply Agreement

1. Delivery. The Supplier shall deliver the Goods within 30 days of the Order. Delivery is made to the Customer's premises at the Supplier's cost.

2. Payment. The Customer shall pay each invoice within sixty days of its date. Late payment bears interest at 4% a year above the base rate.

3. Termination. Either party may end this agreement on ninety days' written notice. The confidentiality clause survives termination.

4. Law. This agreement is governed by the law of England. The courts of London have exclusive jurisdiction.
`

// The "done when", offline: a contract, three saved answers, its
// redline added from the same path; answers --stale names the answer
// whose clause changed with the old and new clause, recheck points the
// unchanged citations at the new version's bytes, show --versions and ls
// say there are two versions, and rm asks which.
func TestVersionsAndStaleAnswers(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	path := filepath.Join(t.TempDir(), "contract.txt")
	if err := os.WriteFile(path, []byte(signedContract), 0o600); err != nil {
		t.Fatal(err)
	}
	var added []addedDoc
	if err := json.Unmarshal([]byte(c.ok("add", "--json", path)), &added); err != nil {
		t.Fatal(err)
	}
	v1 := string(added[0].ID)
	type saved struct {
		ID string `json:"answer_id"`
	}
	ask := func(q string) string {
		var rec saved
		if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--k", "1", q)), &rec); err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	delivery := ask("How many days does the Supplier have to deliver the Goods?")
	law := ask("Which law governs the agreement?")
	notice := ask("How much written notice ends the agreement?")

	redline := strings.Replace(signedContract, "within 30 days of the Order", "within 45 days of the Order", 1)
	redline = strings.Replace(redline, "4. Law.", "4. Audit. The Customer may audit the Supplier's records once a year.\n\n5. Law.", 1)
	if err := os.WriteFile(path, []byte(redline), 0o600); err != nil {
		t.Fatal(err)
	}
	out := c.ok("add", path)
	if !strings.Contains(out, "version 2, after "+v1) {
		t.Errorf("add of the redline said %q, want it called version 2 of %s", out, v1)
	}
	// The file's name means the document: its latest version.
	if out := c.ok("show", "contract.txt"); strings.Contains(out, v1) {
		t.Errorf("show by name shows the old version:\n%s", out)
	}
	if out := c.ok("show", v1, "--versions"); !strings.Contains(out, "latest") || strings.Count(out, "contract.txt") != 2 {
		t.Errorf("show --versions:\n%s", out)
	}
	if out := c.ok("ls"); strings.Contains(out, v1) || !strings.Contains(out, "2 (latest)") {
		t.Errorf("ls shows the old version or no count:\n%s", out)
	}

	out = c.ok("answers", "--stale")
	if !strings.Contains(out, delivery) || strings.Contains(out, law) || strings.Contains(out, notice) {
		t.Errorf("answers --stale names the wrong answers (delivery %s):\n%s", delivery, out)
	}
	if !strings.Contains(out, "changed") || !strings.Contains(out, "within 30 days") || !strings.Contains(out, "within 45 days") || !strings.Contains(out, "[-30-] {+45+}") {
		t.Errorf("answers --stale does not show the old and new clause:\n%s", out)
	}
	var stale []staleAnswer
	if err := json.Unmarshal([]byte(c.ok("answers", "--stale", "--json")), &stale); err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].ID != delivery || stale[0].Changes[0].Class != "changed" {
		t.Errorf("answers --stale --json: %+v", stale)
	}

	// The unchanged citation points at the same words in the new version.
	var r staleAnswer
	if err := json.Unmarshal([]byte(c.ok("recheck", "--json", law)), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) == 0 || r.Stale {
		t.Fatalf("recheck of the law answer: %+v", r)
	}
	for _, ch := range r.Changes {
		if ch.Class != "unchanged" || redline[ch.Start:ch.End] != ch.OldText || ch.To == ch.From {
			t.Errorf("law citation: %+v, new bytes %q", ch, redline[ch.Start:ch.End])
		}
	}
	// Exports name the version they cite and, when its evidence changed,
	// say so at the top.
	md := c.ok("export", delivery)
	if !strings.HasPrefix(md, "> **The evidence of this answer changed") || !strings.Contains(md, "## Versions cited") ||
		!strings.Contains(md, "version 1 of 2, added ") || !strings.Contains(md, "content SHA-256 "+v1) {
		t.Errorf("export of the stale answer:\n%s", md)
	}
	if md := c.ok("export", law); strings.Contains(md, "evidence of this answer changed") || !strings.Contains(md, "version 1 of 2") {
		t.Errorf("export of an answer whose evidence stands:\n%s", md)
	}
	page := c.ok("export", "--format", "html", "--no-images", delivery)
	if !strings.Contains(page, `<aside class="stale">`) || !strings.Contains(page, "Versions cited") {
		t.Errorf("HTML export lacks the notice or the versions")
	}
	// The JSON export carries the same, as fields beside the answer's.
	type provenance struct {
		Statements []json.RawMessage `json:"statements"`
		Versions   []struct {
			Doc       string `json:"doc"`
			InLibrary bool   `json:"in_library"`
			Version   int    `json:"version"`
			Versions  int    `json:"versions"`
			Added     string `json:"added"`
			Line      string `json:"line"`
		} `json:"versions_cited"`
		Changed *struct {
			Recheck string `json:"recheck"`
			Changes []struct {
				Statement int    `json:"statement"`
				Class     string `json:"class"`
				OldText   string `json:"old_text"`
				NewText   string `json:"new_text"`
				Line      string `json:"line"`
			} `json:"changes"`
		} `json:"evidence_changed"`
	}
	exportJSON := func(id string) provenance {
		t.Helper()
		var p provenance
		if err := json.Unmarshal([]byte(c.ok("export", "--format", "json", id)), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := exportJSON(delivery)
	if len(p.Statements) == 0 || len(p.Versions) != 1 || p.Versions[0].Doc != v1 || !p.Versions[0].InLibrary || p.Versions[0].Version != 1 || p.Versions[0].Versions != 2 ||
		p.Versions[0].Added == "" || !strings.Contains(strings.ReplaceAll(md, `\`, ""), p.Versions[0].Line) {
		t.Errorf("JSON export of the stale answer, versions: %+v", p.Versions)
	}
	if p.Changed == nil || p.Changed.Recheck != "citelens recheck "+delivery || len(p.Changed.Changes) != 1 || p.Changed.Changes[0].Class != "changed" ||
		!strings.Contains(p.Changed.Changes[0].OldText, "within 30 days") || !strings.Contains(p.Changed.Changes[0].NewText, "within 45 days") ||
		!strings.Contains(p.Changed.Changes[0].Line, "[-30-] {+45+}") {
		t.Errorf("JSON export of the stale answer, changes: %+v", p.Changed)
	}
	if p := exportJSON(law); p.Changed != nil || len(p.Versions) != 1 || p.Versions[0].Version != 1 {
		t.Errorf("JSON export of an answer whose evidence stands: %+v", p)
	}
	// A thread's export says the same of its answers, each change named
	// with its answer.
	if md := c.ok("export", "--thread", delivery, "--format", "md"); !strings.Contains(md, "Versions cited") ||
		!strings.Contains(md, "answer 1, statement") || !strings.Contains(md, "version 1 of 2") {
		t.Errorf("the thread's export does not name its versions and changes:\n%s", md)
	}
	if out := c.ok("ls", "--all-versions"); !strings.Contains(out, v1) || !strings.Contains(out, "1 of 2") {
		t.Errorf("ls --all-versions:\n%s", out)
	}
	// rm asks which versions; --this-version removes the old one only,
	// and the answers citing it have nothing left to compare.
	if _, errs, code := c.run("rm", v1); code == 0 || !strings.Contains(errs, "--this-version") {
		t.Errorf("rm of a versioned document: status %d, %q", code, errs)
	}
	c.ok("rm", "--this-version", v1)
	if out := c.ok("show", "contract.txt", "--versions"); strings.Contains(out, v1) || !strings.Contains(out, "latest") {
		t.Errorf("after rm --this-version:\n%s", out)
	}
	if out := c.ok("answers", "--stale"); !strings.Contains(out, "No saved answer") {
		t.Errorf("answers --stale after the cited version was removed:\n%s", out)
	}
}

// With a model configured, recheck has the model judge rate each changed
// statement against its new text, and says so; the saved answer is not
// rewritten.
func TestRecheckJudgesChangedStatements(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithResponder(func(r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("The new text gives 45 days, not 30.\nRating: [[Partially supported]]")
	}))
	home := modelEnv(t, srv, "", "")
	db := filepath.Join(home, "data", "citelens", "library.db")
	c := &cli{t: t, db: db}
	path := filepath.Join(t.TempDir(), "contract.txt")
	if err := os.WriteFile(path, []byte(signedContract), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("add", path)
	var rec struct {
		ID string `json:"answer_id"`
	}
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "extractive", "--k", "1", "How many days does the Supplier have to deliver the Goods?")), &rec); err != nil {
		t.Fatal(err)
	}
	// The saved answer as the json export has it, without what it says
	// of the versions cited, which a new version changes.
	saved := func() string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(c.ok("export", "--format", "json", rec.ID)), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["versions_cited"]; !ok {
			t.Error("the json export does not name the versions it cites")
		}
		delete(m, "versions_cited")
		delete(m, "evidence_changed")
		b, _ := json.Marshal(m)
		return string(b)
	}
	before := saved()
	if err := os.WriteFile(path, []byte(strings.Replace(signedContract, "within 30 days", "within 45 days", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("add", path)
	asked := len(srv.Requests())
	var r staleAnswer
	if err := json.Unmarshal([]byte(c.ok("recheck", "--json", rec.ID)), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Support) != 1 || r.Support[0].Model != "Partially supported" {
		t.Fatalf("recheck's support: %+v", r.Support)
	}
	judged := false
	for _, q := range srv.Requests()[asked:] {
		// The statement (the old sentence, as extractive answers) against
		// the new text.
		if q.Chat != nil && strings.Contains(q.Chat.Text(), "within 45 days") {
			judged = true
		}
	}
	if !judged {
		t.Error("the judge was not shown the new text")
	}
	if out := c.ok("recheck", rec.ID); !strings.Contains(out, "support (model, of the new text): Partially supported") {
		t.Errorf("recheck:\n%s", out)
	}
	if after := saved(); after != before {
		t.Error("recheck rewrote the saved answer")
	}
}
