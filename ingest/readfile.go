package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/citelens/citelens/internal/humanize"
)

// DefaultMaxFileSize is the largest file Add reads unless
// Options.MaxFileSize says otherwise: far above any real document (the
// 2,400-page manuals citelens is built for are tens of MB), low enough that
// a mistaken path cannot exhaust memory.
const DefaultMaxFileSize = 1 << 30

// ErrNotRegular means a path names something other than a regular file (a
// FIFO, a device, a directory), which Add refuses rather than reading: a
// FIFO would block forever and /dev/zero never ends.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge means a file is larger than the pipeline's MaxFileSize.
var ErrTooLarge = errors.New("file too large")

// readChunk is how much readDocumentFile reads between looks at ctx.
const readChunk = 4 << 20

// readDocumentFile reads the file Add was given, checking it first: its
// type must have a loader, it must be a regular file (after following
// symlinks, so a link named paper.pdf to /dev/zero is refused), and no
// larger than max. The open cannot block (a FIFO swapped in after the check
// is caught by the check of the open file), and the read goes through a
// limit and stops when ctx is done.
func readDocumentFile(ctx context.Context, path string, max int64) ([]byte, error) {
	if _, err := formatOf(path); err != nil {
		return nil, err
	}
	return ReadRegular(ctx, path, max)
}

// ReadRegular reads a regular file of at most max bytes with the checks
// Add makes, whatever its name: a FIFO, a device, a directory or a
// symlink to one is refused with ErrNotRegular without blocking, a
// larger file with ErrTooLarge, and the read stops when ctx is done. It
// is for any later read of a path the library recorded (drawing a
// document's pages), which the file at that path may have been swapped
// under since.
func ReadRegular(ctx context.Context, path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	if err := checkRegular(path, st, max); err != nil {
		return nil, err
	}
	// checked again once open: the path may name another file by now
	f, size, err := openChecked(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, size+1)
	r := io.LimitReader(f, max+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, tooLarge(path, int64(len(buf)), max) // it grew while being read
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
	}
}

// checkRegular refuses what is not a regular file of at most max bytes.
func checkRegular(path string, st os.FileInfo, max int64) error {
	m := st.Mode()
	switch {
	case m.IsDir():
		return fmt.Errorf("%s is a directory, %w: give the files in it (citelens add DIR/*.pdf)", path, ErrNotRegular)
	case m&os.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe (FIFO), %w; citelens reads only regular files", path, ErrNotRegular)
	case m&os.ModeDevice != 0 || m&os.ModeCharDevice != 0:
		return fmt.Errorf("%s is a device, %w; citelens reads only regular files", path, ErrNotRegular)
	case !m.IsRegular():
		return fmt.Errorf("%s is %w (%s); citelens reads only regular files", path, ErrNotRegular, m.Type())
	case st.Size() > max:
		return tooLarge(path, st.Size(), max)
	}
	return nil
}

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%s: %w: it is %s, over the %s limit (citelens add --max-size raises it)", path, ErrTooLarge, humanize.Bytes(size), humanize.Bytes(max))
}
