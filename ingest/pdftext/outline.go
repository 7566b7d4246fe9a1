package pdftext

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// Limits on the outline, which a hostile file could make endless or
// cyclic (the library's own Reader.Outline recurses without bound).
const (
	maxOutlineItems = 50_000
	maxOutlineDepth = 32
	maxNameNodes    = 200_000
)

// outlineEntry is an item of the document outline (bookmarks) and where
// it leads.
type outlineEntry struct {
	title string
	key   titleKey
	level int     // 1 for the top-level items
	page  int     // the page it leads to (0-based), or -1
	top   float32 // the v of the destination's top edge on that page, or NaN
	found bool    // matched to a line of the text
}

// readOutline lists the outline items in document order with the page
// each leads to. It never panics: a damaged outline yields none, and it
// stops early when ctx is done.
func readOutline(ctx context.Context, trailer pdf.Value, pages []pageRef) (out []*outlineEntry) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	root := trailer.Key("Root")
	if root.Key("Outlines").Key("First").Kind() != pdf.Dict {
		return nil
	}
	outlines := root.Key("Outlines")
	first := outlines.Key("First")
	if first.Kind() != pdf.Dict {
		return nil
	}
	pageOf := make(map[string]int, len(pages))
	for i, p := range pages {
		if p.ref != "" {
			pageOf[p.ref] = i
		}
	}
	type item struct {
		v     pdf.Value
		level int
	}
	dests := make([]pdf.Value, 0, 64)
	// depth first, in document order, without recursion; an item met
	// again (a cycle) is not followed
	seen := map[string]bool{pdffile.RefKeys(outlines)["First"]: true}
	follow := func(refs map[string]string, key string) bool {
		ref := refs[key]
		if ref == "" {
			return true // a direct object cannot loop
		}
		if seen[ref] {
			return false
		}
		seen[ref] = true
		return true
	}
	stack := []item{{first, 1}}
	for len(stack) > 0 && len(out) < maxOutlineItems {
		if len(out)%64 == 63 && ctx.Err() != nil {
			return nil
		}
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.v.Kind() != pdf.Dict {
			continue
		}
		refs := pdffile.RefKeys(it.v)
		if next := it.v.Key("Next"); next.Kind() == pdf.Dict && follow(refs, "Next") {
			stack = append(stack, item{next, it.level})
		}
		if kid := it.v.Key("First"); kid.Kind() == pdf.Dict && it.level < maxOutlineDepth && follow(refs, "First") {
			stack = append(stack, item{kid, it.level + 1})
		}
		title := cleanTitle(it.v.Key("Title").Text())
		dest := it.v.Key("Dest")
		if dest.IsNull() {
			if a := it.v.Key("A"); a.Key("S").Name() == "GoTo" {
				dest = a.Key("D")
			}
		}
		out = append(out, &outlineEntry{title: title, key: newTitleKey(title), level: it.level, page: -1, top: float32(math.NaN())})
		dests = append(dests, dest)
	}
	named := namedDests(ctx, root, dests)
	for i, e := range out {
		d := dests[i]
		if k := d.Kind(); k == pdf.String || k == pdf.Name {
			d = named[destName(d)]
		}
		if d.Kind() == pdf.Dict {
			d = d.Key("D")
		}
		e.page, e.top = destPage(d, pageOf, pages)
	}
	return out
}

// destName is the lookup key of a named destination given as a name or a
// string.
func destName(d pdf.Value) string {
	if d.Kind() == pdf.Name {
		return "/" + d.Name()
	}
	return d.RawString()
}

// namedDests resolves the named destinations among dests, through the
// catalog's /Dests dictionary (PDF 1.1) and its /Names /Dests name tree.
func namedDests(ctx context.Context, root pdf.Value, dests []pdf.Value) map[string]pdf.Value {
	want := map[string]bool{}
	for _, d := range dests {
		if k := d.Kind(); k == pdf.String || k == pdf.Name {
			want[destName(d)] = true
		}
	}
	found := make(map[string]pdf.Value, len(want))
	if len(want) == 0 {
		return found
	}
	if old := root.Key("Dests"); old.Kind() == pdf.Dict {
		for n := range want {
			if v := old.Key(strings.TrimPrefix(n, "/")); !v.IsNull() {
				found[n] = v
			}
		}
	}
	sorted := make([]string, 0, len(want))
	for n := range want {
		if _, ok := found[n]; !ok {
			sorted = append(sorted, n)
		}
	}
	slices.Sort(sorted)
	// Only the subtrees whose /Limits hold a wanted name are read.
	wanted := func(lo, hi string) bool {
		i, _ := slices.BinarySearch(sorted, lo)
		return i < len(sorted) && sorted[i] <= hi
	}
	type node struct {
		v     pdf.Value
		depth int
	}
	stack := []node{{root.Key("Names").Key("Dests"), 0}}
	seen := pdffile.Seen{}
	for nodes := 0; len(stack) > 0 && nodes < maxNameNodes && len(sorted) > 0; nodes++ {
		if nodes%1024 == 1023 && ctx.Err() != nil {
			break
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if lim := n.v.Key("Limits"); lim.Len() == 2 && !wanted(lim.Index(0).RawString(), lim.Index(1).RawString()) {
			continue
		}
		if names := n.v.Key("Names"); names.Kind() == pdf.Array {
			for i := 0; i+1 < names.Len(); i += 2 {
				k := names.Index(i).RawString()
				if want[k] {
					if _, ok := found[k]; !ok {
						found[k] = names.Index(i + 1)
					}
				}
			}
		}
		if kids := n.v.Key("Kids"); kids.Kind() == pdf.Array && n.depth < maxOutlineDepth {
			refs := pdffile.ArrayRefs(kids)
			for i := kids.Len() - 1; i >= 0; i-- {
				if seen.First(refs, i) {
					stack = append(stack, node{kids.Index(i), n.depth + 1})
				}
			}
		}
	}
	return found
}

// destPage reads an explicit destination [page /XYZ left top zoom] (or
// /FitH top, /Fit, …): the index of its page and, when it names one, the
// v of its top edge in the page's upright frame.
func destPage(d pdf.Value, pageOf map[string]int, pages []pageRef) (int, float32) {
	nan := float32(math.NaN())
	if d.Kind() != pdf.Array || d.Len() == 0 {
		return -1, nan
	}
	page := -1
	if refs := pdffile.ArrayRefs(d); len(refs) > 0 && refs[0] != "" {
		if i, ok := pageOf[refs[0]]; ok {
			page = i
		}
	} else if p := d.Index(0); p.Kind() == pdf.Integer && p.Int64() >= 0 && p.Int64() < int64(len(pages)) {
		page = int(p.Int64()) // a page number, as remote destinations have
	}
	if page < 0 {
		return -1, nan
	}
	var left, top pdf.Value
	switch d.Index(1).Name() {
	case "XYZ":
		left, top = d.Index(2), d.Index(3)
	case "FitH", "FitBH":
		top = d.Index(2)
	case "FitR":
		left, top = d.Index(2), d.Index(5)
	}
	if k := top.Kind(); k != pdf.Integer && k != pdf.Real {
		return page, nan
	}
	_, y := rotation(pages[page].rotate).apply(left.Float64(), top.Float64())
	return page, float32(-y)
}

// titleKey is a heading's text reduced for comparison: lower-case letters
// and digits only, as it is, without its section number, and without a
// leading letter that may be an appendix's ("A References" in an outline
// for "Appendix A References" on the page).
type titleKey struct {
	full, bare, unlettered string
}

// sectionNumRE matches a leading section number: "2", "2.1.", "A.3",
// "IV.", "Chapter 3", "Appendix B", "Section 4(b)".
var sectionNumRE = regexp.MustCompile(`^(?i:(chapter|section|appendix|part|article)\s+)?(\d+(\.\d+)*\.?|[A-Z](\.\d+)+\.?|[A-Z]\.|[IVXLC]+\.)(\(\w\))?\s+|^(?i:chapter|appendix|part|article)\s+[A-Z]\s+`)

var letterRE = regexp.MustCompile(`^[A-Z]\s+`)

func newTitleKey(s string) titleKey {
	s = strings.TrimSpace(s)
	k := titleKey{full: compact(s)}
	k.bare, k.unlettered = k.full, k.full
	if m := sectionNumRE.FindString(s); m != "" && m != s {
		k.bare = compact(s[len(m):])
	}
	if m := letterRE.FindString(s); m != "" && m != s {
		k.unlettered = compact(s[len(m):])
	}
	return k
}

// compact keeps the letters and digits of s, in lower case.
func compact(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// matches reports whether two heading texts are the same heading, whether
// or not each carries its section number.
func (k titleKey) matches(o titleKey) bool {
	if k.bare == "" || o.bare == "" {
		return false
	}
	for _, a := range [3]string{k.full, k.bare, k.unlettered} {
		for _, b := range [3]string{o.full, o.bare, o.unlettered} {
			if a == b {
				return true
			}
		}
	}
	return false
}
