package okra

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/generate"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/textproc"
)

// The context processor's settings.
const (
	// MergeGap is the widest gap, in sentences, between two passages of a
	// document that merging fills, so the model reads them as one text.
	MergeGap = 2
	// MaxTableTokens bounds how far table recovery extends a passage.
	MaxTableTokens = 1500
)

// span is a passage of the context: sentences first..last of the doc-th
// document of the scope. rank orders spans for trimming (lower is more
// relevant): a retrieved window's position in its own ranking.
type span struct {
	doc, first, last int
	rank             int
}

// gathered is the context being assembled: the retrieved windows of every
// query, without repeats.
type gathered struct {
	docs  []*docstore.Document
	index map[docstore.DocID]int
	spans []span
	seen  map[span]bool // by doc, first, last (rank 0)
	// windows counts the distinct windows added.
	windows int
}

func newGathered(docs []*docstore.Document) *gathered {
	g := &gathered{docs: docs, index: make(map[docstore.DocID]int, len(docs)), seen: map[span]bool{}}
	for i, d := range docs {
		g.index[d.ID] = i
	}
	return g
}

// add takes retrieved passages, best first, and reports how many were new.
func (g *gathered) add(ps []retrieve.Passage) int {
	n := 0
	for i, p := range ps {
		d, ok := g.index[p.Doc]
		if !ok || p.First < 0 || p.Last < p.First || p.Last >= len(g.docs[d].Sentences) {
			continue
		}
		k := span{doc: d, first: p.First, last: p.Last}
		if g.seen[k] {
			continue
		}
		g.seen[k] = true
		k.rank = i
		g.spans = append(g.spans, k)
		n++
	}
	g.windows += n
	return n
}

// text is the context as the analyzer and reasoner prompts show it: the
// spans merged and in document order, separated by blank lines.
func (g *gathered) text() string {
	var b strings.Builder
	for i, s := range merge(g.spans, MergeGap) {
		if i > 0 {
			b.WriteString("\n\n")
		}
		d := g.docs[s.doc]
		b.WriteString(defuse(d.Text[d.Sentences[s.first].Start:d.Sentences[s.last].End]))
	}
	return b.String()
}

// merge joins spans of a document that overlap, touch, or lie within gap
// sentences of each other, in document order; a merged span keeps the
// best rank.
func merge(spans []span, gap int) []span {
	out := slices.Clone(spans)
	slices.SortFunc(out, func(a, b span) int {
		if c := cmp.Compare(a.doc, b.doc); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	j := 0
	for i := 1; i < len(out); i++ {
		cur, next := &out[j], out[i]
		if next.doc == cur.doc && next.first <= cur.last+1+gap {
			cur.last = max(cur.last, next.last)
			cur.rank = min(cur.rank, next.rank)
			continue
		}
		j++
		out[j] = next
	}
	if len(out) == 0 {
		return out
	}
	return out[:j+1]
}

// extend grows each span by up to tokens tokens of whole sentences on
// each side: the context extension of arithmetic questions, whose numbers
// often sit in the sentences around the one that matched.
func extend(docs []*docstore.Document, spans []span, tokens int) []span {
	out := slices.Clone(spans)
	for i := range out {
		s := &out[i]
		d := docs[s.doc]
		for budget := tokens; s.first > 0; s.first-- {
			t := textproc.EstimateTokens(d.SentenceText(s.first - 1))
			if t > budget {
				break
			}
			budget -= t
		}
		for budget := tokens; s.last+1 < len(d.Sentences); s.last++ {
			t := textproc.EstimateTokens(d.SentenceText(s.last + 1))
			if t > budget {
				break
			}
			budget -= t
		}
	}
	return out
}

// recoverTables extends a span whose first or last sentence is part of a
// table that carries on past it, through the rest of the table (up to
// MaxTableTokens each way), so the model reads whole rows and the header:
// the paper's table recovery, which detects tables by their structure.
// Going backward it also takes the line just above the table when that is
// a short line (the header or caption).
func recoverTables(docs []*docstore.Document, spans []span) []span {
	out := slices.Clone(spans)
	for i := range out {
		s := &out[i]
		d := docs[s.doc]
		if tableLike(d.SentenceText(s.last)) {
			for budget := MaxTableTokens; s.last+1 < len(d.Sentences); s.last++ {
				next := d.SentenceText(s.last + 1)
				t := textproc.EstimateTokens(next)
				if !tableLike(next) || t > budget {
					break
				}
				budget -= t
			}
		}
		if tableLike(d.SentenceText(s.first)) {
			budget := MaxTableTokens
			for ; s.first > 0; s.first-- {
				prev := d.SentenceText(s.first - 1)
				t := textproc.EstimateTokens(prev)
				if !tableLike(prev) || t > budget {
					break
				}
				budget -= t
			}
			if s.first > 0 {
				if prev := d.SentenceText(s.first - 1); len(strings.Fields(prev)) <= 25 && textproc.EstimateTokens(prev) <= budget {
					s.first--
				}
			}
		}
	}
	return out
}

// tableLike reports text that reads as table rows: most of its lines have
// cells separated by pipes, tabs or runs of spaces, or are mostly numbers.
func tableLike(text string) bool {
	rows, lines := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		if rowLike(line) {
			rows++
		}
	}
	return lines > 0 && 2*rows > lines
}

// rowLike reports one line of a table.
func rowLike(line string) bool {
	line = strings.TrimSpace(line)
	if strings.Count(line, "|") >= 2 {
		return true
	}
	if cells := strings.Split(line, "\t"); len(cells) >= 3 {
		return true
	}
	gaps := 0
	for i := 0; i+1 < len(line); i++ {
		if line[i] == ' ' && line[i+1] == ' ' {
			gaps++
			for i+1 < len(line) && line[i+1] == ' ' {
				i++
			}
		}
	}
	if gaps >= 2 {
		return true
	}
	fields := strings.Fields(line)
	numbers := 0
	for _, f := range fields {
		if numeric(f) {
			numbers++
		}
	}
	return numbers >= 3 && 2*numbers >= len(fields)
}

// numeric reports a cell that is a number: digits with separators, signs,
// currency, percent or parentheses.
func numeric(f string) bool {
	digits := 0
	for _, r := range f {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("+-−–.,%$€£()", r):
		default:
			return false
		}
	}
	return digits > 0
}

// ranked lists the spans' sentences for generate.FitRanked: spans by rank,
// each span's sentences in order, so a prompt too small for all of them
// keeps the most relevant spans whole.
func ranked(spans []span) []generate.SentenceRef {
	order := slices.Clone(spans)
	slices.SortStableFunc(order, func(a, b span) int { return cmp.Compare(a.rank, b.rank) })
	var out []generate.SentenceRef
	for _, s := range order {
		for i := s.first; i <= s.last; i++ {
			out = append(out, generate.SentenceRef{Doc: s.doc, Sentence: i})
		}
	}
	return out
}
