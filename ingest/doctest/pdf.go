package doctest

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PDFPage is one US Letter page of a PDF: lines of text set in 11 pt
// Helvetica, or an image filling the page (a scan).
type PDFPage struct {
	Lines []string
	Image *image.Gray
}

// Page geometry, in points.
const (
	pageW, pageH = 612, 792
	marginLeft   = 72
	firstLine    = 720
	leading      = 14
	fontSize     = 11
	// LinesPerPage is how many lines TextPages sets on a page.
	LinesPerPage = (firstLine - 72) / leading
	// wrapColumn is where TextPages wraps: Helvetica's average letter is
	// about half its size, so 84 letters fill the 6.5 inches between the
	// margins.
	wrapColumn = 84
)

// TextPages sets text as pages: paragraphs (separated by blank lines)
// wrapped at about 84 characters, a blank line between them.
func TextPages(text string) []PDFPage {
	var lines []string
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		line := ""
		for _, w := range words {
			if line != "" && len(line)+1+len(w) > wrapColumn {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		lines = append(lines, line)
	}
	var pages []PDFPage
	for len(lines) > 0 {
		n := min(LinesPerPage, len(lines))
		pages = append(pages, PDFPage{Lines: lines[:n]})
		lines = lines[n:]
	}
	return pages
}

// PDF writes the pages as a PDF file.
func PDF(pages ...PDFPage) []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<< /Type /Catalog /Pages 2 0 R >>")
	add("") // the page tree, written when the pages are known
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		var content, resources string
		if p.Image != nil {
			b := p.Image.Bounds()
			img := add(stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8", b.Dx(), b.Dy()), grayRows(p.Image)))
			content = fmt.Sprintf("q %d 0 0 %d 0 0 cm /Im0 Do Q", pageW, pageH)
			resources = fmt.Sprintf("<< /XObject << /Im0 %d 0 R >> >>", img)
		} else {
			var sb strings.Builder
			fmt.Fprintf(&sb, "BT /F1 %d Tf %d TL %d %d Td\n", fontSize, leading, marginLeft, firstLine)
			for _, l := range p.Lines {
				fmt.Fprintf(&sb, "(%s) Tj T*\n", pdfString(l))
			}
			sb.WriteString("ET")
			content = sb.String()
			resources = fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font)
		}
		c := add(stream("", []byte(content)))
		page := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>", pageW, pageH, resources, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	return writePDF(objs)
}

// writePDF writes a PDF file of objects (objs[i] is object i+1; object 1
// the catalog) with its cross-reference table.
func writePDF(objs []string) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

// stream writes a Flate-compressed stream object with extra dictionary
// entries.
func stream(dict string, data []byte) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(data) // writing to memory cannot fail
	w.Close()
	return fmt.Sprintf("<< %s /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", dict, z.Len(), z.String())
}

// grayRows returns an image's pixels row by row.
func grayRows(g *image.Gray) []byte {
	b := g.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		i := g.PixOffset(b.Min.X, y)
		out = append(out, g.Pix[i:i+b.Dx()]...)
	}
	return out
}

// pdfString escapes a line for a PDF string in WinAnsiEncoding; letters
// outside Latin-1 become '?'.
func pdfString(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < 0x20:
		case r < 0x80:
			sb.WriteRune(r)
		case r >= 0xa0 && r <= 0xff:
			fmt.Fprintf(&sb, "\\%03o", r)
		default:
			sb.WriteByte('?')
		}
	}
	return sb.String()
}

// ErrNoPoppler means pdftoppm, which Render needs, is not installed.
var ErrNoPoppler = errors.New("pdftoppm is not installed (Debian: poppler-utils)")

// Render renders page (from 1) of a PDF as a grayscale image at dpi, as a
// scanner would capture the printed page.
func Render(ctx context.Context, pdf []byte, page, dpi int) (*image.Gray, error) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		return nil, ErrNoPoppler
	}
	dir, err := os.MkdirTemp("", "doctest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, err
	}
	n := fmt.Sprint(page)
	out, err := exec.CommandContext(ctx, "pdftoppm", "-r", fmt.Sprint(dpi), "-gray", "-png", "-f", n, "-l", n, "-singlefile", in).Output()
	if err != nil {
		return nil, fmt.Errorf("pdftoppm: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	if g, ok := img.(*image.Gray); ok {
		return g, nil
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	return g, nil
}

// Scan returns a scanned copy of a PDF: every page rendered at dpi and
// stored as an image, with no text layer.
func Scan(ctx context.Context, pdf []byte, pages, dpi int) ([]byte, error) {
	out := make([]PDFPage, pages)
	for i := range out {
		img, err := Render(ctx, pdf, i+1, dpi)
		if err != nil {
			return nil, err
		}
		out[i] = PDFPage{Image: img}
	}
	return PDF(out...), nil
}
