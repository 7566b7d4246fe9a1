//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsInterruptAdd runs the real binary adding a large file: one
// SIGINT stops it cleanly with nothing written; a second one, sent before
// the first is honoured, ends the process at once. Signals are never
// swallowed.
func TestSignalsInterruptAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	var text bytes.Buffer
	for i := 0; text.Len() < 30<<20; i++ {
		fmt.Fprintf(&text, "Sentence %d of a long report about rivers, courts and trade. ", i)
		if i%9 == 0 {
			text.WriteString("\n\n")
		}
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	start := func(db string) (*exec.Cmd, *bytes.Buffer, chan error) { return startAdd(t, bin, db, big) }
	wait := func(done chan error, limit time.Duration) error {
		select {
		case err := <-done:
			return err
		case <-time.After(limit):
			t.Fatalf("add still running %s after the signal", limit)
			return nil
		}
	}

	db := filepath.Join(dir, "one.db")
	cmd, errb, done := start(db)
	cmd.Process.Signal(syscall.SIGINT)
	err := wait(done, 60*time.Second)
	if err == nil || !strings.Contains(errb.String(), "interrupted while adding") {
		t.Errorf("one SIGINT: %v\n%s", err, errb.String())
	}
	if out, err := exec.Command(bin, "--db", db, "ls").CombinedOutput(); err != nil || strings.Contains(string(out), "big.txt") {
		t.Errorf("after the interrupted add, ls: %v\n%s", err, out)
	}

	cmd, _, done = start(filepath.Join(dir, "two.db"))
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err = wait(done, 5*time.Second)
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); err == nil || ok && st.Exited() && st.ExitStatus() == 0 {
		t.Errorf("two SIGINTs: %v, want the process ended", err)
	}
}

// startAdd starts the binary adding file to the library db, and returns
// once the command runs (its library exists, and so its signal handling:
// a signal before that would test nothing) and a moment more, or once it
// has ended, if it ends before: the command, its standard error, and
// where its end is sent.
func startAdd(t *testing.T, bin, db, file string) (*exec.Cmd, *bytes.Buffer, chan error) {
	t.Helper()
	cmd := exec.Command(bin, "--db", db, "add", file)
	cmd.Env = append(os.Environ(), "CITELENS_CONFIG="+filepath.Join(filepath.Dir(bin), "none.toml"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done: // over before it opened its library
			done <- err
			return cmd, &errb, done
		default:
		}
		if _, err := os.Stat(db); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not open its library within 30 s")
		}
	}
	time.Sleep(200 * time.Millisecond)
	return cmd, &errb, done
}
