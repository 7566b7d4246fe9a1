package doctest

import (
	"fmt"
	"html"
	"strings"
)

// Chapter is one chapter of an EPUB: the title its table of contents
// gives, and the XHTML of its body.
type Chapter struct {
	Title string
	Body  string
}

// EPUB builds an EPUB 3 book with a navigation document (which also names
// the chapters in an EPUB 2 NCX, as most books do for older readers).
// Chapter files are named so their order in the archive differs from the
// spine's, as it often does in real books.
func EPUB(title string, chapters ...Chapter) []byte {
	var manifest, spine, nav, ncx strings.Builder
	files := [][2]string{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", xmlHead + `<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">` +
			`<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
	}
	for i, c := range chapters {
		name := fmt.Sprintf("text/part%02d.xhtml", len(chapters)-i) // archive order is not reading order
		id := fmt.Sprintf("ch%d", i+1)
		fmt.Fprintf(&manifest, `<item id="%s" href="%s" media-type="application/xhtml+xml"/>`, id, name)
		fmt.Fprintf(&spine, `<itemref idref="%s"/>`, id)
		fmt.Fprintf(&nav, `<li><a href="%s">%s</a></li>`, name, html.EscapeString(c.Title))
		fmt.Fprintf(&ncx, `<navPoint id="np%d" playOrder="%d"><navLabel><text>%s</text></navLabel><content src="%s"/></navPoint>`, i+1, i+1, html.EscapeString(c.Title), name)
		files = append(files, [2]string{"OEBPS/" + name, xmlHead + `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">` +
			`<head><title/><link rel="stylesheet" type="text/css" href="../style.css"/></head><body>` + c.Body + `</body></html>`})
	}
	files = append(files,
		[2]string{"OEBPS/content.opf", xmlHead + `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">` +
			`<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:00000000-0000-4000-8000-000000000000</dc:identifier>` +
			`<dc:title>` + html.EscapeString(title) + `</dc:title><dc:language>en</dc:language></metadata>` +
			`<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>` +
			`<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>` +
			`<item id="css" href="style.css" media-type="text/css"/>` + manifest.String() + `</manifest>` +
			`<spine toc="ncx"><itemref idref="nav" linear="no"/>` + spine.String() + `</spine></package>`},
		[2]string{"OEBPS/nav.xhtml", xmlHead + `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body>` +
			`<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>` + nav.String() + `</ol></nav></body></html>`},
		[2]string{"OEBPS/toc.ncx", xmlHead + `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><docTitle><text>` + html.EscapeString(title) + `</text></docTitle><navMap>` + ncx.String() + `</navMap></ncx>`},
		[2]string{"OEBPS/style.css", "body { margin: 1em; }"},
	)
	return zipFiles(files)
}
