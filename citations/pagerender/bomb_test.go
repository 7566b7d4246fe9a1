//go:build linux

package pagerender_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/internal/testload"
)

// buildPDF writes a one-page PDF whose page draws content with the
// resources res, followed by the extra objects (numbered from 4), with a
// correct cross-reference table.
func buildPDF(content, res string, extra ...string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources " + res + " /Contents " + strconv.Itoa(4+len(extra)) + " 0 R >>",
	}
	objs = append(objs, extra...)
	objs = append(objs, stream("", []byte(content)))
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// stream is a stream object with the dictionary entries dict.
func stream(dict string, data []byte) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// selfFormBomb: a form XObject that draws itself twice, each copy half
// the size of the one before.
func selfFormBomb() []byte {
	form := stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Group << /S /Transparency >> /Resources << /XObject << /F 4 0 R >> >>",
		[]byte("0 0 1 rg 0 0 612 792 re f q 0.5 0 0 0.5 0 0 cm /F Do Q q 0.5 0 0 0.5 306 396 cm /F Do Q"))
	return buildPDF("/F Do", "<< /XObject << /F 4 0 R >> >>", form)
}

// jpxBomb: a JPEG 2000 image whose header declares 60,000 × 60,000
// pixels, in a few dozen bytes of codestream.
func jpxBomb() []byte {
	const side = 60000
	var c bytes.Buffer
	w16 := func(v uint16) { binary.Write(&c, binary.BigEndian, v) }
	w32 := func(v uint32) { binary.Write(&c, binary.BigEndian, v) }
	w16(0xFF4F)   // SOC
	w16(0xFF51)   // SIZ
	w16(38 + 3*3) // Lsiz
	w16(0)        // Rsiz
	w32(side)     // Xsiz
	w32(side)     // Ysiz
	w32(0)        // XOsiz
	w32(0)        // YOsiz
	w32(side)     // XTsiz
	w32(side)     // YTsiz
	w32(0)        // XTOsiz
	w32(0)        // YTOsiz
	w16(3)        // Csiz
	for i := 0; i < 3; i++ {
		c.Write([]byte{7, 1, 1}) // 8 bits, no subsampling
	}
	w16(0xFF52) // COD
	w16(12)
	c.Write([]byte{0, 0, 0, 1, 0, 5, 4, 4, 0, 1})
	w16(0xFF5C) // QCD: reversible, no quantisation
	w16(19)
	c.WriteByte(0x40)
	for i := 0; i < 16; i++ {
		c.WriteByte(0x40)
	}
	w16(0xFF90) // SOT
	w16(10)
	w16(0)
	w32(0)
	c.Write([]byte{0, 1})
	w16(0xFF93) // SOD
	c.Write(bytes.Repeat([]byte{0x80}, 64))
	w16(0xFFD9) // EOC
	img := stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode", side, side), c.Bytes())
	return buildPDF("q 612 0 0 792 0 0 cm /I Do Q", "<< /XObject << /I 4 0 R >> >>", img)
}

// fanOutBomb: forms nested levels deep, each drawing the next ten
// times: 10^levels rectangles from a few kilobytes.
func fanOutBomb() []byte {
	const levels = 8
	var forms []string
	for i := 0; i < levels; i++ {
		var body strings.Builder
		if i == levels-1 {
			body.WriteString("0 0 0 rg 0 0 1 1 re f")
		} else {
			for k := 0; k < 10; k++ {
				fmt.Fprintf(&body, "q 0.9 0 0 0.9 %d %d cm /F Do Q ", k*5, k*7)
			}
		}
		res := "<< >>"
		if i < levels-1 {
			res = fmt.Sprintf("<< /XObject << /F %d 0 R >> >>", 5+i)
		}
		forms = append(forms, stream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources "+res, []byte(body.String())))
	}
	return buildPDF("/F Do", "<< /XObject << /F 4 0 R >> >>", forms...)
}

var bombs = map[string]func() []byte{
	"self-drawing form": selfFormBomb,
	"jpx 60000x60000":   jpxBomb,
	"form fan-out":      fanOutBomb,
}

const bombEnv = "CITELENS_PAGERENDER_BOMB"

// TestBombChild draws the bomb named in the environment and prints the
// error; it is the child process of TestMemoryBombs and skips otherwise.
func TestBombChild(t *testing.T) {
	name := os.Getenv(bombEnv)
	if name == "" {
		t.Skip("run by TestMemoryBombs in a child process")
	}
	// The watchdog at half its default keeps the test short; memory is
	// bounded whatever the time.
	r := pagerender.New(pagerender.Options{CacheDir: pagerendertest.CacheDir(), Timeout: pagerender.DefaultTimeout / 2})
	defer r.Close()
	ctx := context.Background()
	d, err := r.Open(ctx, bombs[name]())
	if err == nil {
		_, err = d.Render(ctx, 1, pagerender.Rect{}, 150)
	}
	fmt.Printf("\nBOMB-ERROR: %v\n", err)
}

// TestMemoryBombs draws each bomb in a child process (a copy of this test
// binary) and checks that the page fails with a one-line error naming it,
// within the time the watchdog allows, and that the child's peak memory
// stays under 2 GB.
func TestMemoryBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("each bomb takes seconds")
	}
	pagerendertest.Renderer(t) // the compiled code in the cache, once
	for name := range bombs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestBombChild$", "-test.v")
			cmd.Env = append(os.Environ(), bombEnv+"="+name)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			var peakMB int64
			if ru != nil {
				peakMB = ru.Maxrss / 1024 // kilobytes on Linux
			}
			t.Logf("%s: peak %d MB in %s", name, peakMB, took.Round(time.Millisecond))
			if err != nil {
				t.Fatalf("the child died (%v):\n%.2000s", err, out)
			}
			i := bytes.Index(out, []byte("BOMB-ERROR: "))
			if i < 0 {
				t.Fatalf("the child printed no result:\n%.2000s", out)
			}
			line, _, _ := strings.Cut(string(out[i+len("BOMB-ERROR: "):]), "\n")
			if line == "<nil>" || !strings.Contains(line, "page 1") {
				t.Errorf("error %q: want a one-line failure naming page 1", line)
			}
			if peakMB <= 0 || peakMB >= 2048 {
				t.Errorf("peak memory %d MB, want under 2 GB", peakMB)
			}
		})
	}
}

// TestCancelStopsPage: a cancelled context stops a page being drawn
// within a second (scaled by the machine's load), not at the watchdog.
func TestCancelStopsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("draws a slow page")
	}
	r := pagerender.New(pagerender.Options{CacheDir: pagerendertest.CacheDir()})
	defer r.Close()
	pagerendertest.Renderer(t) // the cache filled
	d, err := r.Open(context.Background(), selfFormBomb())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, err = d.Render(ctx, 1, pagerender.Rect{}, 150)
	took := time.Since(start) - 500*time.Millisecond
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "page 1") {
		t.Errorf("Render = %v, want context.Canceled naming page 1", err)
	}
	if limit := testload.Scaled(time.Second); took > limit {
		t.Errorf("stopped %s after the cancel, want under %s", took, limit)
	}
	// Sizing the page (loading it) is bounded the same way.
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel2)
	if _, _, err := d.PageSize(ctx2, 1); err != nil && (!errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "page 1")) {
		t.Errorf("PageSize = %v, want context.Canceled naming page 1", err)
	}
	// The renderer draws again after.
	plain, err := r.Open(context.Background(), buildPDF("0 0 1 1 re f", "<< >>"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Render(context.Background(), 1, pagerender.Rect{}, 72); err != nil {
		t.Errorf("after the cancel: %v", err)
	}
}

// TestCloseStopsPage: closing the renderer (a program quitting) stops a
// page being drawn within a second, and the draw fails naming the page.
func TestCloseStopsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("draws a slow page")
	}
	r := pagerender.New(pagerender.Options{CacheDir: pagerendertest.CacheDir()})
	pagerendertest.Renderer(t) // the cache filled
	d, err := r.Open(context.Background(), selfFormBomb())
	if err != nil {
		t.Fatal(err)
	}
	rendered := make(chan error, 1)
	go func() {
		_, err := d.Render(context.Background(), 1, pagerender.Rect{}, 150)
		rendered <- err
	}()
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	d.Close()
	limit := testload.Scaled(time.Second)
	if took := time.Since(start); took > limit {
		t.Errorf("Close took %s, want under %s", took, limit)
	}
	select {
	case err := <-rendered:
		if !errors.Is(err, pagerender.ErrClosed) || !strings.Contains(err.Error(), "page 1") {
			t.Errorf("Render = %v, want ErrClosed naming page 1", err)
		}
	case <-time.After(limit):
		t.Error("Render still drawing after Close")
	}
}
