package htmltext

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// treeDepth is how deeply the elements of content nest in the tree
// x/net/html builds, not counting the document node.
func treeDepth(t testing.TB, content []byte) int {
	root, err := html.Parse(bytes.NewReader(content))
	if err != nil && strings.Contains(err.Error(), "open stack of elements exceeds") {
		// Newer x/net/html refuses a page whose open elements pass its
		// own limit: the tree would be at least that deep.
		return parserStackLimit
	}
	if err != nil {
		t.Fatal(err)
	}
	return depth(root) - 1
}

// parserStackLimit is how many open elements golang.org/x/net/html
// (v0.40 and later) lets a page have before Parse refuses it.
const parserStackLimit = 512

// nestingSlack is what the model may lack of the parser's depth: the
// html, head and body elements the parser adds when a page leaves them
// out, and a tbody.
const nestingSlack = 4

// hostileNesting are pages built to nest deeply, in the ways the parser
// closes elements and the ways it keeps them open.
func hostileNesting(n int) map[string]string {
	r := strings.Repeat
	return map[string]string{
		"divs":                r("<div>", n),
		"spans":               r("<span>", n),
		"lists":               r("<ul><li>", n),
		"tables":              r("<table><tr><td>", n),
		"divs in tables":      r("<div><table></div>", n),
		"svg trs":             "<table><tr><td><svg>" + r("<tr>", n),
		"svg title":           "<svg><title>" + r("<div>", n),
		"foreignObject":       r("<div><svg><foreignObject></div>", n),
		"unknown ends":        r("<x-b></x-c>", n),
		"formatting reopened": r("<p><b id=x>x</p>y", n),
		"distinct formatting": func() string {
			var b strings.Builder
			for i := range n {
				b.WriteString("<p><b id=" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + ">x</p>y")
			}
			return b.String()
		}(),
		"selects in cells":  r("<select><table><tr><td>", n),
		"selects in divs":   r("<select><div>", n),
		"math text":         "<math><mi>" + r("<div>", n),
		"annotation":        `<math><annotation-xml encoding="text/html">` + r("<div>", n),
		"nobr":              r("<nobr><div>", n),
		"a in blocks":       r("<a href=x><div>", n),
		"buttons":           r("<button><div>", n),
		"templates":         r("<template><tr><td>", n),
		"headings":          r("<h1><div>", n),
		"options in select": "<select>" + r("<optgroup><option>", n),
		"ruby":              r("<ruby><rt><div>", n),
	}
}

// TestNestingModelIsDeepEnough: on pages built to nest deeply, and on the
// pages of the tests, the model's stack is never shallower than the tree
// x/net/html builds (but for the elements the parser adds itself).
func TestNestingModelIsDeepEnough(t *testing.T) {
	t.Parallel()
	pages := map[string][]byte{}
	for name, p := range hostileNesting(300) {
		pages[name] = []byte(p)
	}
	files, _ := filepath.Glob("../../testdata/formats/*.html")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(f)] = b
	}
	for name, p := range pages {
		model, _ := modelDepth(p, 1<<30)
		if tree := treeDepth(t, p); model+nestingSlack < tree {
			t.Errorf("%s: the model's stack grew to %d, the tree is %d deep", name, model, tree)
		}
	}
}

// TestDeepNestingRefusedBeforeParsing: each hostile page, at 100,000
// levels, is refused by the model (the parser would take minutes), and
// pages that close what they open are not.
func TestDeepNestingRefusedBeforeParsing(t *testing.T) {
	t.Parallel()
	for name, p := range hostileNesting(100_000) {
		if name == "options in select" || name == "buttons" || name == "divs in tables" {
			continue // the parser closes these: they stay shallow
		}
		if err := CheckNesting([]byte(p)); err == nil || !strings.Contains(err.Error(), "nest more than") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, p := range map[string]string{
		"closed divs":          strings.Repeat("<div>x</div>", 100_000),
		"unclosed paragraphs":  strings.Repeat("<p>text", 100_000),
		"unclosed list items":  "<ul>" + strings.Repeat("<li>item", 100_000),
		"unclosed rows":        "<table>" + strings.Repeat("<tr><td>a<td>b", 50_000),
		"unclosed options":     "<select>" + strings.Repeat("<option>o", 100_000),
		"next a closes":        strings.Repeat("<a href=x>link ", 100_000),
		"self-closing in svg":  "<svg>" + strings.Repeat(`<path d="x"/>`, 100_000),
		"definitions":          "<dl>" + strings.Repeat("<dt>term<dd>def", 50_000),
		"sequential tables":    strings.Repeat("<table><tr><td>x</table>", 20_000),
		"select closes select": strings.Repeat("<select><option>a", 20_000),
	} {
		if err := CheckNesting([]byte(p)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzNestingModel: on any page the model's stack grows at least as deep
// as the tree x/net/html builds, so no page slips under the limit.
func FuzzNestingModel(f *testing.F) {
	for _, p := range hostileNesting(20) {
		f.Add([]byte(p))
	}
	f.Add([]byte("<table><tr><td><svg><foreignObject><p><b><i>x</table>y<select><option><svg>"))
	f.Fuzz(func(t *testing.T, page []byte) {
		if len(page) > 4096 {
			return
		}
		model, err := modelDepth(page, 1<<30)
		if tree := treeDepth(t, page); err == nil && model+nestingSlack < tree {
			t.Fatalf("the model's stack grew to %d, the tree is %d deep", model, tree)
		}
	})
}

// tagVocabulary is what FuzzNestingModelTags builds pages from: the
// elements the parser treats specially, and text.
var tagVocabulary = strings.Fields(`html head body p div span li ul ol dl dd dt table caption colgroup col
	tbody thead tfoot tr td th select option optgroup svg math mi mtext annotation-xml foreignObject desc
	title g path a b i font nobr button h1 h2 template script style textarea iframe plaintext xmp noscript
	applet object marquee ruby rt rp rb rtc form input br img hr pre listing frameset x-a x-b
	mglyph malignmark mo noframes noembed frame base meta center em u address details image keygen`)

// FuzzNestingModelTags is FuzzNestingModel over pages made of the tags
// the parser treats specially, two bytes a token, which finds the
// combinations that matter far sooner than random bytes do.
func FuzzNestingModelTags(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Add([]byte{40, 10, 80, 33, 1, 0, 200, 17, 3, 4, 255, 254})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 600 {
			return
		}
		var page strings.Builder
		for i := 0; i+1 < len(data); i += 2 {
			tag := tagVocabulary[int(data[i])%len(tagVocabulary)]
			switch data[i+1] % 5 {
			case 0, 1:
				page.WriteString("<" + tag + ">")
			case 2:
				page.WriteString("</" + tag + ">")
			case 3:
				page.WriteString("<" + tag + "/>")
			case 4:
				attr := []string{` id=x`, ` color=red`, ` encoding="text/html"`, ` type=hidden`, ``}[int(data[i])%5]
				page.WriteString("<" + tag + attr + ">t ")
			}
		}
		p := []byte(page.String())
		model, err := modelDepth(p, 1<<30)
		if tree := treeDepth(t, p); err == nil && model+nestingSlack < tree {
			t.Fatalf("the model's stack grew to %d, the tree is %d deep: %q", model, tree, p)
		}
	})
}

// BenchmarkDeepNesting: how long the model and html.Parse each take to
// refuse 100,000 nested <div>s (500 kB).
func BenchmarkDeepNesting(b *testing.B) {
	page := []byte(strings.Repeat("<div>", 100_000))
	b.Run("CheckNesting", func(b *testing.B) {
		for b.Loop() {
			if CheckNesting(page) == nil {
				b.Fatal("not refused")
			}
		}
	})
	b.Run("Parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(page)); err == nil {
				b.Fatal("not refused")
			}
		}
	})
}
