package docstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below re-run this test binary as a second process, selected by
// the helperEnv variable, because locks and crashes are about processes.
const helperEnv = "CITELENS_DOCSTORE_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "hold":
		holdLibrary(os.Getenv("LIB"))
	case "ingest":
		ingestForever(os.Getenv("LIB"), os.Getenv("SRC"))
	}
	os.Exit(0)
}

// holdLibrary opens the library, says so, and keeps it open until killed.
func holdLibrary(path string) {
	l, err := Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer l.Close()
	fmt.Println("ready")
	time.Sleep(time.Minute)
}

// ingestForever adds distinct large documents one after another, printing
// "writing N" before each commit and "committed N" after.
func ingestForever(path, src string) {
	l, err := Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	base, _ := os.ReadFile(src)
	dir, _ := os.MkdirTemp("", "ingest")
	for i := 0; ; i++ {
		var sb strings.Builder
		for j := 0; j < 150; j++ {
			fmt.Fprintf(&sb, "Part %d of copy %d by process %d.\n\n", j, i, os.Getpid())
			sb.Write(base)
		}
		p := filepath.Join(dir, fmt.Sprintf("doc%d.txt", i))
		os.WriteFile(p, []byte(sb.String()), 0o644)
		_, _, err := l.Add(context.Background(), p, func(pr Progress) {
			if pr.Stage == StageWriting {
				fmt.Println("writing", i)
			}
		})
		if err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println("committed", i)
	}
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

func TestSecondProcessGetsInUseError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	_, lines := helper(t, "hold", "LIB="+path)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("helper did not open the library: %q", lines.Text())
	}
	start := time.Now()
	_, err := Open(path, nil)
	waited := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("got %v, want ErrLocked", err)
	}
	want := "library is in use by another citelens process (" + path + ")"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	// One second of lock timeout, plus slack for a loaded machine.
	if waited > 3*time.Second {
		t.Errorf("took %v to report the lock", waited)
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
