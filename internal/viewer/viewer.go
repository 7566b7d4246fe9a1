// Package viewer opens a document's original file in the system's own
// viewer, at a page where the viewer can be told one, and names a page
// of a file as a URL (file:///…#page=N) for links.
package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// ErrNoViewer means the system has no program to open files with.
var ErrNoViewer = errors.New("no program to open files with (xdg-open, open)")

// PageURL is the file:// URL of the file at path, at page (1-based; 0 for
// none): "#page=N", which Firefox's, Chromium's and most PDF viewers'
// URL handling opens at.
func PageURL(path string, page int) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if page > 0 {
		u.Fragment = "page=" + strconv.Itoa(page)
	}
	return u.String()
}

// Command returns the command that opens the PDF at path at page in the
// system's default viewer: the viewer's own page flag where it has one
// (Evince, Okular, zathura, MuPDF, Atril, Xreader, qpdfview, Firefox,
// Chromium), else the system's opener, which opens the first page.
// lookPath and output stand in for exec.LookPath and running a command
// and reading what it prints (xdg-mime, to learn the default viewer).
func Command(path string, page int, goos string, lookPath func(string) (string, error), output func(name string, args ...string) ([]byte, error)) (*exec.Cmd, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	// Every program is found through lookPath, never through exec's own
	// search of PATH, so the command is the one lookPath answers for.
	opener := func(name string, args ...string) (*exec.Cmd, error) {
		bin, err := lookPath(name)
		if err != nil {
			return nil, ErrNoViewer
		}
		return exec.Command(bin, args...), nil
	}
	switch goos {
	case "darwin":
		// Preview takes no page: the file opens at its first.
		return opener("open", path)
	case "windows":
		return opener("rundll32", "url.dll,FileProtocolHandler", path)
	}
	p := strconv.Itoa(page)
	if page > 0 {
		if out, err := output("xdg-mime", "query", "default", "application/pdf"); err == nil {
			desktop := strings.ToLower(strings.TrimSpace(string(out)))
			for _, v := range knownViewers {
				if !strings.Contains(desktop, v.desktop) {
					continue
				}
				if bin, err := lookPath(v.program); err == nil {
					return exec.Command(bin, v.args(path, p)...), nil
				}
			}
		}
	}
	return opener("xdg-open", path)
}

// knownViewers are the PDF viewers whose page flag is known, by the name
// of their desktop file.
var knownViewers = []struct {
	desktop, program string
	args             func(path, page string) []string
}{
	{"evince", "evince", func(f, p string) []string { return []string{"--page-index=" + p, f} }},
	{"okular", "okular", func(f, p string) []string { return []string{"--page", p, f} }},
	{"zathura", "zathura", func(f, p string) []string { return []string{"--page=" + p, f} }},
	{"mupdf", "mupdf", func(f, p string) []string { return []string{f, p} }},
	{"atril", "atril", func(f, p string) []string { return []string{"--page-index=" + p, f} }},
	{"xreader", "xreader", func(f, p string) []string { return []string{"--page-index=" + p, f} }},
	{"qpdfview", "qpdfview", func(f, p string) []string { return []string{"--unique", f + "#" + p} }},
	{"firefox", "firefox", func(f, p string) []string { return []string{PageURL(f, atoi(p))} }},
	{"chromium", "chromium", func(f, p string) []string { return []string{PageURL(f, atoi(p))} }},
	{"google-chrome", "google-chrome", func(f, p string) []string { return []string{PageURL(f, atoi(p))} }},
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// ErrNoDisplay means there is no graphical display to show a viewer on:
// a terminal reached over SSH, a console, a container.
var ErrNoDisplay = errors.New("no graphical display ($DISPLAY and $WAYLAND_DISPLAY are not set)")

// settle is how long Open watches the viewer after starting it: an
// opener that finds no application for PDFs, or a viewer that cannot
// reach the display, exits with an error at once, and saying "Opened"
// then would be false.
const settle = 1500 * time.Millisecond

// Open opens the file at path at page (1-based; 0 for its start) in the
// system's viewer. It fails without a graphical display (on systems that
// need one), when no viewer is found, and when the viewer exits with an
// error in its first moments; a viewer still running then (or one that
// handed the file to a running viewer and ended well) is taken as
// opened, and is not waited for.
func Open(ctx context.Context, path string, page int) error {
	if err := displayAvailable(runtime.GOOS, os.Getenv); err != nil {
		return err
	}
	cmd, err := Command(path, page, runtime.GOOS, exec.LookPath, func(name string, args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, name, args...).Output()
	})
	if err != nil {
		return fix.With(err, "Install xdg-utils and a PDF viewer, or open %s yourself.", filepath.Base(path))
	}
	return start(cmd, filepath.Base(path), settle)
}

// displayAvailable says why a viewer cannot be shown on this system:
// Unix but macOS shows windows only on an X11 or Wayland display.
func displayAvailable(goos string, getenv func(string) string) error {
	switch goos {
	case "darwin", "windows", "android", "ios":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return fix.With(ErrNoDisplay, "Open the file on a machine with a screen, or forward X11 (ssh -X).")
	}
	return nil
}

// start starts cmd and watches it for wait: an exit with an error in
// that time is returned with the first line the viewer wrote on its
// error output (made safe for a terminal).
func start(cmd *exec.Cmd, name string, wait time.Duration) error {
	// The viewer outlives this call; its output is not ours to show (a
	// TUI is on the terminal), but its complaint is kept for the error.
	var stderr capped
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, &stderr
	// A viewer's children may keep the error output open: the exit is
	// what counts, not the end of its output.
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reaped when it ends
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			msg := fmt.Sprintf("the viewer (%s) could not open %s: it exited with status %d", filepath.Base(cmd.Path), name, exit.ExitCode())
			if line := stderr.firstLine(); line != "" {
				msg += ": " + line
			}
			return fix.With(errors.New(msg), "Check that a PDF viewer is installed and set as the default (xdg-mime default VIEWER.desktop application/pdf).")
		}
		return nil // ended well, or only its output was cut short
	case <-time.After(wait):
		return nil
	}
}

// capped keeps the first 4 KB written to it.
type capped struct {
	mu  sync.Mutex
	buf []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := 4096 - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// firstLine is the first non-blank line kept, safe for a terminal.
func (c *capped) firstLine() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range strings.Split(string(c.buf), "\n") {
		if l = strings.TrimSpace(textproc.OneLine(l)); l != "" {
			return l
		}
	}
	return ""
}
