package pdffile

import "github.com/ledongthuc/pdf"

// Limits on the page tree, which a hostile file can make endless.
const (
	maxPages         = 200_000
	maxPageTreeNodes = 400_000
	maxPageTreeDepth = 64
)

// A Page is a leaf of the page tree with the attributes it inherits.
type Page struct {
	V         pdf.Value // the page dictionary
	Resources pdf.Value // its resources, its own or inherited
	// MediaBox and CropBox are its boxes, own or inherited (each on its
	// own: a node's CropBox does not hide a page's MediaBox); nil if none.
	MediaBox, CropBox []float64
	Rotate            int    // its /Rotate, own or inherited
	Ref               string // "id gen" of the page object, when known
}

// Pages lists the pages in order. The library's own page access walks
// the tree from the root for every page, trusting /Count, and loops on a
// tree that lists a node inside itself; Pages walks it once, each node
// once, with bounds on its depth and size, and stops when the File's
// context is done.
func (f *File) Pages() (pages []Page, err error) {
	defer func() {
		if x := recover(); x != nil {
			pages, err = nil, f.Fault(x)
		}
	}()
	root := f.rd.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return nil, damage(-1, "the document has no page tree")
	}
	type node struct {
		Page
		depth int
	}
	stack := []node{{Page: Page{V: root}}}
	seen := Seen{}
	for n := 0; len(stack) > 0; n++ {
		if n%1024 == 0 && f.ctx.Err() != nil {
			return nil, f.ctx.Err()
		}
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n >= maxPageTreeNodes || len(pages) >= maxPages {
			break
		}
		v := it.V
		if v.Kind() != pdf.Dict {
			continue
		}
		if r := v.Key("Resources"); r.Kind() == pdf.Dict {
			it.Resources = r
		}
		if b := v.Key("CropBox"); b.Len() == 4 {
			it.CropBox = floats(b)
		}
		if b := v.Key("MediaBox"); b.Len() == 4 {
			it.MediaBox = floats(b)
		}
		if r := v.Key("Rotate"); r.Kind() == pdf.Integer {
			it.Rotate = int(r.Int64())
		}
		kids := v.Key("Kids")
		if kids.Kind() != pdf.Array || v.Key("Type").Name() == "Page" {
			pages = append(pages, it.Page)
			continue
		}
		if it.depth >= maxPageTreeDepth {
			continue
		}
		refs := ArrayRefs(kids)
		for i := kids.Len() - 1; i >= 0; i-- {
			if !seen.First(refs, i) {
				continue // a cycle, or a node listed twice
			}
			kid := node{Page: Page{V: kids.Index(i), Resources: it.Resources, MediaBox: it.MediaBox, CropBox: it.CropBox, Rotate: it.Rotate}, depth: it.depth + 1}
			if refs != nil {
				kid.Ref = refs[i]
			}
			stack = append(stack, kid)
		}
	}
	if len(pages) == 0 {
		return nil, damage(-1, "the document has no pages")
	}
	return pages, nil
}

// floats reads a numeric array.
func floats(v pdf.Value) []float64 {
	out := make([]float64, v.Len())
	for i := range out {
		out[i] = v.Index(i).Float64()
	}
	return out
}
