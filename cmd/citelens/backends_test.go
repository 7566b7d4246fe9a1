package main

// Tests of the command on both backends: a library file and a
// PostgreSQL database in the test binary's private cluster
// (storage/pgkv/pgtest), which must give the same documents, the same
// statements and the same byte ranges.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/storage/pgkv/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backendAddrs make a fresh, empty library address of each backend.
var backendAddrs = []struct {
	name string
	addr func(t *testing.T) string
}{
	{"bolt", func(t *testing.T) string { return filepath.Join(t.TempDir(), "library.db") }},
	{"pg", func(t *testing.T) string { return pgtest.New(t).URL() }},
}

// newCLIAt is a cli on the library at addr.
func newCLIAt(t *testing.T, addr string) *cli { return &cli{t: t, db: addr} }

// The documents and questions the backends are compared on: a text, an
// HTML page and a PDF (with page geometry).
var (
	backendDocs = []string{sample, "../../testdata/formats/article.html", "../../testdata/licenses-qa/docs/apache-2.0.pdf"}
	backendQs   = []string{"What truths are held to be self-evident?", "taxes without consent",
		"What must a redistribution of the Work include?", "When does the patent license terminate?"}
)

// stable is a JSON output without what differs from run to run (an
// answer's ID, its time and duration, an add's seconds, when a cited
// version was added and the line that says so) and who wrote it
// (an answer's author: the database role is PostgreSQL's alone),
// re-encoded: what stays must be byte-identical across backends.
func stable(t *testing.T, out string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"answer_id", "created", "seconds", "exported", "author", "added", "line"} {
				delete(x, k)
			}
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// session is what one backend's run of the same commands printed.
type session struct {
	add, ls, sentences, search, answers, export string
	asks                                        []string
}

// runSession runs add, ls, show, search, ask --json, answers, export
// and rm on c's library and returns what they printed, checking what
// each must say on either backend.
func runSession(t *testing.T, c *cli) session {
	var s session
	s.add = stable(t, c.ok(append([]string{"add", "--json"}, backendDocs...)...))
	var added []addedDoc
	json.Unmarshal([]byte(s.add), &added)
	if len(added) != len(backendDocs) {
		t.Fatalf("add --json: %s", s.add)
	}
	s.ls = c.ok("ls")
	for _, d := range added {
		if !strings.Contains(s.ls, string(d.ID)) {
			t.Errorf("ls lacks %s:\n%s", d.ID, s.ls)
		}
	}
	s.sentences = c.ok("show", "--sentences", "apache-2.0.pdf")
	s.search = stable(t, c.ok("search", "--json", "--k", "5", "patent", "license"))
	for _, q := range backendQs {
		s.asks = append(s.asks, stable(t, c.ok("ask", "--json", q)))
	}
	s.answers = stable(t, c.ok("answers", "--json"))
	var answers []struct {
		ID string `json:"answer_id"`
	}
	if err := json.Unmarshal([]byte(c.ok("answers", "--json")), &answers); err != nil || len(answers) != len(backendQs) {
		t.Fatalf("answers --json: %v %d", err, len(answers))
	}
	s.export = stable(t, c.ok("export", answers[0].ID, "--format", "json"))
	c.ok("rm", string(added[1].ID))
	if out := c.ok("ls"); strings.Contains(out, string(added[1].ID)) || !strings.Contains(out, string(added[0].ID)) {
		t.Errorf("ls after rm:\n%s", out)
	}
	return s
}

// TestBackendsAgree: the same commands over the same documents print
// the same on a library file and in PostgreSQL: the documents, their
// sentences, the search hits, and every answer's statements, documents
// and byte ranges.
func TestBackendsAgree(t *testing.T) {
	t.Parallel()
	var runs []session
	for _, b := range backendAddrs {
		addr := b.addr(t) // skips without PostgreSQL
		runs = append(runs, runSession(t, newCLIAt(t, addr)))
	}
	bolt, pg := runs[0], runs[1]
	for _, f := range []struct{ what, a, b string }{
		{"add --json", bolt.add, pg.add}, {"ls", bolt.ls, pg.ls}, {"show --sentences", bolt.sentences, pg.sentences},
		{"search --json", bolt.search, pg.search}, {"answers --json", bolt.answers, pg.answers}, {"export --format json", bolt.export, pg.export},
	} {
		if f.a != f.b {
			t.Errorf("%s differs between bbolt and PostgreSQL:\n%s\n---\n%s", f.what, f.a, f.b)
		}
	}
	for i := range bolt.asks {
		if bolt.asks[i] != pg.asks[i] {
			t.Errorf("ask --json %q differs between bbolt and PostgreSQL:\n%s\n---\n%s", backendQs[i], bolt.asks[i], pg.asks[i])
		}
		if !strings.Contains(bolt.asks[i], `"start"`) {
			t.Errorf("ask --json %q cites nothing:\n%s", backendQs[i], bolt.asks[i])
		}
	}
}

// TestCopyBetweenBackends: a library file copied into PostgreSQL, and
// that copied back into a file, answer every question with the same
// JSON as the original, keep its saved answers, and refuse to be
// overwritten without --force.
func TestCopyBetweenBackends(t *testing.T) {
	t.Parallel()
	src := newCLI(t)
	src.ok(append([]string{"add"}, backendDocs...)...)
	src.ok("ask", "--json", backendQs[0]) // a saved answer to carry over
	pgAddr := pgtest.New(t).URL()
	var sum copySummary
	if err := json.Unmarshal([]byte(src.ok("copy", "--json", pgAddr)), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Documents != len(backendDocs) || sum.Keys == 0 || sum.Bytes == 0 {
		t.Errorf("copy --json: %+v", sum)
	}
	back := filepath.Join(t.TempDir(), "back", "library.db")
	pg := newCLIAt(t, pgAddr)
	if out := pg.ok("copy", back); !strings.Contains(out, "Copied 3 documents") {
		t.Errorf("copy: %q", out)
	}
	file := newCLIAt(t, back)
	wantAnswers := src.ok("answers", "--json")
	for _, c := range []*cli{pg, file} {
		if got := c.ok("answers", "--json"); got != wantAnswers {
			t.Errorf("%s: the saved answers differ:\n%s\n---\n%s", c.db, got, wantAnswers)
		}
		if got, want := c.ok("show", "--text", "declaration.txt"), src.ok("show", "--text", "declaration.txt"); got != want {
			t.Errorf("%s: the document's text differs", c.db)
		}
	}
	for _, q := range backendQs {
		want := stable(t, src.ok("ask", "--json", "--no-save", q))
		for _, c := range []*cli{pg, file} {
			if got := stable(t, c.ok("ask", "--json", "--no-save", q)); got != want {
				t.Errorf("%s: ask --json %q differs from the original:\n%s\n---\n%s", c.db, q, got, want)
			}
		}
	}

	// A library that is there is kept, unless --force.
	_, errs, code := src.run("copy", pgAddr)
	if code != 1 || !strings.Contains(errs, "not empty") || !strings.Contains(errs, "--force") {
		t.Errorf("copy into a library: status %d, %q", code, errs)
	}
	other := newCLI(t)
	other.ok("add", sample)
	if out := other.ok("copy", "--force", pgAddr); !strings.Contains(out, "Copied 1 document ") {
		t.Errorf("copy --force: %q", out)
	}
	if out := pg.ok("ls"); strings.Contains(out, "apache") || !strings.Contains(out, "declaration.txt") {
		t.Errorf("after copy --force the library holds:\n%s", out)
	}
	// Nothing to copy, and a copy to itself, are refused.
	if _, errs, code := newCLI(t).run("copy", filepath.Join(t.TempDir(), "x.db")); code != 1 || !strings.Contains(errs, "no library") {
		t.Errorf("copy of no library: %d %q", code, errs)
	}
	if _, errs, code := src.run("copy", src.db); code != 1 || !strings.Contains(errs, "itself") {
		t.Errorf("copy to itself: %d %q", code, errs)
	}
}

// superuserExec runs stmts in d as the cluster's superuser.
func superuserExec(t *testing.T, d pgtest.Database, stmts ...string) {
	t.Helper()
	d.Role = ""
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestPGReadOnlyRole: a role granted only SELECT lists, shows, searches
// and asks; add, rm and saving an answer are refused, naming the
// library, with the way out, and no SQLSTATE.
func TestPGReadOnlyRole(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	owner := newCLIAt(t, d.URL())
	owner.ok("add", sample)
	r := d.NewRole(t, "")
	superuserExec(t, d, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+r.Role)
	reader := newCLIAt(t, r.URL())
	if out := reader.ok("ls"); !strings.Contains(out, "declaration.txt") {
		t.Errorf("ls as a reader: %q", out)
	}
	reader.ok("show", "--text", "declaration.txt")
	reader.ok("check")
	reader.ok("search", "taxes")
	if out := reader.ok("ask", "--no-save", "taxes without consent"); !strings.Contains(out, "Taxes") {
		t.Errorf("ask as a reader: %q", out)
	}
	refused := func(what string, args ...string) string {
		t.Helper()
		out, errs, code := reader.run(args...)
		if code != 1 || !strings.Contains(errs, "read-only access to the library at "+d.Host+"/"+d.Name) ||
			!strings.Contains(errs, "write rights") || strings.Contains(errs, "SQLSTATE") {
			t.Errorf("%s as a reader: status %d\n%s", what, code, errs)
		}
		return out
	}
	refused("add", "add", "../../testdata/formats/article.html")
	refused("rm", "rm", "declaration.txt")
	if out := refused("ask", "ask", "taxes without consent"); !strings.Contains(out, "Taxes") {
		t.Errorf("ask as a reader that cannot save shows no answer: %q", out)
	}
	if out := owner.ok("ls"); strings.Count(out, "\n") != strings.Count(reader.ok("ls"), "\n") || strings.Contains(out, "article") {
		t.Errorf("the reader changed the library:\n%s", out)
	}
}

// TestPGAddresses: a database the server lacks is named with its fix;
// a read command on an empty database says the library is empty and
// makes nothing; the key=value form works as the URL does; an address
// that is neither is refused, and no file is made for it.
func TestPGAddresses(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	missing := d
	missing.Name = "team_nowhere"
	_, errs, code := newCLIAt(t, missing.URL()).run("ls")
	if code != 1 || !strings.Contains(errs, `no database "team_nowhere"`) || !strings.Contains(errs, "createdb") || !strings.Contains(errs, d.Host) {
		t.Errorf("ls of a missing database: %d %q", code, errs)
	}
	empty := newCLIAt(t, d.ConnString())
	for _, args := range [][]string{{"ls"}, {"check"}} {
		if out := empty.ok(args...); !strings.Contains(out, "library is empty") {
			t.Errorf("%s of an empty database: %q", args[0], out)
		}
	}
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables int
	conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables)
	if tables != 0 {
		t.Errorf("read commands made %d tables in an empty database", tables)
	}
	empty.ok("add", sample)
	if out := newCLIAt(t, d.URL()).ok("ls"); !strings.Contains(out, "declaration.txt") {
		t.Errorf("the URL does not reach what key=value added: %q", out)
	}
	dir := t.TempDir()
	for _, bad := range []string{"postgres:team", "mysql://h/team"} {
		c := newCLIAt(t, filepath.Join(dir, bad))
		c.db = bad
		if _, errs, code := c.run("ls"); code != 1 || !strings.Contains(errs, "postgres://") {
			t.Errorf("--db %s: %d %q", bad, code, errs)
		}
	}
}

// TestPGPasswordNeverShown: with a password in the address, nothing the
// commands print, nor the library itself, holds it.
func TestPGPasswordNeverShown(t *testing.T) {
	const pw = "Corr3ct-h0rse-s3cret"
	d := pgtest.New(t)
	r := d.NewRole(t, pw)
	superuserExec(t, d, "GRANT CREATE ON SCHEMA public TO "+r.Role)
	url := strings.Replace(r.URL(), r.Role+"@", r.Role+":"+pw+"@", 1)
	kv := r.ConnString() + " password=" + pw
	t.Setenv("CITELENS_DB", "")
	t.Setenv("CITELENS_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	var all strings.Builder
	runAll := func(c *cli, args ...string) {
		out, errs, _ := c.run(args...)
		fmt.Fprintf(&all, "$ %v\n%s%s", args, out, errs)
	}
	for _, addr := range []string{url, kv} {
		c := newCLIAt(t, addr)
		runAll(c, "ls")
		runAll(c, "add", "--json", sample)
		runAll(c, "ls")
		runAll(c, "ask", "--json", "taxes without consent")
		runAll(c, "answers", "--json")
		runAll(c, "check", "--json")
		runAll(c, "copy", "--json", filepath.Join(t.TempDir(), "copy.db"))
		runAll(c, "copy", filepath.Join(t.TempDir(), "copy.db"))
		runAll(c, "add", "/nonexistent/file.txt")
		runAll(c, "show", "nothing-such")
		runAll(c, "doctor", "--json")
		wrong := newCLIAt(t, strings.Replace(addr, pw, pw+"x", 1))
		runAll(wrong, "ls")
	}
	var answers []struct {
		ID string `json:"answer_id"`
	}
	json.Unmarshal([]byte(newCLIAt(t, url).ok("answers", "--json")), &answers)
	if len(answers) > 0 {
		runAll(newCLIAt(t, url), "export", answers[0].ID, "--format", "json")
		runAll(newCLIAt(t, url), "export", answers[0].ID, "--format", "md")
	}
	t.Setenv("CITELENS_DB", url)
	var out, errb bytes.Buffer
	run([]string{"config", "show"}, strings.NewReader(""), &out, &errb)
	run([]string{"config", "show", "--json"}, strings.NewReader(""), &out, &errb)
	run([]string{"ls"}, strings.NewReader(""), &out, &errb)
	all.WriteString(out.String() + errb.String())
	if !strings.Contains(all.String(), "xxxxx") || !strings.Contains(all.String(), "declaration.txt") || len(answers) == 0 {
		t.Errorf("the commands did not run as expected:\n%s", all.String())
	}
	if strings.Contains(all.String(), pw) {
		t.Errorf("the password is in the output:\n%s", all.String())
	}
	conn, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM citelens_entries WHERE position($1::bytea in coalesce(value, '')) > 0 OR position($1::bytea in key) > 0", []byte(pw)).Scan(&n); err != nil || n != 0 {
		t.Errorf("the library holds the password in %d entries (%v)", n, err)
	}
}

// syncBuffer is a buffer written by one goroutine and read by another.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPGWaitingForWriter: an add that must wait for another writer of
// the database says so on stderr, as for a library file, and goes on
// when the writer is done.
func TestPGWaitingForWriter(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	newCLIAt(t, d.URL()).ok("add", sample)
	holder, err := pgx.Connect(context.Background(), d.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	const writerLock = 0x636974656c656e73 // pgkv's: the ASCII of "citelens"
	if _, err := holder.Exec(context.Background(), "SELECT pg_advisory_lock($1)", int64(writerLock)); err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"--db", d.URL(), "add", "../../testdata/formats/article.html"}, strings.NewReader(""), &bytes.Buffer{}, &errb)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(errb.String(), "another process is writing to the library; waiting") {
		if time.Now().After(deadline) {
			t.Fatalf("add waited without saying so: %q", errb.String())
		}
		select {
		case code := <-done:
			t.Fatalf("add finished (%d) while the writer held the lock: %q", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	holder.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", int64(writerLock))
	if code := <-done; code != 0 {
		t.Fatalf("add after the wait: %d %q", code, errb.String())
	}
	if out := newCLIAt(t, d.URL()).ok("ls"); !strings.Contains(out, "article") {
		t.Errorf("ls: %q", out)
	}
}

// TestMCPStdioOnPostgres: `citelens mcp` serves a library in PostgreSQL
// as it does a file: search, an answer, every citation read back.
func TestMCPStdioOnPostgres(t *testing.T) {
	node, script := mcpClientScript(t)
	db := pgtest.New(t).URL()
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	env := []string{"CITELENS_CONFIG=" + filepath.Join(dir, "no-config.toml"), "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "CITELENS_MODEL="}
	doc, _ := filepath.Abs(sample)
	cmd := exec.Command(bin, "--db", db, "add", doc)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	env = append(env, "E2E_QUERY=taxes imposed without consent", "E2E_QUESTION=What taxes were imposed without consent?")
	r, _ := runMCPClient(t, node, script, env, "stdio", bin, "--db", db, "mcp")
	checkReport(t, r, "extractive")
}
