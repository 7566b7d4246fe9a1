// Package segment splits stored text into sentences and sentences into
// chunks. Offsets are bytes into the text given, so citations built on them
// point at the document's exact bytes.
package segment

// Span is a byte range [Start, End) of the text.
type Span struct{ Start, End int }

// Sentences splits text into sentences, in order and never overlapping.
// Whitespace between sentences belongs to none of them.
//
// PROVISIONAL: a naive splitter until the real segmenter lands.
func Sentences(text string) []Span {
	var out []Span
	start := -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		if start < 0 {
			if c != ' ' && c != '\n' && c != '\t' && c != '\r' {
				start = i
			}
			continue
		}
		if c == '.' || c == '?' || c == '!' || c == '\n' {
			end := i
			if c != '\n' {
				end = i + 1
			}
			out = append(out, Span{start, end})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, Span{start, len(text)})
	}
	return out
}
