// Package pdftext extracts the text of a PDF with its layout: words from
// glyph gaps, lines, paragraphs, reading order, and the page of every byte.
//
// It builds on github.com/ledongthuc/pdf for the file structure and its
// content-stream interpreter (pdf.Interpret), and does the rest itself:
// fonts are decoded once per document (encodings, /Differences through the
// Adobe Glyph List, /ToUnicode CMaps, CID fonts, widths), text-showing
// operators place glyphs, and a layout pass turns glyphs into words, lines,
// blocks and paragraphs in reading order, dropping running headers,
// footers and page numbers. A page's footnotes are kept, as paragraphs of
// their own out of the way of a sentence that runs on to the next page
// (footnotes.go).
//
// It reaches the library only through package pdffile, which opens files
// with the library's known faults worked around (what would make it
// allocate without bound, loop or recurse forever; damaged
// cross-reference tables; AES-256) and says what it reports in a
// reader's words. Pages are interpreted in parallel.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/pdftext/pdffile"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// Result is the extracted text of a PDF.
type Result struct {
	// Text is valid UTF-8 with no control characters but "\n". Lines of a
	// paragraph are joined by spaces, paragraphs separated by a blank line;
	// code and other hard line breaks are single newlines.
	Text string
	// PageStarts[i] is the byte offset in Text where page i+1 begins.
	PageStarts []int32
	Pages      int
	Title      string // from the document info dictionary, if any
	// PageLabels are the pages' own labels (roman front matter, offsets),
	// from the catalog's /PageLabels; nil when the file has none or they
	// are the page numbers.
	PageLabels []PageLabel
	// Warnings are problems that cost some text (a damaged page, a limit
	// reached), one sentence each.
	Warnings []string
	// Headings are the section headings in Text, in text order, none
	// overlapping. Each Span covers the heading's line exactly, without
	// the newline after it; a heading set on up to three lines of the
	// page is one line of Text, which stands apart: a blank line before
	// and after it. Level is 1 for the top level: the outline depth
	// where the outline names the heading, otherwise the rank of its type
	// (larger first, bold before regular at one size), fitted to the
	// outline's levels when the document has one. Source is
	// structure.SourceOutline or structure.SourceStyle.
	Headings []structure.Heading
	// Tables are the tables found from the page geometry, in text order.
	// Each row is one line of Text (Span without the newline), its cells
	// in reading order, at least two spaces apart and padded to their
	// columns; a row's wrapped cell lines are joined into it. Header holds
	// the leading rows that are column headings, Rows the others; Caption
	// is a "Table N…" line just above or below, or zero.
	Tables []structure.Table
	// Geometry holds each page's geometry in the pagegeom encoding,
	// offsets into Text: where its line parts and words stand on the
	// page as shown. Every page has one, its size at least.
	Geometry [][]byte
}

// workers is the number of pages interpreted at once.
var workers = runtime.GOMAXPROCS(0)

// Extract reads the PDF in r. progress, if not nil, is called after each
// page with the pages done and the total.
//
// Errors wrap ErrEncrypted, ErrNoText, ErrBudget or ErrMalformed (with the
// reason), or are ctx's error when ctx is done. With ErrNoText the Result
// is returned too, its text empty and every page in EmptyPages, for a
// caller that reads the pages by OCR. Extract never panics.
func Extract(ctx context.Context, r io.ReaderAt, size int64, progress func(done, total int)) (res *Result, err error) {
	defer func() {
		// pdffile and extract recover the library's panics themselves;
		// this is for what they miss
		if x := recover(); x != nil {
			res, err = nil, pdffile.Fault(x)
		}
	}()
	var failed int
	f, err := pdffile.Open(ctx, r, size)
	if err == nil {
		res, failed, err = extract(ctx, f, progress)
	}
	// A file the library cannot open, or some of whose pages fail, may
	// only have a damaged cross-reference table: rebuild it and try again.
	if ctx.Err() == nil && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrBudget) && (err != nil || failed > 0) {
		if f2, rerr := pdffile.Rebuild(ctx, r, size); rerr == nil {
			res2, failed2, err2 := extract(ctx, f2, progress)
			if err2 == nil && (err != nil || failed2 < failed) {
				return res2, nil
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, err
}

// ExtractBytes is Extract of a PDF held in memory, which is read in place
// rather than copied.
func ExtractBytes(ctx context.Context, data []byte, progress func(done, total int)) (*Result, error) {
	return Extract(ctx, pdffile.Bytes(data), int64(len(data)), progress)
}

// extract reads the document once; damaged counts the pages where an
// object could not be loaded, a sign of a damaged cross-reference table.
func extract(ctx context.Context, f *pdffile.File, progress func(done, total int)) (res *Result, damaged int, err error) {
	defer func() {
		if x := recover(); x != nil {
			res, err = nil, f.Fault(x)
		}
	}()
	trailer := f.Trailer()
	res = &Result{Title: cleanTitle(trailer.Key("Info").Key("Title").Text()), Warnings: slices.Clone(f.Warnings)}
	pages, err := walkPages(f)
	if err != nil {
		return nil, 0, err
	}
	res.Pages = len(pages)
	res.PageLabels = pageLabels(trailer.Key("Root").Key("PageLabels"), len(pages))

	work := newDocWork(f.Size())
	work.file = f
	// the outline is read while the pages are laid out, from its own
	// copy of what it needs of them: layoutPages drops each page's
	// dictionaries once it is laid out
	outline := make(chan []*outlineEntry, 1)
	marks := make([]pageRef, len(pages))
	for i, p := range pages {
		marks[i] = pageRef{ref: p.ref, rotate: p.rotate}
	}
	go func() { outline <- readOutline(ctx, trailer, marks) }()
	layouts, err := layoutPages(ctx, pages, work, progress)
	if err != nil {
		return nil, 0, err
	}
	edges := make([][]edgeLine, len(layouts))
	failed, unread, hadText := 0, 0, false
	for i, l := range layouts {
		if i%1024 == 1023 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		hadText = hadText || l.nfrags > 0
		if l.unread {
			unread++
			continue
		}
		edges[i] = l.edges
		if l.warn != "" && len(res.Warnings) < 20 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("page %d: %s", i+1, l.warn))
		}
		if l.failed {
			failed++
		}
		if l.structural {
			damaged++
		}
	}
	unsure := dropRunning(edges, awayFromEdges(edges, func(i int) []string { return layouts[i].away }))
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if hadText && allDropped(layouts) {
		// Every line repeats on other pages' edges: it is the text, not
		// running heads.
		for _, es := range edges {
			for _, e := range es {
				for _, f := range e.frags {
					f.drop = false
				}
			}
		}
		res.Warnings = append(res.Warnings, "every line repeats at the top or bottom of other pages; none was dropped as a running head")
	} else if len(unsure) > 0 {
		res.Warnings = append(res.Warnings, unsureWarning(unsure))
	}
	texts := renderPages(layouts, <-outline) // frees the layouts
	var ends []pageEnd
	res.Text, res.PageStarts, ends = assemble(texts)
	res.Headings, res.Tables = placeStructure(texts, res.PageStarts, ends, res.Text)
	res.Geometry = placeGeometry(texts, res.PageStarts, ends)
	if reason := work.exceeded(); reason != "" {
		first := len(pages) - unread + 1
		if strings.TrimSpace(res.Text) == "" {
			return nil, damaged, fmt.Errorf("%w: %s (a decompression bomb?); no text was found in the %d pages read before citelens stopped", ErrBudget, reason, first-1)
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s (a decompression bomb?); citelens stopped reading, and %d of %d pages were not read", reason, unread, len(pages)))
	}
	if strings.TrimSpace(res.Text) == "" {
		switch {
		case failed > 0 && failed == len(pages):
			return nil, damaged, fmt.Errorf("%w: no page could be read (%s)", ErrMalformed, firstWarning(res.Warnings))
		case failed > 0:
			return nil, damaged, fmt.Errorf("%w: no text could be read; %d of %d pages are damaged (%s)", ErrMalformed, failed, len(pages), firstWarning(res.Warnings))
		}
		return res, damaged, ErrNoText
	}
	return res, damaged, nil
}

// allDropped reports whether every line of every page was dropped as a
// running head, which would leave no text.
func allDropped(layouts []*pageLayout) bool {
	for _, l := range layouts {
		if l.dropped(nil) < l.nfrags {
			return false
		}
	}
	return true
}

// unsureWarning lists the lines dropped as running heads on repetition
// alone, though they are not on every page: the reader can tell a real
// heading among them (and so can a bug report).
func unsureWarning(us []unsureHead) string {
	const named = 5
	var parts []string
	for _, u := range us[:min(len(us), named)] {
		parts = append(parts, fmt.Sprintf("“%s” (%d %s)", textproc.Clip(u.text, 60), u.pages, humanize.Noun(u.pages, "page", "pages")))
	}
	list := strings.Join(parts, ", ")
	if len(us) > named {
		list += fmt.Sprintf(" and %d more", len(us)-named)
	}
	return fmt.Sprintf("dropped %d %s repeated at page edges as running heads, though not on every page: %s",
		len(us), humanize.Noun(len(us), "line", "lines"), list)
}

// firstWarning is the first page warning, for an error that says no text
// could be read.
func firstWarning(ws []string) string {
	if len(ws) == 0 {
		return "no page could be read"
	}
	return strings.TrimSuffix(ws[0], "; some of its text may be missing")
}

// cleanTitle makes the info dictionary's title one line of printable text.
func cleanTitle(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "") {
		c := cleanRune(r)
		if c == " " && (b.Len() == 0 || strings.HasSuffix(b.String(), " ")) {
			continue
		}
		b.WriteString(c)
	}
	return strings.TrimSpace(b.String())
}

// pageRef is a leaf of the page tree with its inherited attributes.
type pageRef struct {
	v      pdf.Value
	res    pdf.Value
	box    []float64
	rotate int
	// contents is the "id gen" of the page's Contents stream ("" for an
	// array or a direct stream), under which the stream cache keeps it.
	contents string
	ref      string // "id gen" of the page object, when known
}

// walkPages lists the pages in order (pdffile.File.Pages).
func walkPages(f *pdffile.File) ([]pageRef, error) {
	ps, err := f.Pages()
	if err != nil {
		return nil, err
	}
	pages := make([]pageRef, len(ps))
	for i, p := range ps {
		pages[i] = pageRef{v: p.V, res: p.Resources, box: shownBox(p.MediaBox, p.CropBox), rotate: p.Rotate, ref: p.Ref}
	}
	return pages, nil
}

// shownBox is the box a viewer shows of a page: its CropBox within its
// MediaBox, the MediaBox without one (nil for neither).
func shownBox(media, crop []float64) []float64 {
	norm := func(b []float64) []float64 {
		if b == nil {
			return nil
		}
		return []float64{min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])}
	}
	media, crop = norm(media), norm(crop)
	if crop == nil || media == nil {
		if crop != nil {
			return crop
		}
		return media
	}
	in := []float64{max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]), min(media[3], crop[3])}
	if in[0] >= in[2] || in[1] >= in[3] {
		return media // a CropBox outside the page: viewers show the MediaBox
	}
	return in
}

// group is the text of one orientation on a page.
type group struct {
	rot   uint8
	frags []frag
}

// pageLayout is a page's text as line fragments, before running headers
// are dropped and blocks formed.
type pageLayout struct {
	groups     []group // the orientation with the most glyphs first
	vmin, vmax float32 // the page box along v in the upright frame
	frame      pageFrame
	// Once packed (pagepack.go): the fragments as bytes, their
	// number, the page's glyphs by type size, and its edge lines.
	packed []byte
	nfrags int
	sizes  map[float32]int32
	edges  []edgeLine
	// away are the cores of the page's short lines away from its edges
	// (awayCores), for telling a running head from a heading.
	away       []string
	warn       string
	failed     bool // no text could be read from the page
	structural bool // an object could not be loaded: the xref may be wrong
	unread     bool // not read: the document's budget was spent
}

// layoutPages interprets the pages on several workers, and drops each
// page's dictionaries (pages[i].v and res) once it is laid out. Each page is read
// independently through the shared Reader, which only reads from its
// io.ReaderAt and keeps no mutable state; fonts are shared through a
// locked cache.
func layoutPages(ctx context.Context, pages []pageRef, work *docWork, progress func(done, total int)) ([]*pageLayout, error) {
	keys := make([]string, len(pages))
	for i := range pages {
		pages[i].contents = pdffile.RefKeys(pages[i].v)["Contents"]
		keys[i] = pages[i].contents
	}
	work.markShared(keys)
	fonts := newFontCache(work)
	out := make([]*pageLayout, len(pages))
	jobs := make(chan int)
	done := make(chan int)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range max(1, min(workers, len(pages))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = layoutPage(ctx, fonts, work, pages[i])
				out[i].pack(i)
				// the page's dictionaries, 2.6 KB a page as the library
				// parses them, are not needed again
				pages[i].v, pages[i].res = pdf.Value{}, pdf.Value{}
				select {
				case done <- i:
				case <-ctx.Done():
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range pages {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	n := 0
	for range done {
		n++
		if progress != nil {
			progress(n, len(pages))
		}
		if n == len(pages) {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		cancel()
		for range done {
		}
		return nil, err
	}
	return out, nil
}

// layoutPage interprets one page and lays out its glyphs into fragments.
// A page that fails part-way keeps the text read before the failure.
func layoutPage(ctx context.Context, fonts *fontCache, work *docWork, p pageRef) (pl *pageLayout) {
	ctm := rotation(p.rotate)
	pl = &pageLayout{frame: frameOf(p.box, ctm, 0)}
	if ctx.Err() != nil {
		return pl
	}
	if work.exceeded() != "" {
		pl.unread = true
		return pl
	}
	pc := &pageContent{ctx: ctx, fonts: fonts, work: work, g: gstate{ctm: ctm, th: 1}, tm: identity, tlm: identity}
	sc := scratches.Get().(*pageScratch)
	pc.glyphs, pc.buf = sc.glyphs[:0], sc.buf[:0]
	defer sc.release(pc)
	func() {
		defer func() {
			if x := recover(); x != nil {
				switch x {
				case errBudget:
					pl.warn = "the page is too large; its text is cut short"
				case errDocBudget:
					pl.unread = len(pc.glyphs) == 0
				case errCanceled:
				default:
					msg, structural := work.pageDamage(x)
					pl.warn = msg + "; some of its text may be missing"
					pl.failed = len(pc.glyphs) == 0
					pl.structural = structural
				}
			}
		}()
		data, err := pageContents(work, p)
		if err == errDocBudget {
			pl.unread = true
			return
		}
		if err != nil && len(data) == 0 {
			pl.warn = fmt.Sprintf("its content cannot be read (%s)", pdffile.Phrase(err))
			pl.failed = true
			return
		}
		pc.run(data, newResCtx(p.res))
	}()
	if len(p.box) == 4 {
		ys := [4]float64{}
		k := 0
		for _, x := range []float64{p.box[0], p.box[2]} {
			for _, y := range []float64{p.box[1], p.box[3]} {
				_, ys[k] = ctm.apply(x, y)
				k++
			}
		}
		lo, hi := ys[0], ys[0]
		for _, y := range ys[1:] {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		pl.vmin, pl.vmax = float32(-hi), float32(-lo)
	}
	// split by orientation, keeping content order
	var count [4]int
	for _, g := range pc.glyphs {
		count[g.rot]++
	}
	rots := []uint8{0, 1, 2, 3}
	for i := 1; i < 4; i++ { // most glyphs first; upright wins ties
		for j := i; j > 0 && count[rots[j]] > count[rots[j-1]]; j-- {
			rots[j], rots[j-1] = rots[j-1], rots[j]
		}
	}
	for _, rot := range rots {
		if count[rot] == 0 {
			continue
		}
		gs := pc.glyphs
		if count[rot] != len(pc.glyphs) {
			gs = make([]glyph, 0, count[rot])
			for _, g := range pc.glyphs {
				if g.rot == rot {
					gs = append(gs, g)
				}
			}
		}
		words := buildWords(gs, pc.buf)
		if len(words) == 0 {
			continue
		}
		pl.groups = append(pl.groups, group{rot: rot, frags: buildFrags(buildRows(words))})
	}
	// Text at other angles (axis labels, margin stamps, a turned table
	// heading) becomes fragments of the main orientation, placed where it
	// stands, so that reading order puts it beside its figure rather than
	// between two pages' sentences.
	if len(pl.groups) > 1 {
		main := &pl.groups[0]
		for _, g := range pl.groups[1:] {
			for i := range g.frags {
				main.frags = append(main.frags, turnFrag(&g.frags[i], g.rot, main.rot))
			}
		}
		pl.groups = pl.groups[:1]
	}
	if len(pl.groups) > 0 {
		pl.frame.rot = pl.groups[0].rot
	}
	return pl
}

// A pageScratch is the glyphs and text bytes of a page being laid out,
// kept for the next page: nothing laid out refers to them (words copy
// their text), and growing them afresh for each page was a fifth of the
// bytes an extraction allocates.
type pageScratch struct {
	glyphs []glyph
	buf    []byte
}

var scratches = sync.Pool{New: func() any { return new(pageScratch) }}

// maxScratchGlyphs bounds the glyphs a kept scratch holds room for (about
// 1 MB): an unusual page's do not stay.
const maxScratchGlyphs = 32 << 10

func (sc *pageScratch) release(pc *pageContent) {
	if cap(pc.glyphs) > maxScratchGlyphs || cap(pc.buf) > 4*maxScratchGlyphs {
		return
	}
	sc.glyphs, sc.buf = pc.glyphs[:0], pc.buf[:0]
	pc.glyphs, pc.buf = nil, nil
	scratches.Put(sc)
}

// toDevice maps a point of an orientation's reading frame to device space;
// fromDevice is its inverse.
func toDevice(rot uint8, u, v float32) (x, y float32) {
	switch rot {
	case 1:
		return v, u
	case 2:
		return -u, v
	case 3:
		return -v, -u
	}
	return u, -v
}

func fromDevice(rot uint8, x, y float32) (u, v float32) {
	switch rot {
	case 1:
		return y, x
	case 2:
		return -x, y
	case 3:
		return -y, -x
	}
	return x, -y
}

// turnFrag re-expresses fragment f of orientation from in the frame of
// orientation to, as one word covering its box.
func turnFrag(f *frag, from, to uint8) frag {
	u0, u1 := float32(1e30), float32(-1e30)
	v0, v1 := float32(1e30), float32(-1e30)
	for _, c := range [4][2]float32{{f.u0, f.top}, {f.u1, f.top}, {f.u0, f.bot}, {f.u1, f.bot}} {
		x, y := toDevice(from, c[0], c[1])
		u, v := fromDevice(to, x, y)
		u0, u1 = min(u0, u), max(u1, u)
		v0, v1 = min(v0, v), max(v1, v)
	}
	w := word{u0: u0, u1: u1, v: v1, size: f.size, text: f.text()}
	for _, x := range f.words {
		w.n += x.n
		w.mono += x.mono
		w.bold += x.bold
	}
	return frag{words: []word{w}, u0: u0, u1: u1, v: v1, size: f.size, top: v0, bot: v1, mono: f.mono, bold: f.bold}
}

// rotation is the matrix that turns a page by its /Rotate (clockwise
// degrees) so that it reads upright.
func rotation(deg int) matrix {
	switch ((deg % 360) + 360) % 360 / 90 {
	case 1:
		return matrix{0, -1, 1, 0, 0, 0}
	case 2:
		return matrix{-1, 0, 0, -1, 0, 0}
	case 3:
		return matrix{0, 1, -1, 0, 0, 0}
	}
	return identity
}

// assemble joins the pages' text, deciding the hyphens at line ends and
// whether a sentence runs on across a page break, and records where each
// page starts and how its text ended up (to place its headings and
// tables).
func assemble(pages []pageText) (string, []int32, []pageEnd) {
	vocab, compounds := vocabulary(pages)
	var b strings.Builder
	starts := make([]int32, len(pages))
	ends := make([]pageEnd, len(pages))
	var prev *pageText
	prevEnd := &pageEnd{}
	for i := range pages {
		p := &pages[i]
		text, cuts := resolveHyphens(p.text, vocab, compounds)
		ends[i].cuts = cuts
		if text == "" {
			starts[i] = int32(b.Len())
			ends[i].end = starts[i]
			continue
		}
		if prev != nil {
			cur := b.String()
			if runsOn(prev, p) {
				if sep, ok := hyphenSep(cur, text); ok {
					if sep == string(hyphenMark) && !keepHyphen(lastWord(cur[:len(cur)-1]), firstWord(text), vocab, compounds) {
						s := strings.TrimSuffix(cur, "-")
						b.Reset()
						b.WriteString(s)
						prevEnd.end = int32(b.Len())
					}
				} else {
					b.WriteByte(' ')
				}
			} else {
				b.WriteString("\n\n")
			}
		}
		starts[i] = int32(b.Len())
		b.WriteString(text)
		ends[i].end = int32(b.Len())
		prev, prevEnd = p, &ends[i]
	}
	return b.String(), starts, ends
}

// vocabulary counts the words of the text (lower case, letters only) and
// the hyphenated compounds written within lines.
func vocabulary(pages []pageText) (map[string]int, map[string]int) {
	vocab := map[string]int{}
	compounds := map[string]int{}
	for _, p := range pages {
		// the tokens between ' ', '\n' and hyphenMark, all ASCII: a scan
		// of bytes, without a slice of tokens for each page
		for s := p.text; s != ""; {
			i := 0
			for i < len(s) && s[i] != ' ' && s[i] != '\n' && s[i] != hyphenMark {
				i++
			}
			tok := s[:i]
			s = s[min(i+1, len(s)):]
			tok = trimQuotes(tok)
			if tok == "" || strings.HasSuffix(tok, "-") {
				continue
			}
			if strings.Contains(tok, "-") {
				if isLetters(strings.ReplaceAll(tok, "-", "")) {
					compounds[strings.ToLower(tok)]++
				}
				continue
			}
			if isLetters(tok) {
				vocab[strings.ToLower(tok)]++
			}
		}
	}
	return vocab, compounds
}

// trimQuotes is strings.Trim(s, ".,;:!?()[]{}\"'“”‘’"), which with
// non-ASCII runes in its set takes its slow path.
func trimQuotes(s string) string {
	quote := func(r rune) bool {
		switch r {
		case '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}', '"', '\'', '“', '”', '‘', '’':
			return true
		}
		return false
	}
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if !quote(r) {
			break
		}
		s = s[n:]
	}
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		if !quote(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !isLetter(r) {
			return false
		}
	}
	return true
}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && (r >= 0xC0 && r != 0xD7 && r != 0xF7) && r < 0x2000
}

// resolveHyphens decides each "-" + hyphenMark: a hyphen that only broke a
// word across lines goes, a compound's hyphen stays. It also returns the
// offsets in s of the bytes it removed, in order.
func resolveHyphens(s string, vocab, compounds map[string]int) (string, []int32) {
	if !strings.ContainsRune(s, hyphenMark) {
		return s, nil
	}
	var b strings.Builder
	var cuts []int32
	off := 0 // offset in the original s of what is left of it
	for {
		i := strings.IndexByte(s, hyphenMark)
		if i < 0 {
			b.WriteString(s)
			break
		}
		before, after := s[:i], s[i+1:]
		if strings.HasSuffix(before, "-") && !keepHyphen(lastWord(before[:len(before)-1]), firstWord(after), vocab, compounds) {
			before = before[:len(before)-1]
			cuts = append(cuts, int32(off+i-1))
		}
		cuts = append(cuts, int32(off+i))
		b.WriteString(before)
		s = after
		off += i + 1
	}
	return b.String(), cuts
}

// keepHyphen reports whether "pre-" at a line end and "suf" on the next
// line form a hyphenated compound rather than one word broken in two.
func keepHyphen(pre, suf string, vocab, compounds map[string]int) bool {
	if pre == "" || suf == "" || strings.Contains(pre, "-") {
		return true
	}
	joined := strings.ToLower(pre + suf)
	comp := strings.ToLower(pre + "-" + suf)
	return compounds[comp] > vocab[joined]
}

// lastWord is the run of letters and hyphens that ends s.
func lastWord(s string) string {
	i := len(s)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !isLetter(r) && r != '-' {
			break
		}
		i -= n
	}
	return s[i:]
}

// firstWord is the run of letters that starts s.
func firstWord(s string) string {
	for i, r := range s {
		if !isLetter(r) {
			return s[:i]
		}
	}
	return s
}
