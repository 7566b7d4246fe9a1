package viewer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a viewer: with
// VIEWER_TEST_ACT set it fails as a viewer does, or ends well, or stays.
func TestMain(m *testing.M) {
	switch os.Getenv("VIEWER_TEST_ACT") {
	case "fail":
		fmt.Fprint(os.Stderr, "\n  xdg-open: no method available for opening '/d/m.pdf'\x1b[31m\nmore\n")
		os.Exit(3)
	case "ok":
		os.Exit(0)
	case "stay":
		time.Sleep(5 * time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeViewer(t *testing.T, act string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("the test binary cannot be found to stand in for a viewer:", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "VIEWER_TEST_ACT="+act)
	return cmd
}

// TestStartSaysWhenTheViewerFails: a viewer that exits with an error is
// an error naming why (its complaint, made safe), not "opened"; one that
// ends well or keeps running has opened the file.
func TestStartSaysWhenTheViewerFails(t *testing.T) {
	t.Parallel()
	err := start(fakeViewer(t, "fail"), "m.pdf", 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "no method available") {
		t.Fatalf("a failing viewer: %v, want its exit status and complaint", err)
	}
	if strings.ContainsRune(err.Error(), '\x1b') || strings.Contains(err.Error(), "more") {
		t.Errorf("the complaint is not one safe line: %q", err)
	}
	if err := start(fakeViewer(t, "ok"), "m.pdf", 10*time.Second); err != nil {
		t.Errorf("a viewer that ended well: %v", err)
	}
	began := time.Now()
	if err := start(fakeViewer(t, "stay"), "m.pdf", 200*time.Millisecond); err != nil || time.Since(began) > 3*time.Second {
		t.Errorf("a viewer still running: %v after %v, want nil at once", err, time.Since(began))
	}
}

// TestNoDisplay: on Linux without X11 or Wayland there is nothing to
// show a viewer on, and Open says so before starting one.
func TestNoDisplay(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	if err := displayAvailable("linux", env(nil)); !errors.Is(err, ErrNoDisplay) {
		t.Errorf("no display: %v, want ErrNoDisplay", err)
	}
	for _, vars := range []map[string]string{{"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}} {
		if err := displayAvailable("linux", env(vars)); err != nil {
			t.Errorf("%v: %v", vars, err)
		}
	}
	if err := displayAvailable("darwin", env(nil)); err != nil {
		t.Errorf("macOS needs no $DISPLAY: %v", err)
	}
}
