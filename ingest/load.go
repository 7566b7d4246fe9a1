package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/headings"
	"github.com/citelens/citelens/ingest/split"
)

// Ingest stages, reported through Progress.Stage.
const (
	StageReading    = "reading"
	StageExtracting = "extracting"
	StageIndexing   = "indexing"
	StageWriting    = "writing"
)

// Progress reports how an ingest is going. Done and Total count Unit:
// pages while extracting a PDF, megabytes while indexing a streamed text;
// they are zero otherwise.
type Progress struct {
	Path        string
	Stage       string
	Done, Total int
	// Unit is what Done and Total count: "pages" (or "" for pages),
	// "MB".
	Unit string
}

// DefaultChunkTokens is the stored chunk size: LongCite's 128 tokens.
const DefaultChunkTokens = split.DefaultChunkTokens

// Document is a file made ready to store: the library's Document, with
// its text split into sentences, chunks, sections and tables, and its
// page geometry.
type Document struct {
	*docstore.Document
	// Geometry is where the text stands on each page, one pagegeom
	// encoding a page (offsets into Text), for formats with fixed pages;
	// nil for the others.
	Geometry [][]byte
}

// formatOf returns the format registered for path's extension, or an
// error wrapping ErrUnsupported that lists the types citelens reads.
func formatOf(path string) (Format, error) {
	f, ok := FormatOf(path)
	if !ok {
		return f, fmt.Errorf("%s: %w %q (citelens reads %s)", path, ErrUnsupported, strings.ToLower(filepath.Ext(path)), SupportedExtensions())
	}
	return f, nil
}

// unwrapPathError drops the *PathError's repetition of the path.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Load reads a file's content into a Document: text, pages, sentences and
// chunks, not yet indexed or stored. The loader registered for the path's
// extension reads it (see Register).
func Load(ctx context.Context, path string, content []byte, opt LoadOptions) (*Document, error) {
	f, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	d := &docstore.Document{DocInfo: docstore.DocInfo{
		ID:    docstore.IDFor(content),
		Name:  filepath.Base(path),
		Path:  abs,
		Kind:  f.Kind,
		Added: time.Now().UTC().Truncate(time.Second),
	}}
	ld, err := runLoader(ctx, f.Loader, content, opt)
	if err == nil {
		err = ld.check()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.Text, d.PageStarts, d.Title, d.Warnings, d.OCRPages = ld.Text, ld.PageStarts, ld.Title, ld.Warnings, ld.OCRPages
	d.PageLabels = ld.PageLabels
	found := structureInput(d)
	found.Headings, found.Tables = ld.Headings, ld.Tables
	if len(d.PageStarts) == 0 {
		d.PageStarts = []int32{0}
	}
	d.Pages = len(d.PageStarts)
	if len(d.Text) > 1<<31-1 {
		return nil, fmt.Errorf("%s: the text is over 2 GB, too large for one document", path)
	}
	splitDocument(d, found)
	if len(d.Sentences) == 0 {
		return nil, fmt.Errorf("%s: %w to index (the file is empty or only whitespace)", path, ErrEmpty)
	}
	if d.Title == "" {
		d.Title = guessTitle(d)
	}
	d.Bytes, d.NumSents, d.NumChunks = len(d.Text), len(d.Sentences), len(d.Chunks)
	return &Document{Document: d, Geometry: ld.Geometry}, nil
}

// Split fills d's Sentences, Chunks, Sections and Tables from its Text,
// PageStarts (at least one) and Kind, and its counts of them, as Load
// does but for what only a loader knows (a PDF's outline and fonts): the
// layout of a document rebuilt from its stored text (Reindex, and
// docstore's Salvage, whose Splitter it is).
func Split(d *docstore.Document) {
	splitDocument(d, structureInput(d))
	d.Bytes, d.NumSents, d.NumChunks = len(d.Text), len(d.Sentences), len(d.Chunks)
}

// checkText refuses content that is not UTF-8 text, naming the offset of
// the first offending byte so the user can look.
func checkText(b []byte) error {
	i, nul := firstBadByte(b)
	switch {
	case i < 0:
		return nil
	case nul:
		return fmt.Errorf("%w (NUL byte at offset %d)", ErrBinary, i)
	}
	return fmt.Errorf("%w: invalid byte 0x%02x at offset %d; convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)", ErrInvalidUTF8, b[i], i)
}

// firstBadByte returns the offset of the first NUL byte (nul set) or,
// when there is none, of the first byte that is not valid UTF-8; -1 when
// b is UTF-8 text.
func firstBadByte(b []byte) (i int, nul bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return i, true
	}
	if utf8.Valid(b) {
		return -1, false
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i, false
		}
		i += n
	}
	return -1, false
}

// formFeedPages returns the page starts of a text whose pages are
// separated by form feeds, as pdftotext writes them: a page begins after
// each form feed that has text after it.
func formFeedPages(text string) []int32 {
	starts := []int32{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\f' && strings.TrimSpace(text[i+1:min(len(text), i+4096)]) != "" {
			starts = append(starts, int32(i+1))
		}
	}
	return starts
}

// splitDocument fills Sentences (with pages, sections, tables and
// flags), Sections, Tables and Chunks from Text and what the loader found.
// Table rows are made one sentence each, so a row is cited and indexed
// whole.
func splitDocument(d *docstore.Document, found headings.Input) {
	// A sentence a page break cut in two is one sentence again.
	spans := split.JoinPageBreaks(d.Text, split.Sentences(d.Text), d.PageStarts)
	sents := make([]structure.Span, len(spans))
	for i, sp := range spans {
		sents[i] = structure.Span{Start: int32(sp.Start), End: int32(sp.End)}
	}
	if found.Markdown {
		found.Tables = append(found.Tables, headings.PipeTables(d.Text)...)
	}
	sents = headings.SplitRows(d.Text, headings.SplitHeadings(d.Text, sents), found.Tables)
	found.PageStarts = d.PageStarts
	an := headings.Analyse(d.Text, sents, found)
	d.Sections, d.Tables = an.Sections, an.Tables
	d.Sentences = make([]docstore.Sentence, len(sents))
	spans = spans[:0]
	page, next := 1, 1 // next: index into PageStarts of the following page
	for i, sp := range sents {
		for next < len(d.PageStarts) && d.PageStarts[next] <= sp.Start {
			next++
			page = next
		}
		d.Sentences[i] = docstore.Sentence{Start: sp.Start, End: sp.End, Page: int32(page),
			Section: an.Section[i], Table: an.Table[i], Flags: an.Flags[i]}
		spans = append(spans, split.Span{Start: int(sp.Start), End: int(sp.End)})
	}
	for _, c := range split.Chunks(d.Text, spans, split.ChunkOptions{Tokens: DefaultChunkTokens}) {
		d.Chunks = append(d.Chunks, docstore.Chunk{First: int32(c.First), Last: int32(c.Last), Tokens: int32(c.Tokens)})
	}
}

// guessTitle takes a document's first sentence as its title when it is
// short, as it is for a heading line.
func guessTitle(d *docstore.Document) string {
	t := strings.TrimSpace(strings.TrimLeft(d.SentenceText(0), "# "))
	if len(t) > 100 || strings.ContainsRune(t, '\n') {
		return ""
	}
	return t
}

// structureInput is what a document's kind alone says of its structure;
// a loader that knows more (a PDF's outline and fonts) adds to it.
// pdftext drops running heads and page numbers itself.
func structureInput(d *docstore.Document) headings.Input {
	return headings.Input{Markdown: d.Kind == "markdown", NoFurniture: d.Kind == "pdf"}
}
