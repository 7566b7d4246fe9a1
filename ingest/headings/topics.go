package headings

import (
	"strings"
	"unicode"

	"github.com/citelens/citelens/docstore/structure"
)

// Reference topics. A reference manual — R's help pages, man pages, API
// documentation — is a run of topics, each opened by its own line (".bincode
// Bin a Numeric Vector", "ls - list directory contents") and divided into
// the same few sections ("Description", "Usage", "Arguments"; "NAME",
// "SYNOPSIS", "OPTIONS"). The sections share a type and are easy to find;
// the topic line is often set in body type, or found by another means (a
// PDF outline) at the sections' level. Left alone, the sections become the
// topics' siblings and a citation reads "The stats package > Arguments",
// never naming the function. referenceTopics finds the sections that recur,
// the one that opens a topic, and each topic's line, and puts the topic
// above its sections.

// minTopics is how many topics, each opened by the same section, make a
// document a reference manual; a section name must recur as often.
const minTopics = 3

// sectionKey is a heading's text as recurring sections are compared:
// short (a few words), in lower case, without a closing colon; "" for a
// heading that cannot be such a section.
func sectionKey(t string) string {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), ":"))
	if t == "" || len(t) > 40 {
		return ""
	}
	f := strings.Fields(t)
	if len(f) > 4 {
		return ""
	}
	return strings.ToLower(strings.Join(f, " "))
}

// referenceTopics finds the topics of a reference manual among its
// headings hs (in text order, levels 0 where unknown) and returns them
// with each topic's heading above its sections: a topic line that was no
// heading becomes one; the sections of a topic whose level is known go a
// level down, and those of unknown level are marked sub, to be nested
// below the topic. A document that is no reference manual is returned as
// it is.
func referenceTopics(text string, sents []structure.Span, flags []structure.Flags, hs []heading) []heading {
	if len(hs) < 2*minTopics {
		return hs
	}
	keys := make([]string, len(hs))
	count := map[string]int{}
	for i, h := range hs {
		if h.nums == nil {
			if keys[i] = sectionKey(text[h.span.Start:h.span.End]); keys[i] != "" {
				count[keys[i]]++
			}
		}
	}
	recurs := func(i int) bool { return keys[i] != "" && count[keys[i]] >= minTopics }
	opener := topicOpener(keys, recurs)
	if opener == "" {
		return hs
	}
	// Where most topics' headings stand right over their first sections
	// (an outline names them), a line between the two is the rest of the
	// topic's title; where they do not, it is the topic's line.
	opened, headed := 0, 0
	for j := range hs {
		if keys[j] == opener {
			opened++
			if j > 0 && headsTopic(text, sents, flags, hs, j-1, j, recurs, false) {
				headed++
			}
		}
	}
	tails := 2*headed > opened
	// the sentence after which the section opened by hs[j] ends
	sectionEnd := func(j int) int {
		if j+1 < len(hs) {
			return hs[j+1].sent
		}
		return len(sents)
	}
	out := make([]heading, 0, len(hs)+len(hs)/4)
	for j := 0; j < len(hs); j++ {
		if keys[j] != opener {
			out = append(out, hs[j])
			continue
		}
		level := hs[j].level
		// The topic's sections run to the next topic or to a heading
		// above them.
		end := j + 1
		for end < len(hs) && keys[end] != opener && !(level > 0 && hs[end].level > 0 && hs[end].level < level) {
			end++
		}
		if end < len(hs) && keys[end] == opener && end-1 > j && headsTopic(text, sents, flags, hs, end-1, end, recurs, tails) {
			end-- // the next topic's own heading
		}
		named := false // the opening section's line names the topic
		switch {
		case j > 0 && headsTopic(text, sents, flags, hs, j-1, j, recurs, tails):
			// The heading before the section names the topic: the PDF
			// outline's "t.test", a bold function name.
			topic := &out[len(out)-1]
			if topic.level > 0 && level > 0 && topic.level < level {
				out = append(out, hs[j:end]...) // already above its sections
				j = end - 1
				continue
			}
			topic.topic = true
			if topic.level <= 0 {
				topic.level = level
			}
		default:
			if c, ok := nameLine(text, sents, flags, hs[j].sent, sectionEnd(j)); ok {
				// The opening section is one line naming the topic, as a
				// man page's NAME is: that line heads the topic, from the
				// section's heading on.
				out = append(out, heading{sent: hs[j].sent, span: trim(text, sents[c]), level: level, topic: true, nameSent: c})
				named = true
				break
			}
			p := hs[j].sent - 1
			for p >= 0 && flags[p]&structure.FlagFurniture != 0 {
				p--
			}
			if p < 0 || j > 0 && hs[j-1].sent >= p || !topicLine(text, sents[p], flags[p]) {
				out = append(out, hs[j:end]...) // no line names the topic
				j = end - 1
				continue
			}
			// The line standing over the section: an R help page's title
			// line set in body type.
			out = append(out, heading{sent: p, span: trim(text, sents[p]), level: level, topic: true})
		}
		first := j
		if named {
			first++
		}
		for _, h := range hs[first:end] {
			out = append(out, lower(h, level))
		}
		j = end - 1
	}
	return out
}

// lower puts h, a heading in a topic whose sections were at level (0:
// unknown), under the topic's heading.
func lower(h heading, level int) heading {
	switch {
	case level > 0 && h.level >= level:
		h.level++
	case level <= 0 && h.level <= 0:
		h.sub = true
	}
	return h
}

// topicOpener is the section that opens a topic: the one every topic has,
// so the most frequent recurring section, the first to come where several
// are as frequent (NAME before SYNOPSIS). It is "" unless it comes at
// least minTopics times and most of its topics have another recurring
// section before the next.
func topicOpener(keys []string, recurs func(int) bool) string {
	count := map[string]int{}
	first := map[string]int{}
	for i, k := range keys {
		if recurs(i) {
			if count[k] == 0 {
				first[k] = i
			}
			count[k]++
		}
	}
	best := ""
	for k, n := range count {
		if best == "" || n > count[best] || n == count[best] && first[k] < first[best] {
			best = k
		}
	}
	if count[best] < minTopics {
		return ""
	}
	full, more := 0, false
	for i, k := range keys {
		switch {
		case k == best:
			if more {
				full++
			}
			more = false
		case recurs(i) && i > first[best]:
			more = true
		}
	}
	if more {
		full++
	}
	if 2*full < count[best] {
		return ""
	}
	return best
}

// headsTopic reports whether heading hs[t] names the topic whose opening
// section is hs[j]: it is no recurring section, and nothing but page
// furniture and, if tails, one line of its title (titleTail) stands
// between them.
func headsTopic(text string, sents []structure.Span, flags []structure.Flags, hs []heading, t, j int, recurs func(int) bool, tails bool) bool {
	if recurs(t) || hs[t].nums != nil || hs[t].level > 0 && hs[j].level > 0 && hs[t].level > hs[j].level {
		return false
	}
	wrapped := false
	for i := hs[t].sent + 1; i < hs[j].sent; i++ {
		if flags[i]&(structure.FlagFurniture|structure.FlagContents) != 0 {
			continue
		}
		if !tails || wrapped || !titleTail(text[sents[i].Start:sents[i].End]) {
			return false
		}
		wrapped = true
	}
	return true
}

// titleTail reads the rest of a topic's title: one line, not closed as a
// sentence ("guages" after "…Programming Lan-", "Reflectance Information
// for C/Fortran routines in a DLL" under a name too long to share its
// line).
func titleTail(t string) bool {
	return len(t) <= 120 && !strings.ContainsRune(t, '\n') && len(strings.Fields(t)) <= 12 && !endsSentence(t)
}

// nameLine returns the one line of a section [from, to) whose heading is
// sentence from, when that line names something rather than says
// something: short, with no closing full stop ("ls - list directory
// contents").
func nameLine(text string, sents []structure.Span, flags []structure.Flags, from, to int) (int, bool) {
	line := -1
	for i := from + 1; i < to; i++ {
		if flags[i]&structure.FlagFurniture != 0 {
			continue
		}
		if line >= 0 {
			return 0, false
		}
		line = i
	}
	if line < 0 {
		return 0, false
	}
	t := text[sents[line].Start:sents[line].End]
	if strings.ContainsRune(t, '\n') || len(t) > 120 || len(strings.Fields(t)) > 12 || endsSentence(t) || flags[line]&(structure.FlagContents|structure.FlagTableRow) != 0 {
		return 0, false
	}
	return line, strings.IndexFunc(t, unicode.IsLetter) >= 0
}

// topicLine reports whether sentence s could be a topic's own line: one
// short line standing apart, with letters, not closed as a sentence or a
// clause is.
func topicLine(text string, s structure.Span, f structure.Flags) bool {
	t := text[s.Start:s.End]
	if f&(structure.FlagContents|structure.FlagTableRow|structure.FlagFurniture) != 0 || t == "" || len(t) > 120 || strings.ContainsRune(t, '\n') {
		return false
	}
	if !startsLine(text, int(s.Start)) || !endsLine(text, int(s.End)) || !blankBefore(text, int(s.Start)) {
		return false
	}
	if (endsSentence(t) && !strings.HasSuffix(t, "?")) || strings.HasSuffix(t, ",") || strings.HasSuffix(t, ":") {
		return false
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2 && len(strings.Fields(t)) <= 15
}
