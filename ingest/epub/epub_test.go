package epub

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/textbuild"
	"github.com/citelens/citelens/ingest/zipread"
)

// keepers is a two-chapter book: the first chapter's h1 repeats its
// table-of-contents title, the second has no heading at all.
func keepers() []byte {
	return doctest.EPUB("The Lighthouse Keepers",
		doctest.Chapter{Title: "Chapter 1: The Rock", Body: `<h1>Chapter 1: The Rock</h1><p>The lighthouse stood on a rock <a id="n1"/>eleven miles out.</p><h2>Arrival</h2><p>Keepers arrived by boat every fortnight.</p>`},
		doctest.Chapter{Title: "Chapter 2: Storms", Body: `<div/><p class="first">In the winter of 1896 the keepers were cut off for nine weeks.</p><table><tr><th>Year</th><th>Weeks cut off</th></tr><tr><td>1896</td><td>9</td></tr></table>`},
	)
}

func spanText(res *textbuild.Result, s structure.Span) string { return res.Text[s.Start:s.End] }

func TestTwoChapters(t *testing.T) {
	t.Parallel()
	res, err := Extract(keepers())
	if err != nil {
		t.Fatal(err)
	}
	doctest.CheckResult(t, res)
	ch2 := "Chapter 2: Storms\n\nIn the winter of 1896 the keepers were cut off for nine weeks.\n\nYear  Weeks cut off\n1896  9"
	want := "Chapter 1: The Rock\n\nThe lighthouse stood on a rock eleven miles out.\n\nArrival\n\nKeepers arrived by boat every fortnight.\n\n" + ch2
	if res.Text != want {
		t.Errorf("text\n%q\nwant\n%q", res.Text, want)
	}
	if res.Title != "The Lighthouse Keepers" || len(res.Warnings) != 0 {
		t.Errorf("title %q, warnings %v", res.Title, res.Warnings)
	}
	// One page per chapter, in spine order (the archive has them the
	// other way round).
	if len(res.PageStarts) != 2 || res.PageStarts[0] != 0 || res.Text[res.PageStarts[1]:] != ch2 {
		t.Errorf("page starts %v", res.PageStarts)
	}
	if got := doctest.Outline(res); got != "1 Chapter 1: The Rock | 2 Arrival | 1 Chapter 2: Storms" {
		t.Errorf("headings %s", got)
	}
	if len(res.Tables) != 1 || len(res.Tables[0].Header) != 1 || spanText(res, res.Tables[0].Rows[0]) != "1896  9" {
		t.Errorf("tables %+v", res.Tables)
	}
}

func TestChapterTitleShiftsItsHeadings(t *testing.T) {
	t.Parallel()
	book := doctest.EPUB("B", doctest.Chapter{Title: "Part One", Body: `<h1>Loomings</h1><p>Call me Ishmael.</p><h2>Later</h2><p>Text.</p>`})
	res, err := Extract(book)
	if err != nil {
		t.Fatal(err)
	}
	if got := doctest.Outline(res); got != "1 Part One | 2 Loomings | 3 Later" {
		t.Errorf("headings %s", got)
	}
}

func TestBadBooks(t *testing.T) {
	t.Parallel()
	good := keepers()
	drm := []byte(`<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/text/part01.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`)
	fonts := []byte(`<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/fonts/a.otf"/></enc:CipherData></enc:EncryptedData></encryption>`)
	for _, c := range []struct {
		name    string
		book    []byte
		mention string
	}{
		{"not a zip", []byte("hello"), "not an EPUB file"},
		{"no container", doctest.Rezip(good, map[string][]byte{"META-INF/container.xml": nil}), "no META-INF/container.xml"},
		{"broken package", doctest.Rezip(good, map[string][]byte{"OEBPS/content.opf": []byte("<package><manifest>")}), "malformed"},
		{"DRM", doctest.Rezip(good, map[string][]byte{"META-INF/encryption.xml": drm}), "DRM"},
	} {
		if _, err := Extract(c.book); err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, err, c.mention)
		}
	}
	// Obfuscated fonts are no DRM; a missing chapter costs that chapter.
	res, err := Extract(doctest.Rezip(good, map[string][]byte{"META-INF/encryption.xml": fonts, "OEBPS/text/part02.xhtml": nil}))
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "part02.xhtml") || !strings.HasPrefix(res.Text, "Chapter 2") {
		t.Errorf("missing chapter: %v %+v", err, res)
	}
	// Without a navigation document the NCX names the chapters.
	res, err = Extract(doctest.Rezip(good, map[string][]byte{"OEBPS/nav.xhtml": []byte("<html><body><p>no nav</p></body></html>")}))
	if err != nil || !strings.Contains(res.Text, "Chapter 2: Storms\n\nIn the winter") {
		t.Errorf("NCX titles: %v %+v", err, res)
	}
}

// tiny is a book of one short chapter, its package as small as one can
// be (doctest.TinyZip): the fuzzers' seed and frame.
func tiny() []byte {
	return doctest.TinyZip(
		[2]string{"META-INF/container.xml", `<container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`},
		[2]string{"p.opf", `<package><metadata><title>T</title></metadata><manifest><item id="a" href="c.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>`},
		[2]string{"c.xhtml", `<h1>C</h1><p>A <a id="n"/>word.</p><table><tr><td>1</td></tr></table>`},
	)
}

func FuzzExtract(f *testing.F) {
	f.Add(tiny())
	doctest.Fuzz(f, Extract)
}

// FuzzPackage fuzzes the package document inside a valid book, where a
// fuzzer mutating the zip would rarely reach.
func FuzzPackage(f *testing.F) {
	f.Add([]byte(`<package><metadata><title>T</title></metadata><manifest><item id="a" href="c.xhtml%20#x" media-type="application/xhtml+xml"/><item id="n" href="nav.xhtml" properties="nav"/></manifest><spine toc="a"><itemref idref="a"/><itemref idref="a"/><itemref idref="zz"/></spine></package>`))
	book := tiny()
	doctest.Fuzz(f, func(opf []byte) (*textbuild.Result, error) {
		return Extract(doctest.Rezip(book, map[string][]byte{"p.opf": opf}))
	})
}

func BenchmarkExtract1MB(b *testing.B) {
	book := doctest.LargeEPUB(1 << 20)
	for b.Loop() {
		if _, err := Extract(book); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAmplifiedSpine: a book whose spine lists one 1 MB chapter 20,000
// times (or whose manifest names that file under 20,000 ids) is refused
// before a chapter is read, the message naming the repeated chapter.
func TestAmplifiedSpine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("<p>A paragraph of the only chapter, read again and again.</p>", 1<<20/60)
	book := doctest.EPUB("Amplified", doctest.Chapter{Title: "One", Body: big})
	var spine, manifest, ids strings.Builder
	for i := range 20_000 {
		spine.WriteString(`<itemref idref="ch1"/>`)
		fmt.Fprintf(&manifest, `<item id="x%d" href="text/part01.xhtml" media-type="application/xhtml+xml"/>`, i)
		fmt.Fprintf(&ids, `<itemref idref="x%d"/>`, i)
	}
	opf := func(manifestItems, spineItems string) []byte {
		return []byte(`<package><metadata><title>Amplified</title></metadata><manifest><item id="ch1" href="text/part01.xhtml" media-type="application/xhtml+xml"/>` +
			manifestItems + `</manifest><spine>` + spineItems + `</spine></package>`)
	}
	for name, p := range map[string][]byte{
		"spine":    opf("", spine.String()),
		"manifest": opf(manifest.String(), ids.String()),
	} {
		_, err := Extract(doctest.Rezip(book, map[string][]byte{"OEBPS/content.opf": p}))
		if !errors.Is(err, zipread.ErrTooLarge) || !strings.Contains(err.Error(), "lists text/part01.xhtml 20,000 times") && !strings.Contains(err.Error(), "lists OEBPS/text/part01.xhtml 20,000 times") {
			t.Errorf("%s amplification: %v", name, err)
		}
	}
	// A chapter listed twice is read twice, as the spine says.
	res, err := Extract(doctest.Rezip(book, map[string][]byte{"OEBPS/content.opf": opf("", `<itemref idref="ch1"/><itemref idref="ch1"/>`)}))
	if err != nil || len(res.PageStarts) != 2 {
		t.Errorf("a chapter listed twice: %v", err)
	}
}

// TestDeeplyNestedChapter: a chapter of 300,000 nested divs (a few KB
// packed) is refused before its tree is built, the other chapters read.
func TestDeeplyNestedChapter(t *testing.T) {
	t.Parallel()
	book := doctest.EPUB("Deep",
		doctest.Chapter{Title: "Deep", Body: strings.Repeat("<div>", 300_000)},
		doctest.Chapter{Title: "Fine", Body: "<p>A chapter that reads.</p>"})
	res, err := Extract(book)
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "nest more than") || !strings.Contains(res.Text, "A chapter that reads.") {
		t.Errorf("deep chapter: %v %+v", err, res)
	}
}
