package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/docx"
	"github.com/citelens/citelens/ingest/epub"
	"github.com/citelens/citelens/ingest/htmltext"
	"github.com/citelens/citelens/ingest/ocr"
	"github.com/citelens/citelens/ingest/textbuild"
	"github.com/citelens/citelens/internal/config"
)

// A Loader turns a file's bytes into the text the library stores and what
// it knows of that text's structure. Every offset it returns is a byte
// offset into Loaded.Text.
//
// Load runs it on a goroutine of its own and stops waiting for it when
// the context is done (runLoader), so a loader should check the context
// in its long loops but cannot hang an add; its panics become errors. A
// loader must not touch shared state it does not own: an abandoned one
// runs on, unwatched.
type Loader interface {
	Load(ctx context.Context, content []byte, opt LoadOptions) (*Loaded, error)
}

// LoaderFunc adapts a function to a Loader.
type LoaderFunc func(ctx context.Context, content []byte, opt LoadOptions) (*Loaded, error)

// Load calls f.
func (f LoaderFunc) Load(ctx context.Context, content []byte, opt LoadOptions) (*Loaded, error) {
	return f(ctx, content, opt)
}

// Loaded is what a loader makes of a file.
type Loaded struct {
	// Text is the stored text: valid UTF-8 with no control characters
	// but newlines and tabs (text files keep theirs verbatim).
	Text string
	// PageStarts[i] is the byte offset at which page i+1 begins; nil or
	// empty means one page. Formats without fixed pages have one page per
	// chapter (EPUB) or one in all.
	PageStarts []int32
	// Title is the document's title, if the file names one.
	Title string
	// Headings and Tables are the structure the format marks, as byte
	// spans of Text.
	Headings []structure.Heading
	Tables   []structure.Table
	// Warnings say what of the file could not be read.
	Warnings []string
	// OCRPages lists the pages (1-based) whose text was read by OCR.
	OCRPages []int
	// PageLabels are the pages' printed labels, when the file has them.
	PageLabels []docstore.PageLabelRange
	// Geometry is where the text stands on each page, one pagegeom
	// encoding per page (offsets into Text), for formats with fixed
	// pages; nil for the others.
	Geometry [][]byte
}

// LoadOptions tune loading.
type LoadOptions struct {
	// OCR, if set, reads the pages of a PDF that have no text layer with
	// Tesseract; unset, such pages are left empty (and a PDF with no text
	// at all is refused).
	OCR *ocr.Options
	// Progress, if not nil, is told of page-wise work: a PDF's pages
	// extracted (StageExtracting), then its pages OCR'd (StageOCR).
	Progress func(stage string, done, total int)
}

// LoadOptionsFor are the load options cfg asks for: the pages of a PDF
// that have no text layer read by OCR, in its languages, when its ocr is
// auto.
func LoadOptionsFor(cfg config.Config) LoadOptions {
	if !cfg.OCREnabled() {
		return LoadOptions{}
	}
	return LoadOptions{OCR: &ocr.Options{Languages: cfg.OCRLang}}
}

func (o LoadOptions) progress(stage string) func(done, total int) {
	if o.Progress == nil {
		return nil
	}
	return func(done, total int) { o.Progress(stage, done, total) }
}

// SetLoadOptions sets how Add reads files from now on (OCR). Their
// Progress is ignored: Add reports through its own callback.
func (p *Pipeline) SetLoadOptions(opt LoadOptions) {
	p.mu.Lock()
	defer p.mu.Unlock()
	opt.Progress = nil
	p.load = opt
}

// loadOptions are the options Add loads a file with, reporting progress
// through report.
func (p *Pipeline) loadOptions(report func(stage string, done, total int)) LoadOptions {
	p.mu.Lock()
	defer p.mu.Unlock()
	opt := p.load
	opt.Progress = report
	return opt
}

// Format is a file type citelens reads.
type Format struct {
	// Kind names it in DocInfo.Kind: "pdf", "html".
	Kind string
	// Extensions are the file name endings it is recognised by, lower
	// case with the dot: ".html", ".htm".
	Extensions []string
	// Description says what it is, for help text: "web pages".
	Description string
	Loader      Loader
}

var (
	formatsMu sync.RWMutex
	formats   []Format
	byExt     = map[string]Format{}
)

// Register adds a file type. It panics if one of its extensions is
// already taken: that is a programming error.
func Register(f Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	for _, e := range f.Extensions {
		if e != strings.ToLower(e) || !strings.HasPrefix(e, ".") {
			panic(fmt.Sprintf("ingest.Register: extension %q must be lower case and start with a dot", e))
		}
		if old, dup := byExt[e]; dup {
			panic(fmt.Sprintf("ingest.Register: %s is already read as %s", e, old.Kind))
		}
	}
	for _, e := range f.Extensions {
		byExt[e] = f
	}
	formats = append(formats, f)
}

// Formats lists the registered file types in the order they were
// registered.
func Formats() []Format {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	return slices.Clone(formats)
}

// FormatOf returns the file type of a path, by its extension.
func FormatOf(path string) (Format, bool) {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	f, ok := byExt[strings.ToLower(filepath.Ext(path))]
	return f, ok
}

// SupportedExtensions lists the extensions Add accepts, for messages:
// ".txt, .text, .md, …".
func SupportedExtensions() string {
	var exts []string
	for _, f := range Formats() {
		exts = append(exts, f.Extensions...)
	}
	return strings.Join(exts, ", ")
}

func init() {
	Register(Format{Kind: "pdf", Extensions: []string{".pdf"}, Description: "PDF; pages without a text layer (scans) are read by OCR when asked", Loader: LoaderFunc(loadPDF)})
	Register(Format{Kind: "text", Extensions: []string{".txt", ".text"}, Description: "plain text (UTF-8)", Loader: LoaderFunc(loadText)})
	Register(Format{Kind: "markdown", Extensions: []string{".md", ".markdown"}, Description: "Markdown", Loader: LoaderFunc(loadMarkdown)})
	Register(Format{Kind: "html", Extensions: []string{".html", ".htm", ".xhtml"}, Description: "web pages: the article, without menus, ads and scripts", Loader: structured(func(b []byte) (*textbuild.Result, error) {
		return htmltext.Extract(b, htmltext.Options{})
	})})
	Register(Format{Kind: "docx", Extensions: []string{".docx"}, Description: "Word documents", Loader: structured(docx.Extract)})
	Register(Format{Kind: "epub", Extensions: []string{".epub"}, Description: "e-books (EPUB, without DRM): one page per chapter", Loader: structured(epub.Extract)})
}

// loadText reads a text file: its bytes, verbatim, are the stored text
// (decoded to UTF-8 from UTF-16, and without a byte-order mark; see
// decodeText), its form feeds the page breaks.
func loadText(_ context.Context, content []byte, _ LoadOptions) (*Loaded, error) {
	text, err := decodeText(content)
	if err != nil {
		return nil, err
	}
	return &Loaded{Text: text, PageStarts: formFeedPages(text)}, nil
}

// loadMarkdown reads a Markdown file verbatim, like text, and reports its
// headings.
func loadMarkdown(ctx context.Context, content []byte, opt LoadOptions) (*Loaded, error) {
	ld, err := loadText(ctx, content, opt)
	if err != nil {
		return nil, err
	}
	ld.Headings = markdownHeadings(ld.Text)
	return ld, nil
}

// structured adapts an extractor of a structured format to a Loader.
func structured(extract func([]byte) (*textbuild.Result, error)) Loader {
	return LoaderFunc(func(ctx context.Context, content []byte, _ LoadOptions) (*Loaded, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := extract(content)
		if err != nil {
			return nil, err
		}
		return &Loaded{Text: r.Text, PageStarts: r.PageStarts, Title: r.Title, Headings: r.Headings, Tables: r.Tables, Warnings: r.Warnings}, nil
	})
}

// check verifies what a loader returned, so a loader's mistake is an
// error here rather than a panic or a wrong citation later.
func (ld *Loaded) check() error {
	n := len(ld.Text)
	if !utf8.ValidString(ld.Text) {
		return fmt.Errorf("the loader returned invalid UTF-8")
	}
	for i, s := range ld.PageStarts {
		if s < 0 || int(s) > n || (i > 0 && s < ld.PageStarts[i-1]) || (i == 0 && s != 0) {
			return fmt.Errorf("the loader returned page %d starting at %d, out of order or outside the text", i+1, s)
		}
	}
	for _, h := range ld.Headings {
		if !h.Span.Valid(n) {
			return fmt.Errorf("the loader returned a heading at %d–%d, outside the text", h.Span.Start, h.Span.End)
		}
	}
	for _, t := range ld.Tables {
		spans := append(append([]structure.Span{t.Caption}, t.Header...), t.Rows...)
		for i, s := range spans {
			if (i > 0 || s.Len() != 0) && !s.Valid(n) {
				return fmt.Errorf("the loader returned a table row at %d–%d, outside the text", s.Start, s.End)
			}
		}
	}
	return docstore.CheckGeometry(ld.Geometry, len(ld.PageStarts), n)
}
