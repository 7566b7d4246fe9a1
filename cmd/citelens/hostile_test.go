package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/docstoretest"
	"github.com/citelens/citelens/llm/llmtest"
)

// noCrash fails the test if a command's output shows a panic or a stack
// trace, or an error that runs over one line before its hint.
func noCrash(t *testing.T, what, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") || strings.Contains(stderr, "fatal error") {
		t.Fatalf("%s crashed:\n%s", what, stderr)
	}
	if first, _, _ := strings.Cut(stderr, "\n"); !strings.HasPrefix(first, "citelens: ") && stderr != "" {
		t.Errorf("%s: error does not start with one citelens line:\n%s", what, stderr)
	}
}

// TestAddHostileFiles: a FIFO named x.pdf and a symlink to /dev/zero named
// paper.pdf are refused at once with one line each, and the library stays
// usable.
func TestAddHostileFiles(t *testing.T) {
	fifo, zero := docstoretest.NotRegularFiles(t)
	c := newCLI(t)
	docstoretest.Within(t, "add", func() {
		_, errs, code := c.run("add", fifo, zero, sample)
		noCrash(t, "add", errs)
		if code != 1 || !strings.Contains(errs, "x.pdf is a named pipe (FIFO), not a regular file") || !strings.Contains(errs, "paper.pdf is a device, not a regular file") {
			t.Errorf("add: status %d\n%s", code, errs)
		}
	})
	if out := c.ok("ls"); !strings.Contains(out, "declaration.txt") {
		t.Errorf("the regular file given with them was not added: %q", out)
	}
	big := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("Words and words. ", 200)), 0o644)
	if _, errs, code := c.run("add", "--max-size", "1K", big); code != 1 || !strings.Contains(errs, "over the 1.0 KB limit") {
		t.Errorf("add --max-size 1K: status %d\n%s", code, errs)
	}
}

// damageFirstSentence rewrites the first sentence piece of document id
// (schema 3: layoutpieces, keyed by the document's number and 's') so
// that its first sentence ends far past the text.
func damageFirstSentence(t *testing.T, db, id string) {
	t.Helper()
	bdb, err := bolt.Open(db, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bolt.Tx) error {
		num := tx.Bucket([]byte("records")).Get([]byte(id))[:4]
		key := binary.BigEndian.AppendUint32(append(append([]byte(nil), num...), 's'), 0)
		b := tx.Bucket([]byte("layoutpieces"))
		rec := append([]byte(nil), b.Get(key)...)
		binary.LittleEndian.PutUint32(rec[4:], 1<<30) // the first sentence's End
		return b.Put(key, rec)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDamagedLibraryCheckAndSalvage: a damaged layout record makes show
// and ask say "the library is damaged" with what to do, not panic; check
// reports it; salvage copies every document into a new library that
// works.
func TestDamagedLibraryCheckAndSalvage(t *testing.T) {
	c := newCLI(t)
	other := filepath.Join(t.TempDir(), "other.txt")
	os.WriteFile(other, []byte("Another document. It has its own sentences about rivers and seas."), 0o644)
	var added []addedDoc
	if err := json.Unmarshal([]byte(c.ok("add", "--json", sample, other)), &added); err != nil {
		t.Fatal(err)
	}
	id := string(added[0].ID)
	if out := c.ok("check"); !strings.Contains(out, "No damage found.") {
		t.Errorf("check of a sound library: %q", out)
	}
	damageFirstSentence(t, c.db, id)

	for _, args := range [][]string{{"show", "--sentences", id}, {"ask", "--strategy", "extractive", "What powers do governments derive?"}} {
		_, errs, code := c.run(args...)
		noCrash(t, args[0], errs)
		if code != 1 || !strings.Contains(errs, "the library is damaged: document "+id+"'s layout record has sentence 0 at bytes") ||
			!strings.Contains(errs, "citelens check") || !strings.Contains(errs, "citelens salvage NEW.db") {
			t.Errorf("%s: status %d\n%s", args[0], code, errs)
		}
	}
	out, _, code := c.run("check")
	if code != 1 || !strings.Contains(out, "documents      2 (1 readable)") || !strings.Contains(out, "document "+id+"'s layout record has sentence 0") {
		t.Errorf("check: status %d\n%s", code, out)
	}

	dst := filepath.Join(t.TempDir(), "salvaged.db")
	out = c.ok("salvage", dst)
	if !strings.Contains(out, "rebuilt    "+id) || !strings.Contains(out, "documents 2 of 2") {
		t.Errorf("salvage:\n%s", out)
	}
	if _, errs, code := c.run("salvage", dst); code == 0 || !strings.Contains(errs, "already exists") {
		t.Errorf("salvage over an existing file: status %d\n%s", code, errs)
	}
	fresh := &cli{t: t, db: dst}
	if out := fresh.ok("check"); !strings.Contains(out, "No damage found.") {
		t.Errorf("check of the salvaged library: %q", out)
	}
	if out := fresh.ok("show", "--sentences", id); !strings.Contains(out, "The Declaration of Independence") {
		t.Errorf("show of the salvaged document: %q", out)
	}
}

// TestTruncatedLibraryCommands: a library file cut short (an interrupted
// copy) makes ask, add and ls fail with one line and the way out.
func TestTruncatedLibraryCommands(t *testing.T) {
	c := newCLI(t)
	c.ok("add", sample)
	full, err := os.ReadFile(c.db)
	if err != nil {
		t.Fatal(err)
	}
	cut := &cli{t: t, db: filepath.Join(t.TempDir(), "cut.db")}
	os.WriteFile(cut.db, full[:len(full)/3], 0o600)
	for _, args := range [][]string{{"ask", "--strategy", "extractive", "Who signed?"}, {"add", sample}, {"ls"}} {
		_, errs, code := cut.run(args...)
		noCrash(t, args[0], errs)
		if code != 1 || !strings.Contains(errs, "the library is damaged: ") || !strings.Contains(errs, "is cut short") || !strings.Contains(errs, "citelens salvage NEW.db") {
			t.Errorf("%s on a truncated library: status %d\n%s", args[0], code, errs)
		}
	}
	out, errs, code := cut.run("check")
	noCrash(t, "check", errs)
	if code != 1 || !strings.Contains(out, "is cut short") {
		t.Errorf("check: status %d\n%s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(cut.db); len(after) != len(full)/3 {
		t.Error("the damaged library was written to")
	}
}

// hostileText is a document that carries escape sequences (set the
// terminal title, put "rm -rf ~" on the clipboard), a C1 CSI and a
// right-to-left override.
const hostileText = "Invoice totals are due in March.\x1b]0;pwned\x07 The clipboard\x1b]52;c;cm0gLXJmIH4=\x07 is safe.\n\nPaid \u009b31m in full. The file is named \u202egpj.exe for a reason.\n"

// TestShowTextToAPipe: show --text and --page neutralise control
// characters on a pipe too; --raw gives the exact bytes.
func TestShowTextToAPipe(t *testing.T) {
	c := newCLI(t)
	doc := filepath.Join(t.TempDir(), "invoice.txt")
	os.WriteFile(doc, []byte(hostileText), 0o644)
	c.ok("add", doc)
	for _, args := range [][]string{{"show", "--text", "invoice.txt"}, {"show", "--page", "1", "invoice.txt"}} {
		out := c.ok(args...)
		if strings.ContainsAny(out, "\x1b\x07\u009b\u202e") || !strings.Contains(out, "␛]0;pwned␇") {
			t.Errorf("%v: %q", args, out)
		}
	}
	if out := c.ok("show", "--text", "--raw", "invoice.txt"); out != hostileText {
		t.Errorf("show --text --raw: %q", out)
	}
}

// TestJSONOutputsEscapeC1AndBidi: every --json output with --raw (the
// strings as stored) writes U+009B and U+202E as \u escapes.
func TestJSONOutputsEscapeC1AndBidi(t *testing.T) {
	c := newCLI(t)
	doc := filepath.Join(t.TempDir(), "invoice\u202etxt.md")
	os.WriteFile(doc, []byte(hostileText), 0o644)
	c.ok("add", doc)
	for _, args := range [][]string{
		{"ls", "--json", "--raw"},
		{"search", "--json", "--raw", "paid", "full"},
		{"ask", "--json", "--raw", "--strategy", "extractive", "Paid in full?"},
		{"show", "--json", "--raw", "invoice"},
	} {
		out := c.ok(args...)
		if strings.ContainsAny(out, "\u009b\u202e") || !strings.Contains(out, `\u202e`) {
			t.Errorf("%v: C1 or bidi control raw:\n%s", args, out)
		}
		if args[0] != "ls" && args[0] != "show" && !strings.Contains(out, `\u009b`) {
			t.Errorf("%v: no escaped CSI:\n%s", args, out)
		}
		if !json.Valid([]byte(out)) {
			t.Errorf("%v: not JSON", args)
		}
	}
	var answers []struct {
		ID string `json:"answer_id"`
	}
	json.Unmarshal([]byte(c.ok("answers", "--json")), &answers)
	for _, format := range []string{"json", "longbench"} {
		out := c.ok("export", "--format", format, "--exact", answers[0].ID)
		if strings.ContainsAny(out, "\u009b\u202e") || !strings.Contains(out, `\u009b`) {
			t.Errorf("export --format %s: C1 or bidi control raw:\n%s", format, out)
		}
	}
}

// TestAskPrintsDroppedCitations: plain ask says why a citation was
// dropped.
func TestAskPrintsDroppedCitations(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Text("<statement>Governments derive their powers from the consent of the governed.<cite>[9-9][99999-99999]</cite></statement>"))
	modelEnv(t, srv, "", "")
	c := newCLI(t)
	c.ok("add", sample)
	out := c.ok("ask", "--strategy", "longcite", "What do governments derive their powers from?")
	if !strings.Contains(out, "consent of the governed. [1]\n    ! citation [99999] dropped: the sentences are numbered 0 to") {
		t.Errorf("ask output:\n%s", out)
	}
}
