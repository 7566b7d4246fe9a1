package citations

import (
	"fmt"
	"slices"
	"sort"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
)

// Mode is what the numbers in a prompt stand for.
type Mode uint8

// Numbering modes.
const (
	// SentenceMode: "<C12>" before each sentence, citations "[a-b]".
	SentenceMode Mode = iota
	// ChunkMode: "Snippet [3]" before each chunk, citations "[k]", 1-based
	// (LongCite Figure 12).
	ChunkMode
)

// Part is one document of a request's scope, in prompt order.
type Part struct {
	Doc *docstore.Document
	// Sentences, when non-nil, lists the sentence indices the prompt shows
	// (retrieved sentences); only their numbers are valid citations. Nil
	// means every sentence. Order and repeats do not matter.
	Sentences []int
}

// ChunkPart is one numbered chunk: sentences First..Last (inclusive) of Doc.
type ChunkPart struct {
	Doc         *docstore.Document
	First, Last int
}

// ChunkOf returns chunk i of doc as a ChunkPart.
func ChunkOf(doc *docstore.Document, i int) ChunkPart {
	c := doc.Chunks[i]
	return ChunkPart{Doc: doc, First: int(c.First), Last: int(c.Last)}
}

// Numbering maps the numbers a prompt showed the model back to documents,
// sentence ranges, byte ranges and pages. It is built once per request and
// is the only place numbers become Spans. Numbers are kept as runs
// (blocks), so a 150,000-sentence document costs one block, and a number is
// resolved by binary search.
//
// A Numbering is immutable and safe for concurrent use.
type Numbering struct {
	mode   Mode
	docs   []*docstore.Document
	blocks []block // ascending by num, never overlapping
	count  int     // valid numbers
}

// block: numbers num..num+n-1. In sentence mode number num+i is sentence
// first+i of docs[doc]; in chunk mode n == 1 and the number is sentences
// first..last.
type block struct {
	num, n      int
	doc         int
	first, last int
}

func (b block) end() int { return b.num + b.n - 1 } // last number

// NewSentenceNumbering numbers the sentences of the parts by their global
// index over the concatenation of the parts' documents: sentence i of the
// k-th document is number i plus the sentence counts of the documents
// before it. With every sentence shown this is LAC-S's "<C0>…<Cn>" over
// the whole scope (LongCite Figure 10); with Part.Sentences set it is
// retrieval's sparse set of real indices, where an unshown number is an
// invalid citation.
func NewSentenceNumbering(parts ...Part) (*Numbering, error) {
	n := &Numbering{mode: SentenceMode}
	offset := 0
	for _, p := range parts {
		if p.Doc == nil {
			return nil, fmt.Errorf("%w: a part has no document", ErrBadNumbering)
		}
		d := len(n.docs)
		n.docs = append(n.docs, p.Doc)
		if err := n.addSentences(d, offset, p); err != nil {
			return nil, err
		}
		offset += len(p.Doc.Sentences)
	}
	return n, nil
}

// NewLocalNumbering numbers the parts' shown sentences consecutively from
// start, in part order — the fine step of Coarse-to-Fine numbers a cited
// chunk's sentences "<C0>, <C1>, …" afresh (LongCite Figure 13).
func NewLocalNumbering(start int, parts ...Part) (*Numbering, error) {
	n := &Numbering{mode: SentenceMode}
	next := start
	for _, p := range parts {
		if p.Doc == nil {
			return nil, fmt.Errorf("%w: a part has no document", ErrBadNumbering)
		}
		d := len(n.docs)
		n.docs = append(n.docs, p.Doc)
		idx, err := shown(p)
		if err != nil {
			return nil, err
		}
		forRuns(idx, len(p.Doc.Sentences), func(first, last int) {
			n.blocks = append(n.blocks, block{num: next, n: last - first + 1, doc: d, first: first, last: last})
			next += last - first + 1
		})
	}
	n.count = next - start
	return n, nil
}

// NewChunkNumbering numbers chunks 1, 2, … in the order given (LongCite
// Figure 12's "Snippet [1]").
func NewChunkNumbering(chunks ...ChunkPart) (*Numbering, error) {
	n := &Numbering{mode: ChunkMode}
	index := map[*docstore.Document]int{}
	for i, c := range chunks {
		if c.Doc == nil {
			return nil, fmt.Errorf("%w: chunk %d has no document", ErrBadNumbering, i+1)
		}
		if c.First < 0 || c.Last < c.First || c.Last >= len(c.Doc.Sentences) {
			return nil, fmt.Errorf("%w: chunk %d covers sentences %d-%d of %q, which has %d",
				ErrBadNumbering, i+1, c.First, c.Last, c.Doc.DisplayName(), len(c.Doc.Sentences))
		}
		d, ok := index[c.Doc]
		if !ok {
			d = len(n.docs)
			index[c.Doc] = d
			n.docs = append(n.docs, c.Doc)
		}
		n.blocks = append(n.blocks, block{num: i + 1, n: 1, doc: d, first: c.First, last: c.Last})
	}
	n.count = len(chunks)
	return n, nil
}

func (n *Numbering) addSentences(d, offset int, p Part) error {
	if p.Sentences == nil {
		if k := len(p.Doc.Sentences); k > 0 {
			n.blocks = append(n.blocks, block{num: offset, n: k, doc: d, first: 0, last: k - 1})
			n.count += k
		}
		return nil
	}
	idx, err := shown(p)
	if err != nil {
		return err
	}
	forRuns(idx, len(p.Doc.Sentences), func(first, last int) {
		n.blocks = append(n.blocks, block{num: offset + first, n: last - first + 1, doc: d, first: first, last: last})
		n.count += last - first + 1
	})
	return nil
}

// shown returns the part's shown sentence indices, sorted and unique, or nil
// for all of them.
func shown(p Part) ([]int, error) {
	if p.Sentences == nil {
		return nil, nil
	}
	idx := slices.Clone(p.Sentences)
	slices.Sort(idx)
	idx = slices.Compact(idx)
	if len(idx) > 0 && (idx[0] < 0 || idx[len(idx)-1] >= len(p.Doc.Sentences)) {
		return nil, fmt.Errorf("%w: sentence %d shown from %q, which has %d sentences",
			ErrBadNumbering, outOf(idx, len(p.Doc.Sentences)), p.Doc.DisplayName(), len(p.Doc.Sentences))
	}
	return idx, nil
}

func outOf(idx []int, n int) int {
	if idx[0] < 0 {
		return idx[0]
	}
	return idx[len(idx)-1]
}

// forRuns calls fn with each maximal run of consecutive indices; nil idx
// means 0..n-1.
func forRuns(idx []int, n int, fn func(first, last int)) {
	if idx == nil {
		if n > 0 {
			fn(0, n-1)
		}
		return
	}
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		fn(idx[i], idx[j])
		i = j + 1
	}
}

// Mode reports whether numbers stand for sentences or chunks.
func (n *Numbering) Mode() Mode { return n.mode }

// Len returns how many numbers are valid citations.
func (n *Numbering) Len() int { return n.count }

// Unit is what one number stands for: sentences First..Last of Doc (one
// sentence in sentence mode).
type Unit struct {
	Num         int
	Doc         *docstore.Document
	First, Last int
}

// Each calls fn for every valid number in ascending order, which is the
// order a prompt lists them in; it stops when fn returns false.
func (n *Numbering) Each(fn func(u Unit) bool) {
	for _, b := range n.blocks {
		for i := 0; i < b.n; i++ {
			u := Unit{Num: b.num + i, Doc: n.docs[b.doc], First: b.first + i, Last: b.first + i}
			if n.mode == ChunkMode {
				u.First, u.Last = b.first, b.last
			}
			if !fn(u) {
				return
			}
		}
	}
}

// Lookup returns what number num stands for.
func (n *Numbering) Lookup(num int) (Unit, bool) {
	i := n.blockAt(num)
	if i == len(n.blocks) || n.blocks[i].num > num {
		return Unit{}, false
	}
	b := n.blocks[i]
	u := Unit{Num: num, Doc: n.docs[b.doc], First: b.first + num - b.num, Last: b.first + num - b.num}
	if n.mode == ChunkMode {
		u.First, u.Last = b.first, b.last
	}
	return u, true
}

// Number returns the number of sentence sent of doc, if it is numbered
// (sentence mode only).
func (n *Numbering) Number(doc docstore.DocID, sent int) (int, bool) {
	if n.mode != SentenceMode {
		return 0, false
	}
	for _, b := range n.blocks { // a request has few documents and blocks
		if n.docs[b.doc].ID == doc && b.first <= sent && sent <= b.last {
			return b.num + sent - b.first, true
		}
	}
	return 0, false
}

// Range is a byte range of a document's stored text, without the text.
type Range struct {
	Doc        docstore.DocID
	Name       string
	Start, End int
}

// Shown returns the byte ranges of what the numbers stand for — the text
// the prompt showed the model — in prompt order, ranges that touch or
// overlap in one document merged.
func (n *Numbering) Shown() []Range {
	var out []Range
	for _, b := range n.blocks {
		d := n.docs[b.doc]
		last := b.first + b.n - 1
		if n.mode == ChunkMode {
			last = b.last
		}
		r := Range{Doc: d.ID, Name: d.Name, Start: int(d.Sentences[b.first].Start), End: int(d.Sentences[last].End)}
		if k := len(out) - 1; k >= 0 && out[k].Doc == r.Doc && r.Start <= out[k].End && out[k].Start <= r.End {
			out[k].Start, out[k].End = min(out[k].Start, r.Start), max(out[k].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}

// blockAt returns the index of the first block whose last number is >= num.
func (n *Numbering) blockAt(num int) int {
	return sort.Search(len(n.blocks), func(i int) bool { return n.blocks[i].end() >= num })
}

// ResolveOptions tune Resolve.
type ResolveOptions struct {
	// MaxCitations caps the spans kept per statement after merging; 0
	// keeps all. LongBench-Cite's postprocess keeps 3 (LongBenchCiteCap);
	// CoF's chunk step keeps 5 (ChunkCap).
	MaxCitations int
}

// Caps used by THUDM/LongCite's scripts.
const (
	LongBenchCiteCap = 3 // LongBench-Cite/pred_one_shot.py: merged_citations[:3]
	ChunkCap         = 5 // CoF/2_chunk_level_citation.py: stops at 5 chunks
)

// Resolve turns the model's citations into spans and reports, as
// user-facing sentences, every citation it dropped or changed.
//
// It follows get_citations in THUDM/LongCite's
// LongBench-Cite/pred_one_shot.py: a range that starts beyond the last
// number or ends before it starts is dropped, an end beyond the last
// number is clamped, a range adjoining the previous one merges into it, and
// the cap applies after merging. Beyond the reference: numbers not shown to
// the model (a sparse numbering's gaps, chunk 0) are dropped with a
// warning; a range overlapping the previous one also merges (a duplicate
// would otherwise count twice); and a range running over a document
// boundary becomes one span per document.
func (n *Numbering) Resolve(refs []Ref, opt ResolveOptions) ([]Span, []string) {
	var spans []Span
	var warns []string
	if len(n.blocks) == 0 {
		for _, r := range refs {
			warns = append(warns, fmt.Sprintf("citation %s dropped: nothing was numbered for the model to cite", r))
		}
		return spans, warns
	}
	lo, hi := n.blocks[0].num, n.blocks[len(n.blocks)-1].end()
	for _, r := range refs {
		a, b := r.First, r.Last
		switch {
		case b < a:
			warns = append(warns, fmt.Sprintf("citation %s dropped: the range ends before it starts", r))
			continue
		case a > hi || b < lo:
			warns = append(warns, fmt.Sprintf("citation %s dropped: %s", r, n.validRange()))
			continue
		}
		if b > hi {
			warns = append(warns, fmt.Sprintf("citation %s cut to %s: %s", r, Ref{a, hi}, n.validRange()))
			b = hi
		}
		wanted := b - a + 1 // numbers below lo count as not shown
		a = max(a, lo)
		covered := 0
		for i := n.blockAt(a); i < len(n.blocks) && n.blocks[i].num <= b; i++ {
			blk := n.blocks[i]
			x, y := max(a, blk.num), min(b, blk.end())
			covered += y - x + 1
			first, last := blk.first+x-blk.num, blk.first+y-blk.num
			if n.mode == ChunkMode {
				first, last = blk.first, blk.last
			}
			spans = n.merge(spans, blk.doc, first, last)
		}
		switch {
		case covered == 0:
			warns = append(warns, fmt.Sprintf("citation %s dropped: no %s in it was shown to the model", r, n.unitName()))
		case covered < wanted:
			k := wanted - covered
			warns = append(warns, fmt.Sprintf("citation %s: %d of its %s not shown to the model and left out",
				r, k, humanize.Noun(k, n.unitName()+" was", n.unitName()+"s were")))
		}
	}
	if opt.MaxCitations > 0 && len(spans) > opt.MaxCitations {
		k := len(spans) - opt.MaxCitations
		warns = append(warns, fmt.Sprintf("%d more %s dropped: at most %d are kept per statement",
			k, humanize.Noun(k, "citation", "citations"), opt.MaxCitations))
		spans = spans[:opt.MaxCitations]
	}
	return spans, warns
}

// merge appends sentences first..last of docs[d] to spans, extending the
// last span when the new range adjoins or overlaps it going forward.
func (n *Numbering) merge(spans []Span, d, first, last int) []Span {
	doc := n.docs[d]
	if k := len(spans) - 1; k >= 0 {
		s := &spans[k]
		if s.Doc == doc.ID && first >= s.First && first <= s.Last+1 {
			if last > s.Last {
				s.Last = last
				s.End = int(doc.Sentences[last].End)
				s.Text = doc.Text[s.Start:s.End]
			}
			return spans
		}
	}
	return append(spans, SpanOf(doc, first, last))
}

// SpanOf returns the span of sentences first..last of doc. The caller
// guarantees 0 <= first <= last < len(doc.Sentences).
func SpanOf(doc *docstore.Document, first, last int) Span {
	return SpanOfView(docstore.ViewOf(doc), first, last)
}

// SpanOfView is SpanOf of a document read as needed (docstore.View).
func SpanOfView(doc *docstore.View, first, last int) Span {
	s, e := int(doc.Sentence(first).Start), int(doc.Sentence(last).End)
	page := int(doc.Sentence(first).Page)
	if page == 0 {
		page = doc.PageOf(s)
	}
	info := doc.Info()
	return Span{
		Doc: info.ID, DocName: doc.DisplayName(),
		First: first, Last: last,
		Start: s, End: e, Page: page, Printed: info.PrintedPage(page),
		Heading: doc.HeadingTrail(first),
		Text:    doc.Slice(s, e),
		OCR:     info.IsOCRPage(page),
	}
}

// Statement resolves a parsed statement into a Statement with its spans
// and warnings (support is left for Verify).
func (n *Numbering) Statement(raw RawStatement, opt ResolveOptions) Statement {
	st := Statement{Text: raw.Text, Citations: []Span{}}
	for _, g := range raw.Garbled {
		st.Warnings = append(st.Warnings, fmt.Sprintf("citation %q ignored: it is not a %s number or range", g, n.unitName()))
	}
	spans, warns := n.Resolve(raw.Refs, opt)
	if spans != nil {
		st.Citations = spans
	}
	st.Warnings = append(st.Warnings, warns...)
	return st
}

func (n *Numbering) unitName() string {
	if n.mode == ChunkMode {
		return "snippet"
	}
	return "sentence"
}

func (n *Numbering) validRange() string {
	lo, hi := n.blocks[0].num, n.blocks[len(n.blocks)-1].end()
	if n.count < hi-lo+1 {
		return fmt.Sprintf("the %ss shown to the model run from %d to %d", n.unitName(), lo, hi)
	}
	return fmt.Sprintf("the %ss are numbered %d to %d", n.unitName(), lo, hi)
}

// String writes a citation the way the model does: "[3]" or "[3-5]".
func (r Ref) String() string {
	if r.First == r.Last {
		return fmt.Sprintf("[%d]", r.First)
	}
	return fmt.Sprintf("[%d-%d]", r.First, r.Last)
}
