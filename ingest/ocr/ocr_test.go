package ocr

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
)

// requireTools skips a test that needs pdftoppm and tesseract where they
// are not installed, except in CI, which installs them (.ci/run) and
// must not pass by skipping.
func requireTools(t testing.TB) {
	t.Helper()
	if err := Check(context.Background(), Options{}); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have the OCR tools: %v", err)
		}
		t.Skip(err)
	}
}

// scannedDeclaration is testdata/declaration.txt set as a text PDF and
// scanned at 300 dpi: an image-only PDF.
func scannedDeclaration(t testing.TB) (scan []byte, pages int, text string) {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/declaration.txt")
	if err != nil {
		t.Fatal(err)
	}
	pp := doctest.TextPages(string(raw))
	scan, err = doctest.Scan(context.Background(), doctest.PDF(pp...), len(pp), 300)
	if err != nil {
		t.Fatal(err)
	}
	return scan, len(pp), string(raw)
}

func TestScannedDeclarationWordF1(t *testing.T) {
	t.Parallel()
	requireTools(t)
	scan, n, _ := scannedDeclaration(t)
	var want []int
	for i := 1; i <= n; i++ {
		want = append(want, i)
	}
	var calls []int
	start := time.Now()
	pages, err := Recognize(t.Context(), scan, want, Options{}, func(done, total int) {
		if total != n {
			t.Errorf("progress total %d, want %d", total, n)
		}
		calls = append(calls, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("OCR of %d pages at 300 dpi: %.1f s/page (wall clock, %d workers)", n, time.Since(start).Seconds()/float64(n), min(n, 2))
	if len(calls) != n || calls[n-1] != n {
		t.Errorf("progress calls %v, want one per page", calls)
	}
	var all []string
	for i, p := range pages {
		if p.Number != i+1 || p.Text == "" {
			t.Fatalf("page %d: number %d, %d bytes of text", i+1, p.Number, len(p.Text))
		}
		for _, w := range p.Words {
			if !w.Span.Valid(len(p.Text)) || w.Box.Empty() || strings.ContainsAny(p.Text[w.Span.Start:w.Span.End], " \n") {
				t.Fatalf("page %d: word %+v is not one word of the text with a box", p.Number, w)
			}
		}
		all = append(all, p.Text)
	}
	f1 := wordF1(t, strings.Join(all, "\n\n"), "../../testdata/declaration.txt")
	t.Logf("word F1 against the text: %.4f", f1)
	if f1 < 0.95 {
		t.Errorf("word F1 %.4f, want at least 0.95", f1)
	}
}

// wordF1 scores text against the reference file (doctest.WordF1, the
// figure PDF extraction is measured by).
func wordF1(t *testing.T, text, reference string) float64 {
	t.Helper()
	ref, err := os.ReadFile(reference)
	if err != nil {
		t.Fatal(err)
	}
	_, _, f1 := doctest.WordF1(text, string(ref))
	return f1
}

func TestMissingToolsNamePackages(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Check(t.Context(), Options{Languages: "deu+chi_sim"})
	if !errors.Is(err, ErrNoTools) {
		t.Fatalf("err = %v, want ErrNoTools", err)
	}
	for _, pkg := range []string{"poppler-utils", "tesseract-ocr ", "tesseract-ocr-deu", "tesseract-ocr-chi-sim", "apt-get install"} {
		if !strings.Contains(err.Error(), pkg) {
			t.Errorf("%q does not name %q", err, pkg)
		}
	}
	if _, err := Recognize(t.Context(), []byte("%PDF-1.4"), []int{1}, Options{}, nil); !errors.Is(err, ErrNoTools) {
		t.Errorf("Recognize without the tools: %v", err)
	}
}

func TestMissingLanguage(t *testing.T) {
	t.Parallel()
	requireTools(t)
	err := Check(t.Context(), Options{Languages: "eng+xqz"})
	if !errors.Is(err, ErrNoTools) || !strings.Contains(err.Error(), "tesseract-ocr-xqz") || strings.Contains(err.Error(), "tesseract-ocr-eng") {
		t.Errorf("a missing language: %v", err)
	}
}

func BenchmarkOCRPage(b *testing.B) {
	requireTools(b)
	scan, _, _ := scannedDeclaration(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Recognize(context.Background(), scan, []int{1}, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// A page too large to render at the resolution asked for is read at a
// lower one, or not at all when even MinDPI would be too much; the page
// says which.
func TestPlanLargePages(t *testing.T) {
	t.Parallel()
	letter := planPage([2]float64{612, 792}, true, Options{})
	if letter.dpi != DefaultDPI || letter.warning != "" || letter.side < 3300 {
		t.Errorf("a letter page: %+v", letter)
	}
	poster := planPage([2]float64{33 * 72, 47 * 72}, true, Options{})
	if poster.dpi >= DefaultDPI || poster.dpi < MinDPI || !strings.Contains(poster.warning, "33 × 47 inches; OCR read it at") {
		t.Errorf("an A0 poster: %+v", poster)
	}
	if px := float64(poster.dpi*33) * float64(poster.dpi*47); px > DefaultMaxPixels {
		t.Errorf("an A0 poster at %d dpi is %.0f pixels", poster.dpi, px)
	}
	huge := planPage([2]float64{7200, 7200}, true, Options{})
	if huge.dpi != 0 || !strings.Contains(huge.warning, "100 × 100 inches, too large to read by OCR") {
		t.Errorf("a 100-inch page: %+v", huge)
	}
	unknown := planPage([2]float64{}, false, Options{})
	if unknown.dpi != DefaultDPI || unknown.side*unknown.side > DefaultMaxPixels {
		t.Errorf("a page of unknown size: %+v", unknown)
	}
}

// add --ocr of a 600-byte PDF with two 100-inch pages used to render
// 30,000-pixel-square images until memory ran out; its pages are refused
// at once, each with a warning, and a large page within reach is read at
// a resolution that fits.
func TestHugePagesAreNotRendered(t *testing.T) {
	t.Parallel()
	requireTools(t)
	huge := doctest.HugePagesPDF(2, 100)
	if len(huge) > 1000 {
		t.Fatalf("the file is %d bytes", len(huge))
	}
	pages, err := Recognize(t.Context(), huge, []int{1, 2}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p.Text != "" || !strings.Contains(p.Warning, "too large to read by OCR") {
			t.Errorf("page %d: %+v", p.Number, p)
		}
	}
	// a 10-inch page with a budget of a megapixel: read at 100 dpi
	pages, err = Recognize(t.Context(), doctest.HugePagesPDF(1, 10), []int{1}, Options{MaxPixels: 1_000_000}, nil)
	if err != nil || len(pages) != 1 || !strings.Contains(pages[0].Warning, "OCR read it at 100 dpi instead of 300") {
		t.Errorf("a 10-inch page in a megapixel: %+v, %v", pages, err)
	}
}
