//go:build unix

package docstoretest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFO makes a named pipe at path.
func FIFO(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// NotRegularFiles creates, in a new temporary folder, a FIFO named x.pdf
// and a symlink to /dev/zero named paper.pdf: what once made add block
// forever with signals swallowed, or read until memory ran out.
func NotRegularFiles(t testing.TB) (fifo, devZero string) {
	t.Helper()
	dir := t.TempDir()
	fifo = filepath.Join(dir, "x.pdf")
	FIFO(t, fifo)
	devZero = filepath.Join(dir, "paper.pdf")
	if err := os.Symlink("/dev/zero", devZero); err != nil {
		t.Fatal(err)
	}
	return fifo, devZero
}
