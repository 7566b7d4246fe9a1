package termimage_test

import (
	"context"
	"image"
	"os"
	"testing"

	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/tui/termimage"
)

// pane renders page 1 of the R-intro sample as a source pane of 70×50
// cells of 10×20 pixels shows it (700 pixels wide), the second paragraph
// highlighted.
func pane(b *testing.B) (*image.RGBA, []image.Rectangle) {
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		b.Fatal(err)
	}
	d, err := pagerendertest.Renderer(b).Open(context.Background(), data)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	pic, err := d.Render(context.Background(), 1, pagerender.Rect{}, 700.0/612*72)
	if err != nil {
		b.Fatal(err)
	}
	lines := []pagerender.Rect{{X0: 0.15, Y0: 0.30, X1: 0.85, Y1: 0.315}, {X0: 0.15, Y0: 0.315, X1: 0.6, Y1: 0.33}}
	pic.Highlight(lines, pagerender.Marker)
	return pic.Image, []image.Rectangle{pic.Pixels(lines[0]), pic.Pixels(lines[1])}
}

func BenchmarkEncode(b *testing.B) {
	img, marked := pane(b)
	b.Logf("picture %v", img.Bounds())
	b.Run("kitty", func(b *testing.B) {
		var n int
		cpu := pagerendertest.CPUTime()
		defer func() { pagerendertest.ReportCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			n = len(termimage.KittyTransmit(img, 1, 70, 45, false))
		}
		b.ReportMetric(float64(n)/1024, "KiB")
	})
	b.Run("sixel", func(b *testing.B) {
		var n int
		cpu := pagerendertest.CPUTime()
		defer func() { pagerendertest.ReportCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			n = len(termimage.SixelImage(img, false))
		}
		b.ReportMetric(float64(n)/1024, "KiB")
	})
	b.Run("iterm2", func(b *testing.B) {
		var n int
		cpu := pagerendertest.CPUTime()
		defer func() { pagerendertest.ReportCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			n = len(termimage.ITerm2Image(img, 70, 45, false))
		}
		b.ReportMetric(float64(n)/1024, "KiB")
	})
	b.Run("pagemap", func(b *testing.B) {
		colors := termimage.MapColors{Paper: paper, Ink: black, MarkPaper: yellow, MarkInk: black}
		cpu := pagerendertest.CPUTime()
		defer func() { pagerendertest.ReportCPU(b, cpu) }()
		for i := 0; i < b.N; i++ {
			termimage.PageMap(img, marked, 70, 45, colors)
		}
	})
}
