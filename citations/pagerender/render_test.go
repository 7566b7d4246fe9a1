package pagerender_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/ingest/doctest"
)

func open(t testing.TB, data []byte) *pagerender.Document {
	t.Helper()
	d, err := pagerendertest.Renderer(t).Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func readPDF(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/pdf/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ink is the share of pixels of img inside r darker than mid-grey.
func ink(img *image.RGBA, r image.Rectangle) float64 {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return 0
	}
	dark := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := img.PixOffset(x, y)
			if int(img.Pix[i])+int(img.Pix[i+1])+int(img.Pix[i+2]) < 3*128 {
				dark++
			}
		}
	}
	return float64(dark) / float64(r.Dx()*r.Dy())
}

func TestRenderLetterPage(t *testing.T) {
	t.Parallel()
	d := open(t, readPDF(t, "r-intro-p8-9.pdf"))
	if d.Pages() != 2 {
		t.Fatalf("pages = %d, want 2", d.Pages())
	}
	ctx := context.Background()
	w, h, err := d.PageSize(ctx, 1)
	if err != nil || w != 612 || h != 792 {
		t.Fatalf("page size = %v × %v (%v), want 612 × 792 points", w, h, err)
	}
	pic, err := d.Render(ctx, 1, pagerender.Rect{}, 72)
	if err != nil {
		t.Fatal(err)
	}
	if b := pic.Image.Bounds(); b.Dx() != 612 || b.Dy() != 792 {
		t.Fatalf("72 dpi picture is %v, want 612×792", b)
	}
	if pic.Region != pagerender.WholePage || pic.Page != 1 {
		t.Errorf("picture of page %d region %v, want page 1, the whole page", pic.Page, pic.Region)
	}
	// Text is there, and the margins are paper.
	if got := ink(pic.Image, pic.Image.Bounds()); got < 0.01 || got > 0.3 {
		t.Errorf("ink covers %.3f of the page, want a page of text", got)
	}
	if got := ink(pic.Image, image.Rect(0, 0, 612, 40)); got != 0 {
		t.Errorf("top margin has ink: %.3f", got)
	}
	for i := 3; i < len(pic.Image.Pix); i += 4 {
		if pic.Image.Pix[i] != 255 {
			t.Fatalf("pixel %d is not opaque", i/4)
		}
	}
}

// TestCharsMatchPixels checks the frame Chars and Render share: the glyph
// boxes of a generated page lie where its text is set (known in points),
// and the rendered pixels under them are ink.
func TestCharsMatchPixels(t *testing.T) {
	t.Parallel()
	d := open(t, doctest.PDF(doctest.PDFPage{Lines: []string{"Highlight HERE please", "second line"}}))
	chars, err := d.Chars(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range chars {
		text += string(c.Rune)
	}
	if !strings.Contains(text, "Highlight HERE please") {
		t.Fatalf("text = %q", text)
	}
	h := chars[0]
	// doctest sets the first baseline 720 pt up a 792 pt page, 72 pt in.
	if x := h.Box.X0 * 612; x < 71 || x > 74 {
		t.Errorf("first glyph starts %.1f pt from the left, want 72", x)
	}
	if base := (1 - h.Box.Y1) * 792; base < 718 || base > 722 {
		t.Errorf("first glyph's baseline %.1f pt up, want 720", base)
	}
	pic, err := d.Render(context.Background(), 1, pagerender.Rect{}, 144)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chars[:9] { // "Highlight"
		if got := ink(pic.Image, pic.Pixels(c.Box)); got < 0.1 {
			t.Errorf("glyph %q box %v holds %.2f ink", c.Rune, c.Box, got)
		}
	}
}

// TestRotatedCroppedPage checks the same on a page with a CropBox that
// does not start at the origin and a /Rotate of 90: pictures and boxes
// are of the page as shown.
func TestRotatedCroppedPage(t *testing.T) {
	t.Parallel()
	pdf := doctest.PDF(doctest.PDFPage{Lines: []string{"Rotated words on a cropped page"}})
	pdf = bytes.Replace(pdf, []byte("/MediaBox [0 0 612 792]"), []byte("/MediaBox [0 0 612 792] /CropBox [36 36 576 756] /Rotate 90"), 1)
	d := open(t, fixXref(pdf))
	ctx := context.Background()
	w, h, err := d.PageSize(ctx, 1)
	if err != nil || w != 720 || h != 540 {
		t.Fatalf("page size = %v × %v (%v), want the CropBox turned: 720 × 540", w, h, err)
	}
	chars, err := d.Chars(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	pic, err := d.Render(ctx, 1, pagerender.Rect{}, 144)
	if err != nil {
		t.Fatal(err)
	}
	if b := pic.Image.Bounds(); b.Dx() != 1440 || b.Dy() != 1080 {
		t.Fatalf("picture %v, want 1440×1080", b)
	}
	word := chars[:7] // "Rotated"
	for i, c := range word {
		if got := ink(pic.Image, pic.Pixels(c.Box)); got < 0.1 {
			t.Errorf("glyph %q box %v holds %.2f ink", c.Rune, c.Box, got)
		}
		// Turned a quarter clockwise, the line runs down the page: each
		// glyph below the one before, on the same column.
		if i > 0 && (c.Box.Y0 <= word[i-1].Box.Y0 || c.Box.X1 < word[i-1].Box.X0 || c.Box.X0 > word[i-1].Box.X1) {
			t.Errorf("glyph %q at %v does not follow %q at %v down the page", c.Rune, c.Box, word[i-1].Rune, word[i-1].Box)
		}
	}
	// Text set 72 pt in from the MediaBox's left is 36 pt into the CropBox;
	// a 90° turn clockwise puts the left edge at the top.
	if y := word[0].Box.Y0 * 540; y < 34 || y > 40 {
		t.Errorf("first glyph %.1f pt from the top, want about 36", y)
	}
}

// fixXref rewrites a PDF's cross-reference table after an edit moved its
// objects.
func fixXref(pdf []byte) []byte {
	body := pdf[:bytes.Index(pdf, []byte("xref\n"))]
	objs := regexp.MustCompile(`(?m)^(\d+) 0 obj`).FindAllSubmatchIndex(body, -1)
	var out bytes.Buffer
	out.Write(body)
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, m := range objs {
		fmt.Fprintf(&out, "%010d 00000 n \n", m[0])
	}
	n, _ := strconv.Atoi(string(body[objs[len(objs)-1][2]:objs[len(objs)-1][3]]))
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", n+1, len(body))
	return out.Bytes()
}

// TestRegionIsCropOfPage: rendering a region gives the pixels of the
// same region of the whole page.
func TestRegionIsCropOfPage(t *testing.T) {
	t.Parallel()
	d := open(t, readPDF(t, "r-intro-p8-9.pdf"))
	ctx := context.Background()
	full, err := d.Render(ctx, 2, pagerender.Rect{}, 144)
	if err != nil {
		t.Fatal(err)
	}
	// A region on whole pixels at 144 dpi (2 px a point).
	region := pagerender.Rect{X0: 72.0 / 612, Y0: 144.0 / 792, X1: 400.0 / 612, Y1: 300.0 / 792}
	part, err := d.Render(ctx, 2, region, 144)
	if err != nil {
		t.Fatal(err)
	}
	want := full.Crop(region)
	if part.Image.Bounds().Size() != want.Image.Bounds().Size() {
		t.Fatalf("region picture %v, the page's crop %v", part.Image.Bounds(), want.Image.Bounds())
	}
	differ := 0
	wb := want.Image.Bounds()
	for y := 0; y < wb.Dy(); y++ {
		for x := 0; x < wb.Dx(); x++ {
			a, b := part.Image.RGBAAt(x, y), want.Image.RGBAAt(wb.Min.X+x, wb.Min.Y+y)
			if absDiff(a.R, b.R) > 8 || absDiff(a.G, b.G) > 8 || absDiff(a.B, b.B) > 8 {
				differ++
			}
		}
	}
	if differ > wb.Dx()*wb.Dy()/100 {
		t.Errorf("%d of %d pixels differ between the region and the page's crop", differ, wb.Dx()*wb.Dy())
	}
	if ink(part.Image, part.Image.Bounds()) == 0 {
		t.Error("the region has no text")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	r := pagerendertest.Renderer(t)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, pagerender.ErrDamaged},
		{"text", []byte("this is not a PDF at all\n"), pagerender.ErrDamaged},
		{"truncated", readPDF(t, "r-intro-p8-9.pdf")[:4000], nil}, // PDFium repairs what it can
		{"encrypted", readPDF(t, "encrypted.pdf"), pagerender.ErrEncrypted},
		{"aes256 user password", readPDF(t, "aes256-user-password.pdf"), pagerender.ErrEncrypted},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := r.Open(ctx, c.data)
			if c.want != nil {
				if !errors.Is(err, c.want) {
					t.Fatalf("Open = %v, want %v", err, c.want)
				}
				return
			}
			if err != nil {
				if !errors.Is(err, pagerender.ErrDamaged) {
					t.Fatalf("Open = %v, want success or ErrDamaged", err)
				}
				return
			}
			defer d.Close()
			for p := 1; p <= d.Pages(); p++ {
				if _, err := d.Render(ctx, p, pagerender.Rect{}, 50); err != nil && !errors.Is(err, pagerender.ErrDamaged) {
					t.Errorf("page %d: %v", p, err)
				}
			}
		})
	}
	d := open(t, readPDF(t, "owner-password.pdf")) // no password needed to read
	for _, p := range []int{0, -1, 2} {
		if _, err := d.Render(ctx, p, pagerender.Rect{}, 72); !errors.Is(err, pagerender.ErrNoPage) {
			t.Errorf("page %d: %v, want ErrNoPage", p, err)
		}
	}
	if _, err := d.Render(ctx, 1, pagerender.Rect{X0: 2, Y0: 2, X1: 3, Y1: 3}, 72); !errors.Is(err, pagerender.ErrNoPage) {
		t.Errorf("region off the page: %v, want ErrNoPage", err)
	}
	if _, err := d.Render(ctx, 1, pagerender.Rect{}, 0); err == nil {
		t.Error("0 dpi rendered")
	}
	// A huge resolution is capped, not a crash in 32-bit WebAssembly.
	pic, err := d.Render(ctx, 1, pagerender.Rect{}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if b := pic.Image.Bounds(); b.Dx()*b.Dy() > pagerender.MaxPixels {
		t.Errorf("5000 dpi picture is %v, past MaxPixels", b)
	}
}

// TestCloseAndStart covers a renderer's life: Warm before and after, a
// closed renderer refusing work, a renderer closed before it started.
func TestCloseAndStart(t *testing.T) {
	t.Parallel()
	r := pagerender.New(pagerender.Options{CacheDir: pagerendertest.CacheDir()})
	pagerendertest.Renderer(t) // fills the shared cache
	if !r.Warm() {
		t.Error("Warm = false with the compiled code in the cache")
	}
	ctx := context.Background()
	d, err := r.Open(ctx, readPDF(t, "two-column.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Render(ctx, 1, pagerender.Rect{}, 72); !errors.Is(err, pagerender.ErrClosed) {
		t.Errorf("render after Close: %v, want ErrClosed", err)
	}
	never := pagerender.New(pagerender.Options{})
	if never.Warm() {
		t.Error("Warm = true with no cache and no start")
	}
	if err := never.Close(); err != nil {
		t.Fatal(err)
	}
	if err := never.Start(ctx); !errors.Is(err, pagerender.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}
