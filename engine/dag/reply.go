package dag

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// planReply is what the planner wrote: the next sub-question, or the stop
// signal.
type planReply struct {
	// Final is the stop signal: the model wrote "Final answer:" (or
	// answered without proposing a sub-question).
	Final bool
	// Text is the sub-question, or the final answer when Final ("" if the
	// model gave none).
	Text string
}

// Labels a planner line may start with, lower case. The stop signal is
// P_d's "Final answer:"; the others are the sub-question label in the
// spellings models use, and the thought's other labels, which a model
// sometimes repeats and which are skipped.
var (
	subLabels   = []string{"subquestion", "sub-question", "sub question", "next subquestion", "next sub-question", "follow-up question", "follow up question", "follow-up", "follow up", "next question"}
	finalLabels = []string{"final answer", "so the final answer is", "the final answer is", "answer"}
	skipLabels  = []string{"question", "fact", "retrieved fact", "generated answer", "intermediate answer", "thought"}
)

// maxSubQuestion bounds a sub-question, in bytes: it is a line of the
// thought and a stage, not a paragraph.
const maxSubQuestion = 300

// parsePlan reads the planner's reply. The first line labelled as a
// sub-question or a final answer decides, whatever the model wrote around
// it (markdown emphasis, list markers, a repeated "Fact:" line; a
// reasoning model's <think> block the Caller has taken out). A reply with no such label is a
// sub-question when its first line asks one, and otherwise the model
// answering, which stops the steps; so does an empty reply, since there is
// no sub-question to look up.
func parsePlan(text string) planReply {
	lines := strings.Split(text, "\n")
	first := ""
	for i, raw := range lines {
		line := cleanLine(raw)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		label, rest, ok := cutLabel(line)
		if !ok {
			continue
		}
		switch {
		case contains(subLabels, label):
			if rest == "" { // the sub-question on the next line
				for _, next := range lines[i+1:] {
					if l := cleanLine(next); l != "" {
						if _, _, labelled := cutLabel(l); !labelled {
							rest = l
						}
						break
					}
				}
			}
			if rest == "" {
				continue
			}
			return planReply{Text: shorten(rest, maxSubQuestion)}
		case contains(finalLabels, label):
			return planReply{Final: true, Text: rest}
		}
	}
	if _, rest, labelled := cutLabel(first); labelled {
		first = rest
	}
	if strings.HasSuffix(first, "?") {
		return planReply{Text: shorten(first, maxSubQuestion)}
	}
	return planReply{Final: true, Text: first}
}

// unread reports a reply with nothing to go on: no sub-question and no
// answer (an empty reply, or an empty "Final answer:").
func (p planReply) unread() bool { return p.Final && p.Text == "" }

// cutLabel splits "Label: text" into the lower-case label and the text,
// when the line starts with a known label followed by a colon ("Final
// answer:", "**Subquestion 2:**") or, for "so the final answer is", by
// anything.
func cutLabel(line string) (label, rest string, ok bool) {
	lower := textproc.ASCIILower(line)
	for _, group := range [][]string{subLabels, finalLabels, skipLabels} {
		for _, l := range group {
			if !strings.HasPrefix(lower, l) {
				continue
			}
			after := line[len(l):]
			// An optional step number and closing emphasis before the colon.
			after = strings.TrimLeft(after, " 0123456789*_")
			switch {
			case strings.HasPrefix(after, ":"):
				after = after[1:]
			case strings.HasPrefix(after, "："):
				after = after[len("："):]
			case strings.HasSuffix(l, " is"):
			default:
				continue
			}
			return l, cleanLine(after), true
		}
	}
	return "", "", false
}

// cleanLine trims a line of whitespace, list markers, emphasis and quotes.
func cleanLine(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimLeft(s, "*_#>-•` \t")
		// "1." or "2)" numbering
		if i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) }); i > 0 && (t[i] == '.' || t[i] == ')') && i+1 < len(t) && t[i+1] == ' ' {
			t = t[i+1:]
		}
		t = strings.TrimSpace(t)
		if t == s {
			break
		}
		s = t
	}
	s = strings.TrimRight(s, "*_` \t")
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// shorten cuts s to at most n bytes at a word boundary, without splitting a
// character.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// maxFact bounds a fact, in bytes; P_e asks for one sentence.
const maxFact = 1000

// parsedFact is the fact extracted for a sub-question.
type parsedFact struct {
	Text      string
	Citations []citations.Span
	Warnings  []string
	// Matched reports that the model cited nothing and the citation is the
	// shown sentence that best supports the fact.
	Matched bool
}

// parseFact reads the fact-extraction reply: LongCite statements (one,
// usually) whose citations resolve through n, the numbering the prompt
// showed. Several statements are joined into one fact. A fact the model
// did not cite is given the shown sentence that supports it best, when the
// offline judge finds it fully supported and the fact is not a statement
// that the reference lacks the answer; the step says so.
func parseFact(text string, n *citations.Numbering, sub string) parsedFact {
	s := citations.NewStream(n, sub, citations.ResolveOptions{})
	sts := s.Write(text)
	sts = append(sts, s.Close()...)
	var f parsedFact
	var texts []string
	for _, st := range sts {
		t := st.Text
		if label, rest, ok := cutLabel(cleanLine(t)); ok && label == "fact" {
			t = rest
		}
		t = oneLine(cleanLine(t))
		f.Warnings = append(f.Warnings, st.Warnings...)
		if t == "" && len(st.Citations) == 0 {
			continue
		}
		if t != "" {
			texts = append(texts, t)
		}
		f.Citations = append(f.Citations, st.Citations...)
	}
	f.Citations = mergeSpans(f.Citations, n)
	f.Text = shorten(strings.Join(texts, " "), maxFact)
	if f.Text != "" && len(f.Citations) == 0 && !saysMissing(f.Text) {
		if best, ok := bestSupport(f.Text, n); ok {
			f.Citations = []citations.Span{best}
			f.Matched = true
		}
	}
	return f
}

// mergeSpans orders spans as n numbers them and merges those of one
// document that overlap or adjoin, so a fact citing [3-3][4-4] cites
// sentences 3-4 once.
func mergeSpans(spans []citations.Span, n *citations.Numbering) []citations.Span {
	type numbered struct {
		c   citations.Span
		num int
		doc *docstore.Document
	}
	var ns []numbered
	for _, c := range spans {
		num, ok := n.Number(c.Doc, c.First)
		if !ok {
			continue
		}
		u, _ := n.Lookup(num)
		ns = append(ns, numbered{c, num, u.Doc})
	}
	slices.SortStableFunc(ns, func(a, b numbered) int { return a.num - b.num })
	out := make([]citations.Span, 0, len(ns))
	var last *numbered
	for i := range ns {
		x := &ns[i]
		if last != nil && last.doc == x.doc && x.c.First <= last.c.Last+1 {
			if x.c.Last > last.c.Last {
				last.c = citations.SpanOf(x.doc, last.c.First, x.c.Last)
				out[len(out)-1] = last.c
			}
			continue
		}
		out = append(out, x.c)
		last = x
	}
	return out
}

// bestSupport returns the shown sentence that supports fact best, if the
// offline judge finds it supported.
func bestSupport(fact string, n *citations.Numbering) (citations.Span, bool) {
	var best citations.Span
	bestScore := -1.0
	n.Each(func(u citations.Unit) bool {
		sp := citations.SpanOf(u.Doc, u.First, u.Last)
		if v := citations.Support(fact, sp.Text); v.Level == citations.Supported && v.Score > bestScore {
			best, bestScore = sp, v.Score
		}
		return true
	})
	return best, bestScore >= 0
}

// missingPhrases mark a fact that says the reference lacks the answer;
// such a fact cites nothing.
var missingPhrases = []string{"does not", "doesn't", "do not", "don't", "not mention", "not say", "not state", "not give", "not provide", "no information", "not found", "cannot", "can't", "unknown", "not specified", "not available"}

func saysMissing(fact string) bool {
	lower := strings.ToLower(fact)
	for _, p := range missingPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}

// stepReply is what the model drafted under Algorithm 2: the next
// reasoning step, or the last one, "X is the answer.".
type stepReply struct {
	// Final is the stop signal: the step gives the answer (or the model
	// wrote none).
	Final bool
	// Text is the step; the answer, X, when Final.
	Text string
}

// unread reports a reply that is not a step in the template: no step
// and no answer (an empty reply, or an empty "Answer:").
func (s stepReply) unread() bool { return s.Final && s.Text == "" }

// answerRE finds the template's last step, "X is the answer", or "the
// answer is X".
var (
	isAnswerRE  = regexp.MustCompile(`(?i)^(.*?)[,;]?\s+is\s+(?:the|our|my)\s+(?:final\s+)?answer\b`)
	answerIsRE  = regexp.MustCompile(`(?i)^(?:so\s+|therefore,?\s+|thus,?\s+)?the\s+(?:final\s+)?answer\s+is[:\s]\s*(.*)$`)
	thoughtsRE  = regexp.MustCompile(`(?i)^thoughts with new knowledge\s*:\s*`)
	stepLabelRE = regexp.MustCompile(`(?i)^(?:next\s+)?step(?:\s*\d+)?\s*[*_]*\s*:[*_\s]*`)
)

// parseStep reads the model's draft of the next step: the first step it
// wrote (a model that goes on to write the rest is read no further, as
// DeepEdit stops decoding at the step's "#"), without a repeated label.
// "X is the answer." (or "the answer is X", or an "Answer:" line) is the
// stop signal; so is an empty reply, there being no step to look up.
func parseStep(text string) stepReply {
	for _, raw := range strings.Split(text, "\n") {
		line := cleanLine(raw)
		line = thoughtsRE.ReplaceAllString(line, "")
		line = stepLabelRE.ReplaceAllString(line, "")
		if line == "" {
			continue
		}
		if label, rest, ok := cutLabel(line); ok && contains(finalLabels, label) {
			return stepReply{Final: true, Text: rest}
		} else if ok && label == "question" {
			continue // the question repeated
		}
		step, _, _ := strings.Cut(line, "#")
		step = strings.TrimSpace(step)
		if step == "" {
			continue
		}
		if m := answerIsRE.FindStringSubmatch(step); m != nil {
			return stepReply{Final: true, Text: strings.TrimRight(strings.TrimSpace(m[1]), ".")}
		}
		if m := isAnswerRE.FindStringSubmatch(step); m != nil {
			return stepReply{Final: true, Text: strings.TrimSpace(m[1])}
		}
		return stepReply{Text: shorten(step, maxSubQuestion)}
	}
	return stepReply{Final: true}
}
