package pdftext

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/citelens/citelens/docstore/structure"
)

// renderPages writes each page's text with its headings and tables,
// dropping what dropRunning marked. An outline item not found on the page
// it leads to is looked for on the next page too: a destination set just
// before a heading can fall at the foot of the page before it. Each
// page's layout is freed once its text is written.
//
// A page's blocks are built, and its text rendered, on two goroutines
// beside this one, which marks the headings page after page (the outline
// item carried from one page to the next makes that part sequential): on
// fullrefman.pdf this was a tenth of the extraction, all of it after the
// pages were laid out in parallel.
func renderPages(layouts []*pageLayout, outline []*outlineEntry) []pageText {
	ds := newDocStyle(layouts)
	byPage := map[int][]*outlineEntry{}
	for _, e := range outline {
		if e.page >= 0 && e.page < len(layouts) {
			byPage[e.page] = append(byPage[e.page], e)
		}
	}
	type page struct {
		i      int
		blocks []*block
	}
	const ahead = 8 // pages in flight between the stages
	built, marked := make(chan page, ahead), make(chan page, ahead)
	// what a stage panicked with first, raised again here once the others
	// have stopped
	var mu sync.Mutex
	var failure any
	var failed atomic.Bool
	fail := func() {
		if x := recover(); x != nil {
			mu.Lock()
			if failure == nil {
				failure = x
			}
			mu.Unlock()
			failed.Store(true)
		}
	}
	stage := func(out chan<- page, work func() bool) {
		defer close(out)
		defer fail()
		for !failed.Load() && work() {
		}
	}
	next := 0
	go stage(built, func() bool {
		if next == len(layouts) {
			return false
		}
		fs := layouts[next].frags()
		markNotes(fs, ds.body)
		built <- page{next, buildBlocks(fs)}
		next++
		return true
	})
	texts := make([]pageText, len(layouts))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for range marked { // after a failure, let the marking stop
			}
		}()
		defer fail()
		// A page with footnotes is held until the next page with text is
		// written: where they go depends on whether its text runs on.
		frames := make([]pageFrame, len(layouts))
		finish := func(i int) {
			texts[i].geom = encodeGeometry(frames[i], texts[i].pieces)
			texts[i].pieces = nil
		}
		held, prev := -1, -1 // the page held, the last page with text
		for p := range marked {
			i := p.i
			frames[i] = layouts[i].frame
			layouts[i] = nil
			texts[i] = renderPage(p.blocks)
			if texts[i].text == "" && texts[i].notes == nil {
				finish(i)
				continue
			}
			if held >= 0 {
				placeNotes(&texts[held], runsOn(&texts[held], &texts[i]), texts[held].joined)
				finish(held)
				held = -1
			}
			texts[i].joined = prev >= 0 && runsOn(&texts[prev], &texts[i])
			prev = i
			if texts[i].notes != nil {
				held = i
				continue
			}
			finish(i)
		}
		if held >= 0 {
			placeNotes(&texts[held], false, texts[held].joined)
			finish(held)
		}
	}()
	var carry []*outlineEntry
	stage(marked, func() bool {
		p, ok := <-built
		if !ok {
			return false
		}
		i := p.i
		want := append(carry, byPage[i]...)
		p.blocks = markHeadings(p.blocks, ds, want)
		carry = nil
		for _, e := range byPage[i] {
			if !e.found {
				carry = append(carry, e)
			}
		}
		marked <- p
		return true
	})
	for range built { // after a failure here, let the building stop
	}
	<-done
	if failed.Load() {
		panic(failure)
	}
	return texts
}

// pageEnd is how a page's text was changed when the document was
// assembled: the offsets of the bytes hyphen resolution removed, and
// where the page's text ends in the document.
type pageEnd struct {
	cuts []int32
	end  int32
}

// place maps an offset in a page's text to the document text.
func (e pageEnd) place(start int32, off int) int32 {
	n, _ := slices.BinarySearch(e.cuts, int32(off))
	return min(start+int32(off)-int32(n), e.end)
}

// placeStructure turns the pages' headings and tables into byte spans of
// the document text, and gives the headings their levels.
func placeStructure(pages []pageText, starts []int32, ends []pageEnd, text string) ([]structure.Heading, []structure.Table) {
	place := func(i int, s span) structure.Span {
		sp := structure.Span{Start: ends[i].place(starts[i], s[0]), End: ends[i].place(starts[i], s[1])}
		return trimSpan(text, sp)
	}
	var heads []structure.Heading
	var keys []styleKey
	var onPage []int
	var entries []*outlineEntry
	var tables []structure.Table
	for i := range pages {
		for _, h := range pages[i].heads {
			sp := place(i, h.span)
			if !sp.Valid(len(text)) {
				continue
			}
			heads = append(heads, structure.Heading{Span: sp})
			keys = append(keys, h.key)
			onPage = append(onPage, i)
			entries = append(entries, h.entry)
		}
		for _, t := range pages[i].tables {
			var st structure.Table
			if t.caption != (span{}) {
				if sp := place(i, t.caption); sp.Valid(len(text)) {
					st.Caption = sp
				}
			}
			for k, r := range t.rows {
				sp := place(i, r)
				if !sp.Valid(len(text)) {
					continue
				}
				if k < t.header {
					st.Header = append(st.Header, sp)
				} else {
					st.Rows = append(st.Rows, sp)
				}
			}
			if len(st.Rows) > 0 {
				tables = append(tables, st)
			}
		}
	}
	setLevels(heads, keys, onPage, entries)
	return heads, tables
}

// maxLevel bounds heading levels.
const maxLevel = 9

// trimSpan narrows a span to exclude the spaces and newlines at its ends.
func trimSpan(text string, s structure.Span) structure.Span {
	if !s.Valid(len(text)) {
		return s
	}
	for s.Start < s.End && strings.IndexByte(" \n", text[s.Start]) >= 0 {
		s.Start++
	}
	for s.End > s.Start && strings.IndexByte(" \n", text[s.End-1]) >= 0 {
		s.End--
	}
	return s
}

// setLevels gives each heading its level. One the outline names has its
// outline depth. Without an outline, a heading's level is the rank of its
// type (larger first, bold before regular at one size) among the largest
// type and those used on more than one page; a type used on one page only
// (a title page's lines) is one level below the ranked type above it. With
// an outline, a heading the outline does not name is a subheading of the
// outline heading before it when set smaller, its sibling when set alike;
// set larger, it has the level most outline headings of the nearest size
// at or above its own have. A heading set at the outline heading's size in
// a type no outline heading has (bold "Arguments" under a regular "t.test
// Student's t-Test" that the outline names, in a reference manual) is a
// subheading too: the outline lists the headings down to some depth, and a
// type it never names lies below them. onPage holds each heading's page.
func setLevels(heads []structure.Heading, keys []styleKey, onPage []int, entries []*outlineEntry) {
	votes := map[styleKey]map[int]int{}
	pages := map[styleKey]map[int]bool{}
	for i, k := range keys {
		if pages[k] == nil {
			pages[k] = map[int]bool{}
		}
		pages[k][onPage[i]] = true
		if e := entries[i]; e != nil {
			if votes[k] == nil {
				votes[k] = map[int]int{}
			}
			votes[k][e.level]++
		}
	}
	if len(votes) == 0 {
		order := make([]styleKey, 0, len(pages))
		for k := range pages {
			order = append(order, k)
		}
		slices.SortFunc(order, func(a, b styleKey) int {
			if c := cmp.Compare(b.size, a.size); c != 0 {
				return c
			}
			switch {
			case a.bold == b.bold:
				return 0
			case a.bold:
				return -1
			}
			return 1
		})
		level := make(map[styleKey]int, len(order))
		rank := 0 // the level of the last ranked type
		for i, k := range order {
			if i == 0 || len(pages[k]) > 1 {
				rank++
				level[k] = min(rank, maxLevel)
				continue
			}
			level[k] = min(rank+1, maxLevel)
		}
		for i := range heads {
			heads[i].Level, heads[i].Source = level[keys[i]], structure.SourceStyle
		}
		return
	}
	// the outline level of each size that has outline headings
	bySize := map[float32]map[int]int{}
	for k, v := range votes {
		if bySize[k.size] == nil {
			bySize[k.size] = map[int]int{}
		}
		for l, n := range v {
			bySize[k.size][l] += n
		}
	}
	sizes := make([]float32, 0, len(bySize))
	for s := range bySize {
		sizes = append(sizes, s)
	}
	slices.Sort(sizes)
	parent, parentSize := 0, float32(0)
	for i := range heads {
		if e := entries[i]; e != nil {
			heads[i].Level, heads[i].Source = min(e.level, maxLevel), structure.SourceOutline
			parent, parentSize = heads[i].Level, keys[i].size
			continue
		}
		heads[i].Source = structure.SourceStyle
		size := keys[i].size
		switch {
		case parent > 0 && (size < parentSize || size == parentSize && votes[keys[i]] == nil):
			heads[i].Level = min(parent+1, maxLevel)
			continue
		case parent > 0 && size == parentSize:
			heads[i].Level = parent
			continue
		}
		heads[i].Level = 1
		if j, _ := slices.BinarySearch(sizes, size); j < len(sizes) {
			heads[i].Level = mode(bySize[sizes[j]])
		}
	}
}

// mode is the most frequent key of counts, the smallest on a tie.
func mode(counts map[int]int) int {
	ks := make([]int, 0, len(counts))
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	best := ks[0]
	for _, k := range ks {
		if counts[k] > counts[best] {
			best = k
		}
	}
	return min(best, maxLevel)
}
