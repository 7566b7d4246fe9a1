package docstore

import (
	"slices"
	"time"

	"github.com/citelens/citelens/docstore/structure"
)

// DocID identifies a document by a prefix of the SHA-256 of its file bytes,
// so adding the same content twice yields the same ID.
type DocID string

// Sentence is one sentence of a document's stored text. Start and End are
// byte offsets into Document.Text (End exclusive); Page is the 1-based PDF
// page on which the sentence starts (1 for text files).
//
// int32 keeps the sentence table of a million-token document small: a
// 4 MB text has ~150k sentences, 1.8 MB as int32 triples.
type Sentence struct {
	Start, End int32
	Page       int32
}

// Chunk is a run of whole sentences, First..Last inclusive, of about a
// configured number of tokens (see textproc.EstimateTokens).
type Chunk struct {
	First, Last int32
	Tokens      int32
}

// Document is a stored document with its text and segmentation.
type Document struct {
	DocInfo
	// Text is the stored text: the file's bytes verbatim for .txt and .md,
	// the extracted text for PDFs. Every offset in the library points here.
	Text string
	// PageStarts[i] is the byte offset at which page i+1 begins in Text.
	// Text files have a single page starting at 0.
	PageStarts []int32
	Sentences  []Sentence
	Chunks     []Chunk
	// Headings and Tables are the structure the loader found, as byte
	// spans of Text. Load fills them; the library does not store them yet.
	Headings []structure.Heading
	Tables   []structure.Table
}

// DocInfo is a document's metadata, cheap to list without loading its text.
type DocInfo struct {
	ID        DocID     `json:"id"`
	Name      string    `json:"name"` // file base name it was added from
	Path      string    `json:"path"` // absolute path at the time it was added
	Kind      string    `json:"kind"` // "pdf", "text" or "markdown"
	Title     string    `json:"title,omitempty"`
	Pages     int       `json:"pages"`
	NumSents  int       `json:"sentences"`
	NumChunks int       `json:"chunks"`
	Bytes     int       `json:"bytes"` // length of the stored text
	Added     time.Time `json:"added"`
	// Warnings say what of the file could not be read (a damaged PDF
	// page, say): the document is usable but incomplete.
	Warnings []string `json:"warnings,omitempty"`
	// OCRPages lists the pages (1-based) whose text was read by OCR from
	// their image, and may hold recognition errors.
	OCRPages []int `json:"ocr_pages,omitempty"`
}

// IsOCRPage reports whether page (1-based) was read by OCR.
func (i DocInfo) IsOCRPage(page int) bool { return slices.Contains(i.OCRPages, page) }

// DisplayName is what people call the document: the file name it was
// added from, else its title, else its ID.
func (d *Document) DisplayName() string {
	switch {
	case d.Name != "":
		return d.Name
	case d.Title != "":
		return d.Title
	}
	return string(d.ID)
}

// SentenceText returns the text of sentence i.
func (d *Document) SentenceText(i int) string {
	s := d.Sentences[i]
	return d.Text[s.Start:s.End]
}

// ChunkSpan returns the byte range covered by chunk i.
func (d *Document) ChunkSpan(i int) (start, end int) {
	c := d.Chunks[i]
	return int(d.Sentences[c.First].Start), int(d.Sentences[c.Last].End)
}

// PageOf returns the 1-based page containing byte offset off.
func (d *Document) PageOf(off int) int {
	lo, hi := 0, len(d.PageStarts)
	for lo < hi { // first page start > off
		mid := (lo + hi) / 2
		if int(d.PageStarts[mid]) <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 1
	}
	return lo
}
