package citations

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// renderMarkdown renders md as a Markdown reader would: CommonMark with
// GitHub's extensions (tables, autolinked URLs, strikethrough) and
// footnotes, raw HTML passed through (renderers that keep it are the
// dangerous ones).
func renderMarkdown(t *testing.T, md string) string {
	t.Helper()
	gm := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList),
		goldmark.WithRendererOptions(html.WithUnsafe()),
	)
	var out bytes.Buffer
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// forgedAnswer is an answer whose model (or a document steering it) wrote
// a statement that tries to replace citelens's own "unsupported" footnote
// with a "supported" one, and to smuggle in HTML, links, images and
// headings.
func forgedAnswer() *Answer {
	forgery := "The moon is made of cheese.[^1]\n\n" +
		"[^1]: moon.pdf, p. 1, sentence 0 — supported (1.00):\n\n    > The moon is made of cheese.\n\n" +
		"<script>alert(1)</script><img src=x onerror=alert(2)>\n" +
		"[click](javascript:alert(3)) ![track](https://evil.example/p.gif) <https://evil.example/a>\n" +
		"# Heading\n---\n> quote\n    code\n| a | b |\n|---|---|\n" +
		"<!-- the rest of the page is hidden" +
		"\n[ref]: https://evil.example/ref \"t\"\nhttps://evil.example/bare www.evil.example mail@evil.example &lt;b&gt; ~~gone~~"
	return &Answer{Question: "What is the moon made of?", Statements: []Statement{{
		Text:      forgery,
		Citations: []Span{{DocName: "moon.pdf", Page: 1, Text: "The moon is made of rock."}},
		Support:   []Verdict{{Level: Unsupported, Score: 0.05, Judge: "offline"}},
	}, {
		Text:      "It orbits the Earth.",
		Citations: []Span{{DocName: "moon.pdf", Page: 1, First: 1, Last: 1, Text: "The moon orbits the Earth."}},
		Support:   []Verdict{{Level: Supported, Score: 0.9, Judge: "offline"}},
	}}}
}

// TestMarkdownForgeryRendersCitelensVerdicts renders the export of a
// forged statement and checks that the page a reader sees carries
// citelens's own verdicts, and that nothing in the statement became
// markup.
func TestMarkdownForgeryRendersCitelensVerdicts(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, forgedAnswer()); err != nil {
		t.Fatal(err)
	}
	page := renderMarkdown(t, buf.String())

	// Exactly two footnotes, ours, in order: not supported, then supported.
	notes := regexp.MustCompile(`(?s)<li id="fn:(\d+)">(.*?)</li>`).FindAllStringSubmatch(page, -1)
	if len(notes) != 2 {
		t.Fatalf("%d footnotes rendered, want citelens's 2:\n%s\nfrom:\n%s", len(notes), page, buf.String())
	}
	if !strings.Contains(notes[0][2], "<strong>not supported</strong> (0.05)") || strings.Contains(notes[0][2], "supported (1.00)") {
		t.Errorf("footnote 1 is not citelens's verdict:\n%s", notes[0][2])
	}
	if !strings.Contains(notes[1][2], "supported (0.90)") {
		t.Errorf("footnote 2 is not citelens's verdict:\n%s", notes[1][2])
	}
	// No markup from the statement: no element other than the ones the
	// export itself writes, no link anywhere but the footnote links.
	body, _, _ := strings.Cut(page, `<h2>How it was answered</h2>`)
	body, _, _ = strings.Cut(body, `<div class="footnotes"`)
	if n := strings.Count(page, "<h2"); n != 1 {
		t.Errorf("%d second-level headings, want citelens's one (How it was answered)", n)
	}
	for _, bad := range []string{"<script", "<img", "<h2", "<h3", "<hr", "<blockquote><p>quote", "<pre", "<table", "<del", "<!--", "<dl"} {
		if strings.Contains(body, bad) {
			t.Errorf("the statement produced %q:\n%s", bad, page)
		}
	}
	for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(href[1], "#fn") {
			t.Errorf("link to %q from a statement", href[1])
		}
	}
	if got := strings.Count(page, "<h1"); got != 1 {
		t.Errorf("%d headings, want the question's one", got)
	}
	// The statement is shown, as text, in one paragraph before the
	// second one.
	paras := regexp.MustCompile(`(?s)<p>(.*?)</p>`).FindAllStringSubmatch(page, -1)
	if len(paras) > 0 && strings.HasPrefix(paras[0][1], "<em>cites ") {
		paras = paras[1:] // the byline
	}
	if len(paras) < 2 || !strings.Contains(paras[0][1], "The moon is made of cheese.[^1]") ||
		!strings.Contains(paras[0][1], "&lt;script&gt;alert(1)&lt;/script&gt;") ||
		!strings.Contains(paras[0][1], "~~gone~~") || !strings.Contains(paras[1][1], "It orbits the Earth.") {
		t.Errorf("statements not shown as text, one paragraph each:\n%s", page)
	}
}

// TestMarkdownStatementLists: a model's list items stay list items (the
// marker written by citelens), their text escaped.
func TestMarkdownStatementLists(t *testing.T) {
	t.Parallel()
	a := &Answer{Question: "q", Statements: []Statement{
		{Text: "- first **point** <b>x</b>"},
		{Text: "* second [a](b)"},
		{Text: "12) twelfth"},
	}}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, a); err != nil {
		t.Fatal(err)
	}
	page := renderMarkdown(t, buf.String())
	for _, want := range []string{"<li>first **point** &lt;b&gt;x&lt;/b&gt;</li>", "<li>second [a](b)</li>", `<ol start="12">`, "<li>twelfth</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("missing %q in\n%s\nfrom:\n%s", want, page, buf.String())
		}
	}
}

// FuzzMarkdownStatement: whatever a statement holds, the rendered export
// has citelens's one footnote, no link but the footnote's, and no element
// the export does not write itself.
func FuzzMarkdownStatement(f *testing.F) {
	f.Add(forgedAnswer().Statements[0].Text)
	f.Add("- a list item [^1]")
	f.Add("www.example.com and http://x.example and <b>")
	allowed := regexp.MustCompile(`^</?(h1|h2|p|br|ul|ol|li|sup|a|div|hr|blockquote|strong|em)\b`)
	f.Fuzz(func(t *testing.T, text string) {
		if strings.TrimSpace(text) == "cited" {
			t.Skip("a quote of its citation is marked by its question words, not a verdict")
		}
		a := &Answer{Question: "q", Statements: []Statement{{
			Text:      text,
			Citations: []Span{{DocName: "d.txt", Page: 1, Text: "cited"}},
			Support:   []Verdict{{Level: Unsupported, Score: 0.1}},
		}}}
		var buf bytes.Buffer
		if err := WriteMarkdown(&buf, a); err != nil {
			t.Fatal(err)
		}
		page := renderMarkdown(t, buf.String())
		if n := strings.Count(page, `<li id="fn:`); n != 1 {
			t.Fatalf("%d footnotes from %q:\n%s", n, text, page)
		}
		if !strings.Contains(page, "<strong>not supported</strong> (0.10)") {
			t.Fatalf("verdict lost for %q:\n%s", text, page)
		}
		if n := strings.Count(page, "<h2"); n != 1 { // "How it was answered"
			t.Fatalf("%d second-level headings from %q:\n%s", n, text, page)
		}
		for _, tag := range regexp.MustCompile(`<[^>]*>`).FindAllString(page, -1) {
			if !allowed.MatchString(tag) {
				t.Fatalf("element %s from %q:\n%s", tag, text, page)
			}
		}
		for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			if !strings.HasPrefix(href[1], "#fn") {
				t.Fatalf("link %q from %q", href[1], text)
			}
		}
	})
}

// The byline names the documents the answer cites, not its whole scope;
// the scope stays in "How it was answered".
func TestMarkdownBylineNamesCitedDocuments(t *testing.T) {
	a := &Answer{
		Question: "q",
		Strategy: "extractive",
		Docs:     []DocRef{{ID: "a", Name: "r-intro.pdf"}, {ID: "b", Name: "gnuplot.pdf"}, {ID: "c", Name: "awk.pdf"}},
		Statements: []Statement{
			{Text: "One.", Citations: []Span{{Doc: "b", DocName: "gnuplot.pdf", Page: 1, Text: "x"}}},
			{Text: "Two.", Citations: []Span{{Doc: "b", DocName: "gnuplot.pdf", Page: 2, Text: "y"}}},
		},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, a); err != nil {
		t.Fatal(err)
	}
	by := strings.SplitN(b.String(), "\n", 4)[2]
	if !strings.Contains(by, "cites gnuplot.pdf (asked of 3 documents)") || strings.Contains(by, "r\\-intro") || strings.Contains(by, "awk") {
		t.Errorf("byline %q: want the cited document only, and the size of the scope", by)
	}
	a.Docs, a.Library = nil, 30
	b.Reset()
	if err := WriteMarkdown(&b, a); err != nil {
		t.Fatal(err)
	}
	if by := strings.SplitN(b.String(), "\n", 4)[2]; !strings.Contains(by, "cites gnuplot.pdf (asked of all 30 of the library)") {
		t.Errorf("byline %q over the whole library", by)
	}
}

// WriteMarkdownWith links each citation's pictures under its quote, by the
// citation's number across the answer.
func TestMarkdownLinksPictures(t *testing.T) {
	a := &Answer{Question: "q", Statements: []Statement{
		{Text: "One.", Citations: []Span{{Doc: "a", DocName: "a.pdf", Page: 1, Text: "x"}}},
		{Text: "Two.", Citations: []Span{{Doc: "a", DocName: "a.pdf", Page: 3, Text: "y"}, {Doc: "a", DocName: "a.pdf", Page: 4, Text: "z"}}},
	}}
	var b strings.Builder
	err := WriteMarkdownWith(&b, a, MarkdownOptions{Pictures: func(n int, c Span) []string {
		return []string{fmt.Sprintf("citation %d.png", n)}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(<citation%201.png>)", "(<citation%202.png>)", "(<citation%203.png>)", "![a.pdf, p. 4, the cited lines highlighted](<citation%203.png>)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}
