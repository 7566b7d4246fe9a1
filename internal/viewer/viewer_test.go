package viewer_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/viewer"
)

func TestPageURL(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/srv/docs/manual.pdf":       "file:///srv/docs/manual.pdf#page=37",
		"/srv/a b/R&D #1 résumé.pdf": "file:///srv/a%20b/R&D%20%231%20r%C3%A9sum%C3%A9.pdf#page=37",
	} {
		if got := viewer.PageURL(path, 37); got != want {
			t.Errorf("PageURL(%q) = %q, want %q", path, got, want)
		}
	}
	if got := viewer.PageURL("/x.txt", 0); got != "file:///x.txt" {
		t.Errorf("no page: %q", got)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	installed := map[string]bool{"evince": true, "okular": true, "xdg-open": true, "firefox": true, "open": true}
	look := func(name string) (string, error) {
		if installed[name] {
			return "/usr/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	for _, c := range []struct {
		desktop, goos string
		page          int
		want          string
	}{
		{"org.gnome.Evince.desktop", "linux", 12, "/usr/bin/evince --page-index=12 /d/m.pdf"},
		{"okularApplication_pdf.desktop", "linux", 3, "/usr/bin/okular --page 3 /d/m.pdf"},
		{"firefox.desktop", "linux", 5, "/usr/bin/firefox file:///d/m.pdf#page=5"},
		{"org.pwmt.zathura.desktop", "linux", 5, "/usr/bin/xdg-open /d/m.pdf"}, // not installed: the opener
		{"unknown.desktop", "linux", 5, "/usr/bin/xdg-open /d/m.pdf"},
		{"org.gnome.Evince.desktop", "linux", 0, "/usr/bin/xdg-open /d/m.pdf"},
		{"", "darwin", 5, "/usr/bin/open /d/m.pdf"},
	} {
		cmd, err := viewer.Command("/d/m.pdf", c.page, c.goos, look, func(string, ...string) ([]byte, error) { return []byte(c.desktop + "\n"), nil })
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(append([]string{cmd.Path}, cmd.Args[1:]...), " "); got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.desktop, c.goos, got, c.want)
		}
	}
	none := func(string) (string, error) { return "", exec.ErrNotFound }
	if _, err := viewer.Command("/d/m.pdf", 1, "linux", none, func(string, ...string) ([]byte, error) { return nil, errors.New("no xdg-mime") }); !errors.Is(err, viewer.ErrNoViewer) {
		t.Errorf("no opener: %v", err)
	}
}
