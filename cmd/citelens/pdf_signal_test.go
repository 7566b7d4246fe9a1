//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/internal/testload"
)

// TestInterruptPDFAdd runs the real binary adding each hostile PDF and a
// PDF of 40,000 pages, and sends SIGINT once the library is open: add
// must be over within a second of the signal (signalLimit), interrupted
// or done, never stuck in the PDF library.
func TestInterruptPDFAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	inputs := map[string][]byte{"many-pages.pdf": doctest.ManyPagesPDF(40_000)}
	for _, h := range doctest.HostilePDFs() {
		inputs[h.Name+".pdf"] = h.Data
	}
	limit := signalLimit()
	var worst time.Duration
	for name, data := range inputs {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd, stderr, done := startAdd(t, bin, filepath.Join(dir, name+".db"), file)
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			took := time.Since(sent)
			worst = max(worst, took)
			msg := stderr.String()
			switch {
			case name == "many-pages.pdf" && !strings.Contains(msg, "interrupted while adding"):
				t.Errorf("%s was not interrupted while adding: %v\n%s", name, err, msg)
			case err != nil && !strings.Contains(msg, "interrupted while adding") && !strings.Contains(msg, "not a readable PDF"):
				t.Errorf("%s: %v\n%s", name, err, msg)
			}
			if took > limit {
				t.Errorf("%s: over %v after SIGINT, want within %v", name, took.Round(time.Millisecond), limit)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: add still running 10 s after SIGINT\n%s", name, stderr.String())
		}
	}
	t.Logf("the slowest add was over %v after SIGINT (bound %v)", worst.Round(time.Millisecond), limit.Round(time.Millisecond))
}

// signalLimit is how soon a command must end after SIGINT: a second, on
// a machine whose load leaves a core to each process, longer on a busier
// one (testload.Scaled).
func signalLimit() time.Duration { return testload.Scaled(time.Second) }
