package citations

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// WriteMarkdown writes a as Markdown: the question as a heading, the answer
// with a footnote marker after each statement that has citations (or needs
// one, or lost one), and footnotes that quote every cited span exactly —
// Markdown's special characters backslash-escaped, so the rendered quote is
// the document's text — under its document name, page and sentence range
// (the indices `citelens show --sentences` prints) and its support verdict. Unsupported citations are
// marked in bold.
//
// Statements are escaped like the quotes (statementMD): whatever a model
// writes, or a document steers it to write, renders as text, so a
// statement cannot forge a footnote (its verdict), a link, an image, raw
// HTML or a heading, nor hide the answer from a renderer that drops HTML.
func WriteMarkdown(w io.Writer, a *Answer) error {
	return WriteMarkdownWith(w, a, MarkdownOptions{})
}

// MarkdownOptions are WriteMarkdownWith's choices.
type MarkdownOptions struct {
	// Pictures, when set, gives the files picturing citation n (numbered
	// from 1 across the answer, in order) as paths relative to the
	// Markdown file; each is linked as an image under the citation's
	// quote. An export folder holds citation-N.png beside answer.md.
	Pictures func(n int, c Span) []string
	// Depth adds that many levels to every heading: an answer inside a
	// thread's export is a section of it (its question "##").
	Depth int
	// NotePrefix begins every footnote label ("2-" writes [^2-1]): the
	// answers of one thread's export each number their notes from 1,
	// and Markdown's labels must not repeat in a file.
	NotePrefix string
}

// WriteMarkdownWith is WriteMarkdown with pictures of the cited regions
// linked under their quotes.
func WriteMarkdownWith(w io.Writer, a *Answer, opt MarkdownOptions) error {
	bw := bufio.NewWriter(w)
	h := strings.Repeat("#", opt.Depth)
	fmt.Fprintf(bw, "%s# %s\n\n", h, oneLineMD(a.Question))
	if by := byline(a); by != "" {
		fmt.Fprintf(bw, "*%s*\n\n", oneLineMD(by))
	}
	if a.Partial {
		msg := "This answer is incomplete"
		if a.Error != "" {
			msg += ": " + a.Error
		}
		fmt.Fprintf(bw, "> **%s**\n\n", oneLineMD(msg))
	}

	var notes [][]string // footnote bodies, numbered from 1
	n := 0               // citations numbered so far, for opt.Pictures
	for i, s := range a.Statements {
		text := strings.TrimSpace(s.Text)
		if i > 0 {
			if isListItem(text) && isListItem(a.Statements[i-1].Text) {
				bw.WriteString("\n")
			} else {
				bw.WriteString("\n\n")
			}
		}
		bw.WriteString(statementMD(text))
		if body := footnote(&s, n, opt.Pictures); body != nil {
			notes = append(notes, body)
			fmt.Fprintf(bw, "[^%s%d]", opt.NotePrefix, len(notes))
		}
		n += len(s.Citations)
	}
	bw.WriteString("\n")

	for i, body := range notes {
		fmt.Fprintf(bw, "\n[^%s%d]: %s\n", opt.NotePrefix, i+1, body[0])
		for _, line := range body[1:] {
			if line == "" {
				bw.WriteString("\n")
			} else {
				bw.WriteString("    " + line + "\n")
			}
		}
	}

	fmt.Fprintf(bw, "\n%s## How it was answered\n\n", h)
	for _, l := range Method(a) {
		fmt.Fprintf(bw, "- **%s:** %s\n", l.Label, oneLineMD(l.Text))
	}
	if summary, details := PlanLines(a.Plan); summary != "" || len(details) > 0 {
		fmt.Fprintf(bw, "\n%s### Plan\n\n", h)
		if summary != "" {
			fmt.Fprintf(bw, "%s\n\n", oneLineMD(summary))
		}
		for _, d := range details {
			if item, ok := strings.CutPrefix(d, "  "); ok {
				fmt.Fprintf(bw, "  - %s\n", oneLineMD(item))
			} else {
				fmt.Fprintf(bw, "- %s\n", oneLineMD(d))
			}
		}
	}
	if len(a.Warnings) > 0 {
		fmt.Fprintf(bw, "\n%s## Warnings\n\n", h)
		for _, wn := range a.Warnings {
			fmt.Fprintf(bw, "- %s\n", oneLineMD(wn))
		}
	}
	return bw.Flush()
}

// footnote returns a statement's footnote as its first line and further
// lines (to be indented), or nil when the statement needs none. before is
// the number of citations of the statements before it; pictures, when
// set, names the files picturing each citation.
func footnote(s *Statement, before int, pictures func(n int, c Span) []string) []string {
	if len(s.Citations) == 0 && !s.NeedsCitation && len(s.Warnings) == 0 {
		return nil
	}
	var lines []string
	for i, c := range s.Citations {
		head := fmt.Sprintf("%s, %s, %s", escapeMD(c.DocName), escapeMD(c.PageLabel()), sentenceLabel(c.First, c.Last))
		if c.Heading != "" {
			head += ", under " + escapeMD(textproc.OneLine(c.Heading))
		}
		if mk := CitationMark(s, i); mk.Kind != NoMark {
			label := oneLineMD(mk.String())
			if mk.Warns() {
				label = "**" + label + "**"
			}
			if mk.Verdict.Level != "" {
				label += fmt.Sprintf(" (%.2f)", mk.Verdict.Score)
			}
			head += " — " + label
		}
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, head+":", "")
		for _, l := range strings.Split(c.Text, "\n") {
			l = strings.TrimRight(l, "\r")
			if l == "" {
				lines = append(lines, ">")
			} else {
				lines = append(lines, "> "+escapeMD(l))
			}
		}
		if pictures != nil {
			for _, file := range pictures(before+i+1, c) {
				alt := escapeMD(textproc.OneLine(c.DocName) + ", " + c.PageLabel() + ", the cited lines highlighted")
				lines = append(lines, "", "!["+alt+"]("+mdLinkTarget(file)+")")
			}
		}
	}
	if len(s.Citations) == 0 && s.NeedsCitation {
		lines = append(lines, "**No citation**: this statement states a fact but cites nothing.")
	}
	for _, wn := range s.Warnings {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, "*Note: "+oneLineMD(wn)+"*")
	}
	return lines
}

func byline(a *Answer) string {
	var parts []string
	if a.Strategy != "" {
		parts = append(parts, "Strategy "+a.Strategy)
	}
	if a.Model != "" {
		parts = append(parts, "model "+a.Model)
	}
	if cited := citedLine(a); cited != "" {
		parts = append(parts, cited)
	}
	if a.Seconds > 0 {
		parts = append(parts, fmt.Sprintf("%.1f s", a.Seconds))
	}
	if u := a.Usage; u.LLMCalls > 0 {
		est := ""
		if u.Estimated {
			est = " (estimated)"
		}
		parts = append(parts, fmt.Sprintf("%d model %s, %d prompt and %d completion tokens%s",
			u.LLMCalls, humanize.Noun(u.LLMCalls, "call", "calls"), u.PromptTokens, u.CompletionTokens, est))
	}
	if f := a.FollowUp; f != nil && len(f.After) > 0 {
		s := "follow-up to “" + f.After[len(f.After)-1] + "”"
		if f.Standalone != "" {
			s += ", read as “" + f.Standalone + "”"
		}
		parts = append(parts, s)
	}
	if !a.Created.IsZero() {
		parts = append(parts, a.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return strings.Join(parts, " · ")
}

// citedLine names the documents the answer cites, in the order it first
// cites them, and how many it was asked of when that is more: the byline
// says where the answer comes from, and "How it was answered" lists the
// whole scope.
func citedLine(a *Answer) string {
	var names []string
	seen := map[string]bool{}
	for _, s := range a.Statements {
		for _, c := range s.Citations {
			n := c.DocName
			if n == "" {
				n = string(c.Doc)
			}
			if !seen[string(c.Doc)] {
				seen[string(c.Doc)] = true
				names = append(names, n)
			}
		}
	}
	scope := len(a.Docs)
	if scope == 0 {
		scope = a.Library
	}
	if len(names) == 0 && scope == 0 {
		return ""
	}
	line := "cites no document"
	if len(names) > 0 {
		line = "cites " + strings.Join(names, ", ")
	}
	switch {
	case len(a.Docs) == 0 && a.Library > 0:
		line += " (asked of all " + humanize.Count(a.Library) + " of the library)"
	case scope > len(names):
		line += " (asked of " + humanize.Plural(scope, "document", "documents") + ")"
	}
	return line
}

// sentenceLabel names a sentence range by the indices `citelens show
// --sentences` prints (from 0, as the model's <Cn> numbers), so a reader can
// look any citation up.
func sentenceLabel(first, last int) string {
	if first == last {
		return fmt.Sprintf("sentence %d", first)
	}
	return fmt.Sprintf("sentences %d–%d", first, last)
}

// statementMD is one statement as Markdown: one paragraph (or one list
// item) of escaped text, its lines joined by spaces. Only the list marker
// is written by citelens itself, so a model's list still reads as a list;
// everything else the statement holds is escaped, so that nothing in it
// can start a block, a footnote definition, a link or HTML.
func statementMD(text string) string {
	marker, rest := listMarker(text)
	md := escapeMD(strings.Join(strings.Fields(rest), " "))
	// A footnote marker follows; renderers (goldmark) take "\\[^1]" for
	// an escaped bracket, so a final backslash is written as an entity.
	if s, ok := strings.CutSuffix(md, `\\`); ok {
		md = s + "&#92;"
	}
	return marker + md
}

// listMarker splits a leading list marker ("- ", "* ", "+ ", "• ", "1. ",
// "2) ") off s, returning it as citelens writes it ("- ", "1. ") and the
// rest; for a statement that is not a list item, marker is "".
func listMarker(s string) (marker, rest string) {
	for _, m := range []string{"- ", "* ", "+ ", "• "} {
		if r, ok := strings.CutPrefix(s, m); ok {
			return "- ", r
		}
	}
	i := 0
	for i < len(s) && i < 9 && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[:i] + ". ", s[i+2:]
	}
	return "", s
}

func isListItem(s string) bool {
	marker, _ := listMarker(strings.TrimSpace(s))
	return marker != ""
}

// escapeMD backslash-escapes the characters that Markdown (CommonMark and
// GitHub's extensions, autolinks among them) would read as syntax, so the
// text renders as itself. CommonMark lets any ASCII
// punctuation be escaped, so escaping a little too much is harmless.
// Control characters become visible symbols first (textproc.Printable).
func escapeMD(s string) string {
	s = textproc.Printable(s) // the file may well be read on a terminal
	var b strings.Builder
	b.Grow(len(s) + 8)
	lineStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '&', '!':
			b.WriteByte('\\')
		case '#', '-', '+', '=':
			if lineStart {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. " or "2) " at the start of a line would begin a list;
			// "www." would be linked by GFM renderers.
			if j := i - 1; j >= 0 && isDigitsFromLineStart(s, j) || c == '.' && endsWWW(s[:i]) {
				b.WriteByte('\\')
			}
		case '@':
			b.WriteByte('\\') // GFM links e-mail addresses
		case ':':
			// GFM links "http://…" in plain text; ": " at a line start
			// makes a definition list in Markdown Extra's dialects.
			if lineStart || strings.HasPrefix(s[i:], "://") {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
		lineStart = c == '\n' || (lineStart && (c == ' ' || c == '\t'))
	}
	return b.String()
}

// endsWWW reports whether s ends in the word "www", which GFM's autolinks
// start a link at.
func endsWWW(s string) bool {
	return len(s) >= 3 && strings.EqualFold(s[len(s)-3:], "www") && (len(s) == 3 || !isWordByte(s[len(s)-4]))
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf
}

// isDigitsFromLineStart reports whether s[..j] back to the line start (or
// the string start) is all digits, with leading spaces.
func isDigitsFromLineStart(s string, j int) bool {
	k := j
	for k >= 0 && '0' <= s[k] && s[k] <= '9' {
		k--
	}
	if k == j {
		return false
	}
	for k >= 0 && s[k] == ' ' {
		k--
	}
	return k < 0 || s[k] == '\n'
}

// mdLinkTarget writes a relative file path as a link destination: in
// angle brackets, which allow spaces, with those and the characters that
// would end it percent-encoded.
func mdLinkTarget(path string) string {
	r := strings.NewReplacer("%", "%25", " ", "%20", "<", "%3C", ">", "%3E", "\n", "%0A")
	return "<" + r.Replace(path) + ">"
}

// oneLineMD is for headings and notes: newlines become spaces, and Markdown
// syntax is escaped.
func oneLineMD(s string) string {
	return escapeMD(strings.Join(strings.Fields(s), " "))
}
