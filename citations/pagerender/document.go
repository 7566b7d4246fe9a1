package pagerender

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// MaxPixels bounds the pixels of one picture: PDFium runs as 32-bit
// WebAssembly, and a terminal or a report has no use for more. A bigger
// request is drawn at a lower resolution.
const MaxPixels = 24_000_000

// Document is a PDF open in a Renderer. Its methods are safe for
// concurrent use. Close it when done; a Document outlives a replaced
// PDFium instance (after a timeout) by opening itself again.
type Document struct {
	r     *Renderer
	data  []byte
	pages int

	// Guarded by r.mu: the document's handle in instance number gen.
	ref references.FPDF_DOCUMENT
	gen int
}

// Open opens a PDF from its bytes, which the Document keeps (PDFium reads
// them as it goes). It starts the renderer if it has not started.
func (r *Renderer) Open(ctx context.Context, data []byte) (*Document, error) {
	d := &Document{r: r, data: data}
	err := r.call(ctx, func(inst pdfium.Pdfium, gen int) error {
		if err := d.ensure(inst, gen); err != nil {
			return err
		}
		n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: d.ref})
		if err != nil {
			return fmt.Errorf("%w: counting its pages: %v", ErrDamaged, err)
		}
		d.pages = n.PageCount
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ensure opens d in instance gen if it is not open there. r.mu is held.
func (d *Document) ensure(inst pdfium.Pdfium, gen int) error {
	if d.gen == gen && d.ref != "" {
		return nil
	}
	res, err := inst.OpenDocument(&requests.OpenDocument{File: &d.data})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return ErrEncrypted
	case err != nil:
		return fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	d.ref, d.gen = res.Document, gen
	return nil
}

// Pages is the number of pages.
func (d *Document) Pages() int { return d.pages }

// Close releases the document in PDFium.
func (d *Document) Close() error {
	r := d.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inst == nil || d.gen != r.gen || d.ref == "" {
		return nil // closed with its instance
	}
	_, err := r.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.ref})
	d.ref = ""
	return err
}

// page returns the request that names page n (1-based) after checking it.
func (d *Document) page(n int) (requests.Page, error) {
	if n < 1 || n > d.pages {
		return requests.Page{}, fmt.Errorf("%w: page %d of %d", ErrNoPage, n, d.pages)
	}
	return requests.Page{ByIndex: &requests.PageByIndex{Document: d.ref, Index: n - 1}}, nil
}

// PageSize returns page n's size (1-based) as shown, in points (1/72
// inch): its CropBox, turned by its /Rotate.
func (d *Document) PageSize(ctx context.Context, n int) (w, h float64, err error) {
	err = d.r.call(ctx, func(inst pdfium.Pdfium, gen int) error {
		w, h, err = d.pageSize(inst, gen, n)
		return err
	})
	return w, h, onPage(n, err)
}

func (d *Document) pageSize(inst pdfium.Pdfium, gen, n int) (float64, float64, error) {
	if err := d.ensure(inst, gen); err != nil {
		return 0, 0, err
	}
	pg, err := d.page(n)
	if err != nil {
		return 0, 0, err
	}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: pg})
	if err != nil {
		return 0, 0, fmt.Errorf("%w: page %d: %v", ErrDamaged, n, err)
	}
	if !(size.Width > 0 && size.Height > 0) {
		return 0, 0, fmt.Errorf("%w: page %d has no area", ErrDamaged, n)
	}
	return size.Width, size.Height, nil
}

// Picture is a rendered page, or a region of one.
type Picture struct {
	// Image holds the pixels, opaque: where the page is transparent it
	// is drawn over white, as on paper.
	Image *image.RGBA
	// Page is the page number (1-based).
	Page int
	// Region is the part of the page shown, in fractions of the page.
	Region Rect
}

// Render draws the region of page n (1-based; the zero Rect is the whole
// page) at dpi dots per inch, with annotations, over white. A picture
// that would pass MaxPixels is drawn at a lower resolution.
func (d *Document) Render(ctx context.Context, n int, region Rect, dpi float64) (*Picture, error) {
	if region.Empty() {
		region = WholePage
	}
	region = region.Intersect(WholePage)
	if region.Empty() {
		return nil, fmt.Errorf("%w: the region to render lies outside page %d", ErrNoPage, n)
	}
	if !(dpi > 0) || math.IsInf(dpi, 0) {
		return nil, fmt.Errorf("pagerender: %v dpi: give a positive resolution", dpi)
	}
	var pic *Picture
	err := d.r.call(ctx, func(inst pdfium.Pdfium, gen int) error {
		wPt, hPt, err := d.pageSize(inst, gen, n)
		if err != nil {
			return err
		}
		crop := &requests.RenderPageCrop{
			X: region.X0 * wPt, Y: region.Y0 * hPt,
			Width: region.Width() * wPt, Height: region.Height() * hPt,
		}
		scale := dpi / 72
		if px := crop.Width * crop.Height * scale * scale; px > MaxPixels {
			scale *= math.Sqrt(MaxPixels / px)
		}
		w, h := max(1, int(math.Round(crop.Width*scale))), max(1, int(math.Round(crop.Height*scale)))
		pg, _ := d.page(n)
		if err := checkBudget(inst, pg, n); err != nil {
			return err
		}
		req := &requests.RenderPageInPixels{Page: pg, Width: w, Height: h, RenderFlags: renderFlags}
		if region != WholePage {
			req.Crop = crop
		}
		res, err := inst.RenderPageInPixels(req)
		if err != nil {
			return fmt.Errorf("%w: page %d: %v", ErrDamaged, n, err)
		}
		defer res.Cleanup() // the pixels belong to the module until copied
		img := opaqueCopy(res.Result.RenderedImage)
		if img == nil {
			return fmt.Errorf("%w: page %d: PDFium returned no picture", ErrRenderer, n)
		}
		pic = &Picture{Image: img, Page: n, Region: region}
		return nil
	})
	return pic, onPage(n, err)
}

// onPage makes err the one-line error that names page n: the renderer's
// own failures (a timeout, a trap, a cancelled context) do not know the
// page, and a trap's message carries a WebAssembly stack trace.
func onPage(n int, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	first, _, multi := strings.Cut(msg, "\n")
	named := strings.Contains(first, fmt.Sprintf("page %d", n))
	if named && !multi {
		return err
	}
	return &pageError{page: n, msg: strings.TrimSpace(first), named: named, err: err}
}

// pageError is a failure on one page, printed on one line.
type pageError struct {
	page  int
	msg   string
	named bool
	err   error
}

func (e *pageError) Error() string {
	if e.named {
		return e.msg
	}
	return fmt.Sprintf("page %d: %s", e.page, e.msg)
}

func (e *pageError) Unwrap() error { return e.err }

// The page budget: what a page may declare before it is refused rather
// than drawn. A scanned page at 600 dpi is about 35 million pixels and a
// dense technical drawing some tens of thousands of objects; a page past
// these would exhaust MemoryLimit or the timeout anyway, later and at
// greater cost.
const (
	// MaxImagePixels bounds the pixels a page's images declare, together.
	MaxImagePixels = 256 << 20
	// MaxObjects bounds a page's objects, counting those inside forms
	// each time a form is drawn.
	MaxObjects = 500_000
)

// checkBudget walks page pg's objects, into its forms, and refuses the
// page when they declare more than the budget. The walk stops at the
// budget, so a page of millions of objects costs no more than one of
// MaxObjects.
func checkBudget(inst pdfium.Pdfium, pg requests.Page, n int) error {
	count, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: pg})
	if err != nil {
		return nil // nothing to check: drawing will say what is wrong
	}
	var objects, pixels uint64
	var walk func(obj references.FPDF_PAGEOBJECT) error
	walk = func(obj references.FPDF_PAGEOBJECT) error {
		if objects++; objects > MaxObjects {
			return fmt.Errorf("%w: page %d has more than %d objects", ErrTooLarge, n, MaxObjects)
		}
		typ, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
		if err != nil {
			return nil
		}
		switch typ.Type {
		case enums.FPDF_PAGEOBJ_IMAGE:
			size, err := inst.FPDFImageObj_GetImagePixelSize(&requests.FPDFImageObj_GetImagePixelSize{ImageObject: obj})
			if err != nil {
				return nil
			}
			pixels += uint64(size.Width) * uint64(size.Height)
			if pixels > MaxImagePixels {
				return fmt.Errorf("%w: page %d's images declare %d×%d pixels, past %d million", ErrTooLarge, n, size.Width, size.Height, MaxImagePixels>>20)
			}
		case enums.FPDF_PAGEOBJ_FORM:
			kids, err := inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
			if err != nil {
				return nil
			}
			for i := 0; i < kids.Count; i++ {
				kid, err := inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(i)})
				if err != nil {
					continue
				}
				if err := walk(kid.PageObject); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := 0; i < count.Count; i++ {
		obj, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: pg, Index: i})
		if err != nil {
			continue
		}
		if err := walk(obj.PageObject); err != nil {
			return err
		}
	}
	return nil
}

// opaqueCopy copies a rendered image out of the module's memory, laid
// over white where it is transparent.
func opaqueCopy(src image.Image) *image.RGBA {
	switch s := src.(type) {
	case *image.RGBA:
		b := s.Bounds()
		dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := 0; y < b.Dy(); y++ {
			row := s.Pix[y*s.Stride : y*s.Stride+4*b.Dx()]
			out := dst.Pix[y*dst.Stride : y*dst.Stride+4*b.Dx()]
			for i := 0; i < len(row); i += 4 {
				// Premultiplied: over white adds what alpha leaves out.
				gap := 255 - row[i+3]
				out[i], out[i+1], out[i+2], out[i+3] = row[i]+gap, row[i+1]+gap, row[i+2]+gap, 255
			}
		}
		return dst
	case *image.Gray:
		b := s.Bounds()
		dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < b.Dx(); x++ {
				v := s.Pix[y*s.Stride+x]
				i := y*dst.Stride + 4*x
				dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = v, v, v, 255
			}
		}
		return dst
	}
	return nil
}

// Char is one character of a page's text as PDFium reads it.
type Char struct {
	Rune rune
	// Box is where the glyph is drawn, in fractions of the page; empty
	// for characters PDFium adds (spaces and line ends it infers).
	Box Rect
}

// Chars returns the characters of page n (1-based) with their boxes, in
// PDFium's reading order: an extractor independent of the library's own,
// to check its geometry against.
func (d *Document) Chars(ctx context.Context, n int) ([]Char, error) {
	var chars []Char
	err := d.r.call(ctx, func(inst pdfium.Pdfium, gen int) error {
		wPt, hPt, err := d.pageSize(inst, gen, n)
		if err != nil {
			return err
		}
		pg, _ := d.page(n)
		tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: pg})
		if err != nil {
			return fmt.Errorf("%w: page %d's text: %v", ErrDamaged, n, err)
		}
		defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
		count, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
		if err != nil {
			return fmt.Errorf("%w: page %d's text: %v", ErrDamaged, n, err)
		}
		// Points map to a device of 16 units a point: PDFium answers in
		// whole device units, and a sixteenth of a point is finer than
		// any glyph edge.
		const unit = 16
		sx, sy := int(math.Round(wPt*unit)), int(math.Round(hPt*unit))
		toPage := func(x, y float64) (float64, float64, error) {
			dv, err := inst.FPDF_PageToDevice(&requests.FPDF_PageToDevice{Page: pg, SizeX: sx, SizeY: sy, PageX: x, PageY: y})
			if err != nil {
				return 0, 0, err
			}
			return float64(dv.DeviceX) / float64(sx), float64(dv.DeviceY) / float64(sy), nil
		}
		chars = make([]Char, 0, count.Count)
		for i := 0; i < count.Count; i++ {
			u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp.TextPage, Index: i})
			if err != nil {
				return fmt.Errorf("%w: page %d's text: %v", ErrDamaged, n, err)
			}
			c := Char{Rune: rune(u.Unicode)}
			gen, err := inst.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp.TextPage, Index: i})
			if err == nil && !gen.IsGenerated {
				box, err := inst.FPDFText_GetCharBox(&requests.FPDFText_GetCharBox{TextPage: tp.TextPage, Index: i})
				if err == nil && box.Right > box.Left && box.Top > box.Bottom {
					x0, y0, err0 := toPage(box.Left, box.Top)
					x1, y1, err1 := toPage(box.Right, box.Bottom)
					if err0 == nil && err1 == nil {
						c.Box = Rect{X0: min(x0, x1), Y0: min(y0, y1), X1: max(x0, x1), Y1: max(y0, y1)}
					}
				}
			}
			chars = append(chars, c)
		}
		return nil
	})
	return chars, onPage(n, err)
}
