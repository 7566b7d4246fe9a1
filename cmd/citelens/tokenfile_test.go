//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/testload"
)

// errText is an error with its fix, as the command prints them.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error() + " " + fix.Of(err)
}

// A hostile or careless --token-file: a FIFO or /dev/zero is refused at
// once, not waited on or read for ever; a file others can read, or a
// link to one, is refused and left as it was; a short token is refused.
func TestBearerTokenHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	shared := filepath.Join(dir, "shared-token")
	os.WriteFile(shared, []byte("a-perfectly-long-token-0123456789\n"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(shared, link)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("x\n"), 0o600)
	spaced := filepath.Join(dir, "spaced")
	os.WriteFile(spaced, []byte("two halves of a long token\n"), 0o600)
	for _, c := range []struct{ path, want string }{
		{fifo, "named pipe"},
		{"/dev/zero", "device"},
		{zero, "device"},
		{dir, "directory"},
		{shared, "chmod 600"},
		{link, "chmod 600"},
		{short, "at least 16"},
		{spaced, "without spaces"},
	} {
		done := make(chan error, 1)
		go func() { _, _, err := bearerToken(c.path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(errText(err), c.want) {
				t.Errorf("%s: %v, want %q", c.path, errText(err), c.want)
			}
		case <-time.After(testload.Scaled(5 * time.Second)):
			t.Fatalf("%s: still reading after 5 s", c.path)
		}
	}
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o644 {
		t.Errorf("the shared file's mode was changed to %04o", fi.Mode().Perm())
	}
}
