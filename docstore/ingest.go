package docstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/docstore/segment"
	"github.com/citelens/citelens/docstore/structure"
)

// Ingest stages, reported through Progress.Stage.
const (
	StageReading    = "reading"
	StageExtracting = "extracting"
	StageIndexing   = "indexing"
	StageWriting    = "writing"
)

// Progress reports how an ingest is going. Done and Total count pages while
// extracting a PDF and are zero otherwise.
type Progress struct {
	Path        string
	Stage       string
	Done, Total int
}

// DefaultChunkTokens is the stored chunk size: LongCite's 128 tokens.
const DefaultChunkTokens = segment.DefaultChunkTokens

// IDFor returns the DocID of a file's content.
func IDFor(content []byte) DocID {
	sum := sha256.Sum256(content)
	return DocID(hex.EncodeToString(sum[:8]))
}

// Add ingests the file at path: it reads it, extracts its text, segments,
// chunks and indexes it, and writes it all in one transaction, so a crash
// leaves either the whole document or none of it. Adding content already in
// the library writes nothing and returns the existing document with
// existed set. progress may be nil.
func (l *Library) Add(ctx context.Context, path string, progress func(Progress)) (info DocInfo, existed bool, err error) {
	report := func(stage string, done, total int) {
		if progress != nil {
			progress(Progress{Path: path, Stage: stage, Done: done, Total: total})
		}
	}
	report(StageReading, 0, 0)
	content, err := readDocumentFile(ctx, path, l.maxFile)
	if err != nil {
		return DocInfo{}, false, err
	}
	id := IDFor(content)
	if info, err := l.Info(id); err == nil {
		return info, true, nil
	}
	if err := l.db.refusal(); err != nil {
		return DocInfo{}, false, err // damaged: refuse now, not after extracting
	}
	doc, err := Load(ctx, path, content, l.loadOptions(report))
	if err != nil {
		return DocInfo{}, false, err
	}
	report(StageIndexing, 0, 0)
	bi := buildIndex(doc)
	if err := ctx.Err(); err != nil {
		return DocInfo{}, false, err
	}
	report(StageWriting, 0, 0)
	if err := l.put(doc, bi); err != nil {
		return DocInfo{}, false, err
	}
	return doc.DocInfo, false, nil
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
	d := &Document{DocInfo: DocInfo{
		ID:    IDFor(content),
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
	d.PageLabels, d.geometry = ld.PageLabels, ld.Geometry
	found := structureInput(d)
	found.Headings, found.Tables = ld.Headings, ld.Tables
	if len(d.PageStarts) == 0 {
		d.PageStarts = []int32{0}
	}
	d.Pages = len(d.PageStarts)
	if len(d.Text) > 1<<31-1 {
		return nil, fmt.Errorf("%s: the text is over 2 GB, too large for one document", path)
	}
	segmentDocument(d, found)
	if len(d.Sentences) == 0 {
		return nil, fmt.Errorf("%s: %w to index (the file is empty or only whitespace)", path, ErrEmpty)
	}
	if d.Title == "" {
		d.Title = guessTitle(d)
	}
	d.Bytes, d.NumSents, d.NumChunks = len(d.Text), len(d.Sentences), len(d.Chunks)
	return d, nil
}

// checkText refuses content that is not UTF-8 text, naming the offset of
// the first offending byte so the user can look.
func checkText(b []byte) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("%w (NUL byte at offset %d)", ErrBinary, i)
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return fmt.Errorf("%w: invalid byte 0x%02x at offset %d; convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)", ErrInvalidUTF8, b[i], i)
		}
		i += n
	}
	return nil
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

// segmentDocument fills Sentences (with pages, sections, tables and
// flags), Sections, Tables and Chunks from Text and what the loader found.
// Table rows are made one sentence each, so a row is cited and indexed
// whole.
func segmentDocument(d *Document, found structure.Input) {
	spans := segment.Sentences(d.Text)
	sents := make([]structure.Span, len(spans))
	for i, sp := range spans {
		sents[i] = structure.Span{Start: int32(sp.Start), End: int32(sp.End)}
	}
	if found.Markdown {
		found.Tables = append(found.Tables, structure.PipeTables(d.Text)...)
	}
	sents = structure.SplitRows(d.Text, structure.SplitHeadings(d.Text, sents), found.Tables)
	found.PageStarts = d.PageStarts
	an := structure.Analyse(d.Text, sents, found)
	d.Sections, d.Tables = an.Sections, an.Tables
	d.Sentences = make([]Sentence, len(sents))
	spans = spans[:0]
	page, next := 1, 1 // next: index into PageStarts of the following page
	for i, sp := range sents {
		for next < len(d.PageStarts) && d.PageStarts[next] <= sp.Start {
			next++
			page = next
		}
		d.Sentences[i] = Sentence{Start: sp.Start, End: sp.End, Page: int32(page),
			Section: an.Section[i], Table: an.Table[i], Flags: an.Flags[i]}
		spans = append(spans, segment.Span{Start: int(sp.Start), End: int(sp.End)})
	}
	for _, c := range segment.Chunks(d.Text, spans, segment.ChunkOptions{Tokens: DefaultChunkTokens}) {
		d.Chunks = append(d.Chunks, Chunk{First: int32(c.First), Last: int32(c.Last), Tokens: int32(c.Tokens)})
	}
}

// guessTitle takes a document's first sentence as its title when it is
// short, as it is for a heading line.
func guessTitle(d *Document) string {
	t := strings.TrimSpace(strings.TrimLeft(d.SentenceText(0), "# "))
	if len(t) > 100 || strings.ContainsRune(t, '\n') {
		return ""
	}
	return t
}

// put writes a loaded document and its index in one transaction.
func (l *Library) put(d *Document, bi *builtIndex) error {
	meta, err := json.Marshal(d.DocInfo)
	if err != nil {
		return err
	}
	return l.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDocs).Get([]byte(d.ID)) != nil {
			return nil // another process added it meanwhile
		}
		return writeDocument(tx, d, bi, meta)
	})
}

// writeDocument writes a document's text, layout, index and metadata in
// tx, the metadata last: readers list documents from it (and nothing is
// visible before the commit anyway). An index already stored for the
// document is replaced; the text is written only if it changed.
func writeDocument(tx *bolt.Tx, d *Document, bi *builtIndex, meta []byte) error {
	key := []byte(d.ID)
	for _, name := range [][]byte{bucketLengths, bucketPostings} {
		if b := tx.Bucket(name); b.Bucket(key) != nil {
			if err := b.DeleteBucket(key); err != nil {
				return err
			}
		}
	}
	old := tx.Bucket(bucketText).Get(key)
	textChanged := old == nil || !bytes.Equal(old, []byte(d.Text))
	if textChanged {
		if err := tx.Bucket(bucketText).Put(key, []byte(d.Text)); err != nil {
			return err
		}
	}
	if err := writeGeometry(tx, d, textChanged); err != nil {
		return err
	}
	if err := tx.Bucket(bucketLayout).Put(key, encodeLayout(d)); err != nil {
		return err
	}
	if err := bi.write(tx, d.ID); err != nil {
		return err
	}
	return tx.Bucket(bucketDocs).Put(key, meta)
}

// structureInput is what a document's kind alone says of its structure;
// a loader that knows more (a PDF's outline and fonts) adds to it.
// pdftext drops running heads and page numbers itself.
func structureInput(d *Document) structure.Input {
	return structure.Input{Markdown: d.Kind == "markdown", NoFurniture: d.Kind == "pdf"}
}
