package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// buildBinary builds the citelens command into a temporary folder and
// returns its path, for the tests that run the real binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "citelens")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestTUIEndToEnd runs the real binary in tmux, as a user would: start it
// on a file (which adds it), ask, jump to a citation, and check the cited
// sentence is on the screen and highlighted, and that the answer was
// saved. It is skipped only when tmux is absent (.ci/run installs it).
func TestTUIEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	doc, err := filepath.Abs("../../testdata/declaration.txt")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "library.db")
	env := []string{
		"CITELENS_CONFIG=" + filepath.Join(dir, "no-config.toml"),
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=",
	}

	for _, theme := range []struct {
		name string
		env  string
		// highlighted reports whether the attributes in force mark text.
		highlighted func(sgrState) bool
	}{
		// The default: the dark theme (tmux does not say its background),
		// the highlight a background colour.
		{"default", "", func(s sgrState) bool { return s.background }},
		// NO_COLOR: reverse video, and no colour at all.
		{"no-color", "NO_COLOR=1", func(s sgrState) bool { return s.reverse && !s.background }},
	} {
		t.Run(theme.name, func(t *testing.T) {
			tm := newTmux(t, dir)
			cmd := fmt.Sprintf("env %s TERM=xterm-256color %s %q --db %q %q", strings.Join(env, " "), theme.env, bin, db, doc)
			tm.run("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", cmd)
			tm.waitFor("declaration.txt", "1/1 in scope")

			tm.run("send-keys", "-t", "e2e", "-l", "taxes imposed without our consent")
			tm.run("send-keys", "-t", "e2e", "Enter")
			tm.waitFor("extractive · ")
			tm.run("send-keys", "-t", "e2e", "Enter")
			tm.waitFor("┏━ Source") // the source pane has the keyboard
			screen := tm.capture()

			tm.run("send-keys", "-t", "e2e", "q")
			tm.waitExit("e2e")

			cited := firstCitation(t, bin, db)
			words := strings.Fields(cited)
			if len(words) > 4 {
				words = words[:4]
			}
			head := strings.Join(words, " ")
			found := false
			for _, line := range strings.Split(screen, "\n") {
				i := strings.Index(line, head)
				if i < 0 || !strings.Contains(line, "┃") || strings.Index(line, "┃") > i {
					continue // not in the source pane (the statement quotes it too)
				}
				if theme.highlighted(sgrAt(line[:i])) {
					found = true
				} else {
					t.Errorf("the cited text %q is on screen but not highlighted: %q", head, line)
				}
			}
			if !found {
				t.Errorf("the cited text %q is not in the source pane:\n%s", head, stripSGR(screen))
			}
		})
	}
}

// firstCitation returns the text of the first citation of the answer the
// session saved, read back through the CLI.
func firstCitation(t *testing.T, bin, db string) string {
	t.Helper()
	a := newestAnswer(t, bin, db)
	if len(a.Statements) == 0 || len(a.Statements[0].Citations) == 0 {
		t.Fatalf("the saved answer has no citation: %+v", a)
	}
	return a.Statements[0].Citations[0].Text
}

// maxSocketPath is the longest path a Unix socket may have on every
// system the tests run on: sun_path is 108 bytes on Linux, 104 on macOS
// and the BSDs, and the path needs its terminating NUL.
const maxSocketPath = 103

// socketPath returns a path for a Unix socket named name that fits
// sun_path: in dir when it is short enough, else in a short folder of
// its own under the temporary folder (a test's dir carries its name, and
// a TMPDIR like macOS's is 49 bytes before it); the test is skipped,
// saying why, when even that is too long.
func socketPath(t *testing.T, dir, name string) string {
	t.Helper()
	if p := filepath.Join(dir, name); len(p) <= maxSocketPath {
		return p
	}
	short, err := os.MkdirTemp("", "cl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	p := filepath.Join(short, name)
	if len(p) > maxSocketPath {
		t.Skipf("the temporary folder's path is too long for a Unix socket (%d bytes, at most %d): set TMPDIR to a shorter folder", len(p), maxSocketPath)
	}
	return p
}

// tmux drives a private tmux server (its own socket, no user config).
type tmux struct {
	t      *testing.T
	socket string
}

// tmuxServers counts the tmux servers this process started.
var tmuxServers atomic.Int64

func newTmux(t *testing.T, dir string) *tmux {
	// unique within the folder, which tests may share, and short
	tm := &tmux{t: t, socket: socketPath(t, dir, fmt.Sprintf("tmux-%d-%d", os.Getpid(), tmuxServers.Add(1)))}
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// capture returns the screen with its SGR sequences.
func (tm *tmux) capture() string { return tm.run("capture-pane", "-t", "e2e", "-p", "-e") }

// waitFor waits until the screen shows every text.
func (tm *tmux) waitFor(texts ...string) {
	tm.t.Helper()
	tm.waitWithin(20*time.Second, texts...)
}

// waitWithin waits at most d for the screen to show every text.
func (tm *tmux) waitWithin(d time.Duration, texts ...string) {
	tm.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := stripSGR(tm.capture())
		ok := true
		for _, s := range texts {
			ok = ok && strings.Contains(screen, s)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q:\n%s", texts, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitExit waits for the program, and so the session, to end.
func (tm *tmux) waitExit(session string) {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "-S", tm.socket, "has-session", "-t", session).Run() == nil {
		if time.Now().After(deadline) {
			tm.t.Fatalf("citelens did not quit:\n%s", stripSGR(tm.capture()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var sgrRE = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// sgrState is what the SGR sequences of a line set, so far.
type sgrState struct{ background, reverse bool }

// sgrAt returns the attributes in force at the end of prefix.
func sgrAt(prefix string) sgrState {
	var st sgrState
	for _, m := range sgrRE.FindAllStringSubmatch(prefix, -1) {
		params := strings.Split(m[1], ";")
		for i := 0; i < len(params); i++ {
			n, _ := strconv.Atoi(params[i]) // "" is 0, a reset
			switch {
			case n == 0:
				st = sgrState{}
			case n == 7:
				st.reverse = true
			case n == 27:
				st.reverse = false
			case n == 49:
				st.background = false
			case n >= 40 && n <= 47 || n >= 100 && n <= 107:
				st.background = true
			case n == 38 || n == 48 || n == 58:
				if n == 48 {
					st.background = true
				}
				if i+1 < len(params) && params[i+1] == "5" {
					i += 2
				} else if i+1 < len(params) && params[i+1] == "2" {
					i += 4
				}
			}
		}
	}
	return st
}

func stripSGR(s string) string { return sgrRE.ReplaceAllString(s, "") }
