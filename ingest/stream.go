package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/docstore/structure"
)

// A large text or Markdown file is added in pieces, so that the memory an
// add takes does not grow with the file: a first pass reads it for its ID
// (the SHA-256 of its bytes) and checks it is UTF-8 text; a second reads
// streamPiece bytes at a time, cut after a blank line, splits and
// analyses each piece, and hands it to the library's PieceWriter, which
// indexes and writes it in a transaction of its own; a last transaction
// publishes the document. Until then the pieces are invisible, and if the
// process dies the next one to write deletes them (docstore's
// pending.go). A document added this way is the one Add would make of
// the file whole except at the pieces' seams: sentences and chunks never
// cross one, and compound words are judged against the piece's words.

// streamThreshold is the size above which a text or Markdown file is
// streamed; streamPiece the text processed at a time. Variables, so
// tests can stream small files.
var (
	streamThreshold int64 = 4 << 20
	streamPiece           = 4 << 20
)

// streamedPieces counts the pieces streamed, for tests and diagnostics.
var streamedPieces atomic.Int64

// streamSource is a file to stream.
type streamSource struct {
	path   string
	format Format
}

// streamable returns the file at path as a streamSource when it is a text
// or Markdown file larger than streamThreshold; nil otherwise (the
// regular path reads it, and reports what is wrong with it).
func (p *Pipeline) streamable(path string) (*streamSource, error) {
	f, ok := FormatOf(path)
	if !ok || (f.Kind != "text" && f.Kind != "markdown") {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil || checkRegular(path, st, p.maxFile) != nil || st.Size() <= streamThreshold {
		return nil, nil
	}
	return &streamSource{path: path, format: f}, nil
}

// addStream adds a streamSource.
func (p *Pipeline) addStream(ctx context.Context, src *streamSource, report func(stage string, done, total int)) (docstore.DocInfo, bool, error) {
	f, size, err := openChecked(src.path, p.maxFile)
	if err != nil {
		return docstore.DocInfo{}, false, err
	}
	defer f.Close()
	id, skip, utf16, err := scanText(ctx, f, src.path)
	if err != nil {
		return docstore.DocInfo{}, false, err
	}
	if info, err := p.lib.Info(id); err == nil {
		return info, true, nil
	}
	if utf16 {
		// Decoding UTF-16 in pieces is not worth it for how rare such
		// files are: they are read whole. (Through prepare they would
		// come back here as a stream, and nothing be added.)
		whole := &prepared{res: AddResult{Path: src.path}, start: time.Now()}
		p.prepareWhole(ctx, whole, report)
		if whole.doc == nil {
			return whole.res.Info, whole.res.Existed, whole.res.Err
		}
		err := p.write([]*prepared{whole})
		return whole.res.Info, whole.res.Existed, err
	}
	w, err := p.lib.NewPieceWriter(id)
	if err != nil {
		return docstore.DocInfo{}, false, err
	}
	s := &streamer{w: w, src: src, id: id, total: size - skip}
	// The next version of what was added from this path (addfiles.go).
	abs, err := filepath.Abs(src.path)
	if err != nil {
		abs = src.path
	}
	if s.previous, err = p.previousVersion(abs, id); err != nil {
		_ = w.Abandon()
		return docstore.DocInfo{}, false, err
	}
	info, existed, err := s.run(ctx, f, skip, report)
	if err != nil || existed {
		// Nothing of it stays: its pieces are deleted now (or, if this
		// fails too, by the next process that writes).
		_ = w.Abandon()
	}
	return info, existed, err
}

// openChecked opens a file Add was given as readDocumentFile does:
// without blocking, a regular file no larger than max.
func openChecked(path string, max int64) (*os.File, int64, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	st, err := f.Stat()
	if err == nil {
		err = checkRegular(path, st, max)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// scanText reads a text file through once: its ID, the length of its
// UTF-8 byte order mark (skip), whether it is UTF-16, and an error when it
// is neither UTF-8 nor UTF-16 text (naming the first bad byte's offset).
func scanText(ctx context.Context, f *os.File, path string) (id docstore.DocID, skip int64, utf16 bool, err error) {
	h := sha256.New()
	buf := make([]byte, 4<<20)
	var carry []byte // an incomplete rune at the end of a read
	off := int64(0)  // of buf[0] (after carry) in the file
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return "", 0, false, err
		}
		n, rerr := io.ReadFull(f, buf[len(carry):])
		copy(buf, carry)
		b := buf[:len(carry)+n]
		h.Write(b[len(carry):])
		if first {
			switch {
			case bytes.HasPrefix(b, bomUTF16LE), bytes.HasPrefix(b, bomUTF16BE):
				utf16 = true
			case bytes.HasPrefix(b, bomUTF8):
				skip = int64(len(bomUTF8))
			default:
				_, utf16 = sniffUTF16(b)
			}
			if utf16 {
				if _, err := io.Copy(h, f); err != nil {
					return "", 0, false, fmt.Errorf("cannot read %s: %w", path, err)
				}
				break
			}
		}
		end := len(b)
		if rerr == nil { // more to come: keep an incomplete rune for later
			for k := 1; k <= 3 && k <= end; k++ {
				if c := b[end-k]; c >= 0xC0 {
					if end-k+utf8RuneLen(c) > end {
						end -= k
					}
					break
				} else if c < 0x80 {
					break
				}
			}
		}
		if i, nul := firstBadByte(b[:end]); i >= 0 {
			if nul {
				return "", 0, false, fmt.Errorf("%s: %w (NUL byte at offset %d)", path, ErrBinary, off+int64(i))
			}
			return "", 0, false, fmt.Errorf("%s: %w: invalid byte 0x%02x at offset %d; convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8)", path, ErrInvalidUTF8, b[i], off+int64(i))
		}
		carry = append(carry[:0], b[end:]...)
		off += int64(end)
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return "", 0, false, fmt.Errorf("cannot read %s: %w", path, rerr)
		}
	}
	return docstore.IDOfSum(h.Sum(nil)), skip, utf16, nil
}

// utf8RuneLen is the length of the UTF-8 sequence lead byte c starts.
func utf8RuneLen(c byte) int {
	switch {
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	}
	return 2
}

// streamer is one streamed add in progress.
type streamer struct {
	w     *docstore.PieceWriter
	src   *streamSource
	id    docstore.DocID
	total int64 // bytes of text

	// What the pieces so far add up to.
	base       int // bytes of text done
	pageStarts []int32
	sections   []structure.Section
	open       []int32 // the sections open at the end of the text so far, outermost first
	tables     []structure.Table
	sents      int
	chunks     int
	title      string
	// previous is the version this file's document follows, if any.
	previous docstore.DocID
}

// run reads the text in pieces after skip bytes, writes each, and
// publishes the document.
func (s *streamer) run(ctx context.Context, f *os.File, skip int64, report func(stage string, done, total int)) (docstore.DocInfo, bool, error) {
	if _, err := f.Seek(skip, io.SeekStart); err != nil {
		return docstore.DocInfo{}, false, fmt.Errorf("cannot read %s: %w", s.src.path, err)
	}
	s.pageStarts = []int32{0}
	buf := make([]byte, 0, streamPiece+utf8.UTFMax)
	mb := int((s.total + 1<<20 - 1) >> 20)
	for eof := false; !eof; {
		if err := ctx.Err(); err != nil {
			return docstore.DocInfo{}, false, err
		}
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			eof = true
		case err != nil:
			return docstore.DocInfo{}, false, fmt.Errorf("cannot read %s: %w", s.src.path, err)
		}
		cut := len(buf)
		if !eof {
			cut = pieceEnd(buf)
		}
		if int64(s.base)+int64(cut) > 1<<31-1 {
			return docstore.DocInfo{}, false, fmt.Errorf("%s: the text is over 2 GB, too large for one document", s.src.path)
		}
		if err := s.piece(string(buf[:cut])); err != nil {
			return docstore.DocInfo{}, false, err
		}
		buf = buf[:copy(buf, buf[cut:])]
		report(StageIndexing, int(int64(s.base)>>20), mb)
	}
	if s.sents == 0 {
		return docstore.DocInfo{}, false, fmt.Errorf("%s: %w to index (the file is empty or only whitespace)", s.src.path, ErrEmpty)
	}
	abs, err := filepath.Abs(s.src.path)
	if err != nil {
		abs = s.src.path
	}
	d := &docstore.Document{DocInfo: docstore.DocInfo{
		ID: s.id, Name: filepath.Base(s.src.path), Path: abs, Kind: s.src.format.Kind, Title: s.title,
		Pages: len(s.pageStarts), NumSents: s.sents, NumChunks: s.chunks, Bytes: s.base,
		Added: time.Now().UTC().Truncate(time.Second), Previous: s.previous,
	}, PageStarts: s.pageStarts, Sections: s.sections, Tables: s.tables}
	report(StageWriting, 0, 0)
	return s.w.Publish(d)
}

// pieceEnd is where to cut a piece of buf, which the file goes on after:
// after the last blank line of its second half, else after its last line
// break, else at its last whole character.
func pieceEnd(buf []byte) int {
	half := len(buf) / 2
	if i := bytes.LastIndex(buf[half:], []byte("\n\n")); i >= 0 {
		return half + i + 2
	}
	if i := bytes.LastIndexByte(buf[half:], '\n'); i >= 0 {
		return half + i + 1
	}
	end := len(buf)
	for end > 0 && !utf8.RuneStart(buf[end-1]) {
		end--
	}
	if end > 0 && end-1+utf8RuneLen(buf[end-1]) > len(buf) && buf[end-1] >= 0xC0 {
		end-- // the last rune is cut short
	}
	return end
}

// piece splits and analyses one piece of the text, which starts at
// s.base, and writes it.
func (s *streamer) piece(text string) error {
	base := int32(s.base)
	d := &docstore.Document{Text: text, DocInfo: docstore.DocInfo{Kind: s.src.format.Kind}}
	d.PageStarts = formFeedPages(text)
	found := structureInput(d)
	if s.src.format.Kind == "markdown" {
		found.Headings = markdownHeadings(text)
	}
	splitDocument(d, found)
	if s.title == "" && s.base == 0 && len(d.Sentences) > 0 {
		s.title = guessTitle(d)
	}

	// Number the piece's units after the pieces before it, and place
	// its offsets after their text.
	pageBase := int32(len(s.pageStarts) - 1)
	for _, ps := range d.PageStarts[1:] {
		s.pageStarts = append(s.pageStarts, base+ps)
	}
	secBase, tableBase, sentBase := int32(len(s.sections)), int32(len(s.tables)), int32(s.sents)
	pieceSections := len(s.sections)
	inherited := int32(-1) // the section text before the piece's first heading is in
	if n := len(s.open); n > 0 {
		inherited = s.open[n-1]
	}
	for _, sec := range d.Sections {
		sec.Heading.Start += base
		sec.Heading.End += base
		if sec.Sentence >= 0 {
			sec.Sentence += sentBase
		}
		idx := int32(len(s.sections))
		// Close the sections this one does not lie in; a top-level
		// section of the piece lies in the innermost open one above its
		// level.
		for len(s.open) > 0 && s.sections[s.open[len(s.open)-1]].Level >= sec.Level {
			s.open = s.open[:len(s.open)-1]
		}
		if sec.Parent >= 0 {
			sec.Parent += secBase
		} else if n := len(s.open); n > 0 {
			sec.Parent = s.open[n-1]
		}
		s.open = append(s.open, idx)
		s.sections = append(s.sections, sec)
	}
	pieceTables := len(s.tables)
	for _, t := range d.Tables {
		t.Caption = t.Caption.Shift(base)
		t.Header = structure.ShiftSpans(t.Header, base)
		t.Rows = structure.ShiftSpans(t.Rows, base)
		s.tables = append(s.tables, t)
	}
	for i := range d.Sentences {
		st := &d.Sentences[i]
		st.Start += base
		st.End += base
		st.Page += pageBase
		if st.Section >= 0 {
			st.Section += secBase
		} else {
			st.Section = inherited
		}
		if st.Table >= 0 {
			st.Table += tableBase
		}
	}
	for i := range d.Chunks {
		d.Chunks[i].First += sentBase
		d.Chunks[i].Last += sentBase
	}
	err := s.w.Write(&docstore.Piece{Text: text, Sentences: d.Sentences, Chunks: d.Chunks,
		Sections: s.sections[pieceSections:], Tables: s.tables[pieceTables:]})
	if err != nil {
		return err
	}
	streamedPieces.Add(1)
	s.base += len(text)
	s.sents += len(d.Sentences)
	s.chunks += len(d.Chunks)
	return nil
}
