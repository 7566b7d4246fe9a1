//go:build unix

package pageimage_test

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/internal/testload"
)

// TestSwappedFile: a document's PDF replaced after add by a FIFO or by a
// symlink to /dev/zero is refused at once with a clear error, not read
// until the program hangs or runs out of memory.
func TestSwappedFile(t *testing.T) {
	for _, c := range []struct {
		name string
		swap func(path string) error
	}{
		{"fifo", func(path string) error { return syscall.Mkfifo(path, 0o600) }},
		{"symlink to /dev/zero", func(path string) error { return os.Symlink("/dev/zero", path) }},
		{"directory", func(path string) error { return os.Mkdir(path, 0o700) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, doc, path := library(t)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := c.swap(path); err != nil {
				t.Skipf("cannot make a %s here: %v", c.name, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testload.Scaled(10*time.Second))
			defer cancel()
			start := time.Now()
			_, err := s.Document(ctx, doc)
			if !errors.Is(err, pageimage.ErrFileChanged) {
				t.Fatalf("Document = %v, want ErrFileChanged", err)
			}
			if took := time.Since(start); took > testload.Scaled(2*time.Second) {
				t.Errorf("refused after %s", took)
			}
			t.Log(err)
		})
	}
}
