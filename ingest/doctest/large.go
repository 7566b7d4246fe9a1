package doctest

import (
	"fmt"
	"strings"
)

// LargeHTML repeats the <article> of page, each copy a section of one
// <main>, until the page has n bytes of HTML.
func LargeHTML(page []byte, n int) []byte {
	s := string(page)
	body := s
	if i, j := strings.Index(s, "<article"), strings.Index(s, "</article>"); i >= 0 && j > i {
		body = s[i:j]
	}
	var sb strings.Builder
	sb.WriteString("<html><head><title>Large</title></head><body><nav><a href=/>Home</a></nav><main>")
	for sb.Len() < n {
		sb.WriteString("<section>" + body + "</section>")
	}
	sb.WriteString("</main></body></html>")
	return []byte(sb.String())
}

// LargeDOCX is a Word document with about n bytes of text: sections of a
// heading, two paragraphs (one in three runs), a table and a list item.
func LargeDOCX(n int) []byte {
	d := NewDOCX("Large")
	for i, size := 0, 0; size < n; i++ {
		d.Heading(1, fmt.Sprintf("%d Section", i))
		for _, p := range []string{
			"The wall was built in 1874 and rebuilt in 1952, |when the harbour was |deepened for larger ships and the old quay was taken down stone by stone.",
			"Inspectors found cracks in the parapet and spalling of the coping stones along most of the north arm, and recommended repairs within five years.",
		} {
			d.Para(p)
			size += len(p)
		}
		d.Table([]string{"Section", "Settlement (mm)"}, []string{"North", "12"}, []string{"South", "31"})
		d.Bullet("Cracks in the parapet")
		size += 100
	}
	return d.Bytes()
}

// LargeEPUB is a book of chapters of 200 paragraphs with about n bytes of
// XHTML in all.
func LargeEPUB(n int) []byte {
	para := "<p>The lighthouse stood on a rock eleven miles out, and the keepers arrived by boat every fortnight when the sea allowed it.</p>"
	var chapters []Chapter
	for i, size := 0, 0; size < n; i++ {
		body := fmt.Sprintf("<h1>Chapter %d</h1>", i+1) + strings.Repeat(para, 200)
		chapters = append(chapters, Chapter{Title: fmt.Sprintf("Chapter %d", i+1), Body: body})
		size += len(body)
	}
	return EPUB("Large", chapters...)
}
