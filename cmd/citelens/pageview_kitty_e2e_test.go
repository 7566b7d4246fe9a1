package main

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPageViewKittyBeforePlaceholders runs the page view in a real kitty
// under Xvfb: Debian 12's kitty (0.26.5) answers the graphics query but
// predates Unicode placeholders (0.28), so citelens must draw the
// half-block map there, not placeholder cells the terminal shows as a
// wall of boxes. The screen's text is read through kitty's remote
// control; the drawing is photographed.
func TestPageViewKittyBeforePlaceholders(t *testing.T) {
	for _, prog := range []string{"Xvfb", "kitty", "xdotool", "import"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed (Debian: xvfb, kitty, xdotool, imagemagick): the page view is not tried in kitty", prog)
		}
	}
	version, err := exec.Command("kitty", "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(version), "kitty 0.26.") && !strings.HasPrefix(string(version), "kitty 0.27.") {
		t.Skipf("%s: this test is about kitty before 0.28", strings.TrimSpace(string(version)))
	}
	bin, db, env, _ := pageFixture(t)
	display := startXvfb(t)
	x := func(args ...string) *exec.Cmd {
		cmd := exec.Command(args[0], args[1:]...)
		// kitty draws with OpenGL: Mesa's software renderer under Xvfb
		cmd.Env = append(os.Environ(), "DISPLAY="+display, "LIBGL_ALWAYS_SOFTWARE=1")
		return cmd
	}
	dir := t.TempDir()
	sock := "unix:" + socketPath(t, dir, "kitty.sock")
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\nexec env %s %q --db %q\n", strings.Join(env, " "), bin, db)), 0o755)
	term := x("kitty", "--config", "NONE", "-o", "allow_remote_control=yes", "--listen-on", sock,
		"-o", "initial_window_width=1300", "-o", "initial_window_height=850", "-o", "remember_window_size=no", script)
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Process.Kill(); term.Wait() })
	screenText := func() string {
		out, _ := x("kitty", "@", "--to", sock, "get-text").Output()
		return string(out)
	}
	waitUntil(t, 60*time.Second, "citelens in kitty", func() bool { return strings.Contains(screenText(), "1/1 in scope") })
	time.Sleep(2 * time.Second) // the terminal's answers and the answer list
	out, _ := x("xdotool", "search", "--class", "kitty").Output()
	win := strings.TrimSpace(strings.Split(string(out), "\n")[0])
	for _, key := range []string{"Escape", "Return", "v"} {
		x("xdotool", "windowfocus", win).Run()
		if out, err := x("xdotool", "key", "--clearmodifiers", key).CombinedOutput(); err != nil {
			t.Fatalf("xdotool key %s: %v %s", key, err, out)
		}
		time.Sleep(300 * time.Millisecond)
	}
	var text string
	waitUntil(t, 120*time.Second, "the page view", func() bool {
		text = screenText()
		return strings.Contains(text, "· preview") || strings.Contains(text, "· kitty")
	})
	if strings.ContainsRune(text, '\U0010EEEE') || !strings.Contains(text, "· preview") {
		t.Fatalf("kitty 0.26 was sent placeholder cells:\n%s", text)
	}
	// The cited lines are drawn in the highlight's warm colour in the
	// source pane (the right-hand column); placeholders would be boxes.
	shot := filepath.Join(dir, "screen.png")
	var warm int
	waitUntil(t, 30*time.Second, "the highlight drawn", func() bool {
		if err := x("import", "-window", "root", shot).Run(); err != nil {
			return false
		}
		img := decodePNG(t, shot)
		b := img.Bounds()
		warm = warmPixels(img, image.Rect(b.Min.X+b.Dx()*52/100, b.Min.Y, b.Max.X, b.Max.Y))
		return warm > 2000
	})
	t.Logf("%d highlight-coloured pixels in the source pane", warm)
	x("xdotool", "key", "--clearmodifiers", "q").Run()
}

// warmPixels counts the pixels of r in img of the dark theme's highlight
// hue (#EBCB8B, blended by the half-block map): clearly yellow-brown, not
// grey, and not the red of a missing glyph's box.
func warmPixels(img *image.RGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R > 120 && int(c.R)-int(c.B) > 50 && int(c.G)-int(c.B) > 30 && int(c.G)*10 > int(c.R)*7 {
				n++
			}
		}
	}
	return n
}
