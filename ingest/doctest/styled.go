package doctest

import (
	"fmt"
	"strings"
)

// Face is a typeface of a StyledPDF, one of the standard fonts every PDF
// reader has.
type Face uint8

// The faces.
const (
	Regular Face = iota // Helvetica
	Bold                // Helvetica-Bold
	Mono                // Courier
)

// Line is one line of a StyledPage.
type Line struct {
	Text string
	Face Face
	// Size is the type size in points, 10 when 0.
	Size float64
	// Indent is the line's distance from the left margin, in points.
	Indent float64
	// Right is set flush with the right margin on the same baseline: a
	// page number, or a reference topic's title beside its name.
	Right string
	// Gap is space above the line beyond the line pitch, in points: a
	// paragraph break, the space before a heading.
	Gap float64
	// Bookmark, when above 0, puts an outline item of that depth (1 for
	// the top) leading to this line, titled Mark (the line's text when
	// Mark is "").
	Bookmark int
	Mark     string
}

// StyledPage is one US Letter page of a StyledPDF.
type StyledPage struct {
	// Head and Foot are the running head and foot, set at the page's top
	// and bottom edges; none when "". A trailing page number in either
	// is set flush right ("Chapter 4: Databases\t21").
	Head, Foot string
	Lines      []Line
}

// StyledPDF writes pages set in several faces and sizes, with running
// heads and an outline (bookmarks) when lines ask for one: enough of a
// typeset manual to test what is found from type and outline — headings,
// running heads, topics. Widths are estimated (half an em a letter in
// Helvetica), so text set flush right lands near the margin, not on it.
func StyledPDF(pages ...StyledPage) []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("") // the catalog, written last
	add("") // the page tree
	fonts := fmt.Sprintf("<< /F1 %d 0 R /F2 %d 0 R /F3 %d 0 R >>",
		add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"),
		add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"),
		add("<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>"))
	type mark struct {
		level int
		title string
		page  int // index into kids
		top   float64
	}
	var marks []mark
	var kids []string
	for _, p := range pages {
		var sb strings.Builder
		edge := func(text string, y float64) {
			if text == "" {
				return
			}
			left, right, _ := strings.Cut(text, "\t")
			setText(&sb, Regular, 10, marginLeft, y, left)
			if right != "" {
				setText(&sb, Regular, 10, pageW-marginLeft-textWidth(Regular, 10, right), y, right)
			}
		}
		edge(p.Head, pageH-50)
		edge(p.Foot, 40)
		y := float64(firstLine)
		for i, l := range p.Lines {
			size := l.Size
			if size == 0 {
				size = 10
			}
			if i > 0 {
				y -= 1.2 * size
			}
			y -= l.Gap
			setText(&sb, l.Face, size, marginLeft+l.Indent, y, l.Text)
			if l.Right != "" {
				setText(&sb, l.Face, size, pageW-marginLeft-textWidth(l.Face, size, l.Right), y, l.Right)
			}
			if l.Bookmark > 0 {
				title := l.Mark
				if title == "" {
					title = l.Text
				}
				marks = append(marks, mark{level: l.Bookmark, title: title, page: len(kids), top: y + size})
			}
		}
		c := add(stream("", []byte(sb.String())))
		page := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font %s >> /Contents %d 0 R >>", pageW, pageH, fonts, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	if len(marks) > 0 {
		// One object per item, then each item's links to its parent,
		// siblings and children once all are numbered.
		root := add("")
		first := len(objs) + 1
		for range marks {
			add("")
		}
		// each item's links, as object numbers (0: none)
		type links struct{ parent, prev, next, first, last, count int }
		ls := make([]links, len(marks))
		var stack []int            // the open items, outermost first
		lastUnder := map[int]int{} // the last item under each parent
		top := links{}             // the root's first, last and count
		for i, m := range marks {
			for len(stack) > 0 && marks[stack[len(stack)-1]].level >= m.level {
				stack = stack[:len(stack)-1]
			}
			obj := first + i
			ls[i].parent = root
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				ls[i].parent = first + p
				if ls[p].first == 0 {
					ls[p].first = obj
				}
				ls[p].last = obj
				for _, a := range stack {
					ls[a].count++
				}
			} else {
				if top.first == 0 {
					top.first = obj
				}
				top.last = obj
			}
			top.count++
			if sib, ok := lastUnder[ls[i].parent]; ok {
				ls[sib-first].next, ls[i].prev = obj, sib
			}
			lastUnder[ls[i].parent] = obj
			stack = append(stack, i)
		}
		link := func(name string, obj int) string {
			if obj == 0 {
				return ""
			}
			return fmt.Sprintf(" /%s %d 0 R", name, obj)
		}
		for i, m := range marks {
			l := ls[i]
			objs[first+i-1] = fmt.Sprintf("<< /Title (%s) /Parent %d 0 R /Dest [%s /XYZ 0 %g null]%s%s%s%s /Count %d >>",
				pdfString(m.title), l.parent, kids[m.page], m.top,
				link("Prev", l.prev), link("Next", l.next), link("First", l.first), link("Last", l.last), l.count)
		}
		objs[root-1] = fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", top.first, top.last, top.count)
		catalog = fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R /PageMode /UseOutlines >>", root)
	}
	objs[0] = catalog
	return writePDF(objs)
}

// setText shows text in a face and size with its left edge at x on
// baseline y.
func setText(sb *strings.Builder, f Face, size, x, y float64, text string) {
	fmt.Fprintf(sb, "BT /F%d %g Tf %g %g Td (%s) Tj ET\n", int(f)+1, size, x, y, pdfString(text))
}

// textWidth estimates a line's width: Courier's letters are 0.6 em wide,
// Helvetica's about half an em on average.
func textWidth(f Face, size float64, text string) float64 {
	em := 0.5
	if f == Mono {
		em = 0.6
	}
	return em * size * float64(len([]rune(text)))
}
