// Package reanchor carries a citation made against one version of a
// document over to the document's next version: each cited sentence is
// found again by its text, then by its neighbours, its heading path and
// its position, and classified as unchanged, moved, changed or gone.
//
// It is pure: it reads two versions' texts and sentence tables given to
// it and does no I/O, so the command, the terminal UI and the MCP server
// share one alignment.
//
// How it aligns. Align compares the two versions once, whole, and every
// citation is then a look-up, so a thousand saved answers cost one
// alignment and a thousand look-ups:
//
//  1. Each sentence is reduced to its text with runs of white space made
//     one space (a reflowed page changes line breaks, not words) and
//     hashed. The two sequences of hashes are aligned as patience diff
//     aligns lines: common ends first, then the sentences that occur once
//     in each side, kept in order (the longest increasing run of them),
//     then the gaps between those, recursively; a small gap with no such
//     sentence is aligned by a longest common subsequence. A sentence
//     aligned here is unchanged.
//  2. A sentence whose exact text is left unaligned but occurs, unaligned,
//     in the new version is moved: taken when the text is there once, or
//     when a neighbour already moved with it (a moved section), or when
//     its heading path picks one of several; never guessed.
//  3. A cited sentence still without a counterpart is looked for, on
//     demand, among the new version's unaligned sentences between the new
//     places of its nearest aligned neighbours (the same neighbourhood),
//     scored by a word-level similarity (the longest common subsequence
//     of words against their total). It is changed when the best scores
//     at least MinSimilarity, shares at least MinSharedWords words and no
//     other candidate comes close; otherwise it is gone, with the nearest
//     sentences of the whole new version as candidates, found through an
//     index of its rarer words.
//
// Caveats: a sentence both reworded and moved out of its neighbourhood is
// gone (with the moved one among its candidates); a sentence split in two
// is found as changed over both halves, but two sentences merged into one
// are each judged alone against the merged one.
package reanchor

import (
	"hash/maphash"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Class is what became of a cited sentence in the new version.
type Class string

// The classes, from best to worst.
const (
	// Unchanged: the same text, in the same order among its neighbours.
	Unchanged Class = "unchanged"
	// Moved: the same text, elsewhere (out of the order of the text
	// around it).
	Moved Class = "moved"
	// Changed: recognisably the same sentence, with words changed.
	Changed Class = "changed"
	// Gone: no counterpart the alignment is sure of.
	Gone Class = "gone"
)

// worse reports whether class a is worse than b.
func worse(a, b Class) bool { return rank(a) > rank(b) }

func rank(c Class) int {
	switch c {
	case Unchanged:
		return 0
	case Moved:
		return 1
	case Changed:
		return 2
	}
	return 3
}

// The thresholds of "changed". A pair of sentences is the same sentence
// changed when their words' similarity (2 × common subsequence / total
// words) is at least MinSimilarity and they share at least MinSharedWords
// words in order, and the runner-up in the neighbourhood scores at least
// Margin less. Half the words in order is where readers of redlines stop
// calling a clause "the same clause, edited" (a figure changed, a phrase
// added or struck: 0.7-0.95; a clause rewritten: below 0.5).
const (
	MinSimilarity  = 0.5
	MinSharedWords = 3
	Margin         = 0.1
)

// Sentence is one sentence of a version: its byte range in the version's
// text, its page (1-based) and its heading path ("3 Terms > 3.2
// Payment", "" when under none).
type Sentence struct {
	Start, End int
	Page       int
	Heading    string
}

// Version is one version of a document: its text and sentence table, in
// text order.
type Version struct {
	Text      string
	Sentences []Sentence
}

func (v *Version) text(i int) string { return v.span(i, i) }

// span returns the text of sentences first..last, "" when their offsets
// are not inside the text.
func (v *Version) span(first, last int) string {
	start, end := v.Sentences[first].Start, v.Sentences[last].End
	if start < 0 || end > len(v.Text) || start > end {
		return ""
	}
	return v.Text[start:end]
}

// sameText reports whether a and b are the same words with the same
// punctuation, their runs of white space aside.
func sameText(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	return slices.Equal(fa, fb)
}

// Candidate is a run of the new version's sentences that a gone sentence
// (or citation) may have become, with its similarity to the old text.
type Candidate struct {
	First, Last int
	Start, End  int
	Page        int
	Similarity  float64
}

// SentenceResult is what became of one cited sentence.
type SentenceResult struct {
	Old   int   `json:"old"`
	Class Class `json:"class"`
	// First..Last are the new version's sentences it became (Last >
	// First when it was split); -1 when gone.
	First, Last int
	// Similarity is 1 for the same text, the word similarity for
	// changed, the best candidate's for gone.
	Similarity float64
	// Candidates are, for a gone sentence, the nearest sentences of the
	// new version, best first.
	Candidates []Candidate
}

// Result is what became of a citation of sentences First..Last of the
// old version.
type Result struct {
	// Class is the worst of its sentences' classes, except that a
	// citation some of whose sentences are still there is changed, not
	// gone.
	Class Class
	// First..Last, Start..End and Page are the citation in the new
	// version (byte offsets into its text); First is -1 when gone.
	First, Last int
	Start, End  int
	Page        int
	// Similarity is the word similarity of the old cited text to the new.
	Similarity float64
	Sentences  []SentenceResult
	// Candidates, when gone, are the new version's nearest sentences.
	Candidates []Candidate
}

// Alignment is two versions aligned sentence by sentence: build it once
// with Align and ask it for each citation.
type Alignment struct {
	old, new *Version
	// match[i] is the new sentence old sentence i is the same text as,
	// -1 for none; moved[i] says it was found out of order.
	match []int32
	moved []bool
	// taken[j] marks new sentences some old sentence's text is.
	taken []bool
	// words indexes the new version's sentences by word, built on the
	// first look for a counterpart outside the aligned text.
	words map[string][]int32
	// toks caches the new version's sentences' words.
	toks [][]string
}

// normHash hashes a sentence's text with its runs of white space made one
// space; 0 is kept for the empty sentence, which never aligns.
func normHash(seed maphash.Seed, s string) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	empty, space := true, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = !empty
			i += size
			continue
		}
		if space {
			h.WriteByte(' ')
			space = false
		}
		// A run of non-space bytes at once.
		k := i + size
		for k < len(s) {
			r, n := utf8.DecodeRuneInString(s[k:])
			if unicode.IsSpace(r) {
				break
			}
			k += n
		}
		h.WriteString(s[i:k])
		empty = false
		i = k
	}
	if empty {
		return 0
	}
	v := h.Sum64()
	if v == 0 {
		v = 1
	}
	return v
}

// Align aligns two versions' sentences by their exact text (steps 1 and 2
// of the package doc). It costs O(n log n) in the versions' sentences for
// texts that mostly agree.
func Align(old, new *Version) *Alignment {
	seed := maphash.MakeSeed()
	a := &Alignment{old: old, new: new,
		match: make([]int32, len(old.Sentences)),
		moved: make([]bool, len(old.Sentences)),
		taken: make([]bool, len(new.Sentences)),
	}
	ho := make([]uint64, len(old.Sentences))
	hn := make([]uint64, len(new.Sentences))
	for i := range ho {
		ho[i] = normHash(seed, old.text(i))
		a.match[i] = -1
	}
	for j := range hn {
		hn[j] = normHash(seed, new.text(j))
	}
	a.patience(ho, hn)
	a.matchMoved(ho, hn)
	return a
}

func (a *Alignment) pair(i, j int) {
	a.match[i] = int32(j)
	a.taken[j] = true
}

// lcsCells bounds the table of a gap aligned by a longest common
// subsequence: a larger gap with no unique sentence stays unaligned.
const lcsCells = 1 << 20

// maxRepeat is how often a text may occur on each side of a large gap and
// still anchor it by its occurrences' order.
const maxRepeat = 8

// patience aligns ho against hn in order (step 1).
func (a *Alignment) patience(ho, hn []uint64) {
	type gap struct{ a0, a1, b0, b1 int }
	stack := []gap{{0, len(ho), 0, len(hn)}}
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// Common ends.
		for g.a0 < g.a1 && g.b0 < g.b1 && ho[g.a0] != 0 && ho[g.a0] == hn[g.b0] {
			a.pair(g.a0, g.b0)
			g.a0++
			g.b0++
		}
		for g.a0 < g.a1 && g.b0 < g.b1 && ho[g.a1-1] != 0 && ho[g.a1-1] == hn[g.b1-1] {
			a.pair(g.a1-1, g.b1-1)
			g.a1--
			g.b1--
		}
		if g.a0 >= g.a1 || g.b0 >= g.b1 {
			continue
		}
		// Sentences once in each side of the gap.
		type count struct {
			no, nn int
			i, j   int
		}
		counts := make(map[uint64]*count, g.a1-g.a0)
		for i := g.a0; i < g.a1; i++ {
			if ho[i] == 0 {
				continue
			}
			c := counts[ho[i]]
			if c == nil {
				c = &count{}
				counts[ho[i]] = c
			}
			c.no++
			c.i = i
		}
		for j := g.b0; j < g.b1; j++ {
			if c := counts[hn[j]]; c != nil {
				c.nn++
				c.j = j
			}
		}
		var uniq [][2]int
		for i := g.a0; i < g.a1; i++ {
			if c := counts[ho[i]]; c != nil && c.no == 1 && c.nn == 1 {
				uniq = append(uniq, [2]int{i, c.j})
			}
		}
		if len(uniq) == 0 && (g.a1-g.a0)*(g.b1-g.b0) <= lcsCells {
			a.lcs(ho, hn, g.a0, g.a1, g.b0, g.b1)
			continue
		}
		if len(uniq) == 0 {
			// A large gap of repeated text (boilerplate, a text repeated
			// whole): a text occurring as often on each side, a few
			// times, pairs its occurrences in order, and the longest
			// ordered run of those pairs anchors the gap instead.
			seen := map[uint64]int{}
			var js map[uint64][]int
			for i := g.a0; i < g.a1; i++ {
				c := counts[ho[i]]
				if c == nil || c.no != c.nn || c.no > maxRepeat {
					continue
				}
				if js == nil {
					js = map[uint64][]int{}
					for j := g.b0; j < g.b1; j++ {
						if c := counts[hn[j]]; c != nil && c.no == c.nn && c.no <= maxRepeat {
							js[hn[j]] = append(js[hn[j]], j)
						}
					}
				}
				uniq = append(uniq, [2]int{i, js[ho[i]][seen[ho[i]]]})
				seen[ho[i]]++
			}
			if len(uniq) == 0 {
				continue
			}
		}
		anchors := lis(uniq)
		pa, pb := g.a0, g.b0
		for _, p := range anchors {
			a.pair(p[0], p[1])
			stack = append(stack, gap{pa, p[0], pb, p[1]})
			pa, pb = p[0]+1, p[1]+1
		}
		stack = append(stack, gap{pa, g.a1, pb, g.b1})
	}
}

// lis returns the longest run of pairs (sorted by their first) whose
// seconds increase: patience sorting, O(n log n).
func lis(pairs [][2]int) [][2]int {
	tails := []int{} // index into pairs of the smallest tail of each length
	prev := make([]int, len(pairs))
	for k, p := range pairs {
		n, _ := slices.BinarySearchFunc(tails, p[1], func(t int, v int) int { return pairs[t][1] - v })
		if n > 0 {
			prev[k] = tails[n-1]
		} else {
			prev[k] = -1
		}
		if n == len(tails) {
			tails = append(tails, k)
		} else {
			tails[n] = k
		}
	}
	out := make([][2]int, len(tails))
	for k, n := tails[len(tails)-1], len(tails)-1; n >= 0; k, n = prev[k], n-1 {
		out[n] = pairs[k]
	}
	return out
}

// lcs aligns a small gap by the longest common subsequence of hashes.
func (a *Alignment) lcs(ho, hn []uint64, a0, a1, b0, b1 int) {
	n, m := a1-a0, b1-b0
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ho[a0+i] != 0 && ho[a0+i] == hn[b0+j] {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case ho[a0+i] != 0 && ho[a0+i] == hn[b0+j]:
			a.pair(a0+i, b0+j)
			i++
			j++
		case *at(i+1, j) >= *at(i, j+1):
			i++
		default:
			j++
		}
	}
}

// matchMoved finds the same text out of order (step 2).
func (a *Alignment) matchMoved(ho, hn []uint64) {
	free := map[uint64][]int32{} // hash → unaligned new sentences with it
	for j, h := range hn {
		if h != 0 && !a.taken[j] {
			free[h] = append(free[h], int32(j))
		}
	}
	if len(free) == 0 {
		return
	}
	left := map[uint64]int{} // hash → unaligned old sentences with it
	for i, h := range ho {
		if a.match[i] < 0 && free[h] != nil {
			left[h]++
		}
	}
	take := func(i, j int) {
		a.pair(i, j)
		a.moved[i] = true
		h := ho[i]
		free[h] = slices.DeleteFunc(free[h], func(x int32) bool { return int(x) == j })
		left[h]--
	}
	// Text once on each side, long enough not to be boilerplate (a
	// short "See Table 2." once here and once there is no evidence).
	for i, h := range ho {
		if a.match[i] < 0 && left[h] == 1 && len(free[h]) == 1 && len(tokens(a.old.text(i))) >= minMovedWords {
			take(i, int(free[h][0]))
		}
	}
	// Text repeated: a neighbour that moved with it says where, forwards
	// and backwards, until nothing more is found.
	for changed := true; changed; {
		changed = false
		for i, h := range ho {
			if a.match[i] >= 0 || len(free[h]) == 0 {
				continue
			}
			for _, d := range []int{-1, 1} {
				k := i + d
				if k < 0 || k >= len(ho) || a.match[k] < 0 || !a.moved[k] {
					continue
				}
				j := int(a.match[k]) - d
				if j >= 0 && j < len(hn) && hn[j] == h && !a.taken[j] {
					take(i, j)
					changed = true
					break
				}
			}
		}
	}
	// Text repeated: its heading path picks one.
	for i, h := range ho {
		if a.match[i] >= 0 || len(free[h]) < 2 {
			continue
		}
		pick, n := -1, 0
		for _, j := range free[h] {
			if a.new.Sentences[j].Heading == a.old.Sentences[i].Heading {
				pick, n = int(j), n+1
			}
		}
		if n == 1 {
			take(i, pick)
		}
	}
}

// minMovedWords is the fewest words a sentence found alone elsewhere
// needs to count as moved; a shorter one moves only with a neighbour.
const minMovedWords = 6

// Citation says what became of a citation of old sentences first..last.
// Out-of-range indices are gone.
func (a *Alignment) Citation(first, last int) Result {
	if first < 0 || last < first || last >= len(a.old.Sentences) {
		return Result{Class: Gone, First: -1, Last: -1}
	}
	r := Result{Class: Unchanged, First: -1, Last: -1}
	present, gone := 0, 0
	lo, hi := -1, -1
	ordered := true
	for i := first; i <= last; i++ {
		s := a.Sentence(i)
		r.Sentences = append(r.Sentences, s)
		if s.Class == Gone {
			gone++
			continue
		}
		present++
		if worse(s.Class, r.Class) {
			r.Class = s.Class
		}
		if hi >= 0 && s.First <= hi {
			ordered = false
		}
		if lo < 0 || s.First < lo {
			lo = s.First
		}
		hi = max(hi, s.Last)
	}
	oldText := a.old.span(first, last)
	if present == 0 {
		r.Class = Gone
		r.Candidates = a.nearest(oldText, 3)
		if len(r.Candidates) > 0 {
			r.Similarity = r.Candidates[0].Similarity
		}
		return r
	}
	// The new range must be about as long as the old: sentences scattered
	// far apart are not one citation any more.
	if !ordered || hi-lo+1 > 2*(last-first+1)+2 {
		r.Class = Gone
		r.Candidates = a.nearest(oldText, 3)
		return r
	}
	r.First, r.Last = lo, hi
	r.Start, r.End = a.new.Sentences[lo].Start, a.new.Sentences[hi].End
	r.Page = a.new.Sentences[lo].Page
	newText := a.new.span(lo, hi)
	// The range is the same text when its words and their order are, in
	// white space aside: sentences inserted inside it, or one of its own
	// lost, make it changed.
	switch {
	case sameText(oldText, newText):
		if r.Class != Moved {
			r.Class = Unchanged
		}
		r.Similarity = 1
	default:
		r.Class = Changed
		r.Similarity, _ = similarity(tokens(oldText), tokens(newText))
	}
	return r
}

// Sentence says what became of old sentence i.
func (a *Alignment) Sentence(i int) SentenceResult {
	if i < 0 || i >= len(a.old.Sentences) {
		return SentenceResult{Old: i, Class: Gone, First: -1, Last: -1}
	}
	if j := a.match[i]; j >= 0 {
		c := Unchanged
		if a.moved[i] {
			c = Moved
		}
		return SentenceResult{Old: i, Class: c, First: int(j), Last: int(j), Similarity: 1}
	}
	return a.fuzzy(i)
}

// neighbourhood returns the new sentences old sentence i may have become:
// those between the new places of its nearest aligned neighbours when
// they are in order and about as far apart as in the old version, else
// the few after the one before and before the one after. inOrder is set
// in the first case when neither neighbour moved.
func (a *Alignment) neighbourhood(i int) (windows [][2]int, inOrder bool) {
	p, n := -1, -1
	for k := i - 1; k >= 0; k-- {
		if a.match[k] >= 0 {
			p = k
			break
		}
	}
	for k := i + 1; k < len(a.match); k++ {
		if a.match[k] >= 0 {
			n = k
			break
		}
	}
	last := len(a.new.Sentences) - 1
	var np, nn int
	if p >= 0 {
		np = int(a.match[p])
	}
	if n >= 0 {
		nn = int(a.match[n])
	}
	// How far the neighbours may have drifted apart: the old gap, twice,
	// and room for a few inserted sentences.
	w := 8
	switch {
	case p >= 0 && n >= 0:
		w += 2 * (n - p)
	case p >= 0:
		w += 2 * (i - p)
	case n >= 0:
		w += 2 * (n - i)
	}
	if p >= 0 && n >= 0 && np < nn && nn-np <= w {
		return [][2]int{{np + 1, nn - 1}}, !a.moved[p] && !a.moved[n]
	}
	// At either end of the text the one neighbour there is says all.
	if p < 0 && n >= 0 {
		return [][2]int{{max(nn-w, 0), nn - 1}}, !a.moved[n]
	}
	if n < 0 && p >= 0 {
		return [][2]int{{np + 1, min(np+w, last)}}, !a.moved[p]
	}
	if p >= 0 {
		windows = append(windows, [2]int{np + 1, min(np+w, last)})
	}
	if n >= 0 {
		windows = append(windows, [2]int{max(nn-w, 0), nn - 1})
	}
	if p < 0 && n < 0 {
		// Nothing aligned at all: the whole new version is the
		// neighbourhood of nothing; only the word index can say.
		windows = append(windows, [2]int{0, last})
	}
	return windows, false
}

// maxScan is the largest neighbourhood scanned whole; a larger one (a
// section inserted where another was deleted) is searched through the
// word index.
const maxScan = 256

// fuzzy looks for old sentence i's changed counterpart (step 3).
func (a *Alignment) fuzzy(i int) SentenceResult {
	oldText := a.old.text(i)
	ot := tokens(oldText)
	res := SentenceResult{Old: i, Class: Gone, First: -1, Last: -1}
	windows, inOrder := a.neighbourhood(i)
	type scored struct {
		first, last int
		sim         float64
		shared      int
	}
	var best, second scored
	best.first = -1
	// contain is the candidate holding every word of the old sentence in
	// order (one extended: a clause added after "etc."), contains how
	// many hold it.
	var contain scored
	contains := 0
	for _, win := range windows {
		lo, hi := win[0], win[1]
		if lo > hi || len(ot) == 0 {
			continue
		}
		var cands []int
		if hi-lo+1 <= maxScan {
			for j := lo; j <= hi; j++ {
				cands = append(cands, j)
			}
		} else {
			cands = a.sharing(ot, lo, hi, maxScan)
		}
		for _, j := range cands {
			if a.taken[j] {
				continue
			}
			// The sentence alone, and joined with the next when it too is
			// free (a sentence split in two).
			for last := j; last <= min(j+1, hi); last++ {
				if last > j && a.taken[last] {
					break
				}
				sim, shared := similarity(ot, a.newTokens(j, last))
				s := scored{j, last, sim, shared}
				if last == j && shared == len(ot) {
					contains++
					contain = s
				}
				switch {
				case sim > best.sim:
					if best.first >= 0 && !overlaps(best.first, best.last, j, last) {
						second = best
					}
					best = s
				case sim > second.sim && !overlaps(best.first, best.last, j, last):
					second = s
				}
			}
		}
	}
	if best.first >= 0 && sameText(oldText, a.new.span(best.first, best.last)) {
		// The same text, cut into sentences differently.
		res.Class, res.First, res.Last, res.Similarity = Moved, best.first, best.last, 1
		if inOrder {
			res.Class = Unchanged
		}
		return res
	}
	if best.first >= 0 && best.sim >= MinSimilarity && best.shared >= MinSharedWords && best.sim-second.sim >= Margin {
		res.Class, res.First, res.Last, res.Similarity = Changed, best.first, best.last, best.sim
		return res
	}
	// Every word kept, in order, in one sentence of the neighbourhood and
	// no other: the sentence was extended (words added around it).
	if contains == 1 && len(ot) >= minMovedWords {
		res.Class, res.First, res.Last, res.Similarity = Changed, contain.first, contain.last, contain.sim
		return res
	}
	res.Candidates = a.nearest(oldText, 3)
	// The same text elsewhere, cut into sentences differently (a line
	// the new version's layout made a title): moved, when once.
	found, at := 0, [2]int{}
	for _, c := range res.Candidates {
		for _, r := range [][2]int{{c.First, c.First}, {c.First - 1, c.First}, {c.First, c.First + 1}} {
			if r[0] < 0 || r[1] >= len(a.new.Sentences) || a.taken[r[0]] || a.taken[r[1]] {
				continue
			}
			if sameText(oldText, a.new.span(r[0], r[1])) && r != at {
				found, at = found+1, r
			}
		}
	}
	if found == 1 && len(ot) >= minMovedWords {
		return SentenceResult{Old: i, Class: Moved, First: at[0], Last: at[1], Similarity: 1}
	}
	if len(res.Candidates) > 0 {
		res.Similarity = res.Candidates[0].Similarity
	}
	return res
}

func overlaps(a0, a1, b0, b1 int) bool { return a0 <= b1 && b0 <= a1 }

// newTokens returns the words of new sentences first..last.
func (a *Alignment) newTokens(first, last int) []string {
	if a.toks == nil {
		a.toks = make([][]string, len(a.new.Sentences))
	}
	if first == last {
		if a.toks[first] == nil {
			a.toks[first] = tokens(a.new.text(first))
			if a.toks[first] == nil {
				a.toks[first] = []string{}
			}
		}
		return a.toks[first]
	}
	out := slices.Clone(a.newTokens(first, first))
	for j := first + 1; j <= last; j++ {
		out = append(out, a.newTokens(j, j)...)
	}
	return out
}

// index builds the word index of the new version.
func (a *Alignment) index() {
	if a.words != nil {
		return
	}
	a.words = map[string][]int32{}
	seen := map[string]bool{}
	for j := range a.new.Sentences {
		clear(seen)
		for _, w := range a.newTokens(j, j) {
			if !seen[w] {
				seen[w] = true
				a.words[w] = append(a.words[w], int32(j))
			}
		}
	}
}

// rareWords is how many of a sentence's rarest words find its candidates.
const rareWords = 4

// sharing returns up to limit new sentences in lo..hi sharing the most of
// ot's rarest words, in text order.
func (a *Alignment) sharing(ot []string, lo, hi, limit int) []int {
	a.index()
	ws := slices.Compact(slices.Sorted(slices.Values(ot)))
	slices.SortStableFunc(ws, func(x, y string) int { return len(a.words[x]) - len(a.words[y]) })
	hits := map[int]int{}
	n := 0
	for _, w := range ws {
		post := a.words[w]
		if len(post) == 0 {
			continue
		}
		if n == rareWords {
			break
		}
		n++
		k, _ := slices.BinarySearch(post, int32(lo))
		for ; k < len(post) && int(post[k]) <= hi; k++ {
			hits[int(post[k])]++
		}
	}
	out := make([]int, 0, len(hits))
	for j := range hits {
		out = append(out, j)
	}
	slices.SortFunc(out, func(x, y int) int {
		if hits[x] != hits[y] {
			return hits[y] - hits[x]
		}
		return x - y
	})
	if len(out) > limit {
		out = out[:limit]
	}
	slices.Sort(out)
	return out
}

// nearest returns the n new sentences most like text anywhere in the new
// version, best first, with similarity at least a third.
func (a *Alignment) nearest(text string, n int) []Candidate {
	ot := tokens(text)
	if len(ot) == 0 || len(a.new.Sentences) == 0 {
		return nil
	}
	var out []Candidate
	for _, j := range a.sharing(ot, 0, len(a.new.Sentences)-1, 64) {
		sim, _ := similarity(ot, a.newTokens(j, j))
		if sim < 1.0/3 {
			continue
		}
		s := a.new.Sentences[j]
		out = append(out, Candidate{First: j, Last: j, Start: s.Start, End: s.End, Page: s.Page, Similarity: sim})
	}
	slices.SortStableFunc(out, func(x, y Candidate) int {
		switch {
		case x.Similarity > y.Similarity:
			return -1
		case x.Similarity < y.Similarity:
			return 1
		}
		return x.First - y.First
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// tokens returns text's words, lower-cased: runs of letters and digits,
// with a point or comma between digits kept inside ("12.5", "1,000").
func tokens(text string) []string {
	var out []string
	start := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		if !word && (r == '.' || r == ',') && start >= 0 && i+1 < len(text) &&
			isDigit(text[i-1]) && isDigit(text[i+1]) {
			word = true
		}
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			out = append(out, strings.ToLower(text[start:i]))
			start = -1
		}
		i += size
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// maxLCSCells bounds the table of one similarity; longer pairs (a
// table's long rows) are compared as bags of words.
const maxLCSCells = 1 << 16

// similarity is 2 × the longest common subsequence of two word lists
// over their total length, and that subsequence's length.
func similarity(a, b []string) (float64, int) {
	if len(a)+len(b) == 0 {
		return 0, 0
	}
	var common int
	if len(a)*len(b) > maxLCSCells {
		bag := map[string]int{}
		for _, w := range a {
			bag[w]++
		}
		for _, w := range b {
			if bag[w] > 0 {
				bag[w]--
				common++
			}
		}
	} else {
		common = lcsLen(a, b)
	}
	return 2 * float64(common) / float64(len(a)+len(b)), common
}

func lcsLen(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := range a {
		diag := 0
		for j := range b {
			up := row[j+1]
			if a[i] == b[j] {
				row[j+1] = diag + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			diag = up
		}
	}
	return row[len(b)]
}
