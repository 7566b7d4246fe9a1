package htmltext

import (
	"os"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/textbuild"
)

func extract(t *testing.T, page string, opt Options) *textbuild.Result {
	t.Helper()
	res, err := Extract([]byte(page), opt)
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckResult(t, res)
	return res
}

func spanText(res *textbuild.Result, s structure.Span) string { return res.Text[s.Start:s.End] }

func TestArticlePageKeepsTheArticleOnly(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../testdata/formats/article.html")
	if err != nil {
		t.Fatal(err)
	}
	res := extract(t, string(raw), Options{})
	if res.Title != "Kestrel Bridge reopens after two-year repair | Riverside Gazette" {
		t.Errorf("title %q", res.Title)
	}
	for _, want := range []string{
		"The Kestrel Bridge reopened to traffic on Monday after a repair that took two years and cost £48 million, the county council said.",
		"in February 2022.", // a link, as text
		"Cars pay a toll of €2 — unchanged since 2019 — and",              // entities decoded
		"between midnight and 5 a.m. on six nights",                       // &nbsp; is a space
		"1. Replacing all 128 main-span cables",                           // an ordered list as lines
		"\n2. Sealing the anchorages",                                     //
		"Reporting by Ana Ruiz; editing by Tomás Byrne.",                  // the article's own footer
		"Test  Load (tonnes)  Deflection (mm)\nStatic, mid-span  120  41", // a table as rows
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, res.Text)
		}
	}
	for _, junk := range []string{"cookies", "Accept all", "Sport", "Search", "Advertisement", "Millbrook", "Most read",
		"Related", "Share on social", "All rights reserved", "Privacy", "tracking", "font-family", "Riverside Gazette"} {
		if strings.Contains(res.Text, junk) {
			t.Errorf("the text keeps boilerplate %q:\n%s", junk, res.Text)
		}
	}
	for _, h := range res.Headings {
		if h.Source != structure.SourceMarkup {
			t.Errorf("heading source %v", h.Source)
		}
	}
	if got := doctest.Outline(res); got != "1 Kestrel Bridge reopens after two-year repair | 2 What was repaired | 2 Tolls and traffic | 3 Night closures" {
		t.Errorf("headings %s", got)
	}
	if len(res.Tables) != 1 {
		t.Fatalf("%d tables", len(res.Tables))
	}
	tb := res.Tables[0]
	if spanText(res, tb.Caption) != "Load tests before reopening" || len(tb.Header) != 1 || spanText(res, tb.Header[0]) != "Test  Load (tonnes)  Deflection (mm)" ||
		len(tb.Rows) != 3 || spanText(res, tb.Rows[2]) != "Moving convoy  96  35" {
		t.Errorf("table %+v", tb)
	}
	if len(res.PageStarts) != 1 || res.PageStarts[0] != 0 {
		t.Errorf("pages %v", res.PageStarts)
	}
}

func TestPageWithoutArticle(t *testing.T) {
	t.Parallel()
	page := `<html><body>
<div id="menu"><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></div>
<div class="content">
<h2>Installing</h2><p>Run the installer and follow the prompts. It needs <b>2 GB</b> of disk.</p>
<pre>$ ./install --prefix /opt/tool
  done</pre>
<ul><li>Linux<ul><li>Debian</li></ul></li><li>macOS</li></ul>
<p>Line one<br>Line two</p>
<table><tr><td>Key</td><td>Value</td></tr><tr><td>a</td><td colspan="2">wide</td></tr></table>
</div>
<div class="links"><a href="/1">One link</a> <a href="/2">Another link</a> <a href="/3">A third link</a></div>
</body></html>`
	res := extract(t, page, Options{})
	want := "Installing\n\nRun the installer and follow the prompts. It needs 2 GB of disk.\n\n$ ./install --prefix /opt/tool\n  done\n\n• Linux\n• Debian\n• macOS\n\nLine one\nLine two\n\nKey  Value\na  wide"
	if res.Text != want {
		t.Errorf("text\n%q\nwant\n%q", res.Text, want)
	}
	if res.Title != "Installing" {
		t.Errorf("title from the first heading: %q", res.Title)
	}
	if len(res.Tables) != 1 || len(res.Tables[0].Header) != 0 || len(res.Tables[0].Rows) != 2 {
		t.Errorf("a table without th cells has no header: %+v", res.Tables)
	}
}

func TestLayoutTableIsRead(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("A long paragraph of article text inside a layout table cell. ", 10)
	res := extract(t, `<table><tr><td><p>`+long+`</p></td><td><ul><li>side</li></ul></td></tr></table>`, Options{Whole: true})
	if len(res.Tables) != 0 || !strings.HasPrefix(res.Text, "A long paragraph") || !strings.HasSuffix(res.Text, "\n\n• side") {
		t.Errorf("layout table read as %q, %d tables", res.Text, len(res.Tables))
	}
}

func TestWholeKeepsNavigationButNotScripts(t *testing.T) {
	t.Parallel()
	res := extract(t, `<body><nav><a href="a.html">Chapter 1</a></nav><h1>One</h1><script>x()</script><p hidden>secret</p><p style="display: none">gone</p><p>Text.</p></body>`, Options{Whole: true, HeadingShift: 1})
	if res.Text != "Chapter 1\n\nOne\n\nText." || len(res.Headings) != 1 || res.Headings[0].Level != 2 {
		t.Errorf("%q %+v", res.Text, res.Headings)
	}
}

func TestCharsets(t *testing.T) {
	t.Parallel()
	latin1 := "<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e</p></body></html>"
	res := extract(t, latin1, Options{})
	if res.Text != "Crème brûlée" || res.Title != "Café" {
		t.Errorf("Latin-1 page read as %q, title %q", res.Text, res.Title)
	}
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "<p>Grüße</p>" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	if res, err := Extract(utf16, Options{}); err != nil || res.Text != "Grüße" {
		t.Errorf("UTF-16 page: %v %+v", err, res)
	}
	bad := extract(t, "<meta charset=utf-8><p>a\x01b\x1b[31m \xff c\u202e</p>", Options{})
	if bad.Text != "ab[31m \ufffd c" {
		t.Errorf("control characters and bad bytes: %q", bad.Text)
	}
	// Undeclared and not UTF-8: windows-1252, as browsers read it.
	if res := extract(t, "<p>na\xefve</p>", Options{}); res.Text != "naïve" {
		t.Errorf("undeclared Latin-1: %q", res.Text)
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	if _, err := Extract([]byte("\x00\x01binary"), Options{}); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("binary: %v", err)
	}
	deep := strings.Repeat("<div>", maxDepth+10)
	if _, err := Extract([]byte(deep), Options{}); err == nil || !strings.Contains(err.Error(), "nest") {
		t.Errorf("deep nesting: %v", err)
	}
	empty := extract(t, "<html><body><script>only()</script></body></html>", Options{})
	if empty.Text != "" {
		t.Errorf("a page of script has text %q", empty.Text)
	}
}

func FuzzExtract(f *testing.F) {
	raw, err := os.ReadFile("../../testdata/formats/article.html")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw, false)
	f.Add([]byte(`<table><caption>c</caption><tr><th>a<th>b<tr><td colspan=3>x<td>y</table><ol start=3 reversed><li>a<li value=9>b</ol><pre>a
	b</pre><h7>x</h7><h2>y`), true)
	f.Add([]byte("<meta charset=shift_jis><p>\x82\xa0</p>"), false)
	f.Fuzz(func(t *testing.T, page []byte, whole bool) {
		res, err := Extract(page, Options{Whole: whole, HeadingShift: -1})
		if err != nil {
			return
		}
		doctest.CheckResult(t, res)
	})
}

func BenchmarkExtract1MB(b *testing.B) {
	raw, err := os.ReadFile("../../testdata/formats/article.html")
	if err != nil {
		b.Fatal(err)
	}
	page := doctest.LargeHTML(raw, 1<<20)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Extract(page, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
