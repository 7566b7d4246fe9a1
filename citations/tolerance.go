package citations

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/internal/textproc"
)

// What real models write around LongCite's format, and how the Parser
// reads it (testdata/citations/tolerance holds a sample of each, with the
// statements and citations expected of it):
//
//   - Markdown around the statements — headings, list markers, code
//     fences: a fence line outside the statements is dropped, the rest is
//     outside text as LongCite's postprocess keeps it (an uncited
//     statement when longer than five characters);
//   - citations in the text instead of, or beside, <cite>: "[3]",
//     "[3-5]", "[C3, C7]", "【3】" at the end of a sentence — right before
//     its closing punctuation, or right after it — are read as
//     citations, inside a statement or outside any (where each sentence
//     so cited becomes a statement of its own). A bracket anywhere else
//     ("x[1]", "the value [2] is") is text: it cannot be told from one;
//   - bare numbers in <cite> ("<cite>3-5, C7</cite>") and full-width
//     brackets are citations; what stands in <cite> and is not a number
//     or a range is Garbled, as is a bracket at a sentence's end that
//     holds a digit but no range ("[5-]");
//   - text outside the statements is split at blank lines, so an answer
//     in plain paragraphs keeps each as a statement;
//   - an answer in JSON, bare or fenced — {"answer": "<statement>…"}, or
//     statements as objects with their citations ([{"statement": …,
//     "citations": ["[3-5]"]}]) — is held and read whole when the stream
//     ends.

// jsonFence opens a fenced JSON reply.
const jsonFence = "```json"

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// startJSON holds the rest of the reply, from s[i:], to read at Close.
func (p *Parser) startJSON(s string, i int, prefix string) {
	p.jsonMode = true
	p.raw = append(append(p.raw, prefix...), s[i:]...)
}

// parseHeld reads a reply held as JSON: its statements, or, when it is
// not JSON after all, the text parsed as any other.
func parseHeld(raw []byte) []RawStatement {
	body := bytes.TrimSpace(raw)
	if n, ok := textproc.PrefixFold(string(body[:min(len(body), 4*len(jsonFence))]), jsonFence); ok {
		b := body[n:]
		body = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(b), []byte("```")))
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err == nil && !dec.More() {
		if out := fromJSON(v); len(out) > 0 {
			return out
		}
	}
	// Not JSON (or nothing in it): the text as it came, read by a parser
	// that does not look for JSON.
	q := Parser{sawStart: true}
	out := q.Write(string(raw))
	return append(out, q.Close()...)
}

// Keys of a statement object in a JSON answer, and keys whose values hold
// the answer, in the order they are read.
var (
	textKeys      = []string{"statement", "text", "sentence", "content", "claim", "answer"}
	citeKeys      = []string{"cite", "cites", "citation", "citations", "refs", "references", "sources", "evidence"}
	containerKeys = []string{"answer", "response", "output", "result", "statements", "sentences", "answers", "content", "text"}
)

// nonEmpty is rs as the statements of a segment: none when it has neither
// text nor citations.
func (rs RawStatement) nonEmpty() []RawStatement {
	if rs.Text == "" && len(rs.Refs) == 0 && len(rs.Garbled) == 0 {
		return nil
	}
	return []RawStatement{rs}
}

// fromJSON turns a JSON answer into statements.
func fromJSON(v any) []RawStatement {
	switch v := v.(type) {
	case string:
		return Parse(v)
	case []any:
		var out []RawStatement
		for _, e := range v {
			out = append(out, fromJSON(e)...)
		}
		return out
	case map[string]any:
		if text, ok := firstString(v, textKeys); ok {
			if cite, ok := firstOf(v, citeKeys); ok {
				rs := RawStatement{Tagged: true}
				inner := Parse(text)
				for _, s := range inner {
					rs.Text = strings.TrimSpace(rs.Text + " " + s.Text)
					rs.Refs = append(rs.Refs, s.Refs...)
					rs.Garbled = append(rs.Garbled, s.Garbled...)
				}
				refs, garbled := citeValue(cite)
				rs.Refs = append(rs.Refs, refs...)
				rs.Garbled = append(rs.Garbled, garbled...)
				return rs.nonEmpty()
			}
		}
		var out []RawStatement
		for _, k := range containerKeys {
			if e, ok := v[k]; ok {
				out = append(out, fromJSON(e)...)
			}
		}
		if len(out) > 0 {
			return out
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, fromJSON(v[k])...)
		}
		return out
	}
	return nil
}

func firstOf(m map[string]any, keys []string) (any, bool) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v, true
		}
	}
	return nil, false
}

func firstString(m map[string]any, keys []string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// citeValue reads a JSON citation value: "[3-5][7]" as <cite> content, a
// number as one citation, [3, 5] as two and [[3, 5]] as a range.
func citeValue(v any) ([]Ref, []string) {
	switch v := v.(type) {
	case string:
		return parseCite([]byte(v))
	case json.Number:
		if n, ok := wholeNumber(v); ok {
			return []Ref{{n, n}}, nil
		}
		return nil, []string{garbledToken("", []byte(v.String()))}
	case []any:
		var refs []Ref
		var garbled []string
		for _, e := range v {
			if pair, ok := e.([]any); ok && len(pair) == 2 {
				a, _ := pair[0].(json.Number)
				b, _ := pair[1].(json.Number)
				x, ok1 := wholeNumber(a)
				y, ok2 := wholeNumber(b)
				if ok1 && ok2 {
					refs = append(refs, Ref{x, y})
					continue
				}
			}
			r, g := citeValue(e)
			refs, garbled = append(refs, r...), append(garbled, g...)
		}
		return refs, garbled
	}
	return nil, nil
}

func wholeNumber(n json.Number) (int, bool) {
	i, err := n.Int64()
	if err != nil || i < 0 || i > 999_999_999 {
		return 0, false
	}
	return int(i), true
}

// parseCite reads what stood inside <cite>…</cite>: bracketed lists of
// numbers and ranges ("[3-5][7]", "[3, 5-6]", "[C3-C7]", "【3】"), and
// bare ones ("3-5, C7"); anything else is garbled, each bracket or word
// as written.
func parseCite(content []byte) ([]Ref, []string) { return appendCite(nil, nil, content) }

// appendCite is parseCite appending to refs and garbled.
func appendCite(refs []Ref, garbled []string, content []byte) ([]Ref, []string) {
	c := fullWidthBrackets(content)
	for i := 0; i < len(c); {
		switch b := c[i]; {
		case b == '[':
			j := bytes.IndexAny(c[i+1:], "[]")
			if j < 0 || c[i+1+j] == '[' {
				// Never closed, or "[3-[4-5]": the first one is garbled.
				end := len(c)
				if j >= 0 {
					end = i + 1 + j
				}
				if inner := c[i+1 : end]; len(bytes.TrimSpace(inner)) > 0 || j < 0 {
					garbled = append(garbled, garbledToken("[", inner))
				}
				i = end
				continue
			}
			refs, garbled = appendBracket(refs, garbled, c[i+1:i+1+j])
			i += j + 2
		case isSpace(b) || b == ',' || b == ';':
			i++
		default:
			// A bare token, up to the next separator or bracket.
			j := i + 1
			for j < len(c) && !isSpace(c[j]) && c[j] != ',' && c[j] != ';' && c[j] != '[' {
				j++
			}
			tok := c[i:min(j, i+4*maxCiteToken)]
			if r, ok := parseRange(tok); ok {
				refs = append(refs, r)
			} else {
				garbled = append(garbled, garbledToken("", tok))
			}
			i = j
		}
	}
	return refs, garbled
}

// hasBracket reports an opening bracket, ASCII or full width, in s.
// (strings.ContainsAny is slow with multi-byte characters to find.)
func hasBracket(s string) bool {
	return strings.IndexByte(s, '[') >= 0 || strings.Contains(s, "【") || strings.Contains(s, "［")
}

// fullWidthBrackets writes 【】 and ［］ as [ and ].
func fullWidthBrackets(b []byte) []byte {
	if !bytes.Contains(b, []byte("【")) && !bytes.Contains(b, []byte("】")) && !bytes.Contains(b, []byte("［")) && !bytes.Contains(b, []byte("］")) {
		return b
	}
	r := strings.NewReplacer("【", "[", "】", "]", "［", "[", "］", "]")
	return []byte(r.Replace(string(b)))
}

// bracketItems reads the content of one "[...]": comma-separated numbers
// and ranges. Items that do not parse are garbled; empty ones ("[]",
// "[3, ]") are ignored.
func bracketItems(b []byte) ([]Ref, []string) { return appendBracket(nil, nil, b) }

// appendBracket is bracketItems appending to refs and garbled.
func appendBracket(refs []Ref, garbled []string, b []byte) ([]Ref, []string) {
	if len(b) > 2*maxCiteToken {
		return refs, append(garbled, garbledToken("[", b))
	}
	for len(b) > 0 {
		item := b
		if k := bytes.IndexByte(b, ','); k >= 0 {
			item, b = b[:k], b[k+1:]
		} else {
			b = nil
		}
		item = bytes.TrimSpace(item)
		if len(item) == 0 {
			continue
		}
		if r, ok := parseRange(item); ok {
			refs = append(refs, r)
		} else {
			garbled = append(garbled, garbledToken("[", append(item[:len(item):len(item)], ']')))
		}
	}
	return refs, garbled
}

// garbledToken writes a garbled citation as the model wrote it, cut to
// maxCiteToken bytes.
func garbledToken(prefix string, b []byte) string {
	s := prefix + string(b)
	if len(s) > maxCiteToken {
		s = s[:maxCiteToken]
		for len(s) > 0 && !utf8.ValidString(s) { // do not cut a character in two
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

// --- citations in the text ---

// segment turns the text of one segment — a statement, or text outside
// any — into statements: inline citations read out of it, and outside
// text split into paragraphs and at each sentence cited inline. refs and
// garbled are those of its <cite> blocks, given to its last statement.
func segment(text []byte, tagged, unclosed bool, refs []Ref, garbled []string) []RawStatement {
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) == 0 && len(refs) == 0 && len(garbled) == 0 {
		return nil // the blank lines between statements
	}
	if tagged {
		rs := RawStatement{Tagged: true, Unclosed: unclosed}
		if hasBracket(string(trimmed)) {
			var irefs []Ref
			rs.Text, irefs, rs.Garbled = inlineCitations(string(trimmed), false)[0].parts()
			rs.Refs = irefs
		} else {
			rs.Text = string(trimmed)
		}
		if len(refs) > 0 {
			rs.Refs = append(rs.Refs, refs...)
		}
		rs.Garbled = append(rs.Garbled, garbled...)
		return rs.nonEmpty()
	}
	var out []RawStatement
	for _, para := range paragraphs(dropFences(text)) {
		for _, piece := range inlineCitations(para, true) {
			t, r, g := piece.parts()
			if len(r) > 0 || len(g) > 0 || utf8.RuneCountInString(t) > outsideMinLen {
				out = append(out, RawStatement{Text: t, Refs: r, Garbled: g})
			}
		}
	}
	if len(refs) > 0 || len(garbled) > 0 {
		if len(out) == 0 {
			out = append(out, RawStatement{Text: string(bytes.TrimSpace(text))})
		}
		last := &out[len(out)-1]
		last.Refs = append(last.Refs, refs...)
		last.Garbled = append(last.Garbled, garbled...)
	}
	return out
}

// piece is a stretch of text with the citations read out of it.
type piece struct {
	text    strings.Builder
	refs    []Ref
	garbled []string
}

func (p *piece) parts() (string, []Ref, []string) {
	var refs []Ref
	if len(p.refs) > 0 {
		refs = slices.Clone(p.refs)
	}
	return strings.TrimSpace(p.text.String()), refs, p.garbled
}

// fenceRE is a Markdown code fence line.
var fenceRE = regexp.MustCompile("(?m)^[ \t]*```[\\w.+-]*[ \t]*$\n?")

func dropFences(text []byte) string {
	if !bytes.Contains(text, []byte("```")) {
		return string(text)
	}
	return fenceRE.ReplaceAllString(string(text), "")
}

var blankLineRE = regexp.MustCompile(`\n[ \t]*\n`)

func paragraphs(text string) []string {
	if !strings.Contains(text, "\n") {
		return []string{text}
	}
	return blankLineRE.Split(text, -1)
}

// groupRE is one bracketed group on one line, ASCII or full width.
var groupRE = regexp.MustCompile(`[\[【［][^\[\]【】［］\n]{0,80}[\]】］]`)

// inlineCitations reads the citations a text carries at its sentences'
// ends; with split, the text is cut after each sentence so cited. The
// result has at least one piece.
func inlineCitations(text string, split bool) []*piece {
	cur := &piece{}
	out := []*piece{cur}
	if !hasBracket(text) {
		cur.text.WriteString(text)
		return out
	}
	locs := groupRE.FindAllStringIndex(text, -1)
	last := 0
	for k := 0; k < len(locs); {
		// A run: groups separated by spaces, commas or semicolons only.
		a, b := locs[k][0], locs[k][1]
		refs, garbled, ok := groupRefs(text[a:b])
		next := k + 1
		for ok && next < len(locs) && strings.Trim(text[b:locs[next][0]], " \t,;") == "" {
			r, g, ok2 := groupRefs(text[locs[next][0]:locs[next][1]])
			if !ok2 {
				break
			}
			refs, garbled = append(refs, r...), append(garbled, g...)
			b = locs[next][1]
			next++
		}
		k = next
		if !ok {
			continue
		}
		end, boundary, cites := citationPlace(text, a, b)
		if !cites {
			continue
		}
		// The text before the run, without the spaces before it; the run
		// itself is dropped.
		cur.text.WriteString(strings.TrimRight(text[last:a], " \t"))
		cur.refs = append(cur.refs, refs...)
		cur.garbled = append(cur.garbled, garbled...)
		last = b
		if split && boundary {
			cur.text.WriteString(text[b:end])
			last = end
			cur = &piece{}
			out = append(out, cur)
		}
	}
	cur.text.WriteString(text[last:])
	if split && len(out) > 1 && strings.TrimSpace(cur.text.String()) == "" && len(cur.refs) == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// groupRefs reads a bracket group standing in text: its citations, or,
// when it holds a digit but nothing readable ("[5-]"), itself as garbled;
// ok is false for a bracket that is no citation at all ("[sic]").
func groupRefs(group string) (refs []Ref, garbled []string, ok bool) {
	inner := fullWidthBrackets([]byte(group))
	inner = inner[1 : len(inner)-1]
	r, g := bracketItems(inner)
	switch {
	case len(g) == 0 && len(r) > 0:
		return r, nil, true
	case bytes.ContainsAny(inner, "0123456789") && len(bytes.TrimSpace(inner)) <= 12:
		return nil, []string{garbledToken("", fullWidthBrackets([]byte(group)))}, true
	}
	return nil, nil, false
}

// sentenceEnds are the marks that end a sentence, and closers what may
// stand between a citation and them.
const (
	sentenceEnds = ".!?。！？"
	clauseEnds   = ",;:，；：、"
)

// citationPlace decides whether the run text[a:b] is a sentence's
// citation: right before the mark that ends a sentence or a clause ("…
// American [5]." "… [5], and"), at the end of a line, or right after a
// sentence's end ("American. [5]"); never glued to a word or a number on
// its left ("x[1]"). end is where the cited sentence ends (after its
// mark), and boundary whether a statement may end there.
func citationPlace(text string, a, b int) (end int, boundary, ok bool) {
	if a > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:a])
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == ')' || r == ']') {
			return 0, false, false
		}
	}
	before := strings.TrimRight(text[:a], " \t")
	prev, _ := utf8.DecodeLastRuneInString(before)
	after := strings.TrimLeft(text[b:], " \t")
	next, n := utf8.DecodeRuneInString(after)
	afterAt := len(text) - len(after)
	switch {
	case after == "" || next == '\n':
		return afterAt, true, true
	case strings.ContainsRune(sentenceEnds, next):
		return afterAt + n, true, true
	case strings.ContainsRune(clauseEnds, next):
		return afterAt + n, false, true
	case before != "" && strings.ContainsRune(sentenceEnds, prev):
		return b, true, true
	}
	return 0, false, false
}
