package docstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/internal/testload"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage/boltkv"
	"github.com/citelens/citelens/storage/pgkv/pgtest"
)

// The tests below re-run this test binary as a second process, selected by
// the helperEnv variable, because locks and crashes are about processes.
const helperEnv = "CITELENS_DOCSTORE_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		pgtest.Main(m) // runs the tests, then stops the PostgreSQL cluster if one was started
	case "hold":
		holdLibrary(os.Getenv("LIB"), os.Getenv("HOLD"))
	case "ingest":
		ingestForever(os.Getenv("LIB"), os.Getenv("SRC"))
	case "stream":
		streamOne(os.Getenv("LIB"), os.Getenv("SRC"))
	case "readloop":
		readLoop(os.Getenv("LIB"))
	case "addone":
		addOne(os.Getenv("LIB"))
	}
	os.Exit(0)
}

// holdLibrary opens the library and holds a write transaction open for
// the duration hold (a process writing a big document takes the lock that
// long), saying "ready" once it holds it and "released" after.
func holdLibrary(path, hold string) {
	d, err := time.ParseDuration(hold)
	if err != nil {
		d = time.Minute
	}
	l, err := Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer l.Close()
	err = rawBolt(l).Update(func(*bolt.Tx) error {
		fmt.Println("ready")
		time.Sleep(d)
		return nil
	})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("released")
	time.Sleep(time.Minute)
}

// ingestForever writes distinct large documents one after another, as
// adds do (each made and prepared outside the transaction that writes
// it), printing "writing N" before each commit and "committed N" after.
func ingestForever(path, src string) {
	l, err := Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	base, _ := os.ReadFile(src)
	count, _ := strconv.Atoi(os.Getenv("COUNT"))
	for i := 0; count == 0 || i < count; i++ {
		var sb strings.Builder
		for j := 0; j < 150; j++ {
			fmt.Fprintf(&sb, "Part %d of copy %d by process %d.\n\n", j, i, os.Getpid())
			sb.Write(base)
		}
		p, err := Prepare(fixture(fmt.Sprintf("doc%d.txt", i), sb.String()), nil)
		if err == nil {
			fmt.Println("writing", i)
			_, err = l.Write(p)
		}
		if err == nil {
			err = l.Tidy()
		}
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println("committed", i)
	}
}

// streamOne writes a large copy of src in small pieces, printing "piece"
// as each is written, and "published" at the end.
func streamOne(path, src string) {
	l, err := openHelperLibrary(path)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	base, _ := os.ReadFile(src)
	var sb strings.Builder
	for j := 0; j < 40; j++ {
		fmt.Fprintf(&sb, "Part %d by process %d.\n\n", j, os.Getpid())
		sb.Write(base)
	}
	text := sb.String()
	pw, err := l.NewPieceWriter(IDFor([]byte(text)))
	if err != nil {
		fmt.Println("error", err)
		return
	}
	for _, p := range pieces(text, 16<<10) {
		if err := pw.Write(p); err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println("piece")
	}
	_, _, err = pw.Publish(&Document{DocInfo: DocInfo{ID: IDFor([]byte(text)), Name: "stream.txt", Kind: "text", Pages: 1, Added: fixtureAdded},
		PageStarts: []int32{0}})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("published")
}

func helper(t *testing.T, mode string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, helperEnv+"="+mode)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// TestLockedTooLong: a library whose file another process holds for
// longer than the lock timeout is reported as in use, soon after the
// timeout, having said it was waiting.
func TestLockedTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	holder, lines := helper(t, "hold", "LIB="+path, "HOLD=60s")
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("helper did not hold the library: %q", lines.Text())
	}
	var waited []bool
	start := time.Now()
	_, err := Open(path, &Options{LockTimeout: 1500 * time.Millisecond, Waiting: func(w bool) { waited = append(waited, w) }})
	took := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("got %v, want ErrLocked", err)
	}
	want := "library is in use by another citelens process (" + path + ")"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// Opening an existing library only reads it (a write is made only to
	// create or upgrade one), so the wait is a read's.
	if len(waited) != 1 || waited[0] {
		t.Errorf("Waiting was told %v, want once, of a read", waited)
	}
	// The timeout, plus slack for a loaded machine.
	if took > 4*time.Second {
		t.Errorf("took %v to report the lock", took)
	}
	// The holder, a citelens, said what it is doing.
	var le *LockedError
	if !errors.As(err, &le) || len(le.Holders) != 1 || le.Holders[0].PID != holder.Process.Pid || !le.Holders[0].Write ||
		!strings.Contains(le.Holders[0].What, "-test.run") || !strings.Contains(le.Holders[0].String(), "has held it for writing since") {
		t.Errorf("the holder is not named: %#v", le)
	}
}

// TestWriterWaitsForAShortWrite: a write that finds another process
// writing waits for it, says so, and goes ahead.
func TestWriterWaitsForAShortWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, lines := helper(t, "hold", "LIB="+path, "HOLD=1500ms")
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("helper did not hold the library: %q", lines.Text())
	}
	var waited []bool
	l.SetWaiting(func(w bool) { waited = append(waited, w) })
	b, err := os.ReadFile(sampleText)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := writeText(l, "declaration.txt", string(b)); err != nil {
		t.Fatalf("a write while another process wrote: %v", err)
	}
	if len(waited) == 0 {
		t.Error("the wait was not reported")
	}
	if docs, _ := l.List(); len(docs) != 1 {
		t.Errorf("%d documents after the add", len(docs))
	}
}

// TestIdleLibraryHoldsNoLock: a library that has been used and then
// left alone (the terminal UI between questions) holds no lock: another
// process adds to it, and the first sees the document at once.
func TestIdleLibraryHoldsNoLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.List(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.file.held() {
		if time.Now().After(deadline) {
			t.Fatal("the library still holds its file long after its last use")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd, lines := helper(t, "ingest", "LIB="+path, "SRC="+sampleText, "COUNT=1")
	for lines.Scan() {
		if f := strings.Fields(lines.Text()); f[0] == "error" {
			t.Fatalf("the other process: %s", lines.Text())
		} else if f[0] == "committed" {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	docs, err := l.List()
	if err != nil || len(docs) != 1 {
		t.Fatalf("after another process added one: %d documents, %v", len(docs), err)
	}
	if n, err := matchCount(l, docs[0].ID, "unalienable rights"); err != nil || n == 0 {
		t.Errorf("the other process's document is not searchable here: %v", err)
	}
}

// TestReadersWhileAdding: while another process adds large documents
// one after another, this one lists and searches the library all along;
// no read waits longer than the other's write transaction, never for
// its extraction.
func TestReadersWhileAdding(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addFile(t, l, sampleText)
	docs, _ := l.List()
	_, lines := helper(t, "ingest", "LIB="+path, "SRC="+sampleText)
	committed := make(chan int, 100)
	go func() {
		for lines.Scan() {
			if f := strings.Fields(lines.Text()); f[0] == "committed" {
				committed <- 1
			}
		}
	}()
	var slowest time.Duration
	reads, seen := 0, 0
	for deadline := time.Now().Add(6 * time.Second); time.Now().Before(deadline) || seen < 2; {
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("the other process committed %d documents in 36 s", seen)
		}
		// The commits reported before the list is read must all be in it
		// (one reported while it is read may or may not be).
		select {
		case <-committed:
			seen++
		default:
		}
		start := time.Now()
		all, err := l.List()
		if err == nil {
			_, err = matchCount(l, docs[0].ID, "unalienable rights")
		}
		if err != nil {
			t.Fatalf("read %d while the other process added: %v", reads, err)
		}
		slowest = max(slowest, time.Since(start))
		reads++
		if len(all) < 1+seen {
			t.Fatalf("%d documents listed after %d committed", len(all), seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Extraction of each document takes the other process seconds; its
	// write transaction a fraction of one. Five seconds, longer on a busy
	// machine, tells a read that waited for an extraction from one that
	// waited for a commit.
	bound := testload.Scaled(5 * time.Second)
	t.Logf("%d reads while %d documents were added; the slowest took %v (bound %v)", reads, seen, slowest, bound)
	if slowest > bound {
		t.Errorf("a read waited %v", slowest)
	}
}

func TestKilledIngestLeavesNoHalfDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "library.db")
	committed := 0
	for round := 0; round < 4; round++ {
		cmd, lines := helper(t, "ingest", "LIB="+path, "SRC="+sampleText)
		// Kill on the (round+1)th write: mid-transaction, or just after.
		writes := 0
		for lines.Scan() {
			f := strings.Fields(lines.Text())
			if f[0] == "error" {
				t.Fatalf("helper: %s", lines.Text())
			}
			if f[0] == "committed" {
				committed++
			}
			if f[0] == "writing" {
				writes++
				if writes == round+1 {
					cmd.Process.Signal(syscall.SIGKILL)
					break
				}
			}
		}
		cmd.Wait()

		l, err := Open(path, nil)
		if err != nil {
			t.Fatalf("round %d: library does not open after kill: %v", round, err)
		}
		if err := l.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		docs, _ := l.List()
		// The killed write either committed whole or not at all.
		if len(docs) != committed && len(docs) != committed+1 {
			t.Fatalf("round %d: %d documents, %d committed before the kill", round, len(docs), committed)
		}
		committed = len(docs)
		for _, info := range docs {
			d, err := l.Document(info.ID)
			if err != nil || len(d.Sentences) != info.NumSents || len(d.Text) != info.Bytes {
				t.Fatalf("round %d: document %s incomplete: %v", round, info.Name, err)
			}
			if n, err := matchCount(l, info.ID, "unalienable rights"); err != nil || n == 0 {
				t.Fatalf("round %d: document %s not searchable: %v", round, info.Name, err)
			}
		}
		l.Close()
	}
	if committed == 0 {
		t.Fatal("no document was ever committed; the test proved nothing")
	}
}

// TestKilledStreamLeavesNothing: a process killed while it writes a large
// text in pieces leaves no document, nothing a reader sees, and nothing
// at all once another process has written to the library.
func TestKilledStreamLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "library.db")
	cmd, lines := helper(t, "stream", "LIB="+path, "SRC="+sampleText)
	pieces := 0
	for lines.Scan() {
		switch f := strings.Fields(lines.Text()); f[0] {
		case "error", "published":
			t.Fatalf("helper: %s (before the kill)", lines.Text())
		case "piece":
			pieces++
		}
		if pieces == 3 {
			cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	cmd.Wait()
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(); n != 0 {
		t.Fatalf("%d documents after a killed add", n)
	}
	if n := len(holders(t, l, textproc.Terms("unalienable")[0])); n != 0 {
		t.Fatalf("the killed add's postings are read: %d documents", n)
	}
	// The next write collects what the dead process left.
	if _, _, err := writeText(l, "small.txt", "A small text about rights."); err != nil {
		t.Fatal(err)
	}
	err = rawBolt(l).View(func(tx *bolt.Tx) error {
		if segs, _ := readSegments(boltkv.WrapTx(tx), segBuilding); len(segs) > 0 {
			t.Errorf("%d building segments left", len(segs))
		}
		if k, _ := tx.Bucket(bucketPending).Cursor().First(); k != nil {
			t.Errorf("a pending record left: %x", k)
		}
		if n := tx.Bucket(bucketText).Stats().KeyN; n != 1 {
			t.Errorf("%d text pieces, want the small document's one", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
