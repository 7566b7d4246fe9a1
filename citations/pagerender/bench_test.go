package pagerender_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
)

// The R reference manual (Debian: r-doc-pdf), 2,415 pages: the long
// manual the page view must keep up with.
const fullrefman = "/usr/share/R/doc/manual/fullrefman.pdf"

// benchPages are pages of fullrefman spread through it.
var benchPages = []int{37, 412, 1000, 1500, 2201}

// BenchmarkRender renders a page at 110 dpi (a 1920-pixel-high terminal
// pane shows a page at about that) with PDFium, and with poppler's
// pdftoppm to PPM on standard output as the reference.
func BenchmarkRender(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"r-intro", "../../testdata/pdf/r-intro-p8-9.pdf"},
		{"fullrefman", fullrefman},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			b.Logf("skipping %s: %v", c.name, err)
			continue
		}
		pages := []int{1, 2}
		if c.name == "fullrefman" {
			pages = benchPages
		}
		b.Run(c.name+"/pdfium", func(b *testing.B) {
			d := open(b, data)
			ctx := context.Background()
			b.ResetTimer()
			cpu := pagerendertest.CPUTime()
			defer func() { pagerendertest.ReportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				if _, err := d.Render(ctx, pages[i%len(pages)], pagerender.Rect{}, 110); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/pdftoppm", func(b *testing.B) {
			if _, err := exec.LookPath("pdftoppm"); err != nil {
				b.Skip("pdftoppm is not installed (Debian: poppler-utils)")
			}
			cpu := pagerendertest.ChildCPUTime()
			defer func() { pagerendertest.ReportChildCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				n := fmt.Sprint(pages[i%len(pages)])
				if err := exec.Command("pdftoppm", "-r", "110", "-f", n, "-l", n, c.path).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderRegion renders the band of a page a citation takes,
// a sixth of the page, at 144 dpi as the HTML export does.
func BenchmarkRenderRegion(b *testing.B) {
	data, err := os.ReadFile(fullrefman)
	if err != nil {
		b.Skip(err)
	}
	region := pagerender.Rect{X0: 0.1, Y0: 0.4, X1: 0.9, Y1: 0.57}
	b.Run("pdfium", func(b *testing.B) {
		d := open(b, data)
		ctx := context.Background()
		cpu := pagerendertest.CPUTime()
		defer func() { pagerendertest.ReportCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			if _, err := d.Render(ctx, benchPages[i%len(benchPages)], region, 144); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pdftoppm", func(b *testing.B) {
		if _, err := exec.LookPath("pdftoppm"); err != nil {
			b.Skip("pdftoppm is not installed (Debian: poppler-utils)")
		}
		// The same region in pixels: 612×792 pt at 2 px a point.
		pw, ph := 1224.0, 1584.0
		x, y := fmt.Sprint(int(region.X0*pw)), fmt.Sprint(int(region.Y0*ph))
		w, h := fmt.Sprint(int(region.Width()*pw)), fmt.Sprint(int(region.Height()*ph))
		cpu := pagerendertest.ChildCPUTime()
		defer func() { pagerendertest.ReportChildCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			n := fmt.Sprint(benchPages[i%len(benchPages)])
			if err := exec.Command("pdftoppm", "-r", "144", "-f", n, "-l", n, "-x", x, "-y", y, "-W", w, "-H", h, fullrefman).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOpen opens fullrefman: what the first page of a document
// costs on top of its rendering.
func BenchmarkOpen(b *testing.B) {
	data, err := os.ReadFile(fullrefman)
	if err != nil {
		b.Skip(err)
	}
	r := pagerendertest.Renderer(b)
	ctx := context.Background()
	cpu := pagerendertest.CPUTime()
	defer func() { pagerendertest.ReportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		d, err := r.Open(ctx, bytes.Clone(data))
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkHighlight marks three line boxes on a 110 dpi letter page.
func BenchmarkHighlight(b *testing.B) {
	d := open(b, readPDF(b, "r-intro-p8-9.pdf"))
	pic, err := d.Render(context.Background(), 1, pagerender.Rect{}, 110)
	if err != nil {
		b.Fatal(err)
	}
	lines := []pagerender.Rect{
		{X0: 0.15, Y0: 0.40, X1: 0.85, Y1: 0.415},
		{X0: 0.15, Y0: 0.415, X1: 0.85, Y1: 0.43},
		{X0: 0.15, Y0: 0.43, X1: 0.5, Y1: 0.445},
	}
	b.ResetTimer()
	cpu := pagerendertest.CPUTime()
	defer func() { pagerendertest.ReportCPU(b, cpu) }()
	for i := 0; i < b.N; i++ {
		pic.Highlight(lines, pagerender.Marker)
	}
}

// BenchmarkStart starts a renderer: warm, from the compilation cache;
// cold, compiling into an empty cache as on a program's first-ever use
// (run it with -benchtime=1x: one start takes about 15 s).
func BenchmarkStart(b *testing.B) {
	pagerendertest.Renderer(b) // fill the shared cache first
	for _, c := range []struct {
		name string
		dir  func() string
	}{
		{"warm", pagerendertest.CacheDir},
		{"cold", b.TempDir},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu := pagerendertest.CPUTime()
			defer func() { pagerendertest.ReportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				r := pagerender.New(pagerender.Options{CacheDir: c.dir()})
				if err := r.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				r.Close()
				b.StartTimer()
			}
		})
	}
}
