// Package viewer opens a document's original file in the system's own
// viewer, at a page where the viewer can be told one, and names a page
// of a file as a URL (file:///…#page=N) for links.
package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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

// Open opens the file at path at page (1-based; 0 for its start) in the
// system's viewer, and returns once the viewer has started; it is not
// waited for.
func Open(ctx context.Context, path string, page int) error {
	cmd, err := Command(path, page, runtime.GOOS, exec.LookPath, func(name string, args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, name, args...).Output()
	})
	if err != nil {
		return err
	}
	// The viewer outlives this call; its output is not ours to show (a
	// TUI is on the terminal).
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opening %s: %w", filepath.Base(path), err)
	}
	go cmd.Wait() // reaped when it ends
	return nil
}
