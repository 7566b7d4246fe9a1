package raidd

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/llm"
)

// Parsed is what a derivation reply holds.
type Parsed struct {
	Summary   string
	Questions []string
	// cut is set when the reply stopped at the output limit.
	cut bool
}

// complete reports whether p is a usable reply that was not cut short
// at the output limit (whose last question may be half a question, and
// the rest missing).
func (p Parsed) complete() bool { return p.Usable() && !p.cut }

// problemOf says why p is not complete.
func (p Parsed) problemOf() string {
	if !p.Usable() {
		return p.problem()
	}
	return "the reply stopped at the output limit"
}

// Usable reports whether the reply gave both a summary and questions.
func (p Parsed) Usable() bool { return p.Summary != "" && len(p.Questions) > 0 }

// problem says what an unusable reply lacks.
func (p Parsed) problem() string {
	switch {
	case p.Summary == "" && len(p.Questions) == 0:
		return "the reply has neither a summary nor questions"
	case p.Summary == "":
		return "the reply has no summary"
	case len(p.Questions) == 0:
		return "the reply has no questions"
	}
	return ""
}

// better reports whether p holds more than q.
func (p Parsed) better(q Parsed) bool {
	score := func(x Parsed) int {
		s := len(x.Questions)
		if x.Summary != "" {
			s += 1000
		}
		if !x.cut {
			s += 100
		}
		return s
	}
	return score(p) > score(q)
}

// ParseReply reads a derivation reply tolerantly, keeping at most want
// questions: the SUMMARY:/QUESTIONS: layout the prompt asks for, headings
// in Markdown ("## Summary", "**Questions:**"), a JSON object
// {"summary": …, "questions": […]}, questions as a numbered list, bullets
// or "Q1:" labels, and as a last resort no headings at all (the lines
// that end in "?" are the questions, the text before them the summary).
// A reasoning model's thinking is skipped (llm.SplitReasoning); a reply
// that never closes it holds no answer.
func ParseReply(text string, want int) Parsed {
	text, _, _ = llm.SplitReasoning(text)
	text = stripFences(text)
	var p Parsed
	if j, ok := parseJSON(text); ok {
		p = j
	} else {
		p = parseSections(text)
	}
	p.Summary = cleanSummary(p.Summary)
	p.Questions = cleanQuestions(p.Questions, want)
	return p
}

// ParseSummary reads the reply to the summary call: the whole reply is
// the summary, less a reasoning model's thinking, code fences, a heading
// or label of the model's own ("## Summary", "Here is the summary:"), and
// the rest of a reply that went on to questions or gave a JSON object.
func ParseSummary(text string) string {
	text, _, _ = llm.SplitReasoning(text)
	text = stripFences(text)
	if j, ok := parseJSON(text); ok && j.Summary != "" {
		return cleanSummary(j.Summary)
	}
	if p := parseSections(text); p.Summary != "" {
		return cleanSummary(p.Summary)
	}
	return cleanSummary(text)
}

// ParseQuestions reads the reply to the questions call, keeping at most
// want: every list item, and every line that asks something, under a
// heading or not ("Let me know if…" is neither and is dropped).
func ParseQuestions(text string, want int) []string {
	text, _, _ = llm.SplitReasoning(text)
	text = stripFences(text)
	if j, ok := parseJSON(text); ok && len(j.Questions) > 0 {
		return cleanQuestions(j.Questions, want)
	}
	var qs []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := headingRE.FindStringSubmatch(l); m != nil && isHeading(l, m) {
			l = m[2] // "Questions: 1. Why…?" keeps what follows the heading
		}
		if markerRE.MatchString(l) || strings.HasSuffix(strings.TrimSpace(l), "?") {
			qs = append(qs, splitQuestions(l)...)
		}
	}
	return cleanQuestions(qs, want)
}

// stripFences removes Markdown code fence lines ("```json"), keeping what
// they enclose.
func stripFences(s string) string {
	if !strings.Contains(s, "```") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// parseJSON reads {"summary": "...", "questions": [...]} (keys in any case;
// questions as a list or one string of lines) from the first '{' to the
// last '}'.
func parseJSON(s string) (Parsed, bool) {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return Parsed{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(s[i:j+1]), &m) != nil {
		return Parsed{}, false
	}
	var p Parsed
	found := false
	for k, v := range m {
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "summary", "concept_summary", "concept-level summary":
			var str string
			if json.Unmarshal(v, &str) == nil {
				p.Summary, found = str, true
			}
		case "questions", "reading_comprehension_questions", "reading comprehension questions":
			var list []string
			var str string
			switch {
			case json.Unmarshal(v, &list) == nil:
				p.Questions, found = list, true
			case json.Unmarshal(v, &str) == nil:
				p.Questions, found = splitQuestions(str), true
			default:
				// A list of objects: {"question": "..."}.
				var objs []map[string]any
				if json.Unmarshal(v, &objs) == nil {
					for _, o := range objs {
						for _, key := range []string{"question", "q", "text"} {
							if q, ok := o[key].(string); ok {
								p.Questions = append(p.Questions, q)
								break
							}
						}
					}
					found = true
				}
			}
		}
	}
	return p, found
}

// headingRE matches a section heading line: optional Markdown (#, *, _),
// the section's name, an optional colon, and possibly text after it.
var headingRE = regexp.MustCompile(`(?i)^[\s#*_>]*(?:\d+[.)]\s*)?((?:concept(?:ual)?[- ]level\s+|conceptual\s+|chunk\s+)?summary|(?:reading[- ]comprehension\s+|generated\s+)?questions?)\s*(?:\(\d+\))?[*_]*\s*[:：]?[*_]*\s*(.*)$`)

// parseSections reads the SUMMARY:/QUESTIONS: layout and its variants.
func parseSections(s string) Parsed {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var pre, summary, questions []string
	section := "" // "", "summary", "questions"
	sawHeading, sawSummary := false, false
	for _, l := range lines {
		if m := headingRE.FindStringSubmatch(l); m != nil && isHeading(l, m) {
			sawHeading = true
			if strings.Contains(strings.ToLower(m[1]), "question") {
				section = "questions"
				if rest := strings.TrimSpace(m[2]); rest != "" {
					questions = append(questions, rest)
				}
			} else {
				section, sawSummary = "summary", true
				if rest := strings.TrimSpace(m[2]); rest != "" {
					summary = append(summary, rest)
				}
			}
			continue
		}
		switch section {
		case "summary":
			summary = append(summary, l)
		case "questions":
			questions = append(questions, l)
		default:
			pre = append(pre, l) // before any heading: a preamble, or the summary
		}
	}
	if !sawHeading {
		return parseBare(lines)
	}
	if !sawSummary {
		summary = pre
	}
	var p Parsed
	p.Summary = strings.Join(summary, "\n")
	for _, l := range questions {
		// Under the questions heading, a line is a question if it is a
		// list item or asks something; "Let me know if…" is neither.
		if markerRE.MatchString(l) || strings.HasSuffix(strings.TrimSpace(l), "?") {
			p.Questions = append(p.Questions, splitQuestions(l)...)
		}
	}
	// A model that lists its questions under the summary heading without
	// a questions heading: move the question lines over.
	if len(p.Questions) == 0 {
		var keep []string
		for _, l := range summary {
			if q := stripMarker(l); strings.HasSuffix(q, "?") && q != strings.TrimSpace(l) {
				p.Questions = append(p.Questions, q)
			} else {
				keep = append(keep, l)
			}
		}
		p.Summary = strings.Join(keep, "\n")
	}
	return p
}

// isHeading tells a heading ("Summary:", "## Questions") from a sentence
// that merely starts with the word ("Summary judgments were…", "Questions
// of law arise…"): a heading has a colon, Markdown, or nothing after it.
func isHeading(line string, m []string) bool {
	rest := strings.TrimSpace(m[2])
	if rest == "" {
		return true
	}
	t := strings.TrimSpace(line)
	head := t[:len(t)-len(rest)]
	return strings.ContainsAny(head, ":：#*")
}

// parseBare reads a reply without headings: the lines ending in "?" are
// the questions, the other lines before the first of them the summary.
func parseBare(lines []string) Parsed {
	var p Parsed
	var summary []string
	for _, l := range lines {
		if loc := itemRE.FindStringIndex(l); loc != nil && loc[0] > 0 && len(p.Questions) == 0 &&
			!strings.HasSuffix(strings.TrimSpace(l[:loc[0]]), "?") {
			// Prose, then the numbered questions on the same line (a
			// model that ignored the layout): the prose is the summary.
			summary = append(summary, l[:loc[0]])
			l = l[loc[0]:]
		}
		qs := splitQuestions(l)
		isQ := len(qs) > 0
		for _, q := range qs {
			if !strings.HasSuffix(q, "?") {
				isQ = false
			}
		}
		if isQ {
			p.Questions = append(p.Questions, qs...)
			continue
		}
		if len(p.Questions) == 0 {
			summary = append(summary, l)
		}
	}
	p.Summary = strings.Join(summary, "\n")
	return p
}

// itemRE finds where a numbered item starts inside a line ("1. Why? 2.
// How?"): a number and a period or parenthesis, then a space.
var itemRE = regexp.MustCompile(`(?:^|\s)(?:Q\s?)?\d{1,3}[.):]\s`)

// splitQuestions splits a line (or a block of lines) into its questions,
// without their list markers.
func splitQuestions(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		locs := itemRE.FindAllStringIndex(l, -1)
		if len(locs) <= 1 {
			if q := stripMarker(l); q != "" {
				out = append(out, q)
			}
			continue
		}
		// Several numbered items on one line: split before each whose
		// predecessor ended a question.
		start := 0
		for _, loc := range locs[1:] {
			prev := strings.TrimSpace(l[start:loc[0]])
			if strings.HasSuffix(prev, "?") {
				if q := stripMarker(prev); q != "" {
					out = append(out, q)
				}
				start = loc[0]
			}
		}
		if q := stripMarker(l[start:]); q != "" {
			out = append(out, q)
		}
	}
	return out
}

// markerRE matches a list marker: bullets, "1.", "1)", "(1)", "Q1:",
// "Question 1:".
var markerRE = regexp.MustCompile(`(?i)^\s*(?:[-*•·–]+\s*|\(?\d{1,3}[.):]\s*|\(\d{1,3}\)\s*|q(?:uestion)?\s?\d{1,3}\s*[.):-]?\s*|\*\*\d{1,3}[.)]\*\*\s*)+`)

func stripMarker(l string) string {
	l = markerRE.ReplaceAllString(strings.TrimSpace(l), "")
	return strings.Trim(l, " \t*_\"“”")
}

// cleanSummary joins the summary's lines into one paragraph, without list
// markers, labels or quotes.
// labelOnlyRE is a line that is only a label: a word or two and a colon.
var labelOnlyRE = regexp.MustCompile(`^[\pL ]{1,30}:\**$`)

func cleanSummary(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		l = strings.Trim(l, "*_\"“”")
		l = strings.TrimSpace(markerRE.ReplaceAllString(l, ""))
		if labelOnlyRE.MatchString(l) {
			continue // a heading of the model's own ("**Answer:**"), not a summary
		}
		if l != "" {
			parts = append(parts, l)
		}
	}
	out := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	if !hasLetter(out) {
		return ""
	}
	return out
}

// cleanQuestions normalises the questions' spaces and keeps the first want
// distinct ones that have words.
func cleanQuestions(qs []string, want int) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		q = strings.Join(strings.Fields(q), " ")
		key := strings.ToLower(q)
		if !hasLetter(q) || seen[key] || utf8.RuneCountInString(q) < 3 {
			continue
		}
		seen[key] = true
		out = append(out, q)
		if want > 0 && len(out) == want {
			break
		}
	}
	return out
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}
