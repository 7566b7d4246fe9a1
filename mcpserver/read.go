package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
)

// ReadInput is read's input: a document and one of a sentence range, a
// page or a byte range.
type ReadInput struct {
	Document      string `json:"document" jsonschema:"the document: its ID, an ID prefix or its file name"`
	FirstSentence *int   `json:"first_sentence,omitempty" jsonschema:"read sentences from this index (from 0)"`
	LastSentence  *int   `json:"last_sentence,omitempty" jsonschema:"to this index, inclusive (default first_sentence)"`
	Page          *int   `json:"page,omitempty" jsonschema:"read this page of the file (from 1)"`
	PrintedPage   string `json:"printed_page,omitempty" jsonschema:"read the page the document prints with this label (xii, 316)"`
	Start         *int   `json:"start,omitempty" jsonschema:"read the bytes from this offset of the stored text (a citation's start)"`
	End           *int   `json:"end,omitempty" jsonschema:"to this offset, exclusive (a citation's end)"`
	// Version picks one of the document's versions (see versionDoc): a
	// number, or a version's ID.
	Version any `json:"version,omitempty"`
}

// ReadResult is read's output: the text and where it lies.
type ReadResult struct {
	Citation
	LastPage          int  `json:"last_page" jsonschema:"the page of the file on which text ends"`
	DocumentSentences int  `json:"document_sentences" jsonschema:"the document's sentences, numbered from 0"`
	DocumentPages     int  `json:"document_pages" jsonschema:"the document's pages, numbered from 1"`
	Truncated         bool `json:"truncated,omitempty" jsonschema:"the range asked for was longer than one read returns; text ends at end"`
	NextSentence      *int `json:"next_sentence,omitempty" jsonschema:"when truncated, the sentence to read on from"`
}

// maxRead bounds the text one read returns, in bytes (about 12,000
// tokens): a long range is cut at the last whole sentence within it.
const maxRead = 48 << 10

func (s *Server) addRead() {
	addTool(s, &mcp.Tool{
		Name:  "read",
		Title: "Read exact text",
		Description: "Return the exact stored text of a document (of one of its versions with version: a number from 1, or a version's ID; by default the document named, its latest version for a file name): a range of sentences (first_sentence, last_sentence), a page (page, or printed_page as the document numbers it) or a byte range (start, end). " +
			"The text at a citation's start and end is exactly the text the citation quotes, so reading it back checks the citation; a sentence range around a citation reads its context. " +
			"first_sentence and last_sentence in the result are the sentences the text overlaps. At most 48 KiB is returned at a time: a longer range is cut after a whole sentence, with truncated and next_sentence set.",
		Annotations: readOnly,
	}, func(in *jsonschema.Schema) {
		property(in, "document").MinLength = ptr(1)
		for _, name := range []string{"first_sentence", "last_sentence", "start", "end"} {
			property(in, name).Minimum = ptr(0.0)
		}
		property(in, "page").Minimum = ptr(1.0)
		versionSchema(in, "version")
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReadInput) (ReadResult, error) {
		l, err := s.library()
		if err != nil {
			return ReadResult{}, err
		}
		d, err := document(l, in.Document)
		if err == nil {
			d, err = atVersion(l, d, in.Version)
		}
		if err != nil {
			return ReadResult{}, err
		}
		start, end, err := rangeOf(d, in)
		if err != nil {
			return ReadResult{}, err
		}
		return readRange(d, start, end), nil
	})
}

// fixRange says how to ask read for a range.
const fixRange = "Give first_sentence (and last_sentence), or page (or printed_page), or start and end."

// rangeOf is the byte range in asks for of d.
func rangeOf(d *docstore.Document, in ReadInput) (start, end int, err error) {
	sentences := in.FirstSentence != nil || in.LastSentence != nil
	page := in.Page != nil || in.PrintedPage != ""
	bytes := in.Start != nil || in.End != nil
	modes := 0
	for _, m := range []bool{sentences, page, bytes} {
		if m {
			modes++
		}
	}
	switch {
	case modes == 0:
		return 0, 0, fix.With(errors.New("no range given"), fixRange)
	case modes > 1:
		return 0, 0, fix.With(errors.New("more than one range given"), fixRange)
	case sentences:
		return sentenceRange(d, in.FirstSentence, in.LastSentence)
	case page:
		return pageRange(d, in.Page, in.PrintedPage)
	}
	return byteRange(d, in.Start, in.End)
}

func sentenceRange(d *docstore.Document, first, last *int) (int, int, error) {
	n := len(d.Sentences)
	if first == nil {
		return 0, 0, fix.With(errors.New("last_sentence without first_sentence"), "Give first_sentence too.")
	}
	l := *first
	if last != nil {
		l = *last
	}
	switch {
	case *first < 0 || *first >= n:
		return 0, 0, fix.With(fmt.Errorf("%s has sentences 0 to %d, not %d", d.Name, n-1, *first), "Give a sentence of the document.")
	case l < *first || l >= n:
		return 0, 0, fix.With(fmt.Errorf("last_sentence %d is not between first_sentence %d and the document's last, %d", l, *first, n-1), "Give a sentence of the document.")
	}
	return int(d.Sentences[*first].Start), int(d.Sentences[l].End), nil
}

func pageRange(d *docstore.Document, page *int, printed string) (int, int, error) {
	if page != nil && printed != "" {
		return 0, 0, fix.With(errors.New("both page and printed_page given"), "Give one of them.")
	}
	if page != nil {
		s, e, err := d.PageSpan(*page)
		return s, e, fix.With(err, "Give a page of the document (list_documents says how many it has).")
	}
	for p := 1; p <= len(d.PageStarts); p++ {
		if label := d.PageLabel(p); label == printed || label == "" && strconv.Itoa(p) == printed {
			return d.PageSpan(p)
		}
	}
	return 0, 0, fix.With(fmt.Errorf("%s prints no page %q", d.Name, printed), "Give a page label the document prints, or page, the page of the file.")
}

func byteRange(d *docstore.Document, start, end *int) (int, int, error) {
	if start == nil || end == nil {
		return 0, 0, fix.With(errors.New("a byte range needs both start and end"), "Give start and end, as a citation has them.")
	}
	s, e, n := *start, *end, len(d.Text)
	switch {
	case s < 0 || e > n || s >= e:
		return 0, 0, fix.With(fmt.Errorf("bytes %d to %d are not a range of %s, whose text has %d bytes", s, e, d.Name, n), "Give 0 <= start < end <= the document's bytes.")
	case !boundary(d.Text, s) || !boundary(d.Text, e):
		return 0, 0, fix.With(fmt.Errorf("bytes %d to %d of %s cut a character in two", s, e, d.Name), "Give a range as a citation has it: whole characters.")
	}
	return s, e, nil
}

// boundary reports whether offset i of text starts a character (or ends
// the text).
func boundary(text string, i int) bool { return i == len(text) || utf8.RuneStart(text[i]) }

// readRange is the text of bytes start to end of d, cut to maxRead.
func readRange(d *docstore.Document, start, end int) ReadResult {
	out := ReadResult{DocumentSentences: len(d.Sentences), DocumentPages: len(d.PageStarts)}
	if end-start > maxRead {
		out.Truncated = true
		limit := start + maxRead
		// The last sentence ending within the limit, if one ends after
		// start; else the limit, at a character's start.
		i := sort.Search(len(d.Sentences), func(i int) bool { return int(d.Sentences[i].End) > limit }) - 1
		if i >= 0 && int(d.Sentences[i].End) > start {
			end = int(d.Sentences[i].End)
		} else {
			for end = limit; !boundary(d.Text, end); end-- {
			}
		}
		if next := sort.Search(len(d.Sentences), func(i int) bool { return int(d.Sentences[i].Start) >= end }); next < len(d.Sentences) {
			out.NextSentence = &next
		}
	}
	// The sentences the text overlaps: from the first ending after start
	// to the last starting before end.
	first := sort.Search(len(d.Sentences), func(i int) bool { return int(d.Sentences[i].End) > start })
	last := sort.Search(len(d.Sentences), func(i int) bool { return int(d.Sentences[i].Start) >= end }) - 1
	first = min(first, len(d.Sentences)-1)
	last = max(last, first)
	page := d.PageOf(start)
	printed := d.PageLabel(page)
	if printed == "" {
		printed = strconv.Itoa(page)
	}
	out.Citation = Citation{Document: d.ID, DocumentName: d.DisplayName(), FirstSentence: first, LastSentence: last,
		Start: start, End: end, Page: page, PrintedPage: printed, Heading: d.HeadingTrail(first), Text: d.Text[start:end], OCR: d.IsOCRPage(page)}
	out.LastPage = d.PageOf(end - 1)
	return out
}
