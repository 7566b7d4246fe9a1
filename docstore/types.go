package docstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citelens/citelens/docstore/structure"
)

// DocID identifies a document by a prefix of the SHA-256 of its file bytes,
// so adding the same content twice yields the same ID.
type DocID string

// IDFor returns the DocID of a file's content.
func IDFor(content []byte) DocID {
	sum := sha256.Sum256(content)
	return IDOfSum(sum[:])
}

// IDOfSum returns the DocID of content whose SHA-256 is sum, for content
// hashed as it is read: IDOfSum of sha256.Sum256(b) is IDFor(b).
func IDOfSum(sum []byte) DocID { return DocID(hex.EncodeToString(sum[:8])) }

// Sentence is one sentence of a document's stored text. Start and End are
// byte offsets into Document.Text (End exclusive); Page is the 1-based PDF
// page on which the sentence starts (1 for text files).
//
// int32 keeps the sentence table of a million-token document small: a
// 4 MB text has ~150k sentences, 1.8 MB as int32 triples.
type Sentence struct {
	Start, End int32
	Page       int32
	// Section is the innermost section (Document.Sections) the sentence
	// lies in, -1 before the first heading; Table the table it is a row
	// of, -1 for none.
	Section, Table int32
	// Flags say whether it is a heading, a contents line, code… (see
	// structure.Flags); zero for body text.
	Flags structure.Flags
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
	// the extracted text for PDFs (ingest). Every offset in the library
	// points here.
	Text string
	// PageStarts[i] is the byte offset at which page i+1 begins in Text.
	// Text files have a single page starting at 0.
	PageStarts []int32
	Sentences  []Sentence
	Chunks     []Chunk
	// Sections are the document's headings, in text order, nested by
	// Parent; Tables its tables, kept as rows.
	Sections []structure.Section
	Tables   []structure.Table
	// Compounds maps the document's run-together words to the index
	// terms of their parts ("pointsize" → point, size), as the index
	// found them against the document's vocabulary; ranking reads
	// sentences with the same eyes.
	Compounds map[string][]string
	// Aliases are the other names the document gives its words, mined
	// from its sentences (MineAliases) by Prepare when nil, and stored
	// with it (aliases.go).
	Aliases []Alias

	// Original is the bytes of the file the document was added from, to
	// store with it when the library keeps files (Files.Keeps,
	// files.go); nil for none. Writing the document sets File.
	Original []byte

	// geometry is each page's geometry (pagegeom) as given to Prepare,
	// until the document is written (geometry.go); nil when read from the
	// library.
	geometry [][]byte
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
	// PageLabels are the pages' own labels when the file has them (a
	// PDF's roman front matter, or numbering that starts after it): see
	// PageLabel. Page numbers everywhere else count the file's pages.
	PageLabels []PageLabelRange `json:"page_labels,omitempty"`
	// File is the original file's bytes as the library keeps them
	// (files.go), nil when it does not.
	File *FileInfo `json:"file,omitempty"`
	// AddedBy is who added the document (authors.go); nil in libraries
	// older than the record.
	AddedBy *Author `json:"added_by,omitempty"`
	// Previous is the document this one is the next version of (added
	// from the same path, or named: versions.go); "" for a first version.
	Previous DocID `json:"previous,omitempty"`
}

// IsOCRPage reports whether page (1-based) was read by OCR.
func (i DocInfo) IsOCRPage(page int) bool { return slices.Contains(i.OCRPages, page) }

// DisplayName is what people call the document: the file name it was
// added from, else its title, else its ID.
func (i DocInfo) DisplayName() string {
	switch {
	case i.Name != "":
		return i.Name
	case i.Title != "":
		return i.Title
	}
	return string(i.ID)
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
func (d *Document) PageOf(off int) int { return pageOf(d.PageStarts, off) }

// PageSpan returns the byte range of page n (1-based) of the stored text.
func (d *Document) PageSpan(n int) (start, end int, err error) {
	if n < 1 || n > len(d.PageStarts) {
		return 0, 0, fmt.Errorf("%s has pages 1 to %d, not %d", d.Name, len(d.PageStarts), n)
	}
	end = len(d.Text)
	if n < len(d.PageStarts) {
		end = int(d.PageStarts[n])
	}
	return int(d.PageStarts[n-1]), end, nil
}

// HeadingPath returns the headings sentence i lies under, outermost first,
// each on one line: ["7 Data import", "7.1 Spreadsheet-like data"]. A
// heading's own path ends with itself.
func (d *Document) HeadingPath(i int) []string {
	if i < 0 || i >= len(d.Sentences) {
		return nil
	}
	return d.SectionPath(int(d.Sentences[i].Section))
}

// SectionPath returns the headings from the top down to section s.
func (d *Document) SectionPath(s int) []string { return sectionNames(d.Sections, d.spanLine, s) }

// maxHeadingDepth bounds a heading path, and a walk up a damaged one.
const maxHeadingDepth = 12

// HeadingTrail is the heading path of sentence i joined with " > ", the
// way citations show it; "" when the sentence is under no heading.
func (d *Document) HeadingTrail(i int) string {
	return strings.Join(d.HeadingPath(i), " > ")
}

// spanLine returns the text of span s on one line (its line breaks and
// runs of spaces as single spaces), or "" if s is not inside the text.
func (d *Document) spanLine(s structure.Span) string {
	if !s.Valid(len(d.Text)) {
		return ""
	}
	return strings.Join(strings.Fields(d.Text[s.Start:s.End]), " ")
}

// InContext returns sentences first..last with what they are about set
// before them, one per line: the heading path, and for a table row its
// table's caption and column headers. It is the text a model reads to
// judge the sentences by meaning (embeddings, rerankers), where a row's
// "(10.9)" means nothing without the header saying "2018".
func (d *Document) InContext(first, last int) string {
	if first < 0 || last < first || last >= len(d.Sentences) {
		return ""
	}
	return inContext(d.HeadingTrail(first), d.TableContext(first), d.Text[d.Sentences[first].Start:d.Sentences[last].End])
}

// TableContext returns the caption and header rows of the table sentence
// i is a row of, each on one line, or nil.
func (d *Document) TableContext(i int) []string {
	if i < 0 || i >= len(d.Sentences) {
		return nil
	}
	s := d.Sentences[i]
	return tableContext(d.Tables, d.spanLine, int(s.Table), structure.Span{Start: s.Start, End: s.End})
}
