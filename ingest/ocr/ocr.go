// Package ocr reads the pages of a PDF that have no text layer — scans —
// by rendering them with poppler's pdftoppm and recognising them with
// Tesseract, both run as programs (Debian: poppler-utils, tesseract-ocr and
// a tesseract-ocr-LANG package per language).
//
// Tesseract's TSV output gives every word its box on the page image and
// its block, paragraph and line; lines and paragraphs are built from
// those, words broken across lines by a hyphen are joined, and a short
// paragraph set clearly larger than the page's body text is reported as a
// heading. Each recognised word keeps its box (Page.Words), so its place
// on the page can be shown.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// DefaultDPI is the resolution pages are rendered at: Tesseract reads
// body text best at 300 dpi.
const DefaultDPI = 300

// DefaultLanguages is the Tesseract language used when none is given.
const DefaultLanguages = "eng"

// Pages are rendered to at most DefaultMaxPixels pixels: a page larger
// than that at the resolution asked for is read at a lower one that fits
// (and the page says so), and a page that would not fit even at MinDPI is
// not read. A 100-inch page at 300 dpi is 900 megapixels: gigabytes for
// the renderer and for Tesseract, for a page no scanner made.
const (
	DefaultMaxPixels = 25_000_000 // a 17 × 22 inch page at 250 dpi
	MinDPI           = 72
)

// ErrNoTools means pdftoppm or tesseract (or a language's data) is not
// installed; the error names the Debian packages to install.
var ErrNoTools = errors.New("OCR needs pdftoppm and tesseract")

// Options tune recognition.
type Options struct {
	// Languages are Tesseract language codes joined by "+" ("eng",
	// "deu+eng"); "" means DefaultLanguages.
	Languages string
	// DPI is the rendering resolution; 0 means DefaultDPI.
	DPI int
	// MaxPixels bounds the image a page is rendered to; 0 means
	// DefaultMaxPixels.
	MaxPixels int
}

func (o Options) languages() string {
	if l := strings.TrimSpace(o.Languages); l != "" {
		return l
	}
	return DefaultLanguages
}

func (o Options) dpi() int {
	if o.DPI > 0 {
		return o.DPI
	}
	return DefaultDPI
}

func (o Options) maxPixels() int {
	if o.MaxPixels > 0 {
		return o.MaxPixels
	}
	return DefaultMaxPixels
}

// Check reports whether the tools and the language data OCR needs are
// installed; if not, its error wraps ErrNoTools and names the packages.
func Check(ctx context.Context, opt Options) error {
	var missing []string
	for _, tool := range []string{"pdftoppm", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, "poppler-utils")
			break
		}
	}
	langs := strings.Split(opt.languages(), "+")
	if _, err := exec.LookPath("tesseract"); err != nil {
		missing = append(missing, "tesseract-ocr")
		for _, l := range langs {
			missing = append(missing, languagePackage(l))
		}
	} else {
		out, err := exec.CommandContext(ctx, "tesseract", "--list-langs").Output()
		if err != nil {
			return fmt.Errorf("tesseract --list-langs failed: %v", err)
		}
		have := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			have[strings.TrimSpace(l)] = true
		}
		for _, l := range langs {
			if !have[l] {
				missing = append(missing, languagePackage(l))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w, with the data of each language read; install what is missing (Debian, Ubuntu): sudo apt-get install %s", ErrNoTools, strings.Join(missing, " "))
	}
	return nil
}

// languagePackage is the Debian package with a Tesseract language's data:
// eng → tesseract-ocr-eng, chi_sim → tesseract-ocr-chi-sim,
// script/Latin → tesseract-ocr-script-latn.
func languagePackage(lang string) string {
	l := strings.ToLower(lang)
	if s, ok := strings.CutPrefix(l, "script/"); ok {
		if len(s) > 4 {
			s = s[:4]
		}
		l = "script-" + s
	}
	return "tesseract-ocr-" + strings.ReplaceAll(l, "_", "-")
}

// Recognize OCRs the given pages (1-based) of the PDF in content, several
// at once, and returns them in the order asked. progress, if not nil, is
// called after each page with the pages done and the total.
func Recognize(ctx context.Context, content []byte, pages []int, opt Options, progress func(done, total int)) ([]Page, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	if err := Check(ctx, opt); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "citelens-ocr-")
	if err != nil {
		return nil, fmt.Errorf("OCR cannot make a temporary folder: %v", err)
	}
	defer os.RemoveAll(dir)
	pdf := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(pdf, content, 0o600); err != nil {
		return nil, fmt.Errorf("OCR cannot write a temporary file: %v", err)
	}

	sizes := pageSizes(ctx, pdf, slices.Min(pages), slices.Max(pages))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]Page, len(pages))
	errs := make([]error, len(pages))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(runtime.GOMAXPROCS(0), len(pages)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				size, known := sizes[pages[i]]
				out[i], errs[i] = recognizePage(ctx, pdf, pages[i], planPage(size, known, opt))
				if errs[i] != nil {
					cancel()
				}
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(pages))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range pages {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// recognizePage renders one page as r plans and reads it: pdftoppm's
// PNG is piped into tesseract, whose TSV is parsed into the page.
func recognizePage(ctx context.Context, pdf string, page int, r render) (Page, error) {
	if r.dpi == 0 {
		return Page{Number: page, Warning: fmt.Sprintf(r.warning, page)}, nil
	}
	n := fmt.Sprint(page)
	// the CropBox, as viewers show the page, so that the words' boxes
	// are where the page view draws them; the crop (-W, -H) bounds the
	// image whatever the page's size turns out to be
	side := fmt.Sprint(r.side)
	img, err := output(exec.CommandContext(ctx, "pdftoppm", "-r", fmt.Sprint(r.dpi), "-cropbox", "-W", side, "-H", side, "-gray", "-png", "-f", n, "-l", n, "-singlefile", pdf))
	if err != nil {
		return Page{}, toolError(ctx, err, "page %d cannot be rendered for OCR: pdftoppm: %w", page)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return Page{}, fmt.Errorf("page %d cannot be rendered for OCR: pdftoppm wrote no PNG image (%v)", page, err)
	}
	read := exec.CommandContext(ctx, "tesseract", "stdin", "stdout", "-l", r.languages, "--dpi", fmt.Sprint(r.dpi), "--psm", "3", "tsv")
	// One thread per tesseract: pages are already read in parallel, and
	// OpenMP threads on top of that slow every page down.
	read.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	read.Stdin = bytes.NewReader(img)
	tsv, err := output(read)
	if err != nil {
		return Page{}, toolError(ctx, err, "page %d cannot be read by OCR: tesseract: %w", page)
	}
	words, err := parseTSV(tsv)
	if err != nil {
		return Page{}, fmt.Errorf("page %d: tesseract's output cannot be read: %v", page, err)
	}
	p := layout(words)
	p.Number, p.Size = page, image.Pt(cfg.Width, cfg.Height)
	if r.warning != "" {
		p.Warning = fmt.Sprintf(r.warning, page)
	}
	return p, nil
}

// render is how a page is rendered: at dpi (0: not at all), cropped to
// side pixels square, with a warning to give (its "%d" the page's
// number) when that is not as asked.
type render struct {
	dpi, side int
	languages string
	warning   string
}

// planPage decides how a page of size points (width, height; known
// false if its size could not be read) is rendered within opt's pixels.
func planPage(size [2]float64, known bool, opt Options) render {
	r := render{dpi: opt.dpi(), languages: opt.languages()}
	maxPx := float64(opt.maxPixels())
	if !known {
		// read at most a square of the pixels allowed
		r.side = int(math.Sqrt(maxPx))
		r.warning = fmt.Sprintf("page %%d: its size could not be read; at most %d × %d pixels of it were read by OCR", r.side, r.side)
		return r
	}
	w, h := size[0]/72, size[1]/72 // inches
	px := func(dpi int) float64 { return w * float64(dpi) * h * float64(dpi) }
	if px(r.dpi) > maxPx {
		fit := int(float64(r.dpi) * math.Sqrt(maxPx/px(r.dpi)))
		if fit < MinDPI {
			r.warning = fmt.Sprintf("page %%d is %s × %s inches, too large to read by OCR: even at %d dpi it would be %.0f megapixels, over the %.0f allowed", inches(w), inches(h), MinDPI, px(MinDPI)/1e6, maxPx/1e6)
			r.dpi = 0
			return r
		}
		r.warning = fmt.Sprintf("page %%d is %s × %s inches; OCR read it at %d dpi instead of %d, to stay within %.0f megapixels", inches(w), inches(h), fit, r.dpi, maxPx/1e6)
		r.dpi = fit
	}
	r.side = int(math.Ceil(max(w, h)*float64(r.dpi))) + 1
	return r
}

// inches writes a length in inches to one decimal, without a ".0".
func inches(in float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(in, 'f', 1, 64), ".0")
}

// pageSizes returns the sizes in points (width, height) of pages first to
// last as poppler sees them (pdfinfo), for the pages it reports.
func pageSizes(ctx context.Context, pdf string, first, last int) map[int][2]float64 {
	sizes := map[int][2]float64{}
	out, err := exec.CommandContext(ctx, "pdfinfo", "-f", fmt.Sprint(first), "-l", fmt.Sprint(last), pdf).Output()
	if err != nil {
		return sizes
	}
	// "Page    1 size: 612 x 792 pts (letter)"
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "Page" || f[2] != "size:" || f[4] != "x" {
			continue
		}
		n, err1 := strconv.Atoi(f[1])
		w, err2 := strconv.ParseFloat(f[3], 64)
		h, err3 := strconv.ParseFloat(f[5], 64)
		if err1 == nil && err2 == nil && err3 == nil && w > 0 && h > 0 {
			sizes[n] = [2]float64{w, h}
		}
	}
	return sizes
}

// output runs a tool and returns its standard output. A failure is told by
// the first line of the tool's error output, else its exit status.
func output(cmd *exec.Cmd) ([]byte, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Estimating resolution") {
			return nil, errors.New(l)
		}
	}
	return nil, err
}

// toolError is ctx's error when a tool failed because ctx was done (the
// tool was killed), else err worded with format.
func toolError(ctx context.Context, err error, format string, page int) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf(format, page, err)
}

// median returns the (lower) median of xs, 0 for none; xs is sorted in
// place.
func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	sort.Ints(xs)
	return xs[(len(xs)-1)/2]
}
