package ocr

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/textbuild"
)

// Page is the text of one OCR'd page.
type Page struct {
	// Number is the page's number in the PDF, from 1.
	Number int
	// Text is the page's text, shaped as textbuild writes it: paragraphs
	// separated by blank lines.
	Text string
	// Headings are the short paragraphs set larger than the body text,
	// as spans of Text; their level is left to the library (0).
	Headings []structure.Heading
	// Words are the recognised words with their places, in text order.
	Words []Word
	// Size is the size in pixels of the page's image, which shows the
	// page as a viewer does (its CropBox, after /Rotate).
	Size image.Point
	// Warning, if not "", says how the page was read other than as asked:
	// at a lower resolution, or not at all, because it is too large.
	Warning string
}

// Word is one recognised word.
type Word struct {
	// Span is where the word is in Page.Text (a word joined across a
	// line-end hyphen has one span per part).
	Span structure.Span
	// Box is its bounding box in pixels of the page rendered at the
	// DPI used, from the top left.
	Box image.Rectangle
	// Conf is Tesseract's confidence, 0 to 100.
	Conf float32
	// Line numbers the word's line on the page, from 0 in text order.
	Line int
}

// tsvWord is one word row of Tesseract's TSV output.
type tsvWord struct {
	block, par, line int
	box              image.Rectangle
	conf             float32
	text             string
}

// parseTSV reads the word rows (level 5) of Tesseract's TSV output:
// level page block par line word left top width height conf text.
func parseTSV(b []byte) ([]tsvWord, error) {
	var words []tsvWord
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	header := true
	for sc.Scan() {
		if header {
			header = false
			if !strings.HasPrefix(sc.Text(), "level") {
				return nil, fmt.Errorf("no TSV header")
			}
			continue
		}
		f := strings.SplitN(sc.Text(), "\t", 12)
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		n := make([]int, 10)
		for i := range n {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, fmt.Errorf("bad number %q", f[i])
			}
			n[i] = v
		}
		conf, _ := strconv.ParseFloat(f[10], 32)
		text := textbuild.Clean(f[11])
		if text == "" {
			continue
		}
		words = append(words, tsvWord{
			block: n[2], par: n[3], line: n[4],
			box:  image.Rect(n[6], n[7], n[6]+n[8], n[7]+n[9]),
			conf: float32(conf), text: text,
		})
	}
	return words, sc.Err()
}

// ocrLine is a line of words.
type ocrLine struct {
	words []tsvWord
	block int
	box   image.Rectangle
}

// layout builds a page's text from its words: lines from Tesseract's
// line numbers, paragraphs from the lines' spacing, and headings from paragraphs of at most two short
// lines set at least 1.3 times the page's usual line height.
func layout(words []tsvWord) Page {
	var lines []*ocrLine
	for _, w := range words {
		if n := len(lines); n > 0 {
			l := lines[n-1]
			last := l.words[len(l.words)-1]
			if l.block == w.block && last.par == w.par && last.line == w.line {
				l.words = append(l.words, w)
				l.box = l.box.Union(w.box)
				continue
			}
		}
		lines = append(lines, &ocrLine{words: []tsvWord{w}, block: w.block, box: w.box})
	}
	heights := make([]int, len(lines))
	var pitches []int
	for i, l := range lines {
		heights[i] = l.box.Dy()
		if i > 0 && lines[i-1].block == l.block && l.box.Min.Y > lines[i-1].box.Min.Y {
			pitches = append(pitches, l.box.Min.Y-lines[i-1].box.Min.Y)
		}
	}
	body := max(median(heights), 1)
	pitch := median(pitches)

	// Paragraphs: runs of lines of one block with no gap between them
	// wider than the usual line pitch allows. Tesseract's own paragraphs
	// are not used: in ragged-right text without indents it splits them
	// at lines that happen to end short.
	var paras [][]*ocrLine
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			step := l.box.Min.Y - prev.box.Min.Y
			if prev.block == l.block && step > 0 && (pitch == 0 || step*2 <= pitch*3) {
				paras[len(paras)-1] = append(paras[len(paras)-1], l)
				continue
			}
		}
		paras = append(paras, []*ocrLine{l})
	}

	var b textbuild.Builder
	var p Page
	line := 0
	for _, para := range paras {
		text, spans := joinLines(para)
		sp := b.Paragraph(text)
		if sp.Len() == 0 {
			continue
		}
		if int(sp.Len()) == len(text) { // always, as the words are clean
			k := 0
			for i, l := range para {
				for _, w := range l.words {
					s := spans[k]
					k++
					p.Words = append(p.Words, Word{Span: structure.Span{Start: sp.Start + s.Start, End: sp.Start + s.End}, Box: w.box, Conf: w.conf, Line: line + i})
				}
			}
			line += len(para)
		}
		if isHeading(para, body, text) {
			p.Headings = append(p.Headings, structure.Heading{Span: sp, Source: structure.SourceStyle})
		}
	}
	p.Text = b.Result().Text
	return p
}

// joinLines joins a paragraph's lines with spaces, and a word broken by a
// hyphen at a line's end ("recog-" "nised") without one, dropping the
// hyphen. It returns the text and each word's span in it.
func joinLines(para []*ocrLine) (string, []structure.Span) {
	var sb strings.Builder
	var spans []structure.Span
	for i, l := range para {
		for j, w := range l.words {
			text := w.text
			last := j == len(l.words)-1
			hyphenated := last && i+1 < len(para) && brokenWord(text, para[i+1].words[0].text)
			if hyphenated {
				text = strings.TrimSuffix(text, "-")
			}
			start := sb.Len()
			sb.WriteString(text)
			spans = append(spans, structure.Span{Start: int32(start), End: int32(sb.Len())})
			if !hyphenated && !(last && i == len(para)-1) {
				sb.WriteByte(' ')
			}
		}
	}
	return sb.String(), spans
}

// brokenWord reports whether a line ending in word and the next line
// starting with next split one word at a hyphen: a letter before the
// hyphen and a lower-case letter after the break.
func brokenWord(word, next string) bool {
	if len(word) < 3 || !strings.HasSuffix(word, "-") {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(word[:len(word)-1])
	after, _ := utf8.DecodeRuneInString(next)
	return unicode.IsLetter(before) && unicode.IsLower(after)
}

// isHeading reports whether a paragraph reads as a heading: one or two
// lines of at most twelve words, set at least 1.3 times the body's line
// height, not ending like a sentence.
func isHeading(para []*ocrLine, body int, text string) bool {
	if len(para) > 2 || len(strings.Fields(text)) > 12 || strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "..") {
		return false
	}
	for _, l := range para {
		if l.box.Dy()*10 < body*13 {
			return false
		}
	}
	return true
}
