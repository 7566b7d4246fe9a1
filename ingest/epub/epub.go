// Package epub extracts the text of an e-book (.epub, EPUB 2 and 3): its
// chapters in spine order, each through the web page extractor, with the
// chapter's title — from the navigation document or NCX table of
// contents, else the chapter's first heading — as a level-1 heading.
//
// Each chapter is one page of the stored text: an e-book has no fixed
// pages (readers reflow it), and a citation's "page" then names the
// chapter. Books whose chapters are encrypted (DRM) are refused.
package epub

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/htmltext"
	"github.com/citelens/citelens/ingest/textbuild"
	"github.com/citelens/citelens/ingest/zipread"
	"github.com/citelens/citelens/internal/humanize"
)

// item is a manifest entry.
type item struct {
	href       string // path in the archive
	mediaType  string
	properties string
}

// book is a parsed package document.
type book struct {
	title string
	items map[string]item // by manifest id
	spine []string        // manifest ids in reading order
	toc   string          // manifest id of the NCX (EPUB 2)
}

// Extract reads an .epub file's text.
func Extract(content []byte) (*textbuild.Result, error) {
	a, err := zipread.Open(content, "EPUB")
	if err != nil {
		return nil, err
	}
	opf, err := rootfile(a)
	if err != nil {
		return nil, err
	}
	data, err := a.Read(opf)
	if err != nil {
		return nil, err
	}
	bk, err := parsePackage(data, path.Dir(opf))
	if err != nil {
		return nil, fmt.Errorf("its package document %s is malformed (%v)", opf, err)
	}
	if len(bk.spine) == 0 {
		return nil, fmt.Errorf("not a readable EPUB: its package document %s lists no chapters", opf)
	}
	if err := checkEncryption(a, bk); err != nil {
		return nil, err
	}
	listed, err := checkSpine(a, bk)
	if err != nil {
		return nil, err
	}
	titles, warn := tocTitles(a, bk)

	var b textbuild.Builder
	for _, id := range bk.spine {
		it, ok := bk.items[id]
		if !ok || strings.Contains(" "+it.properties+" ", " nav ") || !isXHTML(it.mediaType) {
			continue
		}
		data, err := a.Read(it.href)
		if err != nil {
			if errors.Is(err, zipread.ErrTooLarge) {
				if n := listed[it.href]; n > 1 {
					return nil, fmt.Errorf("%w (its spine lists %s %d times, each read again)", err, it.href, n)
				}
				return nil, err
			}
			warn = append(warn, fmt.Sprintf("chapter %s is missing or damaged (%v)", it.href, err))
			continue
		}
		page, err := htmltext.Parse(closeEmptyTags(data))
		if err != nil {
			warn = append(warn, fmt.Sprintf("chapter %s cannot be read (%v)", it.href, err))
			continue
		}
		b.PageBreak()
		writeChapter(&b, page, titles[it.href], bk.title)
	}
	res := b.Result()
	res.Title = bk.title
	res.Warnings = warn
	return res, nil
}

// maxSpine is the most chapter listings a spine may have: no book has
// that many chapters, and each costs a page.
const maxSpine = zipread.MaxEntries

// checkSpine refuses a book whose spine would unpack to more than an
// archive may: the spine may list a chapter many times, and the manifest
// may name one file under many ids, each listing read again, so a small
// file that lists one large chapter 20,000 times would unpack to
// gigabytes. The sizes the zip directory declares are added up before a
// chapter is read (Read still checks the true sizes as it goes). It
// returns how many times each chapter file is listed.
func checkSpine(a *zipread.Archive, bk *book) (map[string]int, error) {
	listed := map[string]int{}
	var total uint64
	n := 0
	for _, id := range bk.spine {
		it, ok := bk.items[id]
		if !ok || strings.Contains(" "+it.properties+" ", " nav ") || !isXHTML(it.mediaType) {
			continue
		}
		size, ok := a.Size(it.href)
		if !ok {
			continue
		}
		n++
		listed[it.href]++
		total += size
	}
	worst := ""
	for href, k := range listed {
		if k > listed[worst] || k == listed[worst] && href < worst {
			worst = href
		}
	}
	switch {
	case n > maxSpine && listed[worst] > 1:
		return nil, fmt.Errorf("its spine lists %s chapters, over the %s citelens reads: it lists %s %s (a crafted file?)",
			humanize.Count(n), humanize.Count(maxSpine), worst, humanize.Plural(listed[worst], "time", "times"))
	case n > maxSpine:
		return nil, fmt.Errorf("its spine lists %s chapters, over the %s citelens reads", humanize.Count(n), humanize.Count(maxSpine))
	case total > zipread.MaxTotalBytes && listed[worst] > 1:
		return nil, tooLarge(fmt.Sprintf("its spine lists %s %s: its %s chapter listings would unpack to %s, over the %s an e-book may unpack to",
			worst, humanize.Plural(listed[worst], "time", "times"), humanize.Count(n),
			humanize.Bytes(int64(min(total, 1<<62))), humanize.Bytes(zipread.MaxTotalBytes)))
	case total > zipread.MaxTotalBytes:
		return nil, tooLarge(fmt.Sprintf("its chapters would unpack to %s, over the %s an e-book may unpack to",
			humanize.Bytes(int64(min(total, 1<<62))), humanize.Bytes(zipread.MaxTotalBytes)))
	}
	return listed, nil
}

// tooLarge is a zipread.ErrTooLarge error whose message names the cause.
type tooLarge string

func (e tooLarge) Error() string        { return string(e) }
func (e tooLarge) Is(target error) bool { return target == zipread.ErrTooLarge }

// writeChapter writes one chapter under its title as a level-1 heading:
// the table of contents' title, or else its first heading, shifting the
// chapter's own headings so they sit under the title.
func writeChapter(b *textbuild.Builder, page *htmltext.Page, tocTitle, bookTitle string) {
	first, firstText := page.FirstHeading()
	shift := 0
	switch {
	case tocTitle != "" && first > 0 && strings.EqualFold(firstText, tocTitle):
		shift = 1 - first // the chapter's own heading is its title
	case tocTitle != "":
		b.Heading(1, structure.SourceMarkup, tocTitle)
		if first > 0 {
			shift = 2 - first
		}
	case first > 0:
		shift = 1 - first
	case page.Title != "" && !strings.EqualFold(page.Title, bookTitle):
		b.Heading(1, structure.SourceMarkup, page.Title)
	}
	page.Write(b, htmltext.Options{Whole: true, HeadingShift: shift})
}

func isXHTML(mediaType string) bool {
	return mediaType == "application/xhtml+xml" || mediaType == "text/html" || mediaType == ""
}

// rootfile returns the package document's path from container.xml.
func rootfile(a *zipread.Archive) (string, error) {
	const container = "META-INF/container.xml"
	if !a.Has(container) {
		return "", fmt.Errorf("not an EPUB: it has no %s", container)
	}
	data, err := a.Read(container)
	if err != nil {
		return "", err
	}
	var c struct {
		Rootfiles []struct {
			Path      string `xml:"full-path,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("its %s is malformed (%v)", container, err)
	}
	for _, r := range c.Rootfiles {
		if r.Path != "" && (r.MediaType == "" || r.MediaType == "application/oebps-package+xml") {
			if !a.Has(r.Path) {
				return "", fmt.Errorf("not a readable EPUB: its package document %s is missing", r.Path)
			}
			return r.Path, nil
		}
	}
	return "", fmt.Errorf("not a readable EPUB: %s names no package document", container)
}

// parsePackage reads the OPF: title, manifest (hrefs resolved against
// dir) and spine.
func parsePackage(data []byte, dir string) (*book, error) {
	var p struct {
		Title    []string `xml:"metadata>title"`
		Manifest []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			MediaType  string `xml:"media-type,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"manifest>item"`
		Spine struct {
			Toc   string `xml:"toc,attr"`
			Items []struct {
				IDRef string `xml:"idref,attr"`
			} `xml:"itemref"`
		} `xml:"spine"`
	}
	if err := xml.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	bk := &book{items: map[string]item{}, toc: p.Spine.Toc}
	for _, t := range p.Title {
		if t = textbuild.Clean(t); t != "" {
			bk.title = t
			break
		}
	}
	for _, m := range p.Manifest {
		bk.items[m.ID] = item{href: resolve(dir, m.Href), mediaType: m.MediaType, properties: m.Properties}
	}
	for _, r := range p.Spine.Items {
		bk.spine = append(bk.spine, r.IDRef)
	}
	return bk, nil
}

// resolve turns an href relative to dir into an archive path, without
// its fragment.
func resolve(dir, href string) string {
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	if href == "" {
		return ""
	}
	return strings.TrimPrefix(path.Join(dir, href), "/")
}

// checkEncryption refuses a book whose chapters are encrypted (DRM). Fonts
// may be obfuscated in any book; that is no obstacle to reading.
func checkEncryption(a *zipread.Archive, bk *book) error {
	const enc = "META-INF/encryption.xml"
	if !a.Has(enc) {
		return nil
	}
	data, err := a.Read(enc)
	if err != nil {
		return err
	}
	var e struct {
		Data []struct {
			Ref struct {
				URI string `xml:"URI,attr"`
			} `xml:"CipherData>CipherReference"`
		} `xml:"EncryptedData"`
	}
	if xml.Unmarshal(data, &e) != nil {
		return nil
	}
	chapters := map[string]bool{}
	for _, id := range bk.spine {
		chapters[bk.items[id].href] = true
	}
	for _, d := range e.Data {
		if chapters[resolve("", d.Ref.URI)] {
			return errors.New("the EPUB is DRM-protected: its chapters are encrypted; citelens can only read books without DRM")
		}
	}
	return nil
}

// tocTitles maps chapter files to their first title in the table of
// contents: the EPUB 3 navigation document, else the EPUB 2 NCX.
func tocTitles(a *zipread.Archive, bk *book) (map[string]string, []string) {
	titles := map[string]string{}
	add := func(href, title string) {
		if title = textbuild.Clean(title); href != "" && title != "" && titles[href] == "" {
			titles[href] = title
		}
	}
	var warn []string
	for _, it := range bk.items {
		if !strings.Contains(" "+it.properties+" ", " nav ") {
			continue
		}
		data, err := a.Read(it.href)
		if err == nil {
			err = navTitles(data, path.Dir(it.href), add)
		}
		if err != nil {
			warn = append(warn, fmt.Sprintf("the table of contents cannot be read (%v); chapter titles come from their headings", err))
		}
		break
	}
	if len(titles) == 0 && bk.toc != "" {
		if it, ok := bk.items[bk.toc]; ok {
			data, err := a.Read(it.href)
			if err == nil {
				err = ncxTitles(data, path.Dir(it.href), add)
			}
			if err != nil {
				warn = append(warn, fmt.Sprintf("the table of contents cannot be read (%v); chapter titles come from their headings", err))
			}
		}
	}
	return titles, warn
}

// navTitles reads the links of an EPUB 3 navigation document's toc nav.
func navTitles(data []byte, dir string, add func(href, title string)) error {
	data = closeEmptyTags(data)
	if err := htmltext.CheckNesting(data); err != nil {
		return err
	}
	root, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return err
	}
	var toc *html.Node
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Nav {
			if toc == nil || attrOf(n, "epub:type") == "toc" {
				toc = n
			}
			if attrOf(n, "epub:type") == "toc" {
				break
			}
		}
	}
	if toc == nil {
		return errors.New("no nav element")
	}
	for n := range toc.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			add(resolve(dir, attrOf(n, "href")), nodeText(n))
		}
	}
	return nil
}

// ncxTitles reads an EPUB 2 NCX's navPoints in document order.
func ncxTitles(data []byte, dir string, add func(href, title string)) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	var label strings.Builder
	inText := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "navPoint":
				label.Reset()
			case "text":
				inText = true
			case "content":
				for _, at := range t.Attr {
					if at.Name.Local == "src" {
						add(resolve(dir, at.Value), label.String())
					}
				}
			}
		case xml.EndElement:
			if t.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				label.Write(t)
			}
		}
	}
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func nodeText(n *html.Node) string {
	var sb strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			sb.WriteString(d.Data)
		}
	}
	return sb.String()
}

// emptyTag matches an XML empty-element tag such as <title/> or
// <a id="p3"/>.
var emptyTag = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9:._-]*)(\s[^<>]*?)?/>`)

// closeEmptyTags rewrites XHTML's empty-element tags of elements that are
// not void in HTML (<title/>, <div/>, <a id="x"/>) as a start and an end
// tag: an HTML parser would read <title/> as an open title swallowing the
// whole chapter.
func closeEmptyTags(b []byte) []byte {
	if !bytes.Contains(b, []byte("/>")) {
		return b
	}
	return emptyTag.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := emptyTag.FindSubmatch(m)
		name := string(sub[1])
		switch strings.ToLower(name) {
		case "br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source", "track", "embed", "param":
			return m
		}
		out := make([]byte, 0, len(m)+len(name)+3)
		out = append(out, '<')
		out = append(out, sub[1]...)
		out = append(out, sub[2]...)
		out = append(out, '>', '<', '/')
		out = append(out, sub[1]...)
		return append(out, '>')
	})
}
