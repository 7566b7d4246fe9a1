package ingest

import (
	"strings"

	"github.com/citelens/citelens/docstore/structure"
)

// markdownHeadings finds a Markdown text's headings: ATX ("## Title",
// level from the #s) and setext (a line underlined with === for level 1
// or --- for level 2), outside fenced code. Each span is the heading's
// text, without its markers.
func markdownHeadings(text string) []structure.Heading {
	var out []structure.Heading
	fence := ""     // the open code fence, if any
	prevStart := -1 // start of the previous line when it was a paragraph line
	prevEnd := 0    // end of that line's text
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := strings.TrimRight(text[start:end], " \t\r")
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		next := end + 1
		para := -1
		switch {
		case fence != "":
			if strings.HasPrefix(body, fence) && strings.Trim(body, fence[:1]) == "" {
				fence = ""
			}
		case indent < 4 && (strings.HasPrefix(body, "```") || strings.HasPrefix(body, "~~~")):
			fence = body[:3]
		case indent < 4 && strings.HasPrefix(body, "#"):
			level := len(body) - len(strings.TrimLeft(body, "#"))
			rest := body[level:]
			if level <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
				title := strings.TrimSpace(rest)
				// a closing run of #s is not part of the title
				if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ")) {
					title = strings.TrimSpace(t)
				}
				if title != "" {
					s := start + indent + level + strings.Index(rest, title)
					out = append(out, structure.Heading{Span: structure.Span{Start: int32(s), End: int32(s + len(title))}, Level: level, Source: structure.SourceMarkup})
				}
			}
		case indent < 4 && prevStart >= 0 && body != "" && (strings.Trim(body, "=") == "" || strings.Trim(body, "-") == ""):
			level := 1
			if body[0] == '-' {
				level = 2
			}
			out = append(out, structure.Heading{Span: structure.Span{Start: int32(prevStart), End: int32(prevEnd)}, Level: level, Source: structure.SourceMarkup})
		case strings.TrimSpace(line) != "" && indent < 4 && !isListLine(body):
			para = start + indent
		}
		if para >= 0 {
			prevStart, prevEnd = para, start+len(line)
		} else {
			prevStart = -1
		}
		start = next
	}
	return out
}

// isListLine reports whether a Markdown line starts a list item or a
// block quote, which a setext underline cannot turn into a heading.
func isListLine(body string) bool {
	if strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "* ") || strings.HasPrefix(body, "+ ") || strings.HasPrefix(body, ">") {
		return true
	}
	i := 0
	for i < len(body) && i < 9 && body[i] >= '0' && body[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(body) && (body[i] == '.' || body[i] == ')') && body[i+1] == ' '
}
