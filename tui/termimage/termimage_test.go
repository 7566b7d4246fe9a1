package termimage_test

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"

	"github.com/citelens/citelens/tui/termimage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME.golden (or writes it with
// -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n got: %q\nwant: %q", name, path, got, want)
	}
}

var (
	paper  = color.RGBA{255, 255, 255, 255}
	black  = color.RGBA{20, 20, 20, 255}
	yellow = color.RGBA{255, 231, 95, 255}
)

// smallPage is a 24×32 picture of a page: white, with four lines of
// "text" (black bars) at y 4-7, 10-13, 16-19, 22-25, the third line
// highlighted (yellow paper around it, rows 15-20).
func smallPage() (*image.RGBA, image.Rectangle) {
	img := image.NewRGBA(image.Rect(0, 0, 24, 32))
	for y := range 32 {
		for x := range 24 {
			img.SetRGBA(x, y, paper)
		}
	}
	marked := image.Rect(2, 15, 22, 21)
	for y := marked.Min.Y; y < marked.Max.Y; y++ {
		for x := marked.Min.X; x < marked.Max.X; x++ {
			img.SetRGBA(x, y, yellow)
		}
	}
	for _, y0 := range []int{4, 10, 16, 22} {
		for y := y0; y < y0+4; y++ {
			for x := 3; x < 21; x++ {
				img.SetRGBA(x, y, black)
			}
		}
	}
	return img, marked
}

// readable shows escape sequences in a golden file as text, a line a row.
func readable(lines []string) string {
	var sb strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&sb, "%q\n", l)
	}
	return sb.String()
}

var apc = regexp.MustCompile(`\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\`)

// TestKitty checks KittyTransmit's commands with the kitty package's own
// option parser and image decoder, and the placeholders as golden text.
func TestKitty(t *testing.T) {
	t.Parallel()
	img, _ := smallPage()
	out := termimage.KittyTransmit(img, 7, 3, 2, false)
	var keys []string
	var payload string
	for _, m := range apc.FindAllStringSubmatch(out, -1) {
		keys = append(keys, m[1])
		payload += m[2]
	}
	if strings.Join(apc.FindAllString(out, -1), "") != out {
		t.Fatalf("output holds more than kitty graphics commands: %q", out)
	}
	var o kitty.Options
	if err := o.UnmarshalText([]byte(keys[0])); err != nil {
		t.Fatal(err)
	}
	if o.Action != kitty.TransmitAndPut || !o.VirtualPlacement || o.ID != 7 || o.Columns != 3 || o.Rows != 2 ||
		o.Format != kitty.RGB || o.Compression != kitty.Zlib || o.ImageWidth != 24 || o.ImageHeight != 32 || o.Quiet != 2 {
		t.Errorf("first command's keys %q parse as %+v", keys[0], o)
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	dec := kitty.Decoder{Decompress: true, Format: kitty.RGB, Width: 24, Height: 32}
	got, err := dec.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, got, img, 0)

	place := termimage.KittyPlaceholders(7, 1, 1, 3)
	golden(t, "kitty-transmit-keys", strings.Join(keys, "\n")+"\n")
	golden(t, "kitty-placeholders", readable(append(termimage.KittyPlaceholders(7, 0, 2, 3), place...)))
	if w := ansi.StringWidth(place[0]); w != 3 {
		t.Errorf("a row of 3 placeholders is %d cells wide", w)
	}
	if got := termimage.KittyDelete(7, false); got != "\x1b_Ga=d,d=I,i=7,q=2\x1b\\" {
		t.Errorf("KittyDelete = %q", got)
	}
}

// TestKittyChunks sends a picture bigger than one command carries: every
// chunk but the last says more is to come, and only the first carries
// the image's keys.
func TestKittyChunks(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 200, 200))
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rnd.Uint32()) // noise: zlib cannot shrink it
	}
	out := termimage.KittyTransmit(img, 1, 10, 10, false)
	ms := apc.FindAllStringSubmatch(out, -1)
	if len(ms) < 3 {
		t.Fatalf("%d chunks for 160 KB of noise", len(ms))
	}
	for i, m := range ms {
		more := "m=1"
		if i == len(ms)-1 {
			more = "m=0"
		}
		if !strings.HasSuffix(m[1], more) || i > 0 && m[1] != more || len(m[2]) > 4096 {
			t.Errorf("chunk %d: keys %q, %d bytes", i, m[1], len(m[2]))
		}
	}
	tmux := termimage.KittyTransmit(img, 1, 10, 10, true)
	if n := strings.Count(tmux, "\x1bPtmux;"); n != len(ms) {
		t.Errorf("%d tmux passthrough wrappers for %d chunks", n, len(ms))
	}
}

// samePixels fails unless got shows want, each channel within tolerance.
func samePixels(t *testing.T, got image.Image, want *image.RGBA, tolerance int) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("decoded %v, sent %v", got.Bounds(), want.Bounds())
	}
	for y := range want.Bounds().Dy() {
		for x := range want.Bounds().Dx() {
			r, g, b, _ := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
			w := want.RGBAAt(x, y)
			if far(r>>8, w.R, tolerance) || far(g>>8, w.G, tolerance) || far(b>>8, w.B, tolerance) {
				t.Fatalf("pixel (%d,%d) decodes as %d,%d,%d, sent %v", x, y, r>>8, g>>8, b>>8, w)
			}
		}
	}
}

func far(a uint32, b uint8, tolerance int) bool {
	d := int(a) - int(b)
	return d > tolerance || d < -tolerance
}

// TestSixel checks the sixel image of the small page as golden bytes,
// and decodes it and a picture of scattered colours (a height that is
// no multiple of six, colours ending at every column of a band) with
// libsixel's sixel2png (Debian: libsixel-bin), when it is installed.
func TestSixel(t *testing.T) {
	t.Parallel()
	img, _ := smallPage()
	out := termimage.SixelImage(img, false)
	golden(t, "sixel", out)
	if !strings.HasPrefix(out, "\x1bP0;1q") || !strings.HasSuffix(out, "\x1b\\") {
		t.Fatalf("not a DCS sixel sequence: %q", out)
	}
	if _, err := exec.LookPath("sixel2png"); err != nil {
		t.Skip("sixel2png is not installed (Debian: libsixel-bin): the sixel images are not decoded")
	}
	// Sixel colours are percentages: 2.55 levels a step.
	samePixels(t, sixel2png(t, out), img, 3)

	scattered := image.NewRGBA(image.Rect(0, 0, 37, 23))
	rnd := rand.New(rand.NewPCG(3, 4))
	for y := range 23 {
		for x := range 37 {
			v := uint8(rnd.IntN(20) * 13)
			scattered.SetRGBA(x, y, color.RGBA{v, 255 - v, v / 2, 255})
		}
	}
	samePixels(t, sixel2png(t, termimage.SixelImage(scattered, false)), scattered, 3)
}

// sixel2png decodes a sixel sequence with libsixel.
func sixel2png(t *testing.T, seq string) image.Image {
	t.Helper()
	dir := t.TempDir()
	in, outPNG := filepath.Join(dir, "page.six"), filepath.Join(dir, "page.png")
	if err := os.WriteFile(in, []byte(seq), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("sixel2png", "-i", in, "-o", outPNG).CombinedOutput(); err != nil {
		t.Fatalf("sixel2png: %v: %s", err, msg)
	}
	f, err := os.Open(outPNG)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestITerm2(t *testing.T) {
	t.Parallel()
	img, _ := smallPage()
	out := termimage.ITerm2Image(img, 3, 2, false)
	m := regexp.MustCompile(`^\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]*)\x07$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("not an OSC 1337 File sequence: %q", out)
	}
	for _, want := range []string{"width=3", "height=2", "inline=1", "preserveAspectRatio=0", "doNotMoveCursor=1"} {
		if !strings.Contains(m[1], want) {
			t.Errorf("arguments %q lack %s", m[1], want)
		}
	}
	data, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, got, img, 0)
}

func TestPageMap(t *testing.T) {
	t.Parallel()
	img, marked := smallPage()
	colors := termimage.MapColors{
		Paper: color.RGBA{240, 240, 235, 255}, Ink: color.RGBA{60, 60, 60, 255},
		MarkPaper: color.RGBA{255, 220, 120, 255}, MarkInk: color.RGBA{140, 100, 0, 255},
	}
	// 6 cells wide, 8 high: 16 map pixels down, 2 page pixels each.
	lines := termimage.PageMap(img, []image.Rectangle{marked}, 6, 8, colors)
	golden(t, "pagemap", readable(lines))
	golden(t, "pagemap-mono", readable(termimage.PageMap(img, []image.Rectangle{marked}, 6, 8, termimage.MapColors{})))
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 6 {
			t.Errorf("line %d is %d cells wide, want 6", i, w)
		}
	}
	// The text lines are bars of ink; the third one in the marked colours,
	// the others not.
	plain := ansi.Strip(strings.Join(lines, ""))
	if strings.Trim(plain, "▀") != "" {
		t.Errorf("map holds more than half blocks: %q", plain)
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "38;2;140;100;0") && !strings.Contains(joined, "48;2;140;100;0") {
		t.Error("the marked line is not drawn in the marked ink")
	}
	if strings.Contains(lines[0], "255;220;120") || strings.Contains(lines[7], "255;220;120") {
		t.Error("the first or last row is drawn marked")
	}
}

func TestParseProtocol(t *testing.T) {
	t.Parallel()
	for _, name := range termimage.Names() {
		p, err := termimage.ParseProtocol(strings.ToUpper(name))
		if err != nil || p.String() != name {
			t.Errorf("ParseProtocol(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := termimage.ParseProtocol("png"); err == nil || !strings.Contains(err.Error(), "kitty, sixel, iterm2") {
		t.Errorf("ParseProtocol(png) = %v, want an error listing the protocols", err)
	}
}

func TestAt(t *testing.T) {
	t.Parallel()
	if got := termimage.At(4, 2, "IMG"); got != "\x1b7\x1b[3;5HIMG\x1b8" {
		t.Errorf("At = %q", got)
	}
}
