package htmltext

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipAlways reports whether n holds no readable text on any page:
// scripts, styles, the head, embedded objects, form controls, and what
// the page hides.
func skipAlways(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Title, atom.Svg,
		atom.Iframe, atom.Object, atom.Embed, atom.Canvas, atom.Audio, atom.Video, atom.Map,
		atom.Select, atom.Option, atom.Button, atom.Input, atom.Textarea, atom.Datalist, atom.Dialog:
		return true
	}
	if _, hidden := hasAttr(n, "hidden"); hidden || attr(n, "aria-hidden") == "true" {
		return true
	}
	if st := attr(n, "style"); st != "" {
		st = strings.ReplaceAll(strings.ToLower(st), " ", "")
		if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
			return true
		}
	}
	return false
}

// boilerplateRoles are ARIA roles of the parts around the content.
var boilerplateRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "toolbar": true, "dialog": true, "alertdialog": true,
}

// boilerplateNames are words in class and id attributes that name the
// parts around the content.
var boilerplateNames = map[string]bool{
	"nav": true, "navbar": true, "navigation": true, "menu": true, "sidebar": true, "footer": true,
	"breadcrumb": true, "breadcrumbs": true, "cookie": true, "cookies": true, "consent": true,
	"ad": true, "ads": true, "advert": true, "advertisement": true, "adsbygoogle": true, "sponsor": true,
	"sponsored": true, "promo": true, "share": true, "sharing": true, "social": true, "related": true,
	"recommended": true, "newsletter": true, "subscribe": true, "popup": true, "modal": true,
	"comments": true, "disqus": true, "toolbar": true, "masthead": true, "outbrain": true, "taboola": true,
	"skiplink": true, "banner": true,
}

// boilerplate reports whether n is a part around the content: a nav,
// aside or form, a page header or footer, or an element whose role or
// class names it so.
func boilerplate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Form, atom.Menu:
		return true
	case atom.Header, atom.Footer:
		return !inContent(n)
	case atom.Body, atom.Html, atom.Main, atom.Article:
		return false
	}
	if boilerplateRoles[attr(n, "role")] {
		return true
	}
	for _, key := range []string{"class", "id"} {
		for _, word := range strings.FieldsFunc(strings.ToLower(attr(n, key)), func(r rune) bool {
			return r == ' ' || r == '-' || r == '_' || r == '\t' || r == '\n'
		}) {
			if boilerplateNames[word] && !holdsContent(n) {
				return true
			}
		}
	}
	return false
}

// inContent reports whether a header or footer belongs to an article or
// section rather than to the page.
func inContent(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Article, atom.Main, atom.Section:
			return true
		}
	}
	return false
}

// holdsContent reports whether n contains the page's content (its main,
// an article or a top-level heading), which a class name like
// "has-sidebar" on a wrapper must not throw away.
func holdsContent(n *html.Node) bool {
	for d := range n.Descendants() {
		if d.Type == html.ElementNode {
			switch d.DataAtom {
			case atom.Main, atom.Article, atom.H1:
				return true
			}
		}
	}
	return false
}

// removeIf removes every element under root for which drop is true.
func removeIf(root *html.Node, drop func(*html.Node) bool) {
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && drop(c) {
				n.RemoveChild(c)
			} else {
				stack = append(stack, c)
			}
			c = next
		}
	}
}

// textStats are an element's visible text length and the part of it
// inside links, in bytes of non-space text.
type textStats struct{ text, links int }

// measure computes textStats for every element under root.
func measure(root *html.Node) map[*html.Node]textStats {
	st := map[*html.Node]textStats{}
	var walk func(n *html.Node, inLink bool) textStats
	walk = func(n *html.Node, inLink bool) textStats {
		if n.Type == html.TextNode {
			k := 0
			for i := 0; i < len(n.Data); i++ {
				if c := n.Data[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
					k++
				}
			}
			if inLink {
				return textStats{k, k}
			}
			return textStats{k, 0}
		}
		inLink = inLink || n.DataAtom == atom.A
		var s textStats
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			cs := walk(c, inLink)
			s.text += cs.text
			s.links += cs.links
		}
		if n.Type == html.ElementNode {
			st[n] = s
		}
		return s
	}
	walk(root, false)
	return st
}

// mainContent picks the element holding the page's content: its <main>
// (or role=main), else the <article> with the most text when that is a
// good part of the page, else body.
func mainContent(body *html.Node, st map[*html.Node]textStats) *html.Node {
	total := st[body].text
	var best *html.Node
	for d := range body.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		if (d.DataAtom == atom.Main || attr(d, "role") == "main") && st[d].text > total/4 {
			return d
		}
		if d.DataAtom == atom.Article && (best == nil || st[d].text > st[best].text) {
			best = d
		}
	}
	if best != nil && st[best].text*3 >= total {
		return best
	}
	return body
}

// pruneLinkLists removes the blocks of the content that are mostly links
// with little text of their own: menus, "related" lists, tag clouds.
func pruneLinkLists(root *html.Node, st map[*html.Node]textStats) {
	removeIf(root, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Header, atom.Footer:
		default:
			return false
		}
		s := st[n]
		return s.text > 0 && s.links*2 > s.text && s.text-s.links < 100
	})
}

// maxDepth bounds how deeply elements nest: real pages stay under a few
// hundred, and the walks here recurse.
const maxDepth = 2000

// depth returns how deeply root's nodes nest, without recursing.
func depth(root *html.Node) int {
	type item struct {
		n *html.Node
		d int
	}
	deepest := 0
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.d)
		for c := it.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, item{c, it.d + 1})
		}
	}
	return deepest
}
