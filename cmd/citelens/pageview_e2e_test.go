package main

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
)

// The page view in real terminals: xterm speaking sixel under Xvfb,
// photographed, and plain tmux, which shows the half-block map.

// pageFixture builds the binary and a library holding the R-intro sample
// with one saved answer of one citation; it returns the binary, the
// library, the environment to run it in and the citation.
func pageFixture(t *testing.T) (bin, db string, env []string, cite savedCitation) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin = buildBinary(t)
	dir := filepath.Dir(bin)
	db = filepath.Join(dir, "library.db")
	env = []string{
		"CITELENS_CONFIG=" + filepath.Join(dir, "no-config.toml"),
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=",
		// The renderer's compiled code, shared with the other tests.
		"XDG_CACHE_HOME=" + pagerendertest.CacheHome(),
	}
	pdf, err := filepath.Abs("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("citelens %v: %v", args, err)
		}
		return out
	}
	run("add", pdf)
	var rec struct {
		Statements []struct {
			Citations []savedCitation `json:"citations"`
		} `json:"statements"`
	}
	if err := json.Unmarshal(run("ask", "--json", "--k", "1", "What is R, an integrated suite of software facilities?"), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Statements) != 1 || len(rec.Statements[0].Citations) != 1 {
		t.Fatalf("want one statement with one citation, got %+v", rec)
	}
	return bin, db, env, rec.Statements[0].Citations[0]
}

type savedCitation struct {
	Doc   docstore.DocID `json:"doc"`
	Page  int            `json:"page"`
	Start int            `json:"start"`
	End   int            `json:"end"`
	Text  string         `json:"text"`
}

// citedBand is where the citation's lines stand on their page, top and
// bottom, as fractions of the page's height.
func citedBand(t *testing.T, db string, c savedCitation) (top, bottom float64) {
	t.Helper()
	l, err := docstore.Open(db, &docstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rects, err := l.Geometry().SpanRects(c.Doc, c.Start, c.End)
	if err != nil || len(rects) == 0 {
		t.Fatalf("the citation's rectangles: %v %v", rects, err)
	}
	top, bottom = 1, 0
	for _, r := range rects {
		if r.Page == rects[0].Page {
			top, bottom = min(top, float64(r.Y0)), max(bottom, float64(r.Y1))
		}
	}
	return top, bottom
}

// TestPageViewXtermSixel runs the binary in xterm (as a VT340, which
// speaks sixel) under Xvfb, opens the citation's page with v, takes a
// screenshot of the window and checks that the highlight's colour is on
// screen in the source pane, at the height of the cited lines.
func TestPageViewXtermSixel(t *testing.T) {
	for _, prog := range []string{"Xvfb", "xterm", "xdotool", "import"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (Debian: xvfb, xterm, xdotool, imagemagick): the page view is not tried in a real terminal", prog)
		}
	}
	bin, db, env, cite := pageFixture(t)
	top, bottom := citedBand(t, db, cite)

	display := startXvfb(t)
	x := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		return cmd
	}
	const cols, rows = 150, 45
	script := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\nexec env %s TERM=xterm %q --db %q\n", strings.Join(env, " "), bin, db)), 0o755)
	term := x("xterm", "-ti", "vt340", "-geometry", fmt.Sprintf("%dx%d+0+0", cols, rows), "-fa", "Monospace", "-fs", "9", "-xrm", "XTerm*allowSendEvents: true", "-e", script)
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Process.Kill(); term.Wait() })

	var win string
	var area image.Rectangle // the window on the screen
	waitUntil(t, 20*time.Second, "the xterm window", func() bool {
		out, _ := x("xdotool", "search", "--onlyvisible", "--class", "xterm").Output()
		win = strings.TrimSpace(strings.Split(string(out), "\n")[0])
		if win == "" {
			return false
		}
		geo, err := x("xdotool", "getwindowgeometry", "--shell", win).Output()
		if err != nil {
			return false
		}
		v := map[string]int{}
		for _, l := range strings.Split(string(geo), "\n") {
			if k, n, ok := strings.Cut(l, "="); ok {
				v[k], _ = strconv.Atoi(n)
			}
		}
		area = image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
		return !area.Empty()
	})
	shot := filepath.Join(t.TempDir(), "screen.png")
	// The whole screen, cut to the window: reading the window itself
	// fails now and then while xterm draws.
	screenshot := func() *image.RGBA {
		t.Helper()
		var err error
		var out []byte
		for try := 0; try < 5; try++ {
			if out, err = x("import", "-window", "root", shot).CombinedOutput(); err == nil {
				return decodePNG(t, shot).SubImage(area).(*image.RGBA)
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("import: %v %s", err, out)
		return nil
	}
	keys := func(k ...string) {
		t.Helper()
		x("xdotool", "windowfocus", win).Run()
		for _, key := range k {
			if out, err := x("xdotool", "key", "--clearmodifiers", key).CombinedOutput(); err != nil {
				t.Fatalf("xdotool key %s: %v %s", key, err, out)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	// The program is up when the screen is no longer one colour.
	waitUntil(t, 30*time.Second, "citelens on screen", func() bool { return colours(screenshot()) > 4 })
	time.Sleep(2 * time.Second) // the terminal's answers and the answer list
	keys("Escape", "Return", "v")

	var img *image.RGBA
	var marked []image.Point
	waitUntil(t, 120*time.Second, "the highlight on the page", func() bool {
		img = screenshot()
		marked = markerPoints(img)
		return len(marked) > 200
	})
	b := img.Bounds()
	cellW, cellH := b.Dx()/cols, b.Dy()/rows
	for i := range marked {
		marked[i] = marked[i].Sub(b.Min) // window coordinates
	}
	// The source pane is the right-hand column of the three (the TUI's
	// layout from 130 columns), its body inside a border and a space.
	lw := min(max(cols/5, 26), 40)
	srcW := cols - lw - (cols-lw)*9/20
	bodyX, bodyW := (cols-srcW+2)*cellW, (srcW-4)*cellW
	for _, p := range marked {
		if p.X < bodyX || p.X >= bodyX+bodyW {
			t.Fatalf("highlight colour at %v, outside the source pane's body (x %d-%d)", p, bodyX, bodyX+bodyW)
		}
	}
	// The page fills the body's width from its second row (under the
	// view's header): the cited lines are at the band's height on a page
	// of that width.
	paneW := bodyW
	originY := 2 * cellH
	pageH := float64(paneW) * 792 / 612
	wantTop, wantBottom := originY+int(top*pageH), originY+int(bottom*pageH)
	minY, maxY := b.Dy(), 0
	for _, p := range marked {
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	t.Logf("%d highlight pixels at rows %d-%d; the cited lines at %d-%d (cells %d×%d)", len(marked), minY, maxY, wantTop, wantBottom, cellW, cellH)
	if abs(minY-wantTop) > 2*cellH || abs(maxY-wantBottom) > 2*cellH {
		t.Errorf("highlight spans rows %d-%d of the screenshot, the cited lines %d-%d (±%d)", minY, maxY, wantTop, wantBottom, 2*cellH)
	}
	// The picture stays while the keyboard is elsewhere and when it comes
	// back (issue 32, 7: it vanished with the focus and stayed blank until
	// a scroll), and the help screen hides it and gives it back.
	shown := func(what string, want bool) {
		t.Helper()
		var n int
		ok := func() bool { n = len(markerPoints(screenshot())); return (n > 200) == want }
		deadline := time.Now().Add(10 * time.Second)
		for !ok() && time.Now().Before(deadline) {
			time.Sleep(250 * time.Millisecond)
		}
		time.Sleep(time.Second) // and it stays so
		if !ok() {
			if want {
				t.Errorf("%s: the page is gone (%d highlight pixels)", what, n)
			} else {
				t.Errorf("%s: the page is still on screen (%d highlight pixels)", what, n)
			}
		}
	}
	keys("F1")
	shown("the help screen", false)
	keys("Escape")
	shown("the help screen closed", true)
	keys("Tab")
	shown("the keyboard in the library", true)
	keys("shift+Tab")
	shown("the keyboard back in the source", true)
	keys("question")
	shown("? help", false)
	keys("Escape")
	shown("? help closed", true)
	if t.Failed() {
		keep := filepath.Join(os.TempDir(), "citelens-pageview-xterm.png")
		os.Rename(shot, keep)
		t.Logf("screenshot kept in %s", keep)
	}
	keys("q")
}

// TestPageViewTmuxBlocks: in plain tmux, which answers no graphics
// query, the page view is the half-block map, the cited lines in the
// highlight's colour.
func TestPageViewTmuxBlocks(t *testing.T) {
	screen := tmuxPageMap(t, "TERM=xterm-256color COLORTERM=truecolor COLORFGBG=")
	// The dark theme's highlight, #EBCB8B, on the map's half blocks.
	if !strings.Contains(screen, "235;203;139") {
		t.Errorf("the map shows no cited line:\n%s", stripSGR(screen))
	}
}

// TestPageViewTmux256: in tmux with 256 colours (no truecolor), the map
// picks palette entries itself: the dark theme's paper (229,233,240) is
// the grey 254, one colour over the whole page, not the lavender 189 the
// renderer's RGB mapping chose, speckled.
func TestPageViewTmux256(t *testing.T) {
	screen := tmuxPageMap(t, "TERM=xterm-256color COLORTERM= COLORFGBG=")
	if strings.Contains(screen, "38;2;") {
		t.Fatalf("truecolor sequences in a 256-colour terminal:\n%q", screen)
	}
	if strings.Contains(screen, ";189m") || strings.Contains(screen, "5;189;") {
		t.Errorf("the paper is lavender (189):\n%q", screen)
	}
	// Count the map's colours: a few levels of paper and highlight.
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`[34]8;5;(\d+)`).FindAllStringSubmatch(screen, -1) {
		used[m[1]] = true
	}
	if !used["254"] {
		t.Errorf("no paper in grey 254; colours used: %v", used)
	}
}

// TestPageViewTmuxLight: tmux 3.3 answers no background query, so on a
// white terminal the theme comes from COLORFGBG: the light theme, its
// highlight (#FFD866) on the map, not the dark theme's.
func TestPageViewTmuxLight(t *testing.T) {
	screen := tmuxPageMap(t, "TERM=xterm-256color COLORTERM=truecolor COLORFGBG='0;15'")
	if !strings.Contains(screen, "255;216;102") || strings.Contains(screen, "235;203;139") {
		t.Errorf("not the light theme's highlight on a light terminal:\n%q", screen)
	}
}

// tmuxPageMap runs the binary in tmux with env (its TERM, COLORTERM),
// opens the citation's page and returns the screen with its colours.
func tmuxPageMap(t *testing.T, termEnv string) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin, db, env, _ := pageFixture(t)
	tm := newTmux(t, filepath.Dir(bin))
	cmd := fmt.Sprintf("env %s %s %q --db %q", strings.Join(env, " "), termEnv, bin, db)
	tm.run("new-session", "-d", "-x", "150", "-y", "45", "-s", "e2e", cmd)
	// tmux takes an escape followed quickly by a key as alt+key.
	tm.run("set-option", "-s", "escape-time", "0")
	tm.waitFor("r-intro-p8-9.pdf", "1/1 in scope")
	tm.run("send-keys", "-t", "e2e", "Escape")
	// An escape read together with the next key is alt+key: wait for it
	// to be taken alone first.
	tm.waitFor("letters are commands")
	tm.run("send-keys", "-t", "e2e", "Enter")
	tm.waitFor("┏━ Source")
	tm.run("send-keys", "-t", "e2e", "v")
	tm.waitWithin(120*time.Second, "· preview", "▀")
	time.Sleep(500 * time.Millisecond) // the map redrawn for the terminal's colours, if it is
	screen := tm.capture()
	tm.run("send-keys", "-t", "e2e", "q")
	tm.waitExit("e2e")
	return screen
}

// startXvfb starts a virtual X display for the test and returns its name.
func startXvfb(t *testing.T) string {
	t.Helper()
	for n := 90 + os.Getpid()%100; n < 400; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		display := ":" + strconv.Itoa(n)
		cmd := exec.Command("Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
				return display
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("Xvfb %s did not start", display)
	}
	t.Fatal("no free X display")
	return ""
}

func waitUntil(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never came", what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// colours counts the distinct colours of img, up to 16.
func colours(img *image.RGBA) int {
	seen := map[[3]uint8]bool{}
	for i := 0; i < len(img.Pix) && len(seen) < 16; i += 4 {
		seen[[3]uint8{img.Pix[i], img.Pix[i+1], img.Pix[i+2]}] = true
	}
	return len(seen)
}

// markerPoints are the pixels in the page highlight's colour.
func markerPoints(img *image.RGBA) []image.Point {
	var pts []image.Point
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pagerendertest.IsMarker(img.RGBAAt(x, y)) {
				pts = append(pts, image.Pt(x, y))
			}
		}
	}
	return pts
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
