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

	"github.com/citelens/citelens/docstore/pdftext"
	"github.com/citelens/citelens/docstore/segment"
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

// kinds maps file extensions to loaders.
var kinds = map[string]string{
	".txt": "text", ".text": "text",
	".md": "markdown", ".markdown": "markdown",
	".pdf": "pdf",
}

// SupportedExtensions lists the file types Add accepts, for messages.
const SupportedExtensions = ".txt, .md, .markdown, .pdf"

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
	doc, err := Load(ctx, path, content, func(done, total int) { report(StageExtracting, done, total) })
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

// kindOf returns the loader kind for path's extension, or ErrUnsupported.
func kindOf(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if kind, ok := kinds[ext]; ok {
		return kind, nil
	}
	return "", fmt.Errorf("%s: %w %q (citelens reads %s)", path, ErrUnsupported, ext, SupportedExtensions)
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
// chunks, not yet indexed or stored. progress, if not nil, gets PDF pages.
func Load(ctx context.Context, path string, content []byte, progress func(done, total int)) (*Document, error) {
	kind, err := kindOf(path)
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
		Kind:  kind,
		Added: time.Now().UTC().Truncate(time.Second),
	}}
	switch kind {
	case "pdf":
		res, err := pdftext.Extract(ctx, bytes.NewReader(content), int64(len(content)), progress)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d.Text, d.PageStarts, d.Pages, d.Title, d.Warnings = res.Text, res.PageStarts, res.Pages, res.Title, res.Warnings
	default:
		text, err := decodeText(content)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d.Text, d.PageStarts, d.Pages = text, []int32{0}, 1
	}
	if len(d.Text) > 1<<31-1 {
		return nil, fmt.Errorf("%s: the text is over 2 GB, too large for one document", path)
	}
	segmentDocument(d)
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

// segmentDocument fills Sentences (with pages) and Chunks from Text.
func segmentDocument(d *Document) {
	spans := segment.Sentences(d.Text)
	d.Sentences = make([]Sentence, len(spans))
	page, next := 1, 1 // next: index into PageStarts of the following page
	for i, sp := range spans {
		for next < len(d.PageStarts) && int(d.PageStarts[next]) <= sp.Start {
			next++
			page = next
		}
		d.Sentences[i] = Sentence{Start: int32(sp.Start), End: int32(sp.End), Page: int32(page)}
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
	key := []byte(d.ID)
	return l.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDocs).Get(key) != nil {
			return nil // another process added it meanwhile
		}
		if err := tx.Bucket(bucketText).Put(key, []byte(d.Text)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketLayout).Put(key, encodeLayout(d)); err != nil {
			return err
		}
		if err := bi.write(tx, d.ID); err != nil {
			return err
		}
		// The docs record goes last: readers list documents from it, and
		// nothing is visible before the commit anyway.
		return tx.Bucket(bucketDocs).Put(key, meta)
	})
}
